import SimKernel

/// The APNs environment of an app build or a push certificate.
public enum PushEnvironment: String, Sendable, Codable, CaseIterable {
  /// Development builds and sandbox certificates.
  case development
  /// App Store and TestFlight builds, production certificates.
  case production
}

/// What a certificate uploaded in the console can send.
public enum PushCertificateType: String, Sendable, Codable, CaseIterable {
  /// A VoIP certificate: pushes reach PushKit and can ring the system call UI.
  case voip
  /// An ordinary APNs certificate: the backend falls back to an alert, with no call UI.
  case apns
}

/// What is wrong with a malformed VoIP push's payload (`push.malformed_payload`,
/// `calls.push.malformedRate`).
public enum PushMalformation: UInt32, Sendable, CaseIterable {
  /// `voip_caller_name` is missing.
  case noCallerName = 1
  /// `ext` is not JSON, so the media type cannot be read.
  case badExt = 2

  /// The push word (see ``word(call:)``) of a push for `call` with this malformation.
  public func word(call: UInt32) -> UInt32 { call | rawValue << 30 }

  /// The call and malformation of a push word: a call ID with the malformation in its top two bits.
  public static func split(_ word: UInt32) -> (call: UInt32, malformed: PushMalformation?) {
    (word & 0x3FFF_FFFF, PushMalformation(rawValue: word >> 30))
  }
}

/// A certificate uploaded in the console, named by the ID the app passes to `setVOIP`.
public struct PushCertificate: Sendable, Equatable {
  /// The certificate ID.
  public var id: UInt32
  /// The environment it was issued for.
  public var environment: PushEnvironment
  /// VoIP or plain APNs.
  public var type: PushCertificateType

  /// Creates a certificate.
  public init(id: UInt32, environment: PushEnvironment, type: PushCertificateType) {
    self.id = id
    self.environment = environment
    self.type = type
  }
}

/// Why a push to an offline callee reached nobody.
public enum PushLoss: String, Sendable, Codable, CaseIterable {
  /// The app never uploaded a token (certificate ID 0, upload before login, or no token yet).
  case noToken = "no_token"
  /// The uploaded certificate ID is not one in the console.
  case unknownCertificate = "unknown_certificate"
  /// The certificate's environment differs from the app build's: APNs rejects the token.
  case environmentMismatch = "environment_mismatch"
  /// The uploaded token was invalidated on the phone since (APNs answers "unregistered").
  case tokenInvalidated = "token_invalidated"
  /// The phone's OS stopped delivering VoIP pushes to the app after unreported ones.
  case suppressed
  /// Lost in transit (an injected fault).
  case dropped
  /// The push backend was down (an injected outage).
  case outage
  /// The push backend turned it away: its queue was full or a rate limit was reached
  /// (`server.push`).
  case refused
}

/// What the backend does for one offline callee.
public enum PushRoute: Sendable, Equatable {
  /// A VoIP push goes out to PushKit.
  case voip
  /// An ordinary APNs alert goes out (APNs certificate): the phone shows a banner, no call UI.
  case apnsAlert
  /// Nothing arrives.
  case lost(PushLoss)
}

/// How the pushes the backend sends travel to the phones.
public struct PushDelivery: Sendable {
  /// Call server to push backend time.
  public var backendLatency: Distribution
  /// Backend to phone delivery time (APNs).
  public var latency: Distribution
  /// Probability that APNs delivers a push twice.
  public var duplicateRate: Ratio
  /// Probability that a push's payload is malformed.
  public var malformedRate: Ratio

  /// Delivery with the given latencies and rates (by default, instant and clean).
  public init(
    backendLatency: Distribution = .constant(0), latency: Distribution = .constant(0), duplicateRate: Ratio = .zero,
    malformedRate: Ratio = .zero
  ) {
    self.backendLatency = backendLatency
    self.latency = latency
    self.duplicateRate = duplicateRate
    self.malformedRate = malformedRate
  }
}

