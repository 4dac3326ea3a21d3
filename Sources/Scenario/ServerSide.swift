import Chaos
import Clients
import LiveStack
import Metrics
import Oracles
import Profiles
import SimKernel

/// The server side of a live world: the server's services and their capacity, the network between
/// them and the clients, and the faults injected on the way.
///
/// It carries out the SDK calls that reach the server, sends what the server emits over each
/// client's ordered channel, and fans seat lists out through room messaging. It never runs a
/// client's code: what it sends reaches the clients as events the world routes to them. What it
/// observes goes to the metrics and the observers the world passes in.
struct ServerSide {
  /// The server: seats, login, calls and the push backend, and who hears what.
  var server: Server
  /// The server's services with a capacity (seats, login, calls, push) and their queues.
  var desk: ServiceDesk
  /// The client-server network.
  var network: Network
  /// How racing deliveries are ordered (`network.ties`, `network.pct`).
  var order: DeliveryOrder
  /// The injected faults, resolved: what decides whether a fault fires.
  var chaos: Chaos
  /// The SDK calls in flight and the behaviours' timers.
  var inFlight: CallsInFlight
  /// The requests' timeouts, one line per room and timeout length.
  var timeoutLines = TimeoutLines()
  /// The open batches of same-instant deliveries.
  var batches: DownlinkBatches
  /// The notices a room's broadcast released (kept between broadcasts for its capacity).
  var releasedNotices: ScratchList<Notice> = []
  /// Whether events are saved where nothing can happen between them (see
  /// ``LiveWorld/coalescesEvents``).
  var coalescesEvents = true
  /// The profile the world runs.
  let profile: Profile
  /// Who is who.
  let layout: Layout
  /// Every client's SDK state (shared with the world).
  let runtime: ClientRuntime
  /// The phones' operating system and the phones (when the profile has `calls`).
  let phoneOS: PhoneSystem?
  let phones: PhoneFleet?
  /// Whether some behaviour runs app code (see ``LiveWorld/publishesSDKState``).
  let publishesSDKState: Bool
  /// Counter index per fault kind (registered only for configured kinds), and of the steered
  /// losses (`fault.explore`, registered only when steering; -1 otherwise).
  var faultCounters = [Int](repeating: -1, count: FaultKind.allCases.count)
  var steeredCounter = -1

  init(
    profile: Profile, layout: Layout, server: Server, runtime: ClientRuntime, phoneOS: PhoneSystem?,
    phones: PhoneFleet?, streams: RandomStreams, publishesSDKState: Bool
  ) {
    self.profile = profile
    self.layout = layout
    self.server = server
    self.runtime = runtime
    self.phoneOS = phoneOS
    self.phones = phones
    self.publishesSDKState = publishesSDKState
    inFlight = CallsInFlight(clients: runtime.clients)
    chaos = Chaos(plan: profile.faults, duration: profile.duration, layout: layout, streams: streams)
    let net = profile.network
    let (seededTies, depth) = profile.ordering(streams)
    if seededTies || depth > 0 {
      var g = streams.stream("ordering")
      order = DeliveryOrder(
        seededTies: seededTies, depth: depth, window: net.pctWindow, delay: net.pctDelay, users: layout.totalUsers,
        healNs: profile.duration.nanoseconds - profile.faults.heal.nanoseconds, random: &g)
    } else {
      order = DeliveryOrder()
    }
    network = Network(latency: net.clientServer, random: streams.entities("network", layout.identities))
    batches = DownlinkBatches(network: network, replyKind: LiveEvent.clientReply.rawValue)
    desk = ServiceDesk(
      settings: profile.server.named.map(\.settings), users: layout.totalUsers, rooms: layout.rooms)
    if desk.hasCapacity {
      // Each user's `service` stream, the service times of its requests, in its network record.
      for (u, g) in streams.entities("service", layout.identities).enumerated() { network.links[u].service = g }
    }
    // Each user's `clients` and `devices` streams, kept by the world in its network record.
    for (u, g) in streams.entities("clients", layout.identities).enumerated() { network.links[u].client = g }
    for (u, g) in streams.entities("devices", layout.identities).enumerated() { network.links[u].devices = g }
  }

