import Clients
import LiveStack
import SimKernel

/// What a viewer's UI shows against the server and the phone: an app's UI through its probes (apps
/// that run through the harness), or a built-in viewer's status, which is its UI. Each side is
/// judged in both directions (idle with an application pending or on a seat; applying with none;
/// connected off the seat or with the microphone closed), during the run, whenever the client is
/// quiet. A mismatch is a violation once it has held, without a break, for its settle time:
/// answers in flight, seat lists and device opens settle well within it, so what remains is a UI
/// that no longer tells the user the truth.
extension Checker {
  /// The facts about one probed user at a check.
  public struct UIFacts: Sendable {
    /// The co-guest status the UI shows, if a status probe reads it.
    public var status: CoGuestStatus?
    /// Whether the server holds an application of the user.
    public var pending: Bool
    /// Whether the server has the user on a seat.
    public var seated: Bool
    /// Whether the user's microphone is open.
    public var microphoneOn: Bool
    /// Whether the call screen is up (`nil`: no call-screen probe).
    public var callScreen: Bool?
    /// The user's state in its call, on the server.
    public var callState: CallParticipantState
    /// Whether any capture device of the user is on.
    public var captureOn: Bool = false
    /// Whether the user's latest application could still be waiting for its answer as far as its
    /// app can tell: an answer lost on the way leaves a correct app applying until the
    /// application's timeout and the SDK's request timeout have passed.
    public var answerMayBeLost: Bool = false
    /// The capture devices that are on, named ("microphone", "camera", "microphone and camera").
    /// A static string, so that the facts copy without reference counting.
    public var devices: StaticString = "capture devices"
    /// How a host's or admin's applications list differs from its SDK's ("shows [3, 5] while its
    /// SDK lists [5]"); empty when it does not, or no probe reads it. Judged whether or not the
    /// client is quiet.
    public var applicantsMismatch: String = ""
    /// Whether nothing is on its way to or from the user's client (no message in the network, no
    /// SDK call awaiting its answer). A UI is judged only while its client is quiet: until then
    /// the app may simply not have heard yet.
    public var quiet: Bool = true

    /// Facts.
    @inlinable
    public init(
      status: CoGuestStatus?, pending: Bool, seated: Bool, microphoneOn: Bool, callScreen: Bool?,
      callState: CallParticipantState, captureOn: Bool = false, devices: StaticString = "capture devices",
      quiet: Bool = true, answerMayBeLost: Bool = false
    ) {
      self.devices = devices
      self.answerMayBeLost = answerMayBeLost
      self.captureOn = captureOn
      self.quiet = quiet
      self.status = status
      self.pending = pending
      self.seated = seated
      self.microphoneOn = microphoneOn
      self.callScreen = callScreen
      self.callState = callState
    }
  }

  /// Whether no UI mismatch of `user` is being timed.
  public func uiQuiet(_ user: UInt32) -> Bool { Int(user) >= uiTiming.count || !uiTiming[Int(user)] }

  /// How long a mismatch of `id` may last.
  func settle(_ id: InvariantID) -> SimDuration {
    switch id {
    case .uiIdleWhilePending: return uiIdleSettle
    // Longer than a leave that got no answer waits before it is sent again.
    case .uiIdleMeansOffSeat: return uiSeatSettle
    default: return uiSettle
    }
  }

  /// The UI checks, in the order of their slots in ``uiSince``.
  static let uiChecks: [InvariantID] = [
    .uiIdleWhilePending, .uiConnectedMeansSeated, .uiApplyingMeansPending, .captureOnlyWhileSeated,
    .uiCallScreenMatchesCall, .uiIdleMeansOffSeat, .uiApplicantsMatchSDK,
  ]

  /// Checks `user`'s UI against `facts` at `now`. Returns whether the UI is at peace: no check
  /// could fail on these facts even were the client quiet and every answer in, and no mismatch is
  /// being timed. Until something touches the user, checking it again would find the same.
  @discardableResult
  public mutating func observeUI(user: UInt32, _ facts: UIFacts, at now: SimInstant) -> Bool {
    let status = facts.status
    var raw = SIMD8<Int64>(repeating: 0)
    if status == .idle && facts.pending { raw[0] = 1 }
    if status == .connected && (!facts.seated || !facts.microphoneOn) { raw[1] = 1 }
    if status == .applying && !facts.pending { raw[2] = 1 }
    if facts.captureOn && !facts.seated && facts.callState != .accept { raw[3] = 1 }
    if let screen = facts.callScreen, (screen && facts.callState == .none) || (!screen && facts.callState == .accept) {
      raw[4] = 1
    }
    if status == .idle && facts.seated { raw[5] = 1 }
    if !facts.applicantsMismatch.isEmpty { raw[6] = 1 }
    var mismatch = facts.quiet ? raw : .zero
    // A host's list is held to its own SDK's, which has all the app needs whatever is still on its
    // way: judged busy or quiet (a list one main-queue hop behind catches up at the same instant).
    mismatch[6] = raw[6]
    if facts.answerMayBeLost { mismatch[2] = 0 }
    let u = Int(user)
    // The common case: the UI agrees and agreed (read from one byte a user, not the 64-byte
    // timing record, which would miss the cache for every user checked).
    if mismatch == .zero && (u >= uiTiming.count || !uiTiming[u]) { return raw == .zero }
    uiSince.grow(toInclude: u, filling: .zero)
    uiTiming.grow(toInclude: u, filling: false)
    var since = uiSince[u]
    for i in 0..<Checker.uiChecks.count {
      if mismatch[i] == 0 {
        since[i] = 0
      } else if since[i] == 0 {
        since[i] = now.nanoseconds + 1
      } else if since[i] > 0 && now.nanoseconds + 1 - since[i] >= settle(Checker.uiChecks[i]).nanoseconds {
        since[i] = -1  // reported; again only after the mismatch clears
        recordUI(i, user: user, facts, at: now)
      }
    }
    uiSince[u] = since
    uiTiming[u] = since != .zero
    return raw == .zero && since == .zero
  }

  mutating func recordUI(_ check: Int, user: UInt32, _ facts: UIFacts, at now: SimInstant) {
    let id = Checker.uiChecks[check]
    let text: String
    switch id {
    case .uiIdleWhilePending:
      text = "user \(user)'s UI shows idle while the server holds its application"
    case .uiConnectedMeansSeated:
      text =
        "user \(user)'s UI shows connected while "
        + (facts.seated ? "its microphone is closed" : "the server has it on no seat")
    case .uiApplyingMeansPending:
      text =
        "user \(user)'s UI shows applying while the server holds no application of it"
        + (facts.seated ? " (it is on a seat)" : "")
    case .captureOnlyWhileSeated:
      text = "user \(user) has its \(facts.devices) on while it is on no seat and in no call"
    case .uiIdleMeansOffSeat:
      text = "user \(user)'s UI shows idle while the server has it on a seat"
    case .uiApplicantsMatchSDK:
      text = "user \(user)'s applications list \(facts.applicantsMismatch)"
    default:
      text =
        facts.callScreen == true
        ? "user \(user)'s call screen is up while it is in no call"
        : "user \(user)'s call screen is down while its call is connected"
    }
    let message = text + " for \(settle(id)) or more"
    log.record(id, at: now, entities: ["user:\(user)"], message)
  }
}
