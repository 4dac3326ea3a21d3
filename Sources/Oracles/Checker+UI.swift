import Clients
import LiveStack
import SimKernel

/// What an app's UI shows (through its probes) against the server and the phone, for apps that run
/// through the harness. A mismatch is a violation once it has held, without a break, for
/// ``Checker/uiSettle``: answers in flight, seat lists and device opens settle well within it, so
/// what remains is a UI that no longer tells the user the truth.
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

    /// Facts.
    public init(
      status: CoGuestStatus?, pending: Bool, seated: Bool, microphoneOn: Bool, callScreen: Bool?,
      callState: CallParticipantState, captureOn: Bool = false
    ) {
      self.captureOn = captureOn
      self.status = status
      self.pending = pending
      self.seated = seated
      self.microphoneOn = microphoneOn
      self.callScreen = callScreen
      self.callState = callState
    }
  }

  /// How long a mismatch of `id` may last.
  func settle(_ id: InvariantID) -> SimDuration { id == .uiIdleWhilePending ? uiIdleSettle : uiSettle }

  /// Checks `user`'s UI against `facts` at `now`.
  public mutating func observeUI(user: UInt32, _ facts: UIFacts, at now: SimInstant) {
    var since = uiSince[user] ?? SIMD8<Int64>(repeating: 0)
    let status = facts.status
    let checks: [(Bool, InvariantID, () -> String)] = [
      (
        status == .idle && facts.pending, .uiIdleWhilePending,
        { "user \(user)'s UI shows idle while the server holds its application" }
      ),
      (
        status == .connected && (!facts.seated || !facts.microphoneOn), .uiConnectedMeansSeated,
        {
          "user \(user)'s UI shows connected while "
            + (facts.seated ? "its microphone is closed" : "the server has it on no seat")
        }
      ),
      (
        status == .applying && !facts.pending, .uiApplyingMeansPending,
        {
          "user \(user)'s UI shows applying while the server holds no application of it"
            + (facts.seated ? " (it is on a seat)" : "")
        }
      ),
      (
        facts.captureOn && !facts.seated && facts.callState != .accept, .captureOnlyWhileSeated,
        { "user \(user) has a capture device on while it is on no seat and in no call" }
      ),
      (
        facts.callScreen.map { ($0 && facts.callState == .none) || (!$0 && facts.callState == .accept) } ?? false,
        .uiCallScreenMatchesCall,
        {
          facts.callScreen == true
            ? "user \(user)'s call screen is up while it is in no call"
            : "user \(user)'s call screen is down while its call is connected"
        }
      ),
    ]
    for (i, (mismatch, id, message)) in checks.enumerated() {
      if !mismatch {
        since[i] = 0
      } else if since[i] == 0 {
        since[i] = now.nanoseconds + 1
      } else if since[i] > 0 && now.nanoseconds + 1 - since[i] >= settle(id).nanoseconds {
        let text = message() + " for \(settle(id)) or more"
        log.record(id, at: now, entities: ["user:\(user)"], text)
        since[i] = -1  // reported; again only after the mismatch clears
      }
    }
    uiSince[user] = since
  }
}
