import Chaos
import Clients
import LiveStack
import Oracles
import Profiles
import SimKernel

extension LiveWorld {
  /// Whether `user` is a phone user with an app on a simulated phone (see ``ServerSide``'s).
  @inline(__always)
  func isPhoneUser(_ user: UInt32) -> Bool { backend.isPhoneUser(user) }

  /// The row of `user`'s role in outcome coverage's events (``OutcomeCoverage/roles``).
  @inline(__always)
  func coverageRole(_ user: UInt32) -> Int {
    if isPhoneUser(user) { return 3 }
    switch layout.role(of: user) {
    case .audience: return 0
    case .owner: return 1
    case .admin: return 2
    }
  }

  /// The process generation of `user`'s app (0 for room users; see ``ServerSide``'s).
  @inline(__always)
  func generation(of user: UInt32) -> UInt16 { backend.generation(of: user) }

  /// Whether a signalling message can reach `user` now (see ``ServerSide``'s). (Inlined: a call
  /// would copy the whole world to pass `self` from a mutating handler.)
  @inline(__always)
  func signallingReaches(_ user: UInt32) -> Bool { backend.signallingReaches(user) }

  /// The calls section of the profile (inlined, so that reading one setting does not copy it).
  var callsProfile: Profile.Calls {
    @inline(__always) get { profile.calls! }
  }

  // MARK: - Push

  /// A VoIP push reaches the phone: the system wakes the app (a cold start if it was killed) and
  /// hands it the push, unless it stopped delivering to this app.
  mutating func pushDelivered(user: UInt32, call word: UInt32, _ scheduler: inout Scheduler) {
    let os = phoneOS!
    measured.pushArrived(user, scheduler.now)
    if os.isSuppressed(user) { return measured.countLostPush(.suppressed) }
    let call = PushMalformation.split(word).call
    if backend.server.calls.call(of: user) != call && !backend.server.calls.isInvitedOutside(user, call: call) {
      measured.counters.add(measured.probePushAfterCallEnded)
    }
    if backend.chaos.active && os.appState(user) != .killed
      && backend.chaos.fires(.appKilled, user: user, scheduler.now)
    {
      phones!.kill(user, &self, &scheduler)
    }
    phones!.pushArrived(user, call: word, &self, &scheduler)
  }

  /// Bookkeeping when a phone app calls the server: when it logged in (for the token latency),
  /// which call it left, and whether a token upload is allowed.
  mutating func phoneIssued(_ op: PendingOperation, _ scheduler: inout Scheduler) {
    switch op.kind {
    case .login:
      measured.phoneLoginCalled(op.user, scheduler.now)
    case .rejectCall, .hangupCall:
      phones!.leftCall(op.user)
    case .setVOIP:
      observers.checker.observeTokenUpload(
        user: op.user, imLoggedIn: runtime.clients[Int(op.user)].loggedIn,
        tuiLoggedIn: phoneOS!.isTUILoggedIn(op.user), certificateID: op.voipConfig.certificateID,
        token: op.voipConfig.token, at: scheduler.now)
    default:
      break
    }
  }

  // MARK: - Call events

  /// A call event reaches the SDK of `user`: its call state follows, then the behaviour hears it if
  /// subscribed.
  public mutating func deliver(_ user: UInt32, _ event: CallEvent, _ scheduler: inout Scheduler) {
    let u = Int(user)
    let now = scheduler.now
    switch event {
    case .received(_, let id), .started(_, let id):
      observers.checker.observeCallEvent(user: user, call: id, current: runtime.clients[u].call, ends: false, at: now)
    case .ended:
      break
    }
    runtime.setCallMedia(backend.server.calls.calls[Int(event.call)].mediaType, of: user)
    runtime.received(event, user: user)
    switch event {
    case .received(_, let id):
      if backend.chaos.active { ringFaults(callee: user, call: id, &scheduler) }
      // A ring in the app counts when the app is on screen; otherwise the system UI's ring does.
      if !isPhoneUser(user) || phoneOS!.appState(user) == .foreground {
        measured.rang(user, call: id, isPhone: isPhoneUser(user), now)
      }
    case .started(_, let id):
      if backend.server.calls.calls[Int(id)].caller == user { measured.callConnected(id, now) }
    case .ended:
      break
    }
    run(user, .callEvent(event), &scheduler)
  }
}

