import Chaos
import Clients
import LiveStack
import Oracles
import SimKernel

extension LiveWorld {
  /// Whether `user` is a phone user with an app on a simulated phone.
  @inline(__always)
  func isPhoneUser(_ user: UInt32) -> Bool { phoneOS != nil && layout.phones.contains(user) }

  /// The process generation of `user`'s app (0 for room users).
  @inline(__always)
  func generation(of user: UInt32) -> UInt16 { isPhoneUser(user) ? phoneOS!.generation(user) : 0 }

  /// Whether a signalling message can reach `user` now: room users always; a phone app only while
  /// it runs (in the foreground, or awake in the background) and its SDK is logged in.
  /// (Inlined: a call would copy the whole world to pass `self` from a mutating handler.)
  @inline(__always)
  func signallingReaches(_ user: UInt32) -> Bool {
    guard isPhoneUser(user) else { return true }
    return phoneOS!.isRunning(user) && runtime.clients[Int(user)].loggedIn
  }

  /// The calls section of the profile (inlined, so that reading one setting does not copy it).
  var callsProfile: Profile.Calls {
    @inline(__always) get { profile.calls! }
  }

  // MARK: - Calls

  /// The SDK (re)connected: it learns the call it is being called in, or that the call a push
  /// announced, or the call it believed it was in, is over.
  mutating func resyncCalls(_ user: UInt32, _ scheduler: inout Scheduler) {
    let u = Int(user)
    if !server.login.isLoggedIn(user) && runtime.clients[u].loggedIn {
      // The server ended the session while the app was away: it hears so on reconnecting.
      runtime.sessionEndedWhileAway(user)
      if runtime.clients[u].subscriptions.contains(.loginEvents) { run(user, .loginEvent(.kickedOffline), &scheduler) }
      return
    }
    let sdkCall = runtime.clients[u].call
    let serverCall = server.calls.call(of: user)
    let pushed = phoneOS!.lastPushCall(user)
    var stale: [UInt32] = []
    if sdkCall != 0 && serverCall != sdkCall - 1 { stale.append(sdkCall - 1) }
    if pushed != 0 && serverCall != pushed - 1 && sdkCall != pushed && phones!.endSynced(user) != pushed {
      stale.append(pushed - 1)
    }
    for id in stale {
      phones!.markEndSynced(user, call: id)
      let c = server.calls.calls[Int(id)]
      deliverCall(user, .ended(user: user, call: id, reason: c.endReason ?? .noResponse, other: c.caller), &scheduler)
    }
    if let id = serverCall, sdkCall != id + 1 {
      let state = server.calls.state(of: user)
      if state == .waiting && server.calls.calls[Int(id)].caller == user {
        // Its own call, still ringing the others: the SDK takes it up again, with no incoming ring.
        return runtime.dialing(user, call: id)
      }
      deliverCall(
        user, state == .accept ? .started(user: user, call: id) : .received(user: user, call: id), &scheduler)
    }
  }

  // MARK: - Push

  /// The call server rings `user`, whose app is not connected: the backend sends what its
  /// registration allows.
  mutating func routePush(to user: UInt32, call: UInt32, _ scheduler: inout Scheduler) {
    let now = scheduler.now
    if chaos.active && fires(.tokenInvalidated, user: user, now) { phones!.rotateToken(user, &self, &scheduler) }
    switch server.push.route(to: user, phoneToken: phoneOS!.token(user)) {
    case .voip:
      metrics.pushSent(user, now)
      if chaos.active && fires(.pushDrop, user: user, now) { return metrics.countLostPush(.dropped) }
      if chaos.isOn(.serverOutage) && window(.serverOutage, user: user, now, service: .push) != nil {
        return metrics.countLostPush(.outage)
      }
      var latency =
        callsProfile.push.backendLatency.sampleDuration(&pushRandom)
        + callsProfile.push.latency.sampleDuration(&pushRandom)
      if chaos.isOn(.serverSlowdown), let w = window(.serverSlowdown, user: user, now, service: .push) {
        latency = latency + w.extra
      }
      if chaos.active && fires(.pushDelay, user: user, now) {
        latency = latency + .seconds(20 + Int64(chaos.draw(below: 40)))
      }
      scheduler.schedule(after: latency, event(.pushDelivered, user, call))
      if chaos.active && fires(.pushDuplicate, user: user, now) {
        scheduler.schedule(
          after: callsProfile.push.latency.sampleDuration(&pushRandom), event(.pushDelivered, user, call))
      }
      if pushRandom.chance(callsProfile.push.duplicateRate) {
        // APNs delivers it twice.
        metrics.counters.add(metrics.pushDuplicated)
        scheduler.schedule(
          after: callsProfile.push.latency.sampleDuration(&pushRandom), event(.pushDelivered, user, call))
      }
    case .apnsAlert:
      metrics.counters.add(metrics.pushApnsAlert)
    case .lost(let reason):
      metrics.countLostPush(reason)
    }
  }

