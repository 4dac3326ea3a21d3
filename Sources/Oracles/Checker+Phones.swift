import Clients
import LiveStack
import SimKernel

extension Checker {
  /// What happened on a phone reaches the oracles that judge it: the conversation limits and
  /// actions, the push report deadline, and conversations outliving their calls. `calls` is the
  /// call server, `fleet` the phones.
  public mutating func observe(_ news: PhoneNews, calls: CallService, fleet: PhoneFleet, at now: SimInstant) {
    switch news {
    case .conversationCount(let phone, let active, let limit):
      observeConversationCount(user: phone, active: active, limit: limit, at: now)
    case .actionTimedOut(let phone, let action, let kind, let timeout):
      observeActionTimedOut(phone: phone, action: action, kind: kind, timeout: timeout, at: now)
    case .joinFulfilled(let phone, let call, let accepted):
      observeJoinFulfilled(user: phone, call: call, accepted: accepted, at: now)
    case .lateCompletion(let phone, let action, let repeated, let fulfilled):
      observeLateCompletion(user: phone, action: action, repeated: repeated, fulfilled: fulfilled, at: now)
    case .missedReport(let phone, let call, let handedAt, let noHandler, let returned, _):
      observeMissedReport(
        user: phone, call: call, handedAt: handedAt, noHandler: noHandler, returned: returned, at: now)
    case .reportedByDeadline(let phone, let pushed, let launchedAt, let declined):
      observeReportedPushAtDeadline(
        user: phone, pushed: pushed, deadline: fleet.push.reportDeadline, phones: fleet.os, calls: calls,
        sdkLoggedIn: fleet.runtime.clients[Int(phone)].loggedIn, launchedAtNs: launchedAt.nanoseconds,
        declined: declined, at: now)
    case .graceAfterCall(let phone, let call):
      // A process that started while faults acted and has not logged in since cannot know the
      // call ended: judged once it has, or after the heal (`conversation.ends`).
      let recovering =
        fleet.launchedAt(phone) < healAtNs
        && !(fleet.runtime.clients[Int(phone)].loggedIn && fleet.os.isTUILoggedIn(phone))
      if !recovering {
        observeGraceAfterCall(
          user: phone, call: call, grace: fleet.conversationGrace, calls: calls, phones: fleet.os, at: now)
      }
    case .coldStart, .tokenRotated, .conversationReported, .rang, .actionSettled, .joinDuringColdStart,
      .outgoingStarted, .conversationEnded:
      break
    }
  }
}
