import Clients
import LiveStack
import SimKernel

/// Calls: one active call per user.
extension Checker {
  /// A call event reached `user`, whose SDK was in `current` (call ID + 1, 0 for none): a call
  /// ringing or starting while the user is in another breaks `call.one-active-per-user`.
  public mutating func observeCallEvent(user: UInt32, call: UInt32, current: UInt32, ends: Bool, at now: SimInstant) {
    guard !ends, current != 0, current != call + 1 else { return }
    log.record(
      .oneActiveCall, at: now, entities: ["user:\(user)", "call:\(call)", "call:\(current - 1)"],
      "call \(call) reached user \(user) while it was in call \(current - 1)")
  }
}