  /// A VoIP push reaches the phone: the system wakes the app (a cold start if it was killed) and
  /// hands it the push, unless it stopped delivering to this app.
  mutating func pushDelivered(user: UInt32, call: UInt32, _ scheduler: inout Scheduler) {
    let os = phoneOS!
    metrics.pushArrived(user, scheduler.now)
    if os.isSuppressed(user) { return metrics.countLostPush(.suppressed) }
    if server.calls.call(of: user) != call { metrics.counters.add(metrics.probePushAfterCallEnded) }
    if chaos.active && os.appState(user) != .killed && fires(.appKilled, user: user, scheduler.now) {
      phones!.kill(user, &self, &scheduler)
    }
    phones!.pushArrived(user, call: call, &self, &scheduler)
  }

  /// Bookkeeping when a phone app calls the server: when it logged in (for the token latency),
  /// which call it left, and whether a token upload is allowed.
  mutating func phoneIssued(_ op: PendingOperation, _ scheduler: inout Scheduler) {
    switch op.kind {
    case .login:
      metrics.phoneLoginCalled(op.user, scheduler.now)
    case .rejectCall, .hangupCall:
      phones!.leftCall(op.user)
    case .setVOIP:
      checker.observeTokenUpload(
        user: op.user, imLoggedIn: runtime.clients[Int(op.user)].loggedIn,
        tuiLoggedIn: phoneOS!.isTUILoggedIn(op.user), certificateID: op.target,
        token: UInt16(bitPattern: op.seat), at: scheduler.now)
    default:
      break
    }
  }

  // MARK: - Call events

  /// A call event reaches the SDK of `user`: its call state follows, then the behaviour hears it if
  /// subscribed.
  mutating func deliverCall(_ user: UInt32, _ event: CallEvent, _ scheduler: inout Scheduler) {
    let u = Int(user)
    let now = scheduler.now
    switch event {
    case .received(_, let id), .started(_, let id):
      checker.observeCallEvent(user: user, call: id, current: runtime.clients[u].call, ends: false, at: now)
    case .ended:
      break
    }
    runtime.received(event, user: user)
    switch event {
    case .received(_, let id):
      if chaos.active { ringFaults(callee: user, call: id, &scheduler) }
      // A ring in the app counts when the app is on screen; otherwise the system UI's ring does.
      if !isPhoneUser(user) || phoneOS!.appState(user) == .foreground {
        metrics.rang(user, call: id, isPhone: isPhoneUser(user), now)
      }
    case .started(_, let id):
      if server.calls.calls[Int(id)].caller == user { metrics.callConnected(id, now) }
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
    .actionTimeout, .conversationCheck, .systemAction,
  ]

  /// The scheduler event for a phone wake-up (see ``PhoneHost``).
  public func event(_ wake: PhoneWake) -> Event {
    let (kind, a, b) = wake.encoded
    return event(LiveWorld.phoneEvents[kind], a, b)
  }

  /// Runs a callback with the user's behaviour, then its commands and checks, if its SDK stream
  /// is subscribed; else checks the client as it now stands.
  public mutating func run(
    _ user: UInt32, _ callback: ClientCallback, sawOwnLeave: Bool = false, _ scheduler: inout Scheduler
  ) {
    if let stream = callback.stream, !runtime.clients[Int(user)].subscriptions.contains(stream) {
      return unheard(user, sawOwnLeave: sawOwnLeave, scheduler.now)
    }
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

  /// The app's SDK reconnected: it catches up on its calls.
  public mutating func reconnected(_ user: UInt32, _ scheduler: inout Scheduler) { resyncCalls(user, &scheduler) }

  /// The call server's record of call `id`.
  public func call(_ id: UInt32) -> CallRecord { server.calls.calls[Int(id)] }

  /// What happened on a phone reaches the metrics and the oracles.
  public mutating func observe(_ news: PhoneNews, _ now: SimInstant) {
    metrics.observe(news, now)
    checker.observe(news, calls: server.calls, fleet: phones!, at: now)
  }
}
