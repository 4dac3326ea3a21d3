import LiveStack
import SimKernel

/// A kind of injected fault, with a stable name.
public enum FaultKind: String, Sendable, CaseIterable, Codable {
  /// Extra latency on the messages of a client and the server.
  case networkDelay = "network.delay"
  /// An SDK request, or its answer, is lost: the SDK gives up after its request timeout (10 s) and
  /// reports -1, whether or not the server carried the request out.
  case networkLoss = "network.loss"
  /// A client cut off from the server: its messages wait until the partition heals (the transport
  /// is reliable, so nothing is lost, only held).
  case networkPartition = "network.partition"
  /// The server takes longer to carry out requests.
  case serverSlowdown = "server.slowdown"
  /// The server refuses requests with a server error (-1), or (`mode: "vanish"`) never hears them
  /// and the SDK gives up after its request timeout; on the push backend, pushes are not sent.
  case serverOutage = "server.outage"
  /// The guest's "accepted/rejected" event is lost (the seat list still tells the truth).
  case seatResponseLost = "seat.response_lost"
  /// The guest's "accepted/rejected" event arrives seconds late.
  case seatResponseLate = "seat.response_late"
  /// An application is refused with -2340 (the package limit) as if the plan were full.
  case seatLimitHit = "seat.limit_hit"
  /// A second host accepts the same application a moment after the first.
  case seatAcceptRace = "seat.accept_race"
  /// An application is rejected by the room's owner as soon as it arrives (a forced rejection).
  case seatRejection = "seat.rejection"
  /// A host or admin leaves the room and enters it again (an app restart, a network switch).
  case hostReenter = "host.reenter"
  /// The server logs the user out because the same user logged in elsewhere.
  case loginKickedOffline = "login.kicked_offline"
  /// The UserSig expires and the server logs the user out.
  case loginExpired = "login.expired"
  /// Opening the microphone is refused (permission denied).
  case micDenied = "device.mic_denied"
  /// The microphone is held by another app.
  case micOccupied = "device.mic_occupied"
  /// Opening the camera is refused (permission denied).
  case cameraDenied = "device.camera_denied"
  /// A VoIP push is dropped on its way.
  case pushDrop = "push.drop"
  /// A VoIP push is delayed by tens of seconds (often past the call's timeout).
  case pushDelay = "push.delay"
  /// A VoIP push is delivered twice.
  case pushDuplicate = "push.duplicate"
  /// The device's VoIP token is invalidated.
  case tokenInvalidated = "token.invalidated"
  /// The phone's app is killed just before a push reaches it.
  case appKilled = "app.killed"
  /// The phone's app is moved to the background just before a call rings it.
  case appBackgrounded = "app.backgrounded"
  /// The caller cancels as the callee's phone starts ringing.
  case callCancelLate = "call.cancel_late"
  /// A co-guest signalling event reaches the client twice (a retransmission the SDK does not
  /// de-duplicate).
  case networkDuplicate = "network.duplicate"
  /// A seated audience member's SDK enters the room again (a network switch the server never saw
  /// as a leave): the server keeps its seat and sends the room afresh.
  case audienceRejoin = "audience.rejoin"
  /// An application or invitation is filed with no timeout (timeout 0), whatever the client asked.
  case seatNoTimeout = "seat.no_timeout"
  /// The SDK reports a call's end to a participant with reason `unknown` (a mis-mapped end reason):
  /// the client must end its call UI all the same.
  case callEndReasonUnknown = "call.end_reason_unknown"
  /// A VoIP push arrives with a malformed payload: no `voip_caller_name`, or an `ext` that is not
  /// JSON. The app must still report it.
  case pushMalformed = "push.malformed_payload"
  /// A server message to a client is overtaken by later messages of other channels (co-guest
  /// signalling, seat lists, calls): the SDK keeps each channel in order, but not one against
  /// another. `channel` picks the class held back.
  case networkReorder = "network.reorder"
  /// The user is logged in on a second device too (multi-device login): a call ringing a phone
  /// user rings there as well, and that device answers or declines it first, 1 to 5 s later
  /// (even odds). This device hears the call end with `otherDeviceAccepted` or `otherDeviceReject`.
  case loginOtherDevice = "login.other_device"
  /// The server ends a connected call (moderation, a billing limit) 10 s to 10 min after it
  /// started: everyone hears `endByServer`.
  case callEndByServer = "call.end_by_server"

