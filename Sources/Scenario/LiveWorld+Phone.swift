import Chaos
import Clients
import LiveStack
import Oracles
import SimKernel

/// What the world keeps per phone user about its app and pushes.
struct PhoneRecord {
  /// Invalidates superseded lifecycle events.
  var lifecycleEpoch: UInt32 = 0
  /// The call whose end a resync already told the SDK, as ID + 1.
  var endSynced: UInt32 = 0
  /// The last two calls the server accepted for this user, as ID + 1 (answers can be held up by the
  /// network while the user answers another).
  var acceptedCall: UInt32 = 0
  var acceptedBefore: UInt32 = 0
  /// The last call the app declined or hung up, as ID + 1.
  var declinedCall: UInt32 = 0
  /// When the app's process last started (nanoseconds).
  var launchedAt: Int64 = 0
  /// When the user will open the app again (while it is away).
  var reopenAt: Int64 = 0
  /// When the last push was handed to the app (-1: reported since).
  var pushHandedAt: Int64 = -1
}

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

  @inline(__always)
  func phoneIndex(_ user: UInt32) -> Int { Int(user - layout.phones.lowerBound) }

  /// The calls section of the profile (inlined, so that reading one setting does not copy it).
  var callsProfile: Profile.Calls {
    @inline(__always) get { profile.calls! }
  }

  // MARK: - Lifecycle

  /// Arms each phone's first lifecycle step and token rotation.
  mutating func startPhones(_ scheduler: inout Scheduler) {
    guard let c = profile.calls else { return }
    for u in layout.phones {
      if let fg = c.app.foreground {
        scheduler.schedule(after: fg.sampleDuration(&osRandom), event(.appLifecycle, u, 0))
      }
      if let life = c.push.tokenLifetime {
        scheduler.schedule(after: life.sampleDuration(&osRandom), event(.tokenRotated, u))
      }
      if let every = c.app.cellularCallEvery {
        scheduler.schedule(after: every.sampleDuration(&osRandom), event(.cellularCall, u, 1))
      }
    }
  }

  /// The phone's user starts or ends a cellular call, which holds a conversation group meanwhile.
  mutating func cellularCall(user: UInt32, starts: Bool, _ scheduler: inout Scheduler) {
    let app = callsProfile.app
    phoneOS!.setForeignCall(user, starts)
    if starts {
      scheduler.schedule(after: app.cellularCallDuration.sampleDuration(&osRandom), event(.cellularCall, user, 0))
    } else if let every = app.cellularCallEvery {
      scheduler.schedule(after: every.sampleDuration(&osRandom), event(.cellularCall, user, 1))
    }
  }

  /// The user starts something in the system UI; the action goes to the app's delegate if it runs.
  mutating func systemAction(user: UInt32, kind: ConversationActionKind, _ scheduler: inout Scheduler) {
    let os = phoneOS!
    guard os.isRunning(user) else { return }
    let action = os.makeAction(user, uuid: os.makeUUID(), kind: kind)
    scheduler.schedule(after: os.limits.actionTimeout, event(.actionTimeout, action.id))
    withClient(user, &scheduler) { b, c in b.conversationAction(action, &c) }
  }

  /// Schedules the next lifecycle step of `user` after `delay`, superseding any other.
  mutating func scheduleLifecycle(_ user: UInt32, after delay: SimDuration, _ scheduler: inout Scheduler) {
    let i = phoneIndex(user)
    phoneRecords[i].lifecycleEpoch &+= 1
    scheduler.schedule(after: delay, event(.appLifecycle, user, phoneRecords[i].lifecycleEpoch))
  }

  /// Whether the app of `user` is busy with a call (which keeps it running in the background).
  /// (Inlined: a call would copy the whole world to pass `self` from a mutating handler.)
  @inline(__always)
  func inCall(_ user: UInt32) -> Bool {
    runtime.clients[Int(user)].callState != .none || phoneOS!.activeConversations(user) > 0
  }

  /// The user leaves or opens the app, or the system reclaims a suspended one.
  mutating func appLifecycle(user: UInt32, epoch: UInt32, _ scheduler: inout Scheduler) {
    let i = phoneIndex(user)
    guard epoch == phoneRecords[i].lifecycleEpoch else { return }
    let os = phoneOS!
    let app = callsProfile.app
    let now = scheduler.now.nanoseconds
    switch os.appState(user) {
    case .foreground:
      let away = app.away.sampleDuration(&osRandom)
      phoneRecords[i].reopenAt = now + away.nanoseconds
      if osRandom.chance(app.closeProbability) {
        closeApp(user, &scheduler)
        scheduleLifecycle(user, after: away, &scheduler)
      } else {
        os.setApp(user, .background)
        os.setAwake(user, inCall(user))
        let reclaim = app.suspendedLifetime.sampleDuration(&osRandom)
        scheduleLifecycle(user, after: min(away, reclaim), &scheduler)
      }
    case .background:
      if now >= phoneRecords[i].reopenAt {
        os.setApp(user, .foreground)
        if runtime.clients[Int(user)].loggedIn { resyncCalls(user, &scheduler) }
        if let fg = app.foreground { scheduleLifecycle(user, after: fg.sampleDuration(&osRandom), &scheduler) }
      } else if inCall(user) {
        // A call keeps the app running; the system looks again later.
        let next = app.suspendedLifetime.sampleDuration(&osRandom)
        let until = SimDuration(nanoseconds: phoneRecords[i].reopenAt - now)
        scheduleLifecycle(user, after: min(next, until), &scheduler)
      } else {
        killProcess(user, &scheduler)
        scheduleLifecycle(user, after: .nanoseconds(phoneRecords[i].reopenAt - now), &scheduler)
      }
    case .killed:
      launch(user, foreground: true, &scheduler)
      if let fg = app.foreground { scheduleLifecycle(user, after: fg.sampleDuration(&osRandom), &scheduler) }
    }
  }

  /// The user swipes the app away. The SDK's documented rules on closing: a caller hangs up, a
  /// ringing callee rejects, a connected callee hangs up; then the process dies.
  mutating func closeApp(_ user: UInt32, _ scheduler: inout Scheduler) {
    let c = runtime.clients[Int(user)]
    if c.call != 0 && c.loggedIn {
      let isCaller = server.calls.calls[Int(c.call - 1)].caller == user
      let kind: OperationKind = c.callState == .waiting && !isCaller ? .rejectCall : .hangupCall
      runtime.commands.append(
        .operation(
          PendingOperation(
            user: user, kind: kind, target: 0, seat: -1, policy: .abortWhenOccupied, timeout: .zero,
            issuedAt: scheduler.now, completion: nil)))
      executeCommands(&scheduler)
    }
    killProcess(user, &scheduler)
  }

  /// The app's process dies: its SDK state is gone and the system ends its conversations. The
  /// server keeps its login (pushes still reach the phone).
  mutating func killProcess(_ user: UInt32, _ scheduler: inout Scheduler) {
    phoneOS!.setApp(user, .killed)
    runtime.processDied(user)
    drainPhoneSystem(&scheduler)
  }

  /// A new process of the app starts (the user opened it, or PushKit woke it) and its code runs.
  mutating func launch(_ user: UInt32, foreground: Bool, _ scheduler: inout Scheduler) {
    phoneOS!.launch(user, foreground: foreground)
    phoneRecords[phoneIndex(user)].launchedAt = scheduler.now.nanoseconds
    metrics.counters.add(metrics.coldStarts)
    phoneRecords[phoneIndex(user)].endSynced = 0
    withClient(user, &scheduler) { b, c in b.appLaunched(&c) }
  }

  /// The SDK (re)connected: it learns the call it is being called in, or that the call a push
  /// announced, or the call it believed it was in, is over.
  mutating func resyncCalls(_ user: UInt32, _ scheduler: inout Scheduler) {
    let u = Int(user)
    if !server.login.isLoggedIn(user) && runtime.clients[u].loggedIn {
      // The server ended the session while the app was away: it hears so on reconnecting.
      runtime.clients[u].loggedIn = false
      runtime.clients[u].call = 0
      runtime.clients[u].callState = .none
      if runtime.clients[u].subscriptions.contains(.loginEvents) {
        withClient(user, &scheduler) { b, c in b.loginEvent(.kickedOffline, &c) }
      }
      return
    }
    let i = phoneIndex(user)
    let sdkCall = runtime.clients[u].call
    let serverCall = server.calls.call(of: user)
    let pushed = phoneOS!.lastPushCall(user)
    var stale: [UInt32] = []
    if sdkCall != 0 && serverCall != sdkCall - 1 { stale.append(sdkCall - 1) }
    if pushed != 0 && serverCall != pushed - 1 && sdkCall != pushed && phoneRecords[i].endSynced != pushed {
      stale.append(pushed - 1)
    }
    for id in stale {
      phoneRecords[i].endSynced = id + 1
      let c = server.calls.calls[Int(id)]
      deliverCall(user, .ended(user: user, call: id, reason: c.endReason ?? .noResponse, other: c.caller), &scheduler)
    }
    if let id = serverCall, sdkCall != id + 1 {
      let state = server.calls.state(of: user)
      if state == .waiting && server.calls.calls[Int(id)].caller == user {
        // Its own call, still ringing the others: the SDK takes it up again, with no incoming ring.
        runtime.clients[u].call = id + 1
        runtime.clients[u].callState = .waiting
        return
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
    if chaos.active && fires(.tokenInvalidated, user: user, now) { tokenRotated(user: user, &scheduler) }
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
    let i = phoneIndex(user)
    metrics.pushArrived(user, scheduler.now)
    if os.isSuppressed(user) { return metrics.countLostPush(.suppressed) }
    if server.calls.call(of: user) != call { metrics.counters.add(metrics.probePushAfterCallEnded) }
    if chaos.active && os.appState(user) != .killed && fires(.appKilled, user: user, scheduler.now) {
      killProcess(user, &scheduler)
    }
    switch os.appState(user) {
    case .killed:
      scheduler.schedule(
        after: callsProfile.app.coldStart.sampleDuration(&osRandom), event(.appLaunched, user, call + 1))
    case .background where !os.isAwake(user):
      // The SDK reconnects and catches up, then the handler runs.
      os.setAwake(user, true)
      if runtime.clients[Int(user)].loggedIn { resyncCalls(user, &scheduler) }
      handPush(user, call: call, &scheduler)
    default:
      handPush(user, call: call, &scheduler)
    }
  }

  /// A cold start finished: the new process runs its launch code, then gets the push that woke it.
  mutating func appLaunched(user: UInt32, pushCall: UInt32, _ scheduler: inout Scheduler) {
    if phoneOS!.appState(user) == .killed { launch(user, foreground: false, &scheduler) }
    if pushCall != 0 { handPush(user, call: pushCall - 1, &scheduler) }
  }

  /// PushKit hands the push to the app's handler, if this process created its registry, and the
  /// report deadline starts.
  mutating func handPush(_ user: UInt32, call: UInt32, _ scheduler: inout Scheduler) {
    let os = phoneOS!
    os.handPush(user, call: call)
    phoneRecords[phoneIndex(user)].pushHandedAt = scheduler.now.nanoseconds
    guard os.hasRegistry(user) else {
      // No handler: the push is undeliverable, and no later report makes up for it.
      scheduler.schedule(
        after: callsProfile.push.reportDeadline,
        event(.reportDeadline, user, LiveWorld.noHandler | UInt32(os.generation(user))))
      return
    }
    scheduler.schedule(after: callsProfile.push.reportDeadline, event(.reportDeadline, user, os.pushesHanded(user)))
    let c = server.calls.calls[Int(call)]
    let push = VoIPPush(call: call, callerName: c.caller, mediaType: c.mediaType)
    withClient(user, &scheduler) { b, client in b.incomingPush(push, &client) }
  }

  /// The report deadline of push `serial` passed: if the app has not reported it, the system kills
  /// the app (and after repeated kills stops delivering its VoIP pushes).
  /// Marks a report deadline whose push found no handler (the low bits: the process generation).
  static let noHandler: UInt32 = 1 << 31

  mutating func reportDeadline(user: UInt32, serial: UInt32, _ scheduler: inout Scheduler) {
    let os = phoneOS!
    let i = phoneIndex(user)
    if serial & LiveWorld.noHandler != 0 {
      guard UInt32(os.generation(user)) == serial & 0xFFFF, os.appState(user) != .killed else { return }
      return missedReport(user, noHandler: true, &scheduler)
    }
    guard os.pushesReported(user) < serial else {
      checker.observeReportedPushAtDeadline(
        user: user, pushed: os.lastPushCall(user), deadline: callsProfile.push.reportDeadline, phones: os,
        calls: server.calls, sdkLoggedIn: runtime.clients[Int(user)].loggedIn,
        launchedAtNs: phoneRecords[i].launchedAt, declined: phoneRecords[i].declinedCall, at: scheduler.now)
      return
    }
    missedReport(user, noHandler: false, &scheduler)
  }

  /// The system kills the app for a push it did not report (and may stop delivering its pushes).
  mutating func missedReport(_ user: UInt32, noHandler: Bool, _ scheduler: inout Scheduler) {
    let os = phoneOS!
    let i = phoneIndex(user)
    checker.observeMissedReport(
      user: user, call: os.lastPushCall(user) &- 1,
      handedAt: SimInstant(nanoseconds: phoneRecords[i].pushHandedAt), noHandler: noHandler, at: scheduler.now)
    metrics.counters.add(metrics.pushAppKilled)
    let wasSuppressed = os.isSuppressed(user)
    os.killForMissedReport(user, suppressAfter: callsProfile.push.suppressAfter)
    if os.isSuppressed(user) && !wasSuppressed { metrics.counters.add(metrics.pushSuppressedApps) }
    phoneRecords[i].pushHandedAt = -1
    killProcess(user, &scheduler)
    // The user opens the app again later.
    let away = callsProfile.app.away.sampleDuration(&osRandom)
    phoneRecords[i].reopenAt = scheduler.now.nanoseconds + away.nanoseconds
    scheduleLifecycle(user, after: away, &scheduler)
  }

  /// PushKit delivers the device token to the process that created the registry.
  mutating func tokenIssued(user: UInt32, generation: UInt32, _ scheduler: inout Scheduler) {
    let os = phoneOS!
    guard UInt32(os.generation(user)) == generation, os.hasRegistry(user), os.appState(user) != .killed else {
      return
    }
    let token = os.token(user)
    withClient(user, &scheduler) { b, c in b.pushTokenUpdated(token, &c) }
  }

  /// The system replaces the device's token; a running app with a registry hears of the new one.
  mutating func tokenRotated(user: UInt32, _ scheduler: inout Scheduler) {
    let os = phoneOS!
    os.rotateToken(user)
    metrics.counters.add(metrics.tokenRotations)
    if os.hasRegistry(user) && os.appState(user) != .killed {
      scheduler.schedule(
        after: callsProfile.push.tokenDelay.sampleDuration(&osRandom),
        event(.tokenIssued, user, UInt32(os.generation(user))))
    }
    if let life = callsProfile.push.tokenLifetime {
      scheduler.schedule(after: life.sampleDuration(&osRandom), event(.tokenRotated, user))
    }
  }

  /// Bookkeeping when a phone app calls the server: when it logged in (for the token latency),
  /// and whether a token upload is allowed.
  mutating func phoneIssued(_ op: PendingOperation, _ scheduler: inout Scheduler) {
    switch op.kind {
    case .login:
      metrics.phoneLoginCalled(op.user, scheduler.now)
    case .rejectCall, .hangupCall:
      phoneRecords[phoneIndex(op.user)].declinedCall = runtime.clients[Int(op.user)].call
    case .setVOIP:
      checker.observeTokenUpload(
        user: op.user, imLoggedIn: runtime.clients[Int(op.user)].loggedIn,
        tuiLoggedIn: phoneOS!.isTUILoggedIn(op.user), certificateID: op.target,
        token: UInt16(bitPattern: op.seat), at: scheduler.now)
    default:
      break
    }
  }

  // MARK: - Conversations

  /// Acts on what the phone's system did during the last callback: tokens to deliver, reports to
  /// measure and ring, completions to judge.
  mutating func drainPhoneSystem(_ scheduler: inout Scheduler) {
    guard let os = phoneOS, os.hasEvents else { return }
    let events = os.takeEvents()
    let now = scheduler.now
    for e in events {
      switch e {
      case .registryCreated(let phone):
        scheduler.schedule(
          after: callsProfile.push.tokenDelay.sampleDuration(&osRandom),
          event(.tokenIssued, phone, UInt32(os.generation(phone))))
      case .reported(let phone, let uuid, let error, let active):
        let i = phoneIndex(phone)
        metrics.conversationReported(phone, now)
        phoneRecords[i].pushHandedAt = -1
        guard error == nil else {
          metrics.counters.add(metrics.conversationReportFailed)
          continue
        }
        metrics.counters.add(metrics.conversationsReported)
        // A reported call gives a background app time to run (CallKit keeps it awake while the
        // conversation lasts), so its SDK hears how the call goes.
        if os.appState(phone) == .background && !os.isAwake(phone) { os.setAwake(phone, true) }
        checker.observeConversationCount(
          user: phone, active: Int(active), limit: os.limits.maximumConversationGroups, at: now)
        guard let conv = os.conversation(phone, uuid) else { continue }  // ended at once
        if conv.call != 0 {
          let id = conv.call - 1
          metrics.rang(phone, call: id, isPhone: true, now)
          if server.calls.calls[Int(id)].isOver {
            scheduler.schedule(after: callsProfile.conversationGrace, event(.conversationCheck, phone, id))
          }
        }
        scheduler.schedule(
          after: callsProfile.phone.answerAfter.sampleDuration(&osRandom), event(.systemTap, phone, uuid))
      case .ended(let phone, _, _):
        if os.isRunning(phone) && osRandom.chance(callsProfile.startActionProbability) {
          scheduler.schedule(
            after: callsProfile.phone.answerAfter.sampleDuration(&osRandom),
            event(.systemAction, phone, UInt32(ConversationActionKind.start.rawValue)))
        }
      case .completed(let by, let id, let fulfilled):
        let pending = os.pendingAction(id)
        let call = pending?.call ?? 0
        switch os.settle(action: id, fulfilled: fulfilled) {
        case .onTime(let phone, _, let kind):
          metrics.counters.add(fulfilled ? metrics.actionsFulfilled : metrics.actionsFailed)
          if kind == .join && fulfilled {
            let id = call == 0 ? nil : call - 1
            let r = phoneRecords[phoneIndex(phone)]
            let accepted = call != 0 && (r.acceptedCall == call || r.acceptedBefore == call)
            checker.observeJoinFulfilled(user: phone, call: id, accepted: accepted, at: now)
          }
        case .afterTimeout:
          checker.observeLateCompletion(
            user: by, action: id, repeated: false, fulfilled: fulfilled, at: now)
        case .repeated, .unknown:
          checker.observeLateCompletion(
            user: by, action: id, repeated: true, fulfilled: fulfilled, at: now)
        }
      }
    }
    // Settling actions may have ended conversations.
    if os.hasEvents { drainPhoneSystem(&scheduler) }
  }

  /// The user taps in the system UI of a ringing conversation: answer (a Join) or decline (an End),
  /// as the phone settings say. The action goes to the app's delegate and its timeout starts.
  mutating func systemTap(user: UInt32, uuid: UInt32, _ scheduler: inout Scheduler) {
    let os = phoneOS!
    guard let conv = os.conversation(user, uuid), !conv.connected else { return }
    let kind: ConversationActionKind =
      osRandom.chance(callsProfile.phone.answerProbability) ? .join : .end
    let action = os.makeAction(user, uuid: uuid, kind: kind)
    if kind == .join && !runtime.clients[Int(user)].loggedIn { metrics.counters.add(metrics.probeJoinDuringColdStart) }
    scheduler.schedule(after: os.limits.actionTimeout, event(.actionTimeout, action.id))
    withClient(user, &scheduler) { b, c in b.conversationAction(action, &c) }
  }

  /// Call `call` ended for phone `user`: its conversation must end within the grace period.
  mutating func callEndedForPhone(_ user: UInt32, call: UInt32, _ scheduler: inout Scheduler) {
    guard phoneOS!.activeConversations(user) > 0 else { return }
    scheduler.schedule(after: callsProfile.conversationGrace, event(.conversationCheck, user, call))
  }

  /// The grace period after `call` ended passed: the oracles look for a conversation still bound
  /// to it.
  mutating func conversationCheck(user: UInt32, call: UInt32, _ now: SimInstant) {
    checker.observeGraceAfterCall(
      user: user, call: call, grace: callsProfile.conversationGrace, calls: server.calls, phones: phoneOS!, at: now)
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
    switch event {
    case .received(_, let id):
      runtime.clients[u].call = id + 1
      runtime.clients[u].callState = .waiting
      if chaos.active { ringFaults(callee: user, call: id, &scheduler) }
      // A ring in the app counts when the app is on screen; otherwise the system UI's ring does.
      if !isPhoneUser(user) || phoneOS!.appState(user) == .foreground {
        metrics.rang(user, call: id, isPhone: isPhoneUser(user), now)
      }
    case .started(_, let id):
      runtime.clients[u].call = id + 1
      runtime.clients[u].callState = .accept
      if server.calls.calls[Int(id)].caller == user {
        metrics.callConnected(id, now)
      }
    case .ended(_, let id, _, _):
      if runtime.clients[u].call == id + 1 {
        runtime.clients[u].call = 0
        runtime.clients[u].callState = .none
      }
    }
    guard runtime.clients[u].subscriptions.contains(.callEvents) else {
      return unheard(user, sawOwnLeave: false, now)
    }
    withClient(user, &scheduler) { b, c in b.callEvent(event, &c) }
  }
}