  @inline(__always)
  func event(_ kind: LiveEvent, _ a: UInt32, _ b: UInt32 = 0) -> Event { kind.with(a, b) }

  /// Whether `user` is a phone user with an app on a simulated phone.
  @inline(__always)
  func isPhoneUser(_ user: UInt32) -> Bool { phoneOS != nil && layout.phones.contains(user) }

  /// The process generation of `user`'s app (0 for room users).
  @inline(__always)
  func generation(of user: UInt32) -> UInt16 { isPhoneUser(user) ? phoneOS!.generation(user) : 0 }

  /// Whether a signalling message can reach `user` now: room users always; a phone app only while
  /// it runs (in the foreground, or awake in the background) and its SDK is logged in.
  @inline(__always)
  func signallingReaches(_ user: UInt32) -> Bool {
    guard isPhoneUser(user) else { return true }
    return phoneOS!.isRunning(user) && runtime.clients[Int(user)].loggedIn
  }

  /// Handles an event of the server side (the world routes them here; inlined into its switch).
  @inline(__always)
  mutating func handle(
    _ kind: LiveEvent, _ e: Event, _ measured: inout LiveMetrics, _ observers: inout Observers,
    _ scheduler: inout Scheduler
  ) {
    switch kind {
    case .serverCall:
      serverCall(slot: e.a, &measured, &observers, &scheduler)
    case .requestTimeout:
      // b = 0: the request's own timeout; otherwise the timer of timeout line b - 1.
      if e.b == 0 {
        expire(request: e.a, &measured, &observers, &scheduler)
      } else {
        timeoutLineFired(Int(e.b - 1), &measured, &observers, &scheduler)
      }
    case .coHostEnd:
      server.seats.disconnectCoHost(room: e.a)
    case .callTimeout:
      let timeout = SimDuration(nanoseconds: server.callTimeoutsNs[Int(e.a)])
      if server.calls.timeOut(call: e.a, now: scheduler.now, after: timeout) {
        drainCalls(&measured, &observers, &scheduler)
      }
    case .busyDecline:
      if server.calls.rejectBusy(user: e.a, call: e.b, now: scheduler.now) {
        drainCalls(&measured, &observers, &scheduler)
      }
    case .otherDevice:
      let accepts = e.b & 1 << 31 != 0
      if server.calls.otherDevice(of: e.a, call: e.b & ~(1 << 31), accepts: accepts, now: scheduler.now) {
        drainCalls(&measured, &observers, &scheduler)
      }
    case .endByServer:
      if !server.calls.calls[Int(e.a)].isOver {
        server.calls.endByServer(call: e.a, now: scheduler.now)
        drainCalls(&measured, &observers, &scheduler)
      }
    case .presenceLost:
      // Still out of the room by its SDK's account (and not joining it again), still in it by
      // the server's: dropped.
      if runtime.clients[Int(e.a)].joinedRoom == 0, server.seats.room(of: e.a) != nil, !inFlight.isJoining(e.a) {
        _ = server.seats.leave(user: e.a, now: scheduler.now)
        drainServer(&measured, &observers, &scheduler)
      }
    case .serviceTimeout:
      // b = the request's place in the queue << 2 | the service: a request served meanwhile is
      // known from the queue's counts, without a read of its (long cold) record.
      if desk.cancel(Int(e.b & 3), place: e.b >> 2, slot: e.a, now: scheduler.now) {
        let op = inFlight.ops[Int(e.a)]
        if op.kind.hasCalleeList { _ = runtime.callLists.take(op.calleeList) }
        measured.countError(.failed)
        scheduler.schedule(after: .zero, event(.clientReply, e.a, WireTag.reply(user: op.user, .failed)))
      }
    case .pushServed:
      let push = desk.takePush(e.a)
      sendPush(to: push.user, call: push.call, &measured, &observers, &scheduler)
      if let next = desk.finished(ServiceDesk.Service.push.rawValue, now: scheduler.now) {
        scheduler.schedule(after: serviceTime(3, user: desk.pushes[Int(next)].user), event(.pushServed, next))
      }
    case .serverServed:
      serve(slot: e.a, &measured, &observers, &scheduler)
      let service = WireTag.service(ofRequest: e.b)
      if let next = desk.finished(service, now: scheduler.now) {
        let nextOp = inFlight.ops[Int(next)]
        scheduler.schedule(
          after: serviceTime(service, user: nextOp.user),
          event(.serverServed, next, nextOp.kind.tag(for: nextOp.user)))
      }
    case .broadcastSent:
      broadcastSent(room: e.a, &measured, &observers, &scheduler)
    case .broadcastRelease:
      broadcastRelease(room: e.a, &scheduler)
    case .loginEnded:
      guard let loginEvent = LoginEvent(rawValue: UInt8(truncatingIfNeeded: e.b)), server.login.logout(e.a) else {
        break
      }
      _ = server.seats.leave(user: e.a, now: scheduler.now)
      drainServer(&measured, &observers, &scheduler)
      if server.calls.call(of: e.a) != nil {
        _ = server.calls.hangup(user: e.a, now: scheduler.now)
        drainCalls(&measured, &observers, &scheduler)
      }
      send(.login(e.a, loginEvent), &measured, &observers, &scheduler)
    default:
      preconditionFailure("\(kind) is not an event of the server side")
    }
  }