extension LiveWorld: PhoneHost {
  /// The event kind of each phone wake-up, in ``PhoneWake/encoded`` order.
  static let phoneEvents: [LiveEvent] = [
    .appLifecycle, .tokenRotated, .cellularCall, .appLaunched, .reportDeadline, .tokenIssued, .systemTap,
    .actionTimeout, .conversationCheck, .systemAction, .appStart,
  ]

  /// The phone wake-up kind of each event kind, by raw value (-1: not a phone wake-up).
  static let phoneWakeKind: [Int] = {
    var kinds = [Int](repeating: -1, count: Int(LiveEvent.allCases.map(\.rawValue).max()!) + 1)
    for (kind, event) in phoneEvents.enumerated() { kinds[Int(event.rawValue)] = kind }
    return kinds
  }()

  /// The scheduler event for a phone wake-up (see ``PhoneHost``).
  public static func event(_ wake: PhoneWake) -> Event {
    let (kind, a, b) = wake.encoded
    return phoneEvents[kind].with(a, b)
  }

  /// Runs a callback with the user's behaviour, then its commands and checks, if its SDK stream
  /// is subscribed; else checks the client as it now stands. (Inlined: the callback's case is then
  /// known at each call site, and its dispatch folds away.)
  @inline(__always)
  public mutating func run(
    _ user: UInt32, _ callback: ClientCallback, sawOwnLeave: Bool = false, _ scheduler: inout Scheduler
  ) {
    if let stream = callback.stream, !runtime.clients[Int(user)].subscriptions.contains(stream) {
      return unheard(user, sawOwnLeave: sawOwnLeave, &scheduler)
    }
    measured.coverage.heard(callback, role: coverageRole(user))
    withClient(user, sawOwnLeave: sawOwnLeave, &scheduler) { b, c in b.run(callback, &c) }
  }

  /// Runs a callback (see ``run(_:_:sawOwnLeave:_:)``).
  public mutating func run(_ user: UInt32, _ callback: ClientCallback, _ scheduler: inout Scheduler) {
    run(user, callback, sawOwnLeave: false, &scheduler)
  }

  /// Sends an SDK call made on an app's behalf, as if the app had made it.
  public mutating func issue(_ op: PendingOperation, _ scheduler: inout Scheduler) {
    runtime.commands.append(.operation(op))
    executeCommands(&scheduler)
  }

  /// Whether the server still has `user` logged in.
  public func isLoggedIn(_ user: UInt32) -> Bool { backend.server.login.isLoggedIn(user) }

  /// The call the server has `user` in.
  public func serverCall(of user: UInt32) -> UInt32? { backend.server.calls.call(of: user) }

  /// `user`'s state in its call, by the server's account.
  public func serverCallState(of user: UInt32) -> CallParticipantState { backend.server.calls.state(of: user) }

  /// What the call server knows of call `id` that a phone needs.
  public func call(_ id: UInt32) -> CallFacts { CallFacts(backend.server.calls.calls[Int(id)]) }

  /// What happened on a phone reaches the metrics and the oracles.
  public mutating func observe(_ news: PhoneNews, _ now: SimInstant) {
    measured.observe(news, now)
    // An app whose login is still on its way (a slow or overloaded login service) cannot decline a
    // call yet: whether the call is released is judged by the call's own liveness checks.
    if case .reportedByDeadline(let phone, _, _, _) = news, !runtime.clients[Int(phone)].loggedIn,
      backend.inFlight.isLoggingIn(phone)
    {
      return
    }
    observers.checker.observe(news, calls: backend.server.calls, fleet: phones!, at: now)
  }
}
