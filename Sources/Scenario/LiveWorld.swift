import Chaos
import Clients
import LiveStack
import Metrics
import Oracles
import Profiles
import SimKernel

/// The live world: rooms on a server, and the phones of their owners, admins and viewers, each
/// running a ``ClientBehavior`` against SDK-shaped stores. Every call and every event crosses the
/// network model; each client's channel to the server is ordered (FIFO), like the SDK's.
public struct LiveWorld: World {
  /// The profile this world runs.
  public let profile: Profile
  /// Who is who.
  public let layout: Layout
  /// The server side: seats, login, calls and the push backend, and who hears what.
  public internal(set) var server: Server
  /// Every client's SDK state and UI status.
  public let runtime: ClientRuntime
  /// The audience behaviour.
  public let audience: any ClientBehavior
  /// The owners' behaviour.
  public let host: any ClientBehavior
  /// The admins' behaviour.
  public let admin: any ClientBehavior
  /// The phone users' behaviour (when the profile has `calls`).
  public let phone: (any ClientBehavior)?
  /// The phones' operating system (when the profile has `calls`; shared with the runtime).
  public let phoneOS: PhoneSystem?
  /// The phones, driven through their apps' lifecycle and PushKit (when the profile has `calls`).
  public let phones: PhoneFleet?
  /// Per user: the `viewer-app` stream, for viewers' app lifecycle (`audience.background`; empty
  /// without it).
  var viewerAppRandom: [SplitMix64] = []
  /// The injected faults, resolved: what decides whether a fault fires.
  public internal(set) var chaos: Chaos
  /// Counter index per fault kind (registered only for configured kinds), and of the steered
  /// losses (`fault.explore`, registered only when steering; -1 otherwise).
  let faultCounters: [Int]
  let steeredCounter: Int
  /// The checkers, the UI watch, the reviewers' book and the sampled series.
  var observers: Observers
  /// The invariants.
  public var checker: Checker {
    get { observers.checker }
    set { observers.checker = newValue }
  }
  /// Sampled gauges.
  public var series: TimeSeries { observers.series }
  /// Latency percentiles and counter rates per sampling interval.
  public var intervals: IntervalSeries { observers.intervals }
  /// Whether the invariant checkers run (benchmarks switch them off to measure their cost; they
  /// never change the run, so the trace hash is the same either way).
  public var checking: Bool {
    get { observers.checking }
    set { observers.checking = newValue }
  }
  /// The client-server network.
  public internal(set) var network: Network
  /// How racing deliveries are ordered (`network.ties`, `network.pct`).
  public internal(set) var order: DeliveryOrder
  /// What was measured so far, but for the fault injections (see ``metrics``).
  var measured = LiveMetrics()
  /// What was measured, the injections of each configured fault kind included.
  public var metrics: LiveMetrics {
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

  /// Each user's `clients` stream (by user ID): its behaviour's decisions.
  let clientRandom: Column<SplitMix64>
  /// Each user's `devices` stream (by user ID): its devices' open times and failures.
  let deviceRandom: Column<SplitMix64>
  /// Arrivals, the flash crowd and co-hosting.
  var workload: Workload
  /// The server's services with a capacity (seats, login, calls, push) and their queues.
  public internal(set) var desk: ServiceDesk

  /// The SDK calls in flight and the behaviours' timers.
  public internal(set) var inFlight: CallsInFlight
  /// How many periodic events (the sampler, the UI check) are scheduled: each goes on only while
  /// something else is, so that a quiet world ends.
  var periodicPending = 0
  /// Test-only: makes the run nondeterministic on purpose (see `DeterminismCheck`).
  public var _plantNondeterminism = false
  /// Whether events are saved where nothing can happen between them: messages to one client at
  /// one instant delivered as one event (``DownlinkBatches``), request timeouts kept in one timer
  /// per room and timeout length (``TimeoutLines``), an arriving viewer's app started in its
  /// arrival's event. Only tests switch it off, to show that it changes no result.
  public var coalescesEvents = true
  /// The requests' timeouts, one line per room and timeout length.
  var timeoutLines = TimeoutLines()
  /// The open batches of same-instant deliveries.
  var batches: DownlinkBatches
  /// Followers taken from a batch, reused between batches.
  var followers: ScratchList<Event> = []
  /// The notices a room's broadcast released (kept between broadcasts for its capacity).
  var releasedNotices: ScratchList<Notice> = []

  /// Builds the world for `profile` with its random streams drawn from `streams`. Behaviours default
  /// to the built-in correct clients.
  public init(
    profile: Profile, streams: RandomStreams, audience: (any ClientBehavior)? = nil, host: (any ClientBehavior)? = nil,
    admin: (any ClientBehavior)? = nil, phone: (any ClientBehavior)? = nil
  ) {
    self.profile = profile
    let layout = Layout(profile: profile, streams: streams)
    self.layout = layout
    let settings = RoomSettings(profile.seats)
    let users = layout.totalUsers
    runtime = ClientRuntime(layout: layout, settings: settings, quirks: profile.quirks)
    inFlight = CallsInFlight(clients: runtime.clients)
    runtime.requestTimeout = profile.network.requestTimeout
    let standard = StandardClients(
      audience: profile.audience, host: profile.host, admin: profile.admin, phone: profile.calls?.phone,
      phones: layout.phones, userCount: users, mistakes: profile.mistakes)
    self.audience = audience ?? standard.audience
    audienceStatusIsUI = self.audience.statusIsUI
    prefetchesNextEvent = Int(layout.phones.lowerBound) >= LiveWorld.prefetchFromRoomUsers
    self.host = host ?? standard.host
    self.admin = admin ?? standard.admin
    self.phone = phone ?? standard.phone
    publishesSDKState = [self.audience, self.host, self.admin, self.phone].contains { $0?.showsUI == true }
    if let c = profile.calls {
      let os = PhoneSystem(phones: layout.phones, limits: c.conversations, runtime: runtime)
      runtime.phoneSystem = os
      phoneOS = os
      phones = PhoneFleet(c, os: os, runtime: runtime, layout: layout, streams: streams)
    } else {
      phoneOS = nil
      phones = nil
    }
    server = Server(profile: profile, layout: layout, settings: settings, streams: streams)
    runtime.feed = server.feed
    if profile.audience.backgroundEvery != nil { viewerAppRandom = streams.entities("viewer-app", layout.identities) }
    chaos = Chaos(plan: profile.faults, duration: profile.duration, layout: layout, streams: streams)
    let net = profile.network
    let (seededTies, depth) = profile.ordering(streams)
    if seededTies || depth > 0 {
      var g = streams.stream("ordering")
      order = DeliveryOrder(
        seededTies: seededTies, depth: depth, window: net.pctWindow, delay: net.pctDelay, users: users,
        healNs: profile.duration.nanoseconds - profile.faults.heal.nanoseconds, random: &g)
    } else {
      order = DeliveryOrder()
    }
    var m = LiveMetrics()
    var counters = [Int](repeating: -1, count: FaultKind.allCases.count)
    for k in chaos.configured { counters[k.index] = m.counters.register("fault.\(k.rawValue)") }
    faultCounters = counters
    steeredCounter = chaos.steers ? m.counters.register("fault.explore") : -1
    m.track(users: users, phones: layout.phones)
    m.trackSeats([Int](repeating: settings.seatCount, count: layout.rooms))
    measured = m
    observers = Observers(
      profile: profile, layout: layout, runtime: runtime, seats: server.seats, healAtNs: chaos.chaosEnd, metrics: m,
      audienceStatusIsUI: audienceStatusIsUI, phoneUsers: profile.calls == nil ? 0..<0 : layout.phones)
    clientRandom = Column(streams.entities("clients", layout.identities))
    network = Network(latency: profile.network.clientServer, random: streams.entities("network", layout.identities))
    batches = DownlinkBatches(network: network, replyKind: LiveEvent.clientReply.rawValue)
    deviceRandom = Column(streams.entities("devices", layout.identities))
    workload = Workload(profile: profile, layout: layout, streams: streams)
    desk = ServiceDesk(settings: profile.server.named.map(\.settings), users: users, rooms: layout.rooms)
    if desk.hasCapacity {
      // Each user's `service` stream, the service times of its requests, in its network record.
      for (u, g) in streams.entities("service", layout.identities).enumerated() { network.links[u].service = g }
    }
  }

  /// Schedules the first events: owners and admins start at time zero, viewers by the arrival
  /// pattern, then the workload and the sampler.
  public mutating func start(_ scheduler: inout Scheduler) {
    workload.start(layout: layout, &scheduler)
    for u in layout.phones { scheduler.schedule(after: .zero, event(.clientStart, u)) }
    if let phones { phones.start(&self, &scheduler) }
    if profile.workload.flashCrowd?.lockSeatsUntilOpen == true { setAllSeatsLocked(true, &scheduler) }
    workload.scheduleEvents(rooms: layout.rooms, &scheduler)
    scheduler.schedule(after: .zero, event(.sample, 0))
    periodicPending = 1
    let apps: [(any ClientBehavior)?] = [audience, host, admin, phone]
    if apps.contains(where: { $0?.showsUI == true }) || audienceStatusIsUI {
      scheduler.schedule(after: UIWatch.checkEvery, event(.uiCheck, 0))
      periodicPending += 1
    }
  }

  /// Whether the viewers' behaviour shows its status as its UI (the built-in viewers).
  let audienceStatusIsUI: Bool
  /// Whether some behaviour runs app code, which hears every change of the SDK's state through
  /// the state publishers it watches (``ClientBehavior/sdkStateChanged(_:)``).
  let publishesSDKState: Bool

  /// Whether the run loop hints each next event's records (see ``prefetch(_:)``): from
  /// ``LiveWorld/prefetchFromRoomUsers`` viewers and staff on, whose tables outgrow the caches.
  public internal(set) var prefetchesNextEvent: Bool

  /// Whether `user` is a viewer whose status is its UI.
  func statusIsUI(_ user: UInt32) -> Bool { observers.statusIsUI(user) }

  @inline(__always)
  func event(_ kind: LiveEvent, _ a: UInt32, _ b: UInt32 = 0) -> Event { kind.with(a, b) }

  /// Handles one event.
  public mutating func handle(_ e: Event, scheduler: inout Scheduler) {
    guard let kind = LiveEvent(rawValue: e.kind) else { preconditionFailure("unknown event kind \(e.kind)") }
    runtime.now = scheduler.now
    switch kind {
    case .clientStart:
      startClient(e.a, &scheduler)
    case .viewerApp:
      viewerApp(e.a, toBackground: e.b == 1, &scheduler)
    case .backgroundCheck:
      if checking, let since = runtime.inBackground[e.a], since + Checker.backgroundCameraSettle <= scheduler.now {
        observers.checker.observeBackgroundCamera(
          user: e.a, cameraOn: runtime.isOn(.camera, user: e.a), since: since, at: scheduler.now)
      }
    case .arrival:
      // The viewer's app starts in its arrival's event (docs/DESIGN.md, "Fewer events").
      if !coalescesEvents { scheduler.schedule(after: .zero, event(.clientStart, e.b)) }
      let user = workload.arrival(room: e.a, layout: layout, &scheduler)
      assert(user == e.b, "arrival of user \(e.b) in room \(e.a) found user \(user) next")
      if coalescesEvents { startClient(user, &scheduler) }
    case .serverCall:
      serverCall(slot: e.a, &scheduler)
    case .clientReply:
      let user = inFlight.ops[Int(e.a)].user
      clientReply(slot: e.a, code: Int32(bitPattern: e.b), &scheduler)
      deliverFollowers(of: e, user: user, &scheduler)
    case .deviceReply:
      deviceReply(slot: e.a, &scheduler)
    case .clientNotice:
      let user = network.recipient(ofNotice: e.a)
      clientNotice(slot: e.a, &scheduler)
      deliverFollowers(of: e, user: user, &scheduler)
    case .clientTimer:
      let t = inFlight.takeTimer(e.b)
      // A timer of a process that has since died never fires.
      guard t.generation == generation(of: e.a) else { break }
      run(e.a, .timer(tag: t.tag, arg: t.arg), &scheduler)
    case .applyIntent:
      run(e.a, .applyIntent, &scheduler)
    case .requestTimeout:
      // b = 0: the request's own timeout; otherwise the timer of timeout line b - 1.
      if e.b == 0 { expire(request: e.a, &scheduler) } else { timeoutLineFired(Int(e.b - 1), &scheduler) }
    case .coHostStart:
      if server.seats.connectCoHost(e.a, e.a + 1) == nil {
        measured.counters.add(measured.coHostSessions)
        drainServer(&scheduler)
        scheduler.schedule(after: workload.coHostDuration(room: e.a), event(.coHostEnd, e.a))
      }
    case .coHostEnd:
      server.seats.disconnectCoHost(room: e.a)
    case .flashCrowd:
      if profile.workload.flashCrowd?.lockSeatsUntilOpen == true { setAllSeatsLocked(false, &scheduler) }
      workload.flashCrowd(layout: layout, runtime: runtime, &scheduler)
    case .callTimeout:
      let timeout = SimDuration(nanoseconds: server.callTimeoutsNs[Int(e.a)])
      if server.calls.timeOut(call: e.a, now: scheduler.now, after: timeout) { drainCalls(&scheduler) }
    case .busyDecline:
      if server.calls.rejectBusy(user: e.a, call: e.b, now: scheduler.now) { drainCalls(&scheduler) }
    case .otherDevice:
      let accepts = e.b & 1 << 31 != 0
      if server.calls.otherDevice(of: e.a, call: e.b & ~(1 << 31), accepts: accepts, now: scheduler.now) {
        drainCalls(&scheduler)
      }
    case .endByServer:
      if !server.calls.calls[Int(e.a)].isOver {
        server.calls.endByServer(call: e.a, now: scheduler.now)
        drainCalls(&scheduler)
      }
    case .pushDelivered:
      pushDelivered(user: e.a, call: e.b, &scheduler)
    case .appLifecycle, .appLaunched, .reportDeadline, .tokenIssued, .systemTap, .actionTimeout, .conversationCheck,
      .tokenRotated, .cellularCall, .systemAction, .appStart:
      let wake = PhoneWake(kind: LiveWorld.phoneWakeKind[Int(kind.rawValue)], a: e.a, b: e.b)
      phones!.handle(wake, &self, &scheduler)
    case .hostReenter:
      hostReenter(e.a, &scheduler)
    case .audienceRejoin:
      audienceRejoin(e.a, &scheduler)
    case .presenceLost:
      // Still out of the room by its SDK's account (and not joining it again), still in it by
      // the server's: dropped.
      if runtime.clients[Int(e.a)].joinedRoom == 0, server.seats.room(of: e.a) != nil, !inFlight.isJoining(e.a) {
        _ = server.seats.leave(user: e.a, now: scheduler.now)
        drainServer(&scheduler)
      }
    case .serviceTimeout:
      // Only the request queued then: a slot reused since holds a younger request.
      let op = inFlight.ops[Int(e.a)]
      if op.live, op.issuedAt + profile.network.requestTimeout <= scheduler.now,
        desk.cancel(Int(e.b), slot: e.a, now: scheduler.now)
      {
        if op.kind.hasCalleeList { _ = runtime.callLists.take(op.calleeList) }
        measured.countError(.failed)
        scheduler.schedule(after: .zero, event(.clientReply, e.a, UInt32(bitPattern: SeatError.failed.rawValue)))
      }
    case .pushServed:
      let push = desk.takePush(e.a)
      sendPush(to: push.user, call: push.call, &scheduler)
      if let next = desk.finished(ServiceDesk.Service.push.rawValue, now: scheduler.now) {
        scheduler.schedule(after: serviceTime(3, user: desk.pushes[Int(next)].user), event(.pushServed, next))
      }
    case .serverServed:
      serve(slot: e.a, &scheduler)
      if let next = desk.finished(Int(e.b), now: scheduler.now) {
        scheduler.schedule(
          after: serviceTime(Int(e.b), user: inFlight.ops[Int(next)].user), event(.serverServed, next, e.b))
      }
    case .uiCheck:
      checkUIs()
      periodicPending -= 1
      if scheduler.pendingCount > periodicPending {
        scheduler.schedule(after: UIWatch.checkEvery, event(.uiCheck, 0))
        periodicPending += 1
      }
    case .broadcastSent:
      broadcastSent(room: e.a, &scheduler)
    case .broadcastRelease:
      broadcastRelease(room: e.a, &scheduler)
    case .broadcastSeen:
      broadcastSeen(user: e.a, room: e.b, &scheduler)
    case .sample:
      observers.sample(now: scheduler.now, measured: measured, server: server)
      let next = profile.sampleEvery + (_plantNondeterminism ? SimDuration.plantedJitter() : .zero)
      periodicPending -= 1
      if scheduler.pendingCount > periodicPending {
        scheduler.schedule(after: next, event(.sample, 0))
        periodicPending += 1
      }
    case .loginEnded:
      guard let loginEvent = LoginEvent(rawValue: UInt8(truncatingIfNeeded: e.b)), server.login.logout(e.a) else {
        break
      }
      _ = server.seats.leave(user: e.a, now: scheduler.now)
      drainServer(&scheduler)
      if server.calls.call(of: e.a) != nil {
        _ = server.calls.hangup(user: e.a, now: scheduler.now)
        drainCalls(&scheduler)
      }
      send(.login(e.a, loginEvent), &scheduler)
    }
  }

  // MARK: - Clients

  /// Runs `body` with the behaviour and view of `user`, then carries out its commands and checks
  /// the client.
  mutating func withClient(
    _ user: UInt32, sawOwnLeave: Bool = false, _ scheduler: inout Scheduler,
    _ body: (any ClientBehavior, inout Client) -> Void
  ) {
    let role = layout.role(of: user)
    let before = runtime.clients[Int(user)].status
    // Every user draws from its own random stream.
    let onPhone = phone != nil && layout.isPhone(user)
    var client = Client(
      user: user, room: layout.homeRoom[Int(user)], role: role, runtime: runtime, random: clientRandom[Int(user)])
    if onPhone {
      body(phone!, &client)
    } else {
      switch role {
      case .audience: body(audience, &client)
      case .owner: body(host, &client)
      case .admin: body(admin, &client)
      }
    }
    clientRandom[Int(user)] = client.random
    executeCommands(&scheduler)
    if onPhone { phones!.drain(&self, &scheduler) }
    afterClient(user, before: before, sawOwnLeave: sawOwnLeave, now: scheduler.now)
  }

  mutating func afterClient(_ user: UInt32, before: CoGuestStatus, sawOwnLeave: Bool, now: SimInstant) {
    let status = runtime.clients[Int(user)].status
    if status != before && status == .connected { measured.connected(user, now) }
    guard checking else { return }
    observers.clientRan(user, status: status, before: before, sawOwnLeave: sawOwnLeave, now: now)
  }

  mutating func executeCommands(_ scheduler: inout Scheduler) {
    var i = 0
    let commands = runtime.commands
    var completion: Completion?
    while i < commands.count {
      // The completion travels apart, so that copies of the operation retain nothing.
      switch commands.take(i, completion: &completion) {
      case .operation(var op):
        let refusedLocally = runtime.prepare(&op)
        if checking { observers.checker.observeCall(op, runtime: runtime, layout: layout, at: scheduler.now) }
        let slot = inFlight.allocate(op, completion: completion.take(), generation: generation(of: op.user))
        if let refusedLocally {
          // The handle names a request the server never filed: the SDK fails the call itself.
          scheduler.schedule(after: .zero, event(.clientReply, slot, UInt32(bitPattern: refusedLocally.rawValue)))
        } else if !runtime.clients[Int(op.user)].loggedIn
          && (op.kind == .setVOIP || (profile.calls?.refusedLocallyBeforeLogin == true && op.kind.isCallStore))
        {
          // The IM SDK refuses setVOIP locally until its login finished (and, so configured,
          // CallStore calls too).
          if isPhoneUser(op.user) { phoneIssued(op, &scheduler) }
          if op.kind.hasCalleeList { _ = runtime.callLists.take(op.calleeList) }
          scheduler.schedule(
            after: .zero, event(.clientReply, slot, UInt32(bitPattern: SeatError.notLoggedIn.rawValue)))
        } else if !op.kind.isLocal, let loss = chaos.requestLoss(user: op.user, call: op.kind.rawValue, scheduler.now) {
          if loss == .request {
            neverHeard(op, slot: slot, &scheduler)
          } else {
            if loss == .answer { inFlight.loseAnswer(slot) } else { inFlight.delayAnswer(slot) }
            scheduler.schedule(at: fifo(downlink: false, op.user, scheduler.now), event(.serverCall, slot))
          }
        } else if op.kind.isLocal {
          scheduler.schedule(
            after: profile.devices.openTime.sampleDuration(&deviceRandom[Int(op.user)]), event(.deviceReply, slot))
        } else {
          if op.kind == .applyForSeat { measured.applyCalled(op.user, scheduler.now) }
          if op.kind == .login { measured.loginCalled(op.user, scheduler.now) }
          if isPhoneUser(op.user) { phoneIssued(op, &scheduler) }
          var at = fifo(downlink: false, op.user, scheduler.now)
          if chaos.isOn(.serverSlowdown),
            let extra = chaos.slowdown(user: op.user, service: op.kind.faultService, scheduler.now)
          {
            at = at + extra
          }
          if at > scheduler.now + profile.network.requestTimeout {
            // Held up in the network (a partition, a long delay) past the SDK's request timeout:
            // the request is not delivered after the SDK gave up on it.
            neverHeard(op, slot: slot, &scheduler)
          } else {
            scheduler.schedule(at: at, event(.serverCall, slot))
          }
        }
      case .closeDevice(let user, let device):
        runtime.closeDevice(device, user: user)
      case .timer(let user, let delay, let tag, let arg):
        scheduler.schedule(
          after: delay,
          event(.clientTimer, user, inFlight.addTimer(tag: tag, arg: arg, generation: generation(of: user))))
      case .review(let user, let guest, let started):
        if started { measured.counters.add(measured.reviews) }
        let id = server.seats.pendingApplication(of: guest)
        if let waited = observers.reviews.review(
          slot: Int(runtime.clients[Int(user)].staffSlot), pending: id.map { server.seats.requests[Int($0)] }, id: id,
          started: started, now: scheduler.now)
        {
          measured.reviewWaited(waited)
        }
      }
      i += 1
    }
    commands.reset()
  }

  mutating func clientReply(slot: UInt32, code: Int32, _ scheduler: inout Scheduler) {
    var completion: Completion?
    let op = inFlight.take(slot, completion: &completion)
    let u = Int(op.user)
    let now = scheduler.now
    // The answer to a process that has since died reaches nobody.
    guard op.generation == generation(of: op.user) else {
      _ = inFlight.takePlaced(slot)
      return
    }
    // The SDK's state follows the answer, then the world's bookkeeping of it.
    let error = runtime.answered(op, code == 0 ? nil : SeatError(rawValue: code)!)
    measured.coverage.answered(
      op.kind, error, carriedOut: op.performed,
      late: (now - op.issuedAt).nanoseconds * 2 > profile.network.requestTimeout.nanoseconds)
    // An application the SDK reported as failed (-1) may stand on the server all the same: an
    // app that then shows idle tells the user what its SDK told it.
    if op.kind == .applyForSeat && (runtime.ui.isProbed(op.user) || statusIsUI(op.user)) {
      observers.uiWatch.noteApplyAnswer(op.user, error)
    }
    switch op.kind {
    case .login:
      // The SDK syncs its call state as part of logging in.
      if error == nil && isPhoneUser(op.user) { phones!.reconnect(op.user, &self, &scheduler) }
    case .joinLive:
      if error == nil {
        if let after = chaos.reenter(host: op.user, now) {
          // Later, the host's app leaves the room and enters it again.
          scheduler.schedule(after: after, event(.hostReenter, op.user))
        }
        measured.enteredRoom(op.user, now)
        enteredRoom(op.user, slot: slot, &scheduler)
      } else if error == .failed {
        // The applicants the answer would have carried reach nobody.
        _ = server.takeJoinSnapshot(slot: slot)
        // No answer: the server may have let it in. The SDK is not in the room and sends no
        // heartbeat, so the server drops it if so.
        scheduler.schedule(after: Server.presenceTimeout, event(.presenceLost, op.user))
      }
    case .leaveLive:
      // The SDK left whatever the answer; if the server did not hear it, it notices the silence.
      if error != nil { scheduler.schedule(after: Server.presenceTimeout, event(.presenceLost, op.user)) }
    case .applyForSeat:
      if error != nil || profile.seats.applyCompletion == .outcome { measured.applyAnswered(op.user, now) }
    case .placeCall:
      if error == nil, let id = inFlight.takePlaced(slot), runtime.clients[u].call == 0 {
        // The SDK learns its call from the answer to calls(). A call the caller is out of by now
        // (it ended, or a group call goes on without the caller who hung up) it learns all the
        // same while the end's message is still on its way behind the answer (and no reconnect
        // told it of the end first): the message, or a reconnect if the app cannot hear it then,
        // tells it the call is over.
        // (Not an SDK whose session ended meanwhile, by its own account: it keeps no call state
        // while logged out, and no message of the call reaches it.)
        if runtime.clients[u].loggedIn
          && (server.calls.call(of: op.user) == id
            || (isPhoneUser(op.user) && server.login.isLoggedIn(op.user)
              && phones!.endSynced(op.user) != id + 1 && network.isCallEndInFlight(to: op.user, call: id)))
        {
          runtime.dialing(op.user, call: id)
          if isPhoneUser(op.user) { phones!.callGoing(op.user, &self, &scheduler) }
        }
      }
    case .inviteToSeat:
      if error != nil { measured.invitationAnswered(calledAt: op.issuedAt, now) }
    case .unlockSeat:
      if error != nil && checking && layout.role(of: op.user) != .audience {
        observers.checker.observeUnlock(room: layout.homeRoom[u], seat: Int(op.seat), sent: false, at: now)
      }
    default:
      break
    }
    complete(op, &completion, error, &scheduler)
  }

  /// A client's `joinLive` succeeded: its SDK enters the room (see `ClientRuntime.enteredRoom`);
  /// the oracles check the applicants it took in, and a quirk may make it leave its seat.
  mutating func enteredRoom(_ user: UInt32, slot: UInt32, _ scheduler: inout Scheduler) {
    let staff = Int(runtime.clients[Int(user)].staffSlot)
    let pending = staff >= 0 ? server.takeJoinSnapshot(slot: slot) : []
    let leaveSeat = runtime.enteredRoom(
      user, room: layout.homeRoom[Int(user)], pending: pending, isOwner: layout.role(of: user) == .owner)
    if staff >= 0 && checking {
      observers.checker.observeApplicants(
        host: user, applicants: runtime.applicants[staff], seatView: runtime.seatView[staff],
        at: scheduler.now)
    }
    if leaveSeat {
      issue(.system(user, .leaveSeat, at: scheduler.now), &scheduler)
    }
  }

  /// Runs `op`'s completion, moved out of `completion` (so the closure is neither copied nor
  /// retained), or, without one, what follows any change to the client.
  mutating func complete(
    _ op: OperationRecord, _ completion: inout Completion?, _ error: SeatError?, _ scheduler: inout Scheduler
  ) {
    if let completion = completion.take() {
      let result: Result<Void, SeatError> = error.map { .failure($0) } ?? .success(())
      withClient(op.user, &scheduler) { _, c in completion(&c, result) }
    } else if publishesSDKState {
      withClient(op.user, &scheduler) { b, c in b.run(.sdkStateChanged, &c) }
    } else {
      afterClient(op.user, before: runtime.clients[Int(op.user)].status, sawOwnLeave: false, now: scheduler.now)
    }
  }

}