  /// Whether the seat list `user` (a host) holds may lag behind application `request`.
  ///
  /// Seat lists and co-guest signalling are separate channels: when a broadcast of the room was
  /// held back past the application's filing, or a seat-list message to this host is held back in
  /// the network, the list lags behind the application and may still show the applicant on its
  /// old seat. (`mutating` only so that the world calls it in place, never on a copy.)
  mutating func seatListMayLag(for user: UInt32, request: UInt32, now: SimInstant) -> Bool {
    let room = layout.homeRoom[Int(user)]
    return server.feed.isBusy(room: room)
      || server.feed.lastSent(room: room).map { $0 > server.seats.requests[Int(request)].createdAt } ?? false
      || network.holdsBack(user, channelClass: FaultChannel.networkClass(.seats), at: now)
  }

  /// What the liveness invariants read at the end of a run (see ``Checker/judgeLiveness(now:slack:view:)``).
  /// (`mutating` only so that the world calls it in place, never on a copy.)
  mutating func livenessView() -> LivenessView {
    let busy = inFlight.usersInFlight()
    let (phoneOS, runtime, layout) = (phoneOS, runtime, layout)
    return LivenessView(
      server: server, runtime: runtime, network: network, phones: phoneOS,
      conversationGrace: profile.calls?.conversationGrace ?? .zero, requestTimeoutsNs: server.requestTimeoutsNs,
      callTimeoutsNs: server.callTimeoutsNs, inFlight: { busy.contains($0) },
      connected: { u in
        guard let os = phoneOS, layout.phones.contains(u) else { return true }
        return os.isRunning(u) && runtime.clients[Int(u)].loggedIn
      })
  }

  /// Registers the counters of the injected faults in `m`.
  mutating func registerCounters(_ m: inout LiveMetrics) {
    for k in chaos.configured { faultCounters[k.index] = m.counters.register("fault.\(k.rawValue)") }
    if chaos.steers { steeredCounter = m.counters.register("fault.explore") }
  }