  /// Whether the kind acts during windows (on targets) rather than per opportunity.
  public var isWindowed: Bool {
    switch self {
    case .networkDelay, .networkPartition, .serverSlowdown, .serverOutage: return true
    default: return false
    }
  }

  /// The rate swarm mode scales around, and the default of a windowed kind's fraction of users.
  public var typicalRate: Double {
    switch self {
    case .networkDelay, .networkPartition, .serverSlowdown, .serverOutage, .networkLoss: return 0.05
    case .loginKickedOffline, .loginExpired, .tokenInvalidated: return 0.02
    case .seatLimitHit, .seatResponseLost, .seatResponseLate, .seatAcceptRace, .seatRejection, .hostReenter:
      return 0.05
    case .pushDrop, .pushDelay, .pushDuplicate, .appKilled, .appBackgrounded, .callCancelLate: return 0.05
    case .networkDuplicate, .audienceRejoin, .seatNoTimeout, .callEndReasonUnknown: return 0.05
    case .pushMalformed, .networkReorder, .loginOtherDevice: return 0.05
    case .callEndByServer: return 0.02
    case .micDenied, .micOccupied, .cameraDenied: return 0.02
    }
  }

  /// The index of the kind in `allCases` (a switch: this is on hot paths).
  @inlinable
  public var index: Int {
    switch self {
    case .networkDelay: return 0
    case .networkLoss: return 1
    case .networkPartition: return 2
    case .serverSlowdown: return 3
    case .serverOutage: return 4
    case .seatResponseLost: return 5
    case .seatResponseLate: return 6
    case .seatLimitHit: return 7
    case .seatAcceptRace: return 8
    case .seatRejection: return 9
    case .hostReenter: return 10
    case .loginKickedOffline: return 11
    case .loginExpired: return 12
    case .micDenied: return 13
    case .micOccupied: return 14
    case .cameraDenied: return 15
    case .pushDrop: return 16
    case .pushDelay: return 17
    case .pushDuplicate: return 18
    case .tokenInvalidated: return 19
    case .appKilled: return 20
    case .appBackgrounded: return 21
    case .callCancelLate: return 22
    case .networkDuplicate: return 23
    case .audienceRejoin: return 24
    case .seatNoTimeout: return 25
    case .callEndReasonUnknown: return 26
    case .pushMalformed: return 27
    case .networkReorder: return 28
    case .loginOtherDevice: return 29
    case .callEndByServer: return 30
    }
  }
}

/// A role a fault can target.
public enum FaultRole: String, Sendable, CaseIterable {
  /// Viewers.
  case audience
  /// Room owners.
  case owner
  /// Room admins.
  case admin
  /// Phone users.
  case phone
}

/// Who a fault acts on.
public enum FaultTarget: Sendable, Equatable {
  /// Everyone.
  case all
  /// Users with IDs in the range.
  case users(ClosedRange<UInt32>)
  /// Users of the rooms in the range.
  case rooms(ClosedRange<UInt32>)
  /// Users of one role: `audience`, `owner`, `admin` or `phone`.
  case role(FaultRole)
  /// A fraction of users, chosen by a hash of the user ID and the seed.
  case fraction(Ratio)

