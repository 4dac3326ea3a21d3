import SimKernel

/// The event kinds of the live world. `a` and `b` name the entities in the comment.
public enum LiveEvent: UInt16, CaseIterable, Sendable {
  /// a = user: the client starts (staff, phones and viewers who are all there at time zero); its
  /// behaviour logs in and joins.
  case clientStart = 1
  /// a = room, b = user: the room's next viewer arrives and its app starts, in this one event.
  case arrival
  /// a = operation slot, b = its ``WireTag/request(user:service:entersOrLeavesRoom:)`` (the
  /// caller, the service, entry or exit): an SDK call reaches the server.
  case serverCall
  /// a = operation slot, b = its ``WireTag/reply(user:_:entersRoom:)`` (the caller and the
  /// answer): the answer reaches the client.
  case clientReply
  /// a = operation slot, b = its ``WireTag/reply(user:_:entersRoom:)`` (the caller): the phone
  /// answers a device call.
  case deviceReply
  /// a = notice slot: a server event reaches a client.
  case clientNotice
  /// a = user, b = timer slot: a behaviour's timer fires.
  case clientTimer
  /// a = user: the user taps "apply" (flash crowds).
  case applyIntent
  /// a = request: the request's timeout fires on the server.
  case requestTimeout
  /// a = room: the room starts co-hosting with room a + 1.
  case coHostStart
  /// a = room: the room's co-hosting session ends.
  case coHostEnd
  /// The flash crowd: seats open and a share of every room's viewers apply.
  case flashCrowd
  /// A time-series sample.
  case sample
  /// a = user, b = `LoginEvent` raw value: the server ends the user's login (kicked offline by a
  /// login elsewhere, or the UserSig expired); it leaves its room.
  case loginEnded
  /// a = call: the call's ringing timeout fires on the server.
  case callTimeout
  /// a = phone user, b = lifecycle epoch: the app moves on (the user leaves or opens it, or the
  /// system reclaims it).
  case appLifecycle
  /// a = phone user, b = call: a VoIP push reaches the phone.
  case pushDelivered
  /// a = phone user, b = call + 1 of the waking push (0: the user opened it): a cold start ends and
  /// the app's code runs.
  case appLaunched
  /// a = phone user, b = push serial: the report deadline of a handed push passes.
  case reportDeadline
  /// a = phone user, b = process generation: PushKit delivers the token.
  case tokenIssued
  /// a = phone user, b = conversation UUID: the user taps answer or decline in the system UI.
  case systemTap
  /// a = action: a conversation action's timeout passes.
  case actionTimeout
  /// a = phone user, b = call: the grace period after the call ended passes.
  case conversationCheck
  /// a = phone user: the system replaces the device's VoIP token.
  case tokenRotated
  /// a = phone user, b = 1 to start, 0 to end: a cellular call of the phone's user.
  case cellularCall
  /// a = phone user, b = `ConversationActionKind` raw value: the user starts something in the system
  /// UI (calling back from the call log).
  case systemAction
  /// a = host or admin: its app leaves the room and enters it again (`host.reenter`).
  case hostReenter
  /// a = user: the server has not heard the client's heartbeat in the room for the presence
  /// timeout (its SDK left, but the leave never reached the server): it drops the member.
  case presenceLost
  /// a = audience member: its SDK enters its room again while seated (`audience.rejoin`).
  case audienceRejoin
  /// Every second while app code with UI probes runs: the UI oracles compare each probed UI with
  /// the server.
  case uiCheck
  /// a = operation slot, b = its ``WireTag/request(user:service:entersOrLeavesRoom:)`` (the
  /// caller, the server service index in the low bits): a worker of a service with a capacity
  /// (`server.<service>`) finishes the request; the server carries it out.
  case serverServed
  /// a = queued push slot: a worker of the push backend (`server.push`) sends the push.
  case pushServed
  /// a = operation slot, b = its place in the queue (``ServiceQueue/lastQueuedPlace``) << 2 | the
  /// server service index: the SDK's request timeout of a request that was queued at a service
  /// passes; if it still waits, the client gets -1 and it leaves the queue.
  case serviceTimeout
  /// a = room: the room's seat-list broadcast leaves room messaging (`server.messaging`).
  case broadcastSent
  /// a = room: a room held back by its messaging rate limit may broadcast again.
  case broadcastRelease
  /// a = viewer, b = room: a broadcast reaches a viewer whose code hears every change of the
  /// seat list.
  case broadcastSeen
  /// a = callee, b = call: the busy decline of a callee's SDK (it is in another call) reaches the
  /// call server (`calls.busyCallee: "rejectedByCallee"`).
  case busyDecline
  /// a = callee, b = call (bit 31: it answers): the callee's other device answers or declines
  /// the call first (`login.other_device`).
  case otherDevice
  /// a = call: the server ends the connected call (`call.end_by_server`).
  case endByServer
  /// a = viewer, b = 1 to the background, 0 back: a viewer's app changes state
  /// (`audience.background`).
  case viewerApp
  /// a = viewer: the settle time after its app entered the background passed (its camera must be
  /// closed).
  case backgroundCheck
  /// a = phone user, b = action: the system hands the app's delegate the Start action of the
  /// outgoing conversation the app asked for (`perform`).
  case appStart
  /// a = user, b = its SDK's room epoch: the SDK tries again to enter the room its own re-entry
  /// got no answer for (`ServerSide.retryJoin`).
  case sdkRejoin
}

extension LiveEvent {
  /// The scheduler event of this kind with arguments `a` and `b`.
  @inline(__always)
  func with(_ a: UInt32, _ b: UInt32 = 0) -> Event { Event(kind: rawValue, a: a, b: b) }
}