  /// `measured` with what the server side counts itself: the injections of each configured fault
  /// kind and room messaging's figures.
  func completed(_ measured: LiveMetrics) -> LiveMetrics {
    var m = measured
    for k in chaos.configured { m.counters.set(faultCounters[k.index], chaos.injected[k.index]) }
    if steeredCounter >= 0 { m.counters.set(steeredCounter, chaos.steeredLosses) }
    let feed = server.feed
    m.counters.set(m.messagingBroadcasts, feed.broadcasts)
    m.counters.set(m.messagingDownlink, feed.downlink)
    m.counters.set(m.messagingMerged, feed.merged)
    m.counters.set(m.messagingPeakRoomPerSecond, UInt64(feed.peakRoomPerSecond))
    m.counters.add(m.lockedEmptyMs, m.lockedEmptyOpenMs(at: runtime.now))
    return m
  }

  // MARK: - Requests

  /// An SDK call reaches the server: a service with a capacity admits, queues or refuses it
  /// (``ServiceDesk``); otherwise it is carried out at once.
  mutating func serverCall(
    slot: UInt32, _ measured: inout LiveMetrics, _ observers: inout Observers, _ scheduler: inout Scheduler
  ) {
    if desk.hasCapacity {
      let op = inFlight.ops[Int(slot)]
      let i = op.kind.deskService
      if desk.isLimited(i) {
        let room = layout.homeRoom[Int(op.user)]
        switch desk.arrive(
          i, slot: slot, user: op.user, room: room, now: scheduler.now, service: &network.links[Int(op.user)].service)
        {
        case .serve(let time):
          scheduler.schedule(after: time, event(.serverServed, slot, op.kind.tag(for: op.user)))
        case .queued:
          // The SDK gives up on it at its request timeout, wherever it then waits.
          scheduler.schedule(
            at: max(scheduler.now, op.issuedAt + profile.network.requestTimeout),
            event(.serviceTimeout, slot, desk.lastQueuedPlace(i) << 2 | UInt32(i)))
        case .refused(let error):
          if op.kind.hasCalleeList { _ = runtime.callLists.take(op.calleeList) }
          measured.countError(error)
          reply(slot, error, &measured, &observers, &scheduler)
        }
        return
      }
    }
    serve(slot: slot, &measured, &observers, &scheduler)
  }

  /// How long service `i` takes for a request of `user` (drawn from the user's `service` stream).
  mutating func serviceTime(_ i: Int, user: UInt32) -> SimDuration {
    desk.serviceTime(i, &network.links[Int(user)].service)
  }

