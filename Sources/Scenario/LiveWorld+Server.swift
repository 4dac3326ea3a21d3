import Chaos
import Clients
import LiveStack
import Metrics
import Oracles
import Profiles
import SimKernel

extension LiveWorld {
  /// An SDK call reaches the server: a service with a capacity admits, queues or refuses it
  /// (``ServiceDesk``); otherwise it is carried out at once.
  mutating func serverCall(slot: UInt32, _ scheduler: inout Scheduler) {
    if desk.hasCapacity {
      let op = inFlight.ops[Int(slot)]
      let i = op.kind.deskService
      if desk.isLimited(i) {
        let room = layout.homeRoom[Int(op.user)]
        switch desk.arrive(
          i, slot: slot, user: op.user, room: room, now: scheduler.now, service: &network.links[Int(op.user)].service)
        {
        case .serve(let time):
          scheduler.schedule(after: time, event(.serverServed, slot, UInt32(i)))
        case .queued:
          // The SDK gives up on it at its request timeout, wherever it then waits.
          scheduler.schedule(
            at: max(scheduler.now, op.issuedAt + profile.network.requestTimeout),
            event(.serviceTimeout, slot, UInt32(i)))
        case .refused(let error):
          if op.kind.hasCalleeList { _ = runtime.callLists.take(op.calleeList) }
          measured.countError(error)
          reply(slot, error, &scheduler)
        }
        return
      }
    }
    serve(slot: slot, &scheduler)
  }

  /// How long service `i` takes for a request of `user` (drawn from the user's `service` stream).
  mutating func serviceTime(_ i: Int, user: UInt32) -> SimDuration {
    desk.serviceTime(i, &network.links[Int(user)].service)
  }

  /// A request is carried out (at once, or when a worker of its service finishes it): the server
  /// performs it (unless a fault stops it), the world sends what it caused, then the bookkeeping
  /// and the faults the call opens a chance for.
  mutating func serve(slot: UInt32, _ scheduler: inout Scheduler) {
    let op = inFlight.ops[Int(slot)]
    precondition(op.live, "operation slot \(slot) is free")
    let user = op.user
    let now = scheduler.now
    let userData = op.kind == .placeCall ? runtime.callLists.userData(op.calleeList) : ""
    let callees = op.kind.hasCalleeList ? runtime.callLists.take(op.calleeList) : []
    var error: SeatError?
    var deferReply = false
    if op.kind != .login && !server.login.isLoggedIn(user) {
      error = .notLoggedIn
    } else if chaos.isOn(.serverOutage), let w = chaos.outage(user: user, service: op.kind.faultService, now) {
      // Refused at once, or (vanish) never heard: the SDK then gives up after its timeout.
      if w.vanish { inFlight.loseAnswer(slot) }
      error = .failed
    } else if op.kind == .applyForSeat && chaos.active && chaos.fires(.seatLimitHit, user: user, now) {
      error = .seatLimitExceeded
    } else {
      let outcome = server.perform(op.request(callees: callees), by: user, slot: slot, now: now)
      inFlight.markPerformed(slot)
      error = outcome.error
      if let id = outcome.filed { filed(id, op, &scheduler) }
      if let id = outcome.placed, !userData.isEmpty { runtime.callUserData[id] = userData }
      flush(&scheduler)
      if error == nil { measured.countSucceeded(op.kind, audience: layout.role(of: user) == .audience) }
      deferReply = afterServed(op, slot: slot, outcome, &scheduler)
    }
    if let error { measured.countError(error) }
    drainServer(&scheduler)
    drainCalls(&scheduler)
    if !deferReply { reply(slot, error, &scheduler) }
  }