  /// Parses `all`, `users[3..9]`, `user:17`, `rooms[0..9]`, `room:2`, `role:audience`, `fraction:10%`.
  public static func parse(_ text: String) -> FaultTarget? {
    func range(_ body: Substring) -> ClosedRange<UInt32>? {
      let parts = body.split(separator: ".", omittingEmptySubsequences: true)
      guard parts.count == 2, let a = UInt32(parts[0]), let b = UInt32(parts[1]), a <= b, body.contains("..") else {
        return nil
      }
      return a...b
    }
    if text == "all" { return .all }
    if text.hasPrefix("users[") && text.hasSuffix("]") {
      return range(text.dropFirst(6).dropLast()).map { .users($0) }
    }
    if text.hasPrefix("rooms[") && text.hasSuffix("]") {
      return range(text.dropFirst(6).dropLast()).map { .rooms($0) }
    }
    if text.hasPrefix("user:"), let u = UInt32(text.dropFirst(5)) { return .users(u...u) }
    if text.hasPrefix("room:"), let r = UInt32(text.dropFirst(5)) { return .rooms(r...r) }
    if text.hasPrefix("role:") {
      return FaultRole(rawValue: String(text.dropFirst(5))).map { .role($0) }
    }
    if text.hasPrefix("fraction:"), let r = Ratio.parse(String(text.dropFirst(9))) { return .fraction(r) }
    return nil
  }
}

/// Which way a partition cuts.
public enum FaultDirection: String, Sendable, CaseIterable {
  /// Client to server.
  case up
  /// Server to client.
  case down
  /// Both ways.
  case both
}

/// A class of server-to-client messages with its own ordered channel in the SDK (`network.reorder`).
/// The answer to a request travels on the channel of its store: `applyForSeat`'s on co-guest
/// signalling, `moveUserToSeat`'s on the seat list, `accept`'s on calls.
public enum FaultChannel: String, Sendable, CaseIterable {
  /// Co-guest signalling: applications, invitations, their answers and the applicant lists, and
  /// the answers to `CoGuestStore` calls.
  case signalling
  /// Room seat lists (a guest's own seat changes included), and the answers to `LiveSeatStore` calls.
  case seats
  /// Call signalling, and the answers to `CallStore` calls.
  case calls
  /// Any of them.
  case all

  /// The class's index (0 to 2; `all` is 3).
  public var index: Int {
    switch self {
    case .signalling: return 0
    case .seats: return 1
    case .calls: return 2
    case .all: return 3
    }
  }
}

/// The SDK channel a server message travels on.
extension Notice {
  /// The SDK channel this server message travels on (`nil`: the connection's own, never
  /// reordered).
  public var faultChannel: FaultChannel? {
    switch self {
    case .guest, .host, .applicantRemoved, .inviteeRemoved, .invitationRemoved: return .signalling
    case .seats: return .seats
    case .call: return .calls
    case .liveEnded, .login: return nil
    }
  }
}

extension FaultChannel {
  /// The network's class number of `channel` (0 is the connection's own).
  public static func networkClass(_ channel: FaultChannel?) -> UInt8 { channel.map { UInt8($0.index + 1) } ?? 0 }
}

/// How an outage treats requests.
public enum OutageMode: String, Sendable, CaseIterable {
  /// The server answers -1 at once.
  case fail
  /// Requests vanish: the server never hears them and the SDK reports -1 after its 10 s timeout.
  case vanish
}

/// The server side an outage or slowdown hits.
public enum FaultService: String, Sendable, CaseIterable {
  /// Rooms, seats and co-guest requests.
  case seats
  /// Calls.
  case calls
  /// Login, TUILogin and token upload.
  case login
  /// The push backend (TIMPush): an outage loses pushes, a slowdown delays them.
  case push
  /// Every service.
  case all
}