  /// A request is carried out (at once, or when a worker of its service finishes it): the server
  /// performs it (unless a fault stops it), the world sends what it caused, then the bookkeeping
  /// and the faults the call opens a chance for.
  mutating func serve(
    slot: UInt32, _ measured: inout LiveMetrics, _ observers: inout Observers, _ scheduler: inout Scheduler
  ) {
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
      if let id = outcome.filed { filed(id, op, &measured, &observers, &scheduler) }
      if let id = outcome.placed, !userData.isEmpty { runtime.callUserData[id] = userData }
      flush(&measured, &observers, &scheduler)
      if error == nil { measured.countSucceeded(op.kind, audience: layout.role(of: user) == .audience) }
      deferReply = afterServed(op, slot: slot, outcome, &measured, &observers, &scheduler)
    }
    if let error { measured.countError(error) }
    drainServer(&measured, &observers, &scheduler)
    drainCalls(&measured, &observers, &scheduler)
    if !deferReply { reply(slot, error, &measured, &observers, &scheduler) }
  }

  /// What follows a request the server carried out: the probes it exercised, the faults it opens a
  /// chance for, and the world's bookkeeping. Returns whether the answer waits for the outcome.
  mutating func afterServed(
    _ op: OperationRecord, slot: UInt32, _ outcome: ServerOutcome, _ measured: inout LiveMetrics,
    _ observers: inout Observers, _ scheduler: inout Scheduler
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
          &measured, &observers, &scheduler)
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
            .system(other, .acceptApplication, target: op.target, at: now), &measured, &observers, &scheduler)
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
  mutating func filed(
    _ id: UInt32, _ op: OperationRecord, _ measured: inout LiveMetrics, _ observers: inout Observers,
    _ scheduler: inout Scheduler
  ) {
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
  mutating func expire(
    request id: UInt32, _ measured: inout LiveMetrics, _ observers: inout Observers, _ scheduler: inout Scheduler
  ) {
    if server.seats.timeOut(request: id, now: scheduler.now) { measured.counters.add(measured.timedOut) }
    drainServer(&measured, &observers, &scheduler)
  }

  /// A line's timer fired: each request due now times out if still pending, as its own timeout
  /// event would have made it; then the timer waits for the first request behind them that is
  /// still pending (those answered meanwhile need no event at all).
  mutating func timeoutLineFired(
    _ line: Int, _ measured: inout LiveMetrics, _ observers: inout Observers, _ scheduler: inout Scheduler
  ) {
    while let id = timeoutLines.takeDue(line, now: scheduler.now.nanoseconds) {
      expire(request: id, &measured, &observers, &scheduler)
    }
    if let (id, deadline) = timeoutLines.next(line, requests: server.seats.requests) {
      scheduler.schedule(at: SimInstant(nanoseconds: deadline), event(.requestTimeout, id, UInt32(line + 1)))
    }
  }

  /// Sends an SDK call on a client's behalf (what its user did in the UI, or another device), past
  /// the usage checks: it reaches the server like any other.
  mutating func inject(
    _ op: PendingOperation, _ measured: inout LiveMetrics, _ observers: inout Observers, _ scheduler: inout Scheduler
  ) {
    var op = op
    _ = runtime.prepare(&op)  // the SDK's own bookkeeping of the call (a join's room epoch)
    let slot = inFlight.allocate(op, generation: generation(of: op.user))
    sendCall(op, slot: slot, at: fifo(downlink: false, op.user, scheduler.now, &measured), &scheduler)
  }

  /// How long an SDK waits before it tries again to enter a room its own re-entry got no answer
  /// for.
  static let rejoinRetry = SimDuration.seconds(3)

  /// The SDK's own `joinLive` (`op`, re-entering its room after `host.reenter` or
  /// `audience.rejoin`) got no answer: like the room engine reconnecting, the SDK tries again
  /// after ``rejoinRetry``, unless it has left the room (or logged out) meanwhile.
  mutating func retryJoin(_ op: OperationRecord, _ scheduler: inout Scheduler) {
    let epoch = runtime.clients[Int(op.user)].roomEpoch
    guard op.seat == Int16(epoch) else { return }
    scheduler.schedule(after: Self.rejoinRetry, event(.sdkRejoin, op.user, UInt32(epoch)))
  }

  /// The retry of ``retryJoin(_:_:)``: the SDK enters the room again if it is still out of it,
  /// logged in and has not left since (its room epoch is `epoch`).
  mutating func sdkRejoin(
    _ user: UInt32, epoch: UInt32, _ measured: inout LiveMetrics, _ observers: inout Observers,
    _ scheduler: inout Scheduler
  ) {
    let client = runtime.clients[Int(user)]
    guard client.loggedIn, client.joinedRoom == 0, UInt32(client.roomEpoch) == epoch, !inFlight.isJoining(user) else {
      return
    }
    inject(.system(user, .joinLive, at: scheduler.now), &measured, &observers, &scheduler)
  }

  /// `audience.rejoin` at a viewer taking a seat: later, its SDK enters the room again.
  mutating func seatedFaults(_ guest: UInt32, _ scheduler: inout Scheduler) {
    if let after = chaos.rejoin(guest: guest, scheduler.now) {
      scheduler.schedule(after: after, event(.audienceRejoin, guest))
    }
  }
}
