import Clients
import LiveStack
import SimKernel

/// Conversations: LiveCommunicationKit actions, Joins, limits and ends.
extension Checker {
  /// An action was completed again, or after its timeout.
  public mutating func observeLateCompletion(
    user: UInt32, action: UInt32, repeated: Bool, fulfilled: Bool, at now: SimInstant
  ) {
    let verb = fulfilled ? "fulfilled" : "failed"
    log.record(
      .actionCompletedOnce, at: now, entities: ["user:\(user)", "action:\(action)"],
      repeated
        ? "user \(user) \(verb) conversation action \(action), which was already completed"
        : "user \(user) \(verb) conversation action \(action) after it had timed out")
  }

  /// A Join for `call` was fulfilled while the server had `user` in `state` (not `accept`).
  public mutating func observeJoinFulfilled(
    user: UInt32, call: UInt32?, accepted: Bool, at now: SimInstant
  ) {
    guard !accepted else { return }
    log.record(
      .joinAfterAccept, at: now,
      entities: ["user:\(user)"] + (call.map { ["call:\($0)"] } ?? []),
      "user \(user) fulfilled a Join before CallStore.accept succeeded"
        + (call.map { " for call \($0)" } ?? " (the conversation has no call)"))
  }

  /// Conversation `uuid` of `user` was still active `grace` after its call ended.
  public mutating func observeConversationAfterCall(
    user: UInt32, uuid: UInt32, call: UInt32, endedAt: SimInstant, at now: SimInstant
  ) {
    log.record(
      .conversationEndedWithCall, at: now,
      entities: ["user:\(user)", "call:\(call)", "conversation:\(uuid)"],
      "user \(user) still shows conversation \(uuid) for call \(call), which ended at \(endedAt)")
  }

  /// After a report, `user` has `active` conversations against a limit of `limit`.
  public mutating func observeConversationCount(user: UInt32, active: Int, limit: Int, at now: SimInstant) {
    guard active > limit else { return }
    log.record(
      .conversationLimits, at: now, entities: ["user:\(user)"],
      "user \(user) has \(active) active conversations; the limit is \(limit)")
  }
}