/// One configured fault: a kind with a rate (per opportunity) or a window (on a target).
public struct FaultEntry: Sendable, Equatable {
  /// The kind.
  public var kind: FaultKind
  /// Probability per opportunity (rate faults), or the share of targeted messages a windowed fault
  /// touches (1 by default).
  public var rate: Ratio
  /// Whether the seed draws the rate (swarm).
  public var swarm: Bool = false
  /// Who it acts on.
  public var target: FaultTarget = .all
  /// When a windowed fault starts (nil: from the start).
  public var at: SimDuration?
  /// How long a window lasts (nil: until the heal).
  public var duration: SimDuration?
  /// The extra latency of a delay or slowdown.
  public var extra: SimDuration = .seconds(2)
  /// For a partition: `up` (client to server), `down`, or `both`.
  public var direction: FaultDirection = .both
  /// For an outage or slowdown: `seats`, `calls`, `login`, `push` or `all`.
  public var service: FaultService = .all
  /// For an outage: requests vanish (the SDK times out) rather than fail at once.
  public var vanish = false
  /// For a reorder: the channel whose messages are held back.
  public var channel: FaultChannel = .all

  /// Creates an entry.
  public init(kind: FaultKind, rate: Ratio) {
    self.kind = kind
    self.rate = rate
  }
}

/// The faults of a run: what the profile lists (or swarm mode draws), and when chaos stops.
public struct FaultPlan: Sendable, Equatable {
  /// The configured entries (stackable: several of one kind combine).
  public var entries: [FaultEntry] = []
  /// `faults: "swarm"`: the seed decides which kinds are on and at what rates.
  public var swarm = false
  /// How long before the end of the run faults stop, so the world heals before liveness is judged
  /// (by default two minutes, or a fifth of a shorter run).
  public var heal: SimDuration = .minutes(2)
  /// Whether the profile set `heal`.
  public var healGiven = false

  /// No faults.
  public init() {}

  /// Outcomes steered toward (`explore`): SDK calls of a kind whose request or answer is lost at
  /// a rate of their own, on the `explore` stream.
  public var steered: [SteeredOutcome] = []

  /// Whether any fault is configured.
  public var isEmpty: Bool { entries.isEmpty && !swarm && steered.isEmpty }

  /// The entries of a swarm: every kind is considered; a third are switched off, the rest get a rate
  /// drawn log-uniformly between a tenth and ten times the kind's typical rate. A pure function of
  /// `rng`'s state.
  public static func swarmEntries(_ rng: inout Xoshiro256, from entries: [FaultEntry]) -> [FaultEntry] {
    var out: [FaultEntry] = []
    let kinds = entries.isEmpty ? FaultKind.allCases : entries.map(\.kind)
    for (i, kind) in kinds.enumerated() {
      let on = rng.next(below: 3) != 0
      let u = Double(rng.next() >> 11) / Double(1 << 53)
      guard on else { continue }
      var e = entries.isEmpty ? FaultEntry(kind: kind, rate: .zero) : entries[i]
      let rate = min(1, kind.typicalRate * PortableMath.exp((u * 2 - 1) * PortableMath.log(10)))
      e.rate = Ratio(UInt64((rate * 1_000_000).rounded()), 1_000_000) ?? .zero
      e.swarm = false
      out.append(e)
    }
    return out
  }
}

/// An outcome chaos steers toward (a profile's `explore` entry, written by `sweep --explore` into
/// each seed's `--set`): calls of one SDK call kind lose their request (the server never hears
/// it) or their answer (the server carries it out, the SDK gives up at its timeout) at `rate`,
/// until the faults heal. It acts apart from `faults`: a run's other decisions are as they would
/// be without it.
public struct SteeredOutcome: Sendable, Equatable {
  /// The SDK call kind, as its raw value (`OperationKind` in the client model).
  public var call: UInt8
  /// What is lost.
  public var loss: Chaos.RequestLoss
  /// The probability per call.
  public var rate: Ratio

  /// An entry.
  public init(call: UInt8, loss: Chaos.RequestLoss, rate: Ratio) {
    self.call = call
    self.loss = loss
    self.rate = rate
  }
}
