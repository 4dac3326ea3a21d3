import Chaos
import Clients
import LiveStack
import Oracles
import Profiles
import SimKernel

/// What reaches a client: the server's events and answers (one event, or several at one instant
/// handled behind their leader), and room messaging's broadcasts to members whose code hears every
/// change.
extension LiveWorld {
  /// After a delivery to `user`: the messages that reached it at the same instant behind it.
  mutating func deliverFollowers(of e: Event, user: UInt32, _ scheduler: inout Scheduler) {
    guard coalescesEvents else { return }
    let start = followers.count
    backend.batches.close(ledBy: e, user: user, now: scheduler.now, into: &followers)
    guard followers.count > start else { return }
    // Handled as their own events would have been, in channel order. (A follower's handler may
    // lead nothing: its batch is closed.)
    var i = start
    while i < followers.count {
      let f = followers[i]
      if f.kind == LiveEvent.clientReply.rawValue {
        clientReply(slot: f.a, WireTag.error(ofReply: f.b), &scheduler)
      } else {
        clientNotice(slot: f.a, &scheduler)
      }
      i += 1
    }
    followers.removeLast(followers.count - start)
  }

  /// A server event reaches its client: the SDK updates its state, then the behaviour hears of it if
  /// it subscribed.
  mutating func clientNotice(slot: UInt32, _ scheduler: inout Scheduler) {
    let (notice, duplicate) = backend.network.deliver(slot, mayBeDuplicate: backend.chaos.isOn(.networkDuplicate))
    let now = scheduler.now
    let user = notice.user
    let u = Int(user)
    // A phone app that is suspended, killed or logged out has no connection to hear it on.
    if isPhoneUser(user) && !signallingReaches(user) { return }
    let subscribed = runtime.clients[u].subscriptions
    if checking {
      observers.checker.observeDelivery(
        notice, to: user, audience: layout.role(of: user) == .audience, phone: isPhoneUser(user),
        subscribed: subscribed, inRoom: runtime.clients[u].joinedRoom != 0, leaving: backend.inFlight.isLeaving(user),
        at: now)
    }
    switch notice {
    case .guest(_, let event, let request):
      if runtime.received(event, user: user) { measured.counters.add(measured.probeInvitationWhileApplying) }
      if event.isApplicationAnswer && !duplicate {
        measured.applyAnswered(user, now)
        observers.checker.observeTerminalAnswer(request: request, user: user, at: now)
      }
      var kicked = false
      if case .onKickedOffSeat = event { kicked = true }
      guard subscribed.contains(.guestEvents) else { return unheard(user, sawOwnLeave: false, &scheduler) }
      measured.coverage.heard(.guestEvent(event), role: coverageRole(user))
      withClient(user, sawOwnLeave: kicked, &scheduler) { b, c in b.guestEvent(event, &c) }
    case .host(_, let event, let request):
      runtime.received(event, user: user)
      switch event {
      case .onGuestApplicationReceived:
        if checking {
          let lagging = backend.seatListMayLag(for: user, request: request, now: now)
          observers.applicationHeard(by: user, seatListMayLag: lagging, now: now)
        }
      case .onHostInvitationResponded, .onHostInvitationNoResponse:
        if !duplicate {
          measured.invitationAnswered(request: request, now)
          observers.checker.observeTerminalAnswer(request: request, user: user, at: now)
        }
      default:
        break
      }
      run(user, .hostEvent(event), &scheduler)
    case .applicantRemoved, .inviteeRemoved, .invitationRemoved:
      runtime.receivedListUpdate(notice)
      if publishesSDKState { withClient(user, &scheduler) { b, c in b.run(.sdkStateChanged, &c) } }
    case .seats(_, let batchSlot):
      let batch = backend.server.takeBatch(batchSlot)
      let (ownLeave, early) = runtime.received(batch, user: user)
      if early > 0 { measured.counters.add(measured.probeSeatListBeforeResponse, UInt64(early)) }
      run(user, .seatList(batch), sawOwnLeave: ownLeave, &scheduler)
    case .login(_, let loginEvent):
      runtime.loginEnded(user)
      run(user, .loginEvent(loginEvent), &scheduler)
    case .call(_, let callEvent):
      if case .received(_, let id) = callEvent, backend.server.calls.wasInvitedWhileBusy(user, call: id) {
        // Invited while busy in another call: the SDK declines it as busy, unseen by the app
        // (the server ignores a decline of a call that is over).
        return scheduler.schedule(
          at: backend.fifo(downlink: false, user, scheduler.now, &measured), event(.busyDecline, user, id))
      }
      if isPhoneUser(user),
        runtime.isStale(
          callEvent, user: user, endSynced: phones!.endSynced(user), serverCall: backend.server.calls.call(of: user))
      {
        return
      }
      deliver(user, callEvent, &scheduler)
    case .liveEnded:
      runtime.liveEnded(user)
      run(user, .liveEnded, &scheduler)
    }
  }

  /// The SDK took in an event the client did not subscribe to: its state moved on without the
  /// behaviour hearing of it (app code hears it through the state publishers it watches), so the
  /// client is checked as it now stands.
  mutating func unheard(_ user: UInt32, sawOwnLeave: Bool, _ scheduler: inout Scheduler) {
    if publishesSDKState {
      return withClient(user, sawOwnLeave: sawOwnLeave, &scheduler) { b, c in b.run(.sdkStateChanged, &c) }
    }
    afterClient(user, before: runtime.clients[Int(user)].status, sawOwnLeave: sawOwnLeave, now: scheduler.now)
  }

  /// A broadcast reaches a member whose code hears every change: a viewer hears the changes of
  /// others' seats it carried (its own seat it hears by its own messages) as seat-list deltas; app
  /// code that watches the list sees the locks it carried in its stores' state.
  mutating func broadcastSeen(user: UInt32, room: UInt32, _ scheduler: inout Scheduler) {
    guard runtime.clients[Int(user)].joinedRoom == room + 1,
      runtime.clients[Int(user)].subscriptions.contains(.seatList)
    else { return }
    let sentNs = scheduler.now.nanoseconds - backend.server.feed.delay(of: user).nanoseconds
    var heard = false
    if runtime.clients[Int(user)].staffSlot < 0 {
      backend.server.feed.deltas(room: room, viewer: user, sentNs: sentNs) {
        heard = true
        run(user, .seatList($0), &scheduler)
      }
    }
    if !heard && publishesSDKState && backend.server.feed.locksChanged(room: room, sentAt: sentNs) {
      withClient(user, &scheduler) { b, c in b.run(.sdkStateChanged, &c) }
    }
  }
}
