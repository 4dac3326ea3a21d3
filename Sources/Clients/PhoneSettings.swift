import LiveStack
import SimKernel

/// How phone users' apps move between foreground, background and killed.
public struct AppLifecycle: Sendable {
  /// Time in the foreground before the user leaves the app; `nil`: apps stay in the foreground
  /// (until the system kills one).
  public var foreground: Distribution?
  /// Time away (background or killed) before the user opens the app again.
  public var away: Distribution
  /// Time a suspended background app survives before the system reclaims it.
  public var suspendedLifetime: Distribution
  /// Probability that leaving the app closes it (swipe away) rather than backgrounding it.
  public var closeProbability: Ratio
  /// Time from a launch to the app's code running (cold start).
  public var coldStart: Distribution
  /// Time between cellular calls of a phone's user (`nil`: none); each holds a conversation group.
  public var cellularCallEvery: Distribution? = nil
  /// How long a cellular call lasts.
  public var cellularCallDuration: Distribution = .lognormal(median: 180e9, sigma: 0.6)

  /// A lifecycle with every setting given.
  public init(
    foreground: Distribution?, away: Distribution, suspendedLifetime: Distribution, closeProbability: Ratio,
    coldStart: Distribution, cellularCallEvery: Distribution? = nil,
    cellularCallDuration: Distribution = .lognormal(median: 180e9, sigma: 0.6)
  ) {
    self.foreground = foreground
    self.away = away
    self.suspendedLifetime = suspendedLifetime
    self.closeProbability = closeProbability
    self.coldStart = coldStart
    self.cellularCallEvery = cellularCallEvery
    self.cellularCallDuration = cellularCallDuration
  }
}

/// The offline-push path: the push backend, APNs, PushKit and the device token.
public struct PushSettings: Sendable {
  /// The certificates uploaded in the console.
  public var certificates: [PushCertificate]
  /// The APNs environment the app was built for.
  public var appEnvironment: PushEnvironment
  /// Backend to phone delivery time of a push.
  public var latency: Distribution
  /// Call server to push backend time.
  public var backendLatency: Distribution = .lognormal(median: 30e6, sigma: 0.5)
  /// How long the app has to report a push.
  public var reportDeadline: SimDuration
  /// Missed reports after which the system stops delivering VoIP pushes to the app.
  public var suppressAfter: Int
  /// Time from creating the push registry to PushKit delivering the token.
  public var tokenDelay: Distribution
  /// How long a token lives before the system replaces it (`nil`: forever).
  public var tokenLifetime: Distribution?
  /// Probability that APNs delivers a push twice.
  public var duplicateRate: Ratio = .zero
  /// Probability that a push's payload is malformed (no `voip_caller_name`, or an `ext` that is
  /// not JSON, half each): another backend or an older server version sent it.
  public var malformedRate: Ratio = .zero
  /// Whether the app must have reported a push when its handler finishes (returns, calls its
  /// completion handler, or its `async` method returns), as Apple documents for PushKit; otherwise
  /// only `reportDeadline` counts.
  public var reportBeforeReturn = true

  /// Push settings with every value given.
  public init(
    certificates: [PushCertificate], appEnvironment: PushEnvironment, latency: Distribution,
    backendLatency: Distribution = .lognormal(median: 30e6, sigma: 0.5), reportDeadline: SimDuration,
    suppressAfter: Int, tokenDelay: Distribution, tokenLifetime: Distribution?, duplicateRate: Ratio = .zero
  ) {
    self.certificates = certificates
    self.appEnvironment = appEnvironment
    self.latency = latency
    self.backendLatency = backendLatency
    self.reportDeadline = reportDeadline
    self.suppressAfter = suppressAfter
    self.tokenDelay = tokenDelay
    self.tokenLifetime = tokenLifetime
    self.duplicateRate = duplicateRate
  }
}
