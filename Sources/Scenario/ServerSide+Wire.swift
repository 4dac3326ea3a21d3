import Chaos
import Clients
import LiveStack
import Metrics
import Oracles
import Profiles
import SimKernel

/// The network between the server and the clients: each client's ordered channel, where chaos may
/// delay, hold or reorder messages, and, when several reach one client at one instant, one event
/// (``DownlinkBatches``); what the seat and call services emit goes out over it, and VoIP pushes
/// go out through the push backend.
extension ServerSide {
  /// The delivery time of the next message to (`downlink`) or from `user`: now plus a latency
  /// draw, but never before the previous message on the same ordered channel.
  /// A downlink message names its `channel`: `network.reorder` may hold it back so that later
  /// messages of other channels overtake it.
  mutating func fifo(
    downlink: Bool, _ user: UInt32, _ now: SimInstant, _ measured: inout LiveMetrics, channel: FaultChannel? = nil
  ) -> SimInstant {
    let cls = FaultChannel.networkClass(channel)
    guard chaos.active || order.active else { return network.send(downlink: downlink, user, now, channelClass: cls) }
    // Chaos decides; the network carries out the delay, the hold and the reordering.
    var (extra, hold): (Int64, Int64) = (0, 0)
    if chaos.actsOnMessages { (extra, hold) = chaos.messageFaults(user: user, downlink: downlink, now) }
    // A delivery's place among those racing it (`network.ties`, `network.pct`).
    if downlink && order.active { extra += order.extraNs(to: user, now) }
    if downlink, chaos.active, let channel, let by = chaos.reorder(to: user, channel: channel, now) {
      measured.counters.add(measured.messagesReordered)
      return network.sendHeldBack(user, now, channelClass: cls, by: by, extraNs: extra, holdUntilNs: hold)
    }
    return network.send(downlink: downlink, user, now, extraNs: extra, holdUntilNs: hold, channelClass: cls)
  }

  mutating func reply(
    _ slot: UInt32, _ error: SeatError?, _ measured: inout LiveMetrics, _ observers: inout Observers,
    _ scheduler: inout Scheduler
  ) {
    let op = inFlight.ops[Int(slot)]
    let deadline = op.issuedAt + profile.network.requestTimeout
    if !op.answerLost {
      var at = fifo(downlink: true, op.user, scheduler.now, &measured, channel: op.kind.answerChannel)
      if op.answerLate {
        // Steered late: everything behind it on the client's ordered channel waits for it.
        let late = chaos.lateAnswerNs(user: op.user, remainingNs: (deadline - scheduler.now).nanoseconds)
        at = max(at, scheduler.now + .nanoseconds(late))
        network.holdDownlink(op.user, until: at)
      }
      if at <= deadline {
        return deliver(
          event(.clientReply, slot, WireTag.reply(user: op.user, error, entersRoom: op.kind == .joinLive)),
          to: op.user, at: at, &scheduler)
      }
      // Held up in the network past the SDK's request timeout: lost as well.
    }
    // No answer: the SDK gives up at its timeout (-1), though the server carried the request out.
    scheduler.schedule(
      at: max(deadline, scheduler.now), event(.clientReply, slot, WireTag.reply(user: op.user, .failed)))
  }

  /// Sends SDK call `op` (in `slot`), made now, to reach the server at `at`; held up in the network
  /// past the SDK's request timeout, it is never delivered, and the SDK's own timer fails it.
  mutating func sendCall(_ op: PendingOperation, slot: UInt32, at: SimInstant, _ scheduler: inout Scheduler) {
    guard at <= scheduler.now + profile.network.requestTimeout else { return neverHeard(op, slot: slot, &scheduler) }
    scheduler.schedule(at: at, event(.serverCall, slot, op.kind.tag(for: op.user)))
  }

  /// The server never hears of SDK call `op` (in `slot`), made now: the SDK gives up after its
  /// request timeout.
  mutating func neverHeard(_ op: PendingOperation, slot: UInt32, _ scheduler: inout Scheduler) {
    if op.kind.hasCalleeList { _ = runtime.callLists.take(op.calleeList) }
    scheduler.schedule(
      after: profile.network.requestTimeout, event(.clientReply, slot, WireTag.reply(user: op.user, .failed)))
  }

