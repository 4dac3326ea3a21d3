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
  /// The server side: the server's services and their capacity, the network and the faults.
  var backend: ServerSide
  /// The SDK calls in flight, the network and the services with a capacity (read-only views).
  public var inFlight: CallsInFlight { backend.inFlight }
  public var network: Network { backend.network }
  public var batches: DownlinkBatches { backend.batches }
  public var desk: ServiceDesk { backend.desk }
  /// The server: seats, login, calls and the push backend, and who hears what.
  public var server: Server {
    get { backend.server }
    set { backend.server = newValue }
  }
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
  /// The checkers, the UI watch, the reviewers' book and the sampled series.
  public internal(set) var observers: Observers
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
  /// What was measured so far, but for the fault injections (see ``metrics``).
  var measured = LiveMetrics()
  /// What was measured, the injections of each configured fault kind included.
  public var metrics: LiveMetrics { backend.completed(measured) }

  /// Judges the liveness invariants at the end of a run (`now`), allowing `slack` for answers in
  /// flight (see ``Checker/judgeLiveness(now:slack:view:)``).
  public mutating func judgeLiveness(now: SimInstant, slack: SimDuration = .seconds(5)) {
    observers.checker.observeOutsideUser(runtime)
    observers.checker.checkLocks(seats: backend.server.seats, runtime: runtime, at: now)
    observers.checker.judgeLiveness(now: now, slack: slack, view: backend.livenessView())
  }

  /// The run's resources as a capacity planner reads them, over a run that ended at `end` (see
  /// ``Observers/resources(end:measured:desk:feed:profile:)``).
  public func resources(end: SimInstant) -> [ResourceUsage] {
    observers.resources(end: end, measured: measured, desk: backend.desk, feed: backend.server.feed, profile: profile)
  }

  /// Each user's network record, with its `clients` and `devices` streams (a view: no retain).
  let links: ColumnView<Network.Link>
  /// Arrivals, the flash crowd and co-hosting.
  var workload: Workload
  /// How many periodic events (the sampler, the UI check) are scheduled: each goes on only while
  /// something else is, so that a quiet world ends.
  var periodicPending = 0

  /// A room shard that went quiet samples and checks on until `sample` and `check`, as the run's
  /// busier shards did (see ``Observers/sampleOn(untilSample:check:every:measured:_:)``).
  public mutating func sampleOn(untilSample sample: SimInstant, check: SimInstant) {
    observers.sampleOn(untilSample: sample, check: check, every: profile.sampleEvery, measured: measured, &backend)
  }

  /// Keeps what a room shard hands over for an exact merge: gauges' steps, interval histograms.
  public mutating func keepForMerging() {
    observers.seated = .keepingChanges()
    observers.intervals = .keepingHistograms(measured)
    observers.reviews.keepChanges()
  }
  /// Test-only: makes the run nondeterministic on purpose (see `DeterminismCheck`).
  public var _plantNondeterminism = false
  /// Whether events are saved where nothing can happen between them: messages to one client at
  /// one instant delivered as one event (``DownlinkBatches``), request timeouts kept in one timer
  /// per room and timeout length (``TimeoutLines``), an arriving viewer's app started in its
  /// arrival's event. Only tests switch it off, to show that it changes no result.
  public var coalescesEvents: Bool {
    get { backend.coalescesEvents }
    set { backend.coalescesEvents = newValue }
  }
  /// Followers taken from a batch, reused between batches.
  var followers: ScratchList<Event> = []

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
      phones!.notifiesLifecycle = self.phone?.hearsAppLifecycle == true
    } else {
      phoneOS = nil
      phones = nil
    }
    let server = Server(profile: profile, layout: layout, settings: settings, streams: streams)
    runtime.feed = server.feed
    backend = ServerSide(
      profile: profile, layout: layout, server: server, runtime: runtime, phoneOS: phoneOS, phones: phones,
      streams: streams, publishesSDKState: publishesSDKState)
    if profile.audience.backgroundEvery != nil { viewerAppRandom = streams.entities("viewer-app", layout.identities) }
    let chaos = backend.chaos
    var m = LiveMetrics()
    backend.registerCounters(&m)
    m.track(users: users, phones: layout.phones)
    m.trackSeats([Int](repeating: settings.seatCount, count: layout.rooms))
    measured = m
    observers = Observers(
      profile: profile, layout: layout, runtime: runtime, seats: backend.server.seats, healAtNs: chaos.chaosEnd,
      metrics: m,
      audienceStatusIsUI: audienceStatusIsUI, phoneUsers: profile.calls == nil ? 0..<0 : layout.phones)
    workload = Workload(profile: profile, layout: layout, streams: streams)
    links = backend.network.links.view
  }

  /// Schedules the first events: owners and admins start at time zero, viewers by the arrival
  /// pattern, then the workload and the sampler.
  public mutating func start(_ scheduler: inout Scheduler) {
    workload.start(layout: layout, &scheduler)
    for u in layout.phones { scheduler.schedule(after: .zero, event(.clientStart, u)) }
    if let phones { phones.start(&self, &scheduler) }
    if profile.workload.flashCrowd?.lockSeatsUntilOpen == true {
      backend.setAllSeatsLocked(true, &measured, &observers, &scheduler)
    }
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
    case .serverCall, .requestTimeout, .coHostEnd, .callTimeout, .busyDecline, .otherDevice, .endByServer,
      .presenceLost, .serviceTimeout, .pushServed, .serverServed, .broadcastSent, .broadcastRelease, .loginEnded:
      backend.handle(kind, e, &measured, &observers, &scheduler)
    case .clientReply:
      clientReply(slot: e.a, WireTag.error(ofReply: e.b), &scheduler)
      deliverFollowers(of: e, user: WireTag.user(ofReply: e.b), &scheduler)
    case .deviceReply:
      deviceReply(slot: e.a, &scheduler)
    case .clientNotice:
      let user = backend.network.recipient(ofNotice: e.a)
      clientNotice(slot: e.a, &scheduler)
      deliverFollowers(of: e, user: user, &scheduler)
    case .clientTimer:
      let t = backend.inFlight.takeTimer(e.b)
      // A timer of a process that has since died never fires.
      guard t.generation == generation(of: e.a) else { break }
      run(e.a, .timer(tag: t.tag, arg: t.arg), &scheduler)
    case .applyIntent:
      run(e.a, .applyIntent, &scheduler)
    case .coHostStart:
      if backend.server.seats.connectCoHost(e.a, e.a + 1) == nil {
        measured.counters.add(measured.coHostSessions)
        backend.drainServer(&measured, &observers, &scheduler)
        scheduler.schedule(after: workload.coHostDuration(room: e.a), event(.coHostEnd, e.a))
      }
    case .flashCrowd:
      if profile.workload.flashCrowd?.lockSeatsUntilOpen == true {
        backend.setAllSeatsLocked(false, &measured, &observers, &scheduler)
      }
      workload.flashCrowd(layout: layout, runtime: runtime, &scheduler)
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
    case .sdkRejoin:
      backend.sdkRejoin(e.a, epoch: e.b, &measured, &observers, &scheduler)
    case .uiCheck:
      observers.checkUIs(&backend, prefetch: prefetchesNextEvent)
      periodicPending -= 1
      if scheduler.pendingCount > periodicPending {
        scheduler.schedule(after: UIWatch.checkEvery, event(.uiCheck, 0))
        periodicPending += 1
      }
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
      user: user, room: layout.homeRoom[Int(user)], role: role, runtime: runtime, random: links[Int(user)].client)
    if onPhone {
      body(phone!, &client)
    } else {
      switch role {
      case .audience: body(audience, &client)
      case .owner: body(host, &client)
      case .admin: body(admin, &client)
      }
    }
    links[Int(user)].client = client.random
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
        let slot = backend.inFlight.allocate(op, completion: completion.take(), generation: generation(of: op.user))
        if let refusedLocally {
          // The handle names a request the server never filed: the SDK fails the call itself.
          scheduler.schedule(after: .zero, event(.clientReply, slot, WireTag.reply(user: op.user, refusedLocally)))
        } else if !runtime.clients[Int(op.user)].loggedIn
          && (op.kind == .setVOIP || (profile.calls?.refusedLocallyBeforeLogin == true && op.kind.isCallStore))
        {
          // The IM SDK refuses setVOIP locally until its login finished (and, so configured,
          // CallStore calls too).
          if isPhoneUser(op.user) { phoneIssued(op, &scheduler) }
          if op.kind.hasCalleeList { _ = runtime.callLists.take(op.calleeList) }
          scheduler.schedule(
            after: .zero, event(.clientReply, slot, WireTag.reply(user: op.user, .notLoggedIn)))
        } else if !op.kind.isLocal,
          let loss = backend.chaos.requestLoss(user: op.user, call: op.kind.rawValue, scheduler.now)
        {
          if loss == .request {
            backend.neverHeard(op, slot: slot, &scheduler)
          } else {
            if loss == .answer { backend.inFlight.loseAnswer(slot) } else { backend.inFlight.delayAnswer(slot) }
            backend.sendCall(
              op, slot: slot, at: backend.fifo(downlink: false, op.user, scheduler.now, &measured), &scheduler)
          }
        } else if op.kind.isLocal {
          let open = profile.devices.openTime.sampleDuration(&links[Int(op.user)].devices)
          scheduler.schedule(after: open, event(.deviceReply, slot, WireTag.reply(user: op.user, nil)))
        } else {
          if op.kind == .applyForSeat { measured.applyCalled(op.user, scheduler.now) }
          if op.kind == .login { measured.loginCalled(op.user, scheduler.now) }
          if isPhoneUser(op.user) { phoneIssued(op, &scheduler) }
          let at =
            backend.fifo(downlink: false, op.user, scheduler.now, &measured)
            + (backend.chaos.slowdown(user: op.user, service: op.kind.faultService, scheduler.now) ?? .zero)
          backend.sendCall(op, slot: slot, at: at, &scheduler)
        }
      case .closeDevice(let user, let device):
        runtime.closeDevice(device, user: user)
      case .timer(let user, let delay, let tag, let arg):
        scheduler.schedule(
          after: delay,
          event(.clientTimer, user, backend.inFlight.addTimer(tag: tag, arg: arg, generation: generation(of: user))))
      case .review(let user, let guest, let started):
        if started { measured.counters.add(measured.reviews) }
        let id = backend.server.seats.pendingApplication(of: guest)
        if let waited = observers.reviews.review(
          slot: Int(runtime.clients[Int(user)].staffSlot), pending: id.map { backend.server.seats.requests[Int($0)] },
          id: id,
          started: started, now: scheduler.now)
        {
          measured.reviewWaited(waited)
        }
      }
      i += 1
    }
    commands.reset()
  }

  mutating func clientReply(slot: UInt32, _ answer: SeatError?, _ scheduler: inout Scheduler) {
    var completion: Completion?
    let op = backend.inFlight.take(slot, completion: &completion)
    let u = Int(op.user)
    let now = scheduler.now
    // The answer to a process that has since died reaches nobody.
    guard op.generation == generation(of: op.user) else {
      _ = backend.inFlight.takePlaced(slot)
      return
    }
    // The SDK's state follows the answer, then the world's bookkeeping of it.
    let error = runtime.answered(op, answer)
    measured.coverage.answered(
      op.kind, error, carriedOut: op.performed,
      late: (now - op.issuedAt).nanoseconds * 2 > profile.network.requestTimeout.nanoseconds)
    // An application the SDK reported as failed (-1) may stand on the server all the same: an
    // app that then shows idle tells the user what its SDK told it.
    if op.kind.isApplyOrWithdrawal && (runtime.ui.isProbed(op.user) || observers.statusIsUI(op.user)) {
      observers.uiWatch.noteAnswer(op.user, toWithdrawal: op.kind == .cancelApplication, error, now: now)
    }
    switch op.kind {
    case .login:
      // The SDK syncs its call state as part of logging in.
      if error == nil && isPhoneUser(op.user) { phones!.reconnect(op.user, &self, &scheduler) }
    case .joinLive:
      if error == nil {
        if let after = backend.chaos.reenter(host: op.user, now) {
          // Later, the host's app leaves the room and enters it again.
          scheduler.schedule(after: after, event(.hostReenter, op.user))
        }
        measured.enteredRoom(op.user, now)
        enteredRoom(op.user, slot: slot, &scheduler)
      } else if error == .failed {
        // The applicants the answer would have carried reach nobody.
        _ = backend.server.takeJoinSnapshot(slot: slot)
        // No answer: the server may have let it in. The SDK is not in the room and sends no
        // heartbeat, so the server drops it if so.
        scheduler.schedule(after: Server.presenceTimeout, event(.presenceLost, op.user))
        // A re-entry the SDK made itself it tries again, unless it has left the room since.
        if op.onBehalf { backend.retryJoin(op, &scheduler) }
      }
    case .leaveLive:
      // The SDK left whatever the answer; if the server did not hear it, it notices the silence.
      if error != nil { scheduler.schedule(after: Server.presenceTimeout, event(.presenceLost, op.user)) }
    case .applyForSeat:
      if error != nil || profile.seats.applyCompletion == .outcome { measured.applyAnswered(op.user, now) }
    case .placeCall:
      if error == nil, let id = backend.inFlight.takePlaced(slot), runtime.clients[u].call == 0 {
        // The SDK learns its call from the answer to calls(). A call the caller is out of by now
        // (it ended, or a group call goes on without the caller who hung up) it learns all the
        // same while the end's message is still on its way behind the answer (and no reconnect
        // told it of the end first): the message, or a reconnect if the app cannot hear it then,
        // tells it the call is over.
        // (Not an SDK whose session ended meanwhile, by its own account: it keeps no call state
        // while logged out, and no message of the call reaches it.)
        if runtime.clients[u].loggedIn
          && (backend.server.calls.call(of: op.user) == id
            || (isPhoneUser(op.user) && backend.server.login.isLoggedIn(op.user)
              && phones!.endSynced(op.user) != id + 1 && backend.network.isCallEndInFlight(to: op.user, call: id)))
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
    let pending = staff >= 0 ? backend.server.takeJoinSnapshot(slot: slot) : []
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