  /// What follows a request the server carried out: the probes it exercised, the faults it opens a
  /// chance for, and the world's bookkeeping. Returns whether the answer waits for the outcome.
  mutating func afterServed(
    _ op: OperationRecord, slot: UInt32, _ outcome: ServerOutcome, _ scheduler: inout Scheduler
  ) -> Bool {
    let user = op.user
    let now = scheduler.now
    let error = outcome.error
    switch op.kind {
    case .login:
      guard error == nil && chaos.active else { break }
      for end in chaos.sessionEnds(user: user, now) {
        scheduler.schedule(after: end.after, event(.loginEnded, user, UInt32(end.event.rawValue)))
      }
    case .applyForSeat:
      guard let id = outcome.filed else { break }
      if chaos.active && chaos.fires(.seatRejection, user: user, now) {
        // The owner turns it down at once (its app, or a moderation rule, on its behalf).
        inject(
          .system(
            layout.staff(of: server.seats.requests[Int(id)].room).lowerBound, .rejectApplication, target: user, at: now),
          &scheduler)
      }
      if profile.seats.applyCompletion == .outcome {
        server.answerOnOutcome(user: user, slot: slot)
        return true
      }
    case .cancelApplication:
      if error == .alreadyProcessed {
        measured.probeLostRace(op.kind, application: server.lastApplicationState(of: user))
      }
    case .acceptApplication:
      if error == .alreadyProcessed {
        measured.probeLostRace(op.kind, application: server.lastApplicationState(of: op.target))
      } else if error == nil {
        if chaos.active { seatedFaults(op.target, &scheduler) }
        if chaos.active && chaos.fires(.seatAcceptRace, user: user, now),
          let other = layout.staff(of: layout.homeRoom[Int(user)]).first(where: { $0 != user })
        {
          // Another host of the room accepts the same application a moment later.
          inject(
            .system(other, .acceptApplication, target: op.target, at: now), &scheduler)
        }
      }
    case .acceptInvitation, .takeSeat:
      if error == nil && chaos.active { seatedFaults(user, &scheduler) }
    case .lockSeat, .unlockSeat:
      if error == nil, let room = server.seats.room(of: user) {
        observers.checker.observeLock(room: room, seat: Int(op.seat), seats: server.seats)
        observers.checker.observeStaffLock(
          room: room, seat: Int(op.seat), locked: op.kind == .lockSeat, by: user, at: now)
        measured.observeLockedEmpty(room: room, seat: Int(op.seat), seats: server.seats, now)
        observers.checker.observeRoom(room, seats: server.seats, at: now)
        feedChanged(room: room, &scheduler)
      }
    case .placeCall:
      guard let id = outcome.placed else { break }
      let timeout = op.timeout > .zero ? op.timeout : CallService.defaultTimeout
      measured.callPlaced(id, dialedAt: op.issuedAt)
      server.armed(call: id, timeout: timeout)
      inFlight.placed(slot, call: id)
      scheduler.schedule(after: timeout, event(.callTimeout, id))
    case .inviteToCall:
      // The invited ring for the call's own timeout, from now.
      guard error == nil, let id = server.calls.call(of: user) else { break }
      scheduler.schedule(after: .nanoseconds(server.callTimeoutsNs[Int(id)]), event(.callTimeout, id))
      measured.counters.add(measured.callInvites)
    case .acceptCall:
      let known = runtime.clients[Int(user)].call
      if error != nil, known != 0, server.calls.calls[Int(known - 1)].endReason == .canceled {
        measured.counters.add(measured.probeAnswerAfterCancel)  // the caller gave up as the callee answered
      }
      if error == nil && isPhoneUser(user), let id = server.calls.call(of: user) {
        phones!.accepted(user, call: id)
      }
    case .setVOIP:
      if outcome.registered && isPhoneUser(user) { measured.tokenUploaded(user, now) }
    default:
      break
    }
    return false
  }

  /// A request was filed: remember when it was asked for and arm its timeout.
  mutating func filed(_ id: UInt32, _ op: OperationRecord, _ scheduler: inout Scheduler) {
    measured.requestFiled(id, calledAt: op.issuedAt)
    observers.reviews.filed(id, application: server.seats.requests[Int(id)].kind == .application, now: scheduler.now)
    var timeout = op.timeout
    if timeout > .zero && chaos.isOn(.seatNoTimeout) && chaos.fires(.seatNoTimeout, user: op.user, scheduler.now) {
      timeout = .zero  // filed as if the client had asked for none
    }
    server.armed(request: id, timeout: timeout)
    if timeout > .zero { armTimeout(request: id, after: timeout, &scheduler) }
  }