/// The offline-push backend (TIMPush): which token and certificate each user uploaded with
/// `setVOIP`, and what becomes of a push to that user.
public struct PushBackend: Sendable {
  /// The certificates in the console.
  public let certificates: [PushCertificate]
  /// The environment the app was built for.
  public let appEnvironment: PushEnvironment
  /// The users with a phone, whose uploads are kept in the tables below (and pushes go to phones
  /// only); an upload from anyone else is kept in ``others``.
  let phones: Range<UInt32>
  /// Per phone (by its index in ``phones``): the uploaded certificate ID (0: nothing uploaded).
  var certificate: [UInt32]
  /// Per phone: the uploaded token.
  var token: [UInt16]
  /// What users without a phone uploaded (an app may call `setVOIP` on any device): by user.
  var others: [UInt32: Upload] = [:]
  /// One upload: a certificate ID and a token.
  struct Upload {
    var certificate: UInt32
    var token: UInt16
  }
  /// How pushes travel: latencies, duplicates and malformed payloads.
  public let delivery: PushDelivery
  /// Each phone's `push` stream (by its index in ``phones``; empty for a backend that sends
  /// nothing): the draws for the pushes to that phone.
  var random: [SplitMix64]

  /// A backend for the phones `phones`, none registered, whose pushes travel as `delivery` says,
  /// drawn from `random` (one stream per phone).
  public init(
    certificates: [PushCertificate], appEnvironment: PushEnvironment, phones: Range<UInt32>,
    delivery: PushDelivery = PushDelivery(), random: [SplitMix64] = []
  ) {
    self.certificates = certificates
    self.appEnvironment = appEnvironment
    self.phones = phones
    certificate = [UInt32](table: 0, count: phones.count)
    token = [UInt16](table: 0, count: phones.count)
    self.delivery = delivery
    self.random = random
  }

  /// `user`'s index in the per-phone tables (`user` must be a phone).
  @inline(__always) func phone(_ user: UInt32) -> Int { Int(user - phones.lowerBound) }

  /// How long a push to `user` takes from the call server to the phone: the backend's latency,
  /// then APNs's (drawn from the user's stream).
  public mutating func latency(to user: UInt32) -> SimDuration {
    delivery.backendLatency.sampleDuration(&random[phone(user)]) + delivery.latency.sampleDuration(&random[phone(user)])
  }

  /// Whether the push to `user` arrives malformed (`calls.push.malformedRate`), and how: no
  /// `voip_caller_name` or an `ext` that is not JSON, half each.
  public mutating func malformation(to user: UInt32) -> PushMalformation? {
    guard random[phone(user)].chance(delivery.malformedRate) else { return nil }
    return random[phone(user)].next() & 1 == 0 ? .noCallerName : .badExt
  }

  /// APNs's latency alone, for a second copy of a push to `user`.
  public mutating func copyLatency(to user: UInt32) -> SimDuration {
    delivery.latency.sampleDuration(&random[phone(user)])
  }

  /// Whether APNs delivers the push to `user` twice (`calls.push.duplicateRate`): the second
  /// copy's latency, if so.
  public mutating func duplicate(to user: UInt32) -> SimDuration? {
    guard random[phone(user)].chance(delivery.duplicateRate) else { return nil }
    return copyLatency(to: user)
  }

  /// `setVOIP(certificateID, token)` from `user`: records the pair. A zero certificate or token
  /// records nothing. Returns whether it was recorded.
  @discardableResult
  public mutating func register(user: UInt32, certificateID: UInt32, token: UInt16) -> Bool {
    guard certificateID != 0, token != 0 else { return false }
    if phones.contains(user) {
      certificate[phone(user)] = certificateID
      self.token[phone(user)] = token
    } else {
      others[user] = Upload(certificate: certificateID, token: token)
    }
    return true
  }

  /// The certificate ID `user` uploaded (0: none).
  public func registeredCertificate(of user: UInt32) -> UInt32 {
    phones.contains(user) ? certificate[phone(user)] : others[user]?.certificate ?? 0
  }

  /// The token `user` uploaded (0: none).
  public func registeredToken(of user: UInt32) -> UInt16 {
    phones.contains(user) ? token[phone(user)] : others[user]?.token ?? 0
  }

  /// Where a push to `user` goes, given the token the phone holds now.
  public func route(to user: UInt32, phoneToken: UInt16) -> PushRoute {
    let id = registeredCertificate(of: user)
    guard id != 0 else { return .lost(.noToken) }
    guard let cert = certificates.first(where: { $0.id == id }) else { return .lost(.unknownCertificate) }
    guard cert.environment == appEnvironment else { return .lost(.environmentMismatch) }
    guard registeredToken(of: user) == phoneToken else { return .lost(.tokenInvalidated) }
    return cert.type == .voip ? .voip : .apnsAlert
  }
}