  /// Schedules a delivery to `user` over its ordered channel, or adds it to the batch of messages
  /// that reach `user` at the same instant.
  mutating func deliver(_ e: Event, to user: UInt32, at: SimInstant, _ scheduler: inout Scheduler) {
    if coalescesEvents && batches.join(e, user: user, at: at) { return }
    scheduler.schedule(at: at, e)
  }

  /// Sends a server event to its client over the client's ordered channel.
  mutating func send(
    _ notice: Notice, _ measured: inout LiveMetrics, _ observers: inout Observers, _ scheduler: inout Scheduler
  ) {
    let user = notice.user
    if case .guest(_, let e, _) = notice, e.isApplicationAnswer, chaos.answerLost(to: user, scheduler.now) {
      if observers.checking { observers.uiWatch.noteDroppedAnswer(user) }
      return
    }
    let slot = network.post(notice)
    let channel = notice.faultChannel
    var at = fifo(downlink: true, user, scheduler.now, &measured, channel: channel)
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
        event(.clientNotice, copy), to: user,
        at: fifo(downlink: true, user, scheduler.now, &measured, channel: channel),
        &scheduler)
    }
  }

  /// Sends what the server's outbox holds, in order, over the network.
  mutating func flush(_ measured: inout LiveMetrics, _ observers: inout Observers, _ scheduler: inout Scheduler) {
    guard !server.outbox.isEmpty else { return }
    var i = 0
    while i < server.outbox.count {
      switch server.outbox[i] {
      case .notice(let notice): send(notice, &measured, &observers, &scheduler)
      case .answer(let slot, let error): reply(slot, error, &measured, &observers, &scheduler)
      }
      i += 1
    }
    server.outbox.removeAll()
  }

  /// What the seat service changed reaches the oracles and metrics, then the server fans it out
  /// to the clients (seat-list deltas, kicks, answers to requests) and the world sends it.
  mutating func drainServer(_ measured: inout LiveMetrics, _ observers: inout Observers, _ scheduler: inout Scheduler) {
    // (Asked before the seat service is handed over, which copies it: most requests change none.)
    if server.seats.changes.isEmpty && server.seats.ended.isEmpty { return }
    var touched: (UInt32, UInt32) = (.max, .max)
    var more: [UInt32] = []
    guard
      observers.seatChanges(
        server.seats, measured: &measured, now: scheduler.now, rooms: &touched, more: &more)
    else { return }
    server.fanOut()
    flush(&measured, &observers, &scheduler)
    // Each room changed goes out to its whole audience.
    if touched.0 != .max { feedChanged(room: touched.0, &scheduler) }
    if touched.1 != .max { feedChanged(room: touched.1, &scheduler) }
    for r in more { feedChanged(room: r, &scheduler) }
  }

  /// Delivers what the call server emitted, and counts how calls ended (once, for the caller).
  mutating func drainCalls(_ measured: inout LiveMetrics, _ observers: inout Observers, _ scheduler: inout Scheduler) {
    guard !server.calls.events.isEmpty else { return }
    for i in 0..<server.calls.events.count {
      let e = server.calls.events[i]
      observers.touchUI(e.user, scheduler.now)
      if case .ended(let user, let id, let reason, _) = e, user == server.calls.calls[Int(id)].caller {
        measured.callEnded(reason)
      }
      switch e {
      case .received(let u, let id):
        if isPhoneUser(u) && phoneOS!.appState(u) == .foreground && chaos.backgrounds(u, scheduler.now) {
          phones!.leaveApp(u)
          // An app that listens hears so at once, in a step of its own (PhoneFleet.lifecycle).
          if phones!.hasPendingMoves {
            scheduler.schedule(after: .zero, LiveWorld.event(.lifecycle(user: u, epoch: PhoneFleet.movedEpoch)))
          }
        }
        if chaos.active, !server.calls.isInvitedOutside(u, call: id),
          let other = chaos.otherDevice(of: u, scheduler.now)
        {
          scheduler.schedule(after: other.after, event(.otherDevice, u, id | (other.accepts ? 1 << 31 : 0)))
        }
        // An app that is not connected gets a VoIP push instead of the signalling message.
        if isPhoneUser(u) && !signallingReaches(u) {
          routePush(to: u, call: id, &measured, &observers, &scheduler)
        } else {
          send(.call(u, e), &measured, &observers, &scheduler)
        }
      case .started(let u, let id):
        if u == server.calls.calls[Int(id)].caller, chaos.active, let after = chaos.serverEnds(callOf: u, scheduler.now)
        {
          scheduler.schedule(after: after, event(.endByServer, id))
        }
        send(.call(u, e), &measured, &observers, &scheduler)
      case .ended(let u, let id, let reason, let other):
        let hidden = reason != .unknown && chaos.endReasonHidden(to: u, scheduler.now)
        send(
          .call(u, hidden ? .ended(user: u, call: id, reason: .unknown, other: other) : e), &measured, &observers,
          &scheduler)
        if isPhoneUser(u) { phones!.callEnded(u, call: id, host: LiveWorld.self, &scheduler) }
      }
    }
    server.calls.drain()
  }

  // MARK: - Push

  /// The call server rings `user`, whose app is not connected: the backend sends what its
  /// registration allows.
  mutating func routePush(
    to user: UInt32, call: UInt32, _ measured: inout LiveMetrics, _ observers: inout Observers,
    _ scheduler: inout Scheduler
  ) {
    let now = scheduler.now
    if chaos.active && chaos.fires(.tokenInvalidated, user: user, now) {
      phones!.rotateToken(user, host: LiveWorld.self, &scheduler)
      measured.observe(.tokenRotated, now)
      observers.checker.observe(.tokenRotated, calls: server.calls, fleet: phones!, at: now)
    }
    switch server.push.route(to: user, phoneToken: phoneOS!.token(user)) {
    case .voip:
      measured.pushSent(user, now)
      if chaos.active && chaos.fires(.pushDrop, user: user, now) { return measured.countLostPush(.dropped) }
      if chaos.outage(user: user, service: .push, now) != nil {
        return measured.countLostPush(.outage)
      }
      guard desk.isLimited(ServiceDesk.Service.push.rawValue) else {
        return sendPush(to: user, call: call, &measured, &observers, &scheduler)
      }
      // The push backend has a capacity: the push waits for a worker, or is turned away.
      let (slot, outcome) = desk.arrivePush(
        user: user, call: call, room: layout.homeRoom[Int(user)], now: now, service: &network.links[Int(user)].service)
      switch outcome {
      case .serve(let time): scheduler.schedule(after: time, event(.pushServed, slot))
      case .queued: break
      case .refused: measured.countLostPush(.refused)
      }
    case .apnsAlert:
      measured.counters.add(measured.pushApnsAlert)
    case .lost(let reason):
      measured.countLostPush(reason)
    }
  }

  /// The push backend sends a VoIP push to `user` for `call`: it reaches the phone after the
  /// backend's and APNs's latency (and whatever faults add).
  mutating func sendPush(
    to user: UInt32, call: UInt32, _ measured: inout LiveMetrics, _ observers: inout Observers,
    _ scheduler: inout Scheduler
  ) {
    let now = scheduler.now
    var latency = server.push.latency(to: user)
    if let extra = chaos.slowdown(user: user, service: .push, now) { latency = latency + extra }
    if let delay = chaos.pushDelay(to: user, now) { latency = latency + delay }
    var word = call
    if let wrong = chaos.malformedPush(to: user, now) {
      word = wrong.word(call: call)
    } else if let malformed = server.push.malformation(to: user) {
      word = malformed.word(call: call)
    }
    if word != call { measured.counters.add(measured.pushMalformed) }
    scheduler.schedule(after: latency, event(.pushDelivered, user, word))
    if chaos.active && chaos.fires(.pushDuplicate, user: user, now) {
      scheduler.schedule(after: server.push.copyLatency(to: user), event(.pushDelivered, user, call))
    }
    if let after = server.push.duplicate(to: user) {
      // APNs delivers it twice.
      measured.counters.add(measured.pushDuplicated)
      scheduler.schedule(after: after, event(.pushDelivered, user, call))
    }
  }
}
