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

  /// After a report, `user` shows `active` conversation groups against a limit of `limit`.
  public mutating func observeConversationCount(user: UInt32, active: Int, limit: Int, at now: SimInstant) {
    guard active > limit else { return }
    log.record(
      .conversationLimits, at: now, entities: ["user:\(user)"],
      "user \(user) shows \(active) conversation groups; the limit is \(limit)")
  }

  /// Action `action` of `phone` (a `kind` action) timed out with neither `fulfill()` nor `fail()`.
  /// Exempt: an action delivered while faults acted (it is not held to its bound until the heal).
  public mutating func observeActionTimedOut(
    phone: UInt32, action: UInt32, kind: ConversationActionKind, timeout: SimDuration, at now: SimInstant
  ) {
    guard now.nanoseconds - timeout.nanoseconds >= healAtNs else { return }
    log.record(
      .actionInTime, at: now, entities: ["user:\(phone)", "action:\(action)"],
      "user \(phone) neither fulfilled nor failed its \(kind) action \(action) within \(timeout)")
  }

  /// The grace period after `call` ended for `user` passed: a conversation still bound to it is a
  /// violation. Exempt: a call that ended, or a conversation reported, while faults acted (judged
  /// after the heal by `conversation.ends`: its app may still be recovering from them).
  public mutating func observeGraceAfterCall(
    user: UInt32, call: UInt32, grace: SimDuration, calls: CallService, phones: PhoneSystem, at now: SimInstant
  ) {
    let left = SimInstant(nanoseconds: now.nanoseconds - grace.nanoseconds)
    guard left.nanoseconds >= healAtNs, calls.call(of: user) != call else { return }
    for conv in phones.conversations(of: user, call: call) where conv.reportedAt.nanoseconds >= healAtNs {
      observeConversationAfterCall(
        user: user, uuid: conv.uuid, call: call, endedAt: calls.calls[Int(call)].endedAt ?? left, at: now)
    }
  }
}