  /// Arms the timeout of request `id`: its own event, or a place in its room's timeout line.
  mutating func armTimeout(request id: UInt32, after timeout: SimDuration, _ scheduler: inout Scheduler) {
    guard coalescesEvents else {
      scheduler.schedule(after: timeout, event(.requestTimeout, id))
      return
    }
    let deadline = scheduler.now + timeout
    let room = server.seats.requests[Int(id)].room
    if let line = timeoutLines.file(id, room: room, deadline: deadline.nanoseconds, length: timeout.nanoseconds) {
      scheduler.schedule(at: deadline, event(.requestTimeout, id, UInt32(line + 1)))
    }
  }

  /// Request `id`'s timeout is due: it times out if it is still pending.
  mutating func expire(request id: UInt32, _ scheduler: inout Scheduler) {
    if server.seats.timeOut(request: id, now: scheduler.now) { measured.counters.add(measured.timedOut) }
    drainServer(&scheduler)
  }

  /// A line's timer fired: each request due now times out if still pending, as its own timeout
  /// event would have made it; then the timer waits for the first request behind them that is
  /// still pending (those answered meanwhile need no event at all).
  mutating func timeoutLineFired(_ line: Int, _ scheduler: inout Scheduler) {
    while let id = timeoutLines.takeDue(line, now: scheduler.now.nanoseconds) { expire(request: id, &scheduler) }
    if let (id, deadline) = timeoutLines.next(line, requests: server.seats.requests) {
      scheduler.schedule(at: SimInstant(nanoseconds: deadline), event(.requestTimeout, id, UInt32(line + 1)))
    }
  }

  /// Sends a server event to its client over the client's ordered channel.
  mutating func send(_ notice: Notice, _ scheduler: inout Scheduler) {
    let user = notice.user
    if case .guest(_, let e, _) = notice, e.isApplicationAnswer, chaos.answerLost(to: user, scheduler.now) {
      if checking { observers.uiWatch.noteDroppedAnswer(user) }
      return
    }
    let slot = network.post(notice)
    let channel = notice.faultChannel
    var at = fifo(downlink: true, user, scheduler.now, channel: channel)
    if case .guest(_, let e, _) = notice, e.isApplicationAnswer, let late = chaos.lateAnswer(to: user, scheduler.now) {
      // Late, and everything after it on the ordered channel waits too.
      at = at + late
      network.holdDownlink(user, until: at)
    }
    deliver(event(.clientNotice, slot), to: user, at: at, &scheduler)
    if notice.isSignalling, chaos.duplicates(to: user, scheduler.now) {
      // A retransmission: the same event again, right behind the first on the ordered channel.
      let copy = network.post(notice, duplicate: true)
      deliver(
        event(.clientNotice, copy), to: user, at: fifo(downlink: true, user, scheduler.now, channel: channel),
        &scheduler)
    }
  }

  /// Delivers what the call server emitted, and counts how calls ended (once, for the caller).
  mutating func drainCalls(_ scheduler: inout Scheduler) {
    guard !server.calls.events.isEmpty else { return }
    for i in 0..<server.calls.events.count {
      let e = server.calls.events[i]
      touchUI(e.user, scheduler.now)
      if case .ended(let user, let id, let reason, _) = e, user == server.calls.calls[Int(id)].caller {
        measured.callEnded(reason)
      }
      switch e {
      case .received(let u, let id):
        if isPhoneUser(u) && phoneOS!.appState(u) == .foreground && chaos.backgrounds(u, scheduler.now) {
          phones!.leaveApp(u)
        }
        if chaos.active, !server.calls.isInvitedOutside(u, call: id),
          let other = chaos.otherDevice(of: u, scheduler.now)
        {
          scheduler.schedule(after: other.after, event(.otherDevice, u, id | (other.accepts ? 1 << 31 : 0)))
        }
        // An app that is not connected gets a VoIP push instead of the signalling message.
        if isPhoneUser(u) && !signallingReaches(u) {
          routePush(to: u, call: id, &scheduler)
        } else {
          send(.call(u, e), &scheduler)
        }
      case .started(let u, let id):
        if u == server.calls.calls[Int(id)].caller, chaos.active, let after = chaos.serverEnds(callOf: u, scheduler.now)
        {
          scheduler.schedule(after: after, event(.endByServer, id))
        }
        send(.call(u, e), &scheduler)
      case .ended(let u, let id, let reason, let other):
        let hidden = reason != .unknown && chaos.endReasonHidden(to: u, scheduler.now)
        send(.call(u, hidden ? .ended(user: u, call: id, reason: .unknown, other: other) : e), &scheduler)
        if isPhoneUser(u) { phones!.callEnded(u, call: id, &self, &scheduler) }
      }
    }
    server.calls.drain()
  }

  /// What the seat service changed reaches the oracles and metrics, then the server fans it out
  /// to the clients (seat-list deltas, kicks, answers to requests) and the world sends it.
  mutating func drainServer(_ scheduler: inout Scheduler) {
    var touched: (UInt32, UInt32) = (.max, .max)
    var more: [UInt32] = []
    guard
      observers.seatChanges(
        server.seats, measured: &measured, now: scheduler.now, rooms: &touched, more: &more)
    else { return }
    server.fanOut()
    flush(&scheduler)
    // Each room changed goes out to its whole audience.
    if touched.0 != .max { feedChanged(room: touched.0, &scheduler) }
    if touched.1 != .max { feedChanged(room: touched.1, &scheduler) }
    for r in more { feedChanged(room: r, &scheduler) }
  }

  /// Sends what the server's outbox holds, in order, over the network.
  mutating func flush(_ scheduler: inout Scheduler) {
    guard !server.outbox.isEmpty else { return }
    var i = 0
    while i < server.outbox.count {
      switch server.outbox[i] {
      case .notice(let notice): send(notice, &scheduler)
      case .answer(let slot, let error): reply(slot, error, &scheduler)
      }
      i += 1
    }
    server.outbox.removeAll()
  }

  /// A server event reaches its client: the SDK updates its state, then the behaviour hears of it if
  /// it subscribed.
  mutating func clientNotice(slot: UInt32, _ scheduler: inout Scheduler) {
    let (notice, duplicate) = network.deliver(slot, mayBeDuplicate: chaos.isOn(.networkDuplicate))
    let now = scheduler.now
    let user = notice.user
    let u = Int(user)
    // A phone app that is suspended, killed or logged out has no connection to hear it on.
    if isPhoneUser(user) && !signallingReaches(user) { return }
    let subscribed = runtime.clients[u].subscriptions
    if checking {
      observers.checker.observeDelivery(
        notice, to: user, audience: layout.role(of: user) == .audience, phone: isPhoneUser(user),
        subscribed: subscribed, inRoom: runtime.clients[u].joinedRoom != 0, leaving: inFlight.isLeaving(user),
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
        observers.applicationHeard(by: user, request: request, server: server, network: network, now: now)
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
      let batch = server.takeBatch(batchSlot)
      let (ownLeave, early) = runtime.received(batch, user: user)
      if early > 0 { measured.counters.add(measured.probeSeatListBeforeResponse, UInt64(early)) }
      run(user, .seatList(batch), sawOwnLeave: ownLeave, &scheduler)
    case .login(_, let loginEvent):
      runtime.loginEnded(user)
      run(user, .loginEvent(loginEvent), &scheduler)
    case .call(_, let callEvent):
      if case .received(_, let id) = callEvent, server.calls.wasInvitedWhileBusy(user, call: id) {
        // Invited while busy in another call: the SDK declines it as busy, unseen by the app
        // (the server ignores a decline of a call that is over).
        return scheduler.schedule(at: fifo(downlink: false, user, scheduler.now), event(.busyDecline, user, id))
      }
      if isPhoneUser(user),
        runtime.isStale(
          callEvent, user: user, endSynced: phones!.endSynced(user), serverCall: server.calls.call(of: user))
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
}
