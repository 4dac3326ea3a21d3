import LiveStack
import SimKernel

/// The phones of every phone user, driven through time: each app's lifecycle (foreground,
/// background, suspended, killed, cold start), the cellular calls that hold a conversation group,
/// PushKit handing pushes and tokens to the app, the report deadline and the kill that follows a
/// missed report, and the system UI's taps on ringing conversations.
///
/// The fleet owns the ``PhoneSystem`` (what each phone's OS knows) and decides every step from its
/// own random stream; the ``PhoneHost`` it runs in schedules the wake-ups, runs the apps' code and
/// hears what happened.
public final class PhoneFleet {
  /// The phones' operating system.
  public let os: PhoneSystem
  /// The SDK state of the phones' apps.
  public let runtime: ClientRuntime
  let app: AppLifecycle
  /// The push path's settings.
  public let push: PushSettings
  let answerAfter: Distribution
  let answerProbability: Ratio
  /// How long a conversation may outlive its call.
  public let conversationGrace: SimDuration
  let startActionProbability: Ratio
  /// Chance that, when a report leaves the phone with two or more conversations, the user taps
  /// "merge" in the system UI: a Merge action the app must fulfill or fail.
  public var mergeActionProbability: Ratio = .zero
  @exclusivity(unchecked) var records: [Record]
  @exclusivity(unchecked) var random: [SplitMix64]
  /// An empty buffer for the next ``drain(_:_:)`` to take the system's events into (kept, with
  /// its capacity, between drains).
  @exclusivity(unchecked) var spareEvents: [PhoneSystemEvent] = []
  /// Whether the apps hear their app leave the foreground and come back (`appStateChanged`, which
  /// the harness turns into UIKit's notifications); the built-in phone does not listen.
  public var notifiesLifecycle = false
  /// Apps sent to the background that have yet to hear so.
  @exclusivity(unchecked) var pendingBackground: [UInt32] = []

  /// What the fleet keeps per phone besides the OS's state.
  struct Record {
    /// Invalidates superseded lifecycle steps.
    var lifecycleEpoch: UInt32 = 0
    /// The call whose end a reconnect already told the SDK, as ID + 1.
    var endSynced: UInt32 = 0
    /// The last two calls the server accepted for this user, as ID + 1 (answers can be held up by
    /// the network while the user answers another).
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
    /// Pushes handed (a count) when the app was last killed for not reporting: their deadlines
    /// have nothing left to judge.
    var killedAtSerial: UInt32 = 0
  }

  /// Marks a report deadline whose push found no handler (the low bits: the process generation).
  public static let noHandler: UInt32 = 1 << 31

  /// A fleet of `os`'s phones, whose apps run on `runtime`, each phone drawing from its own
  /// generator in `random` (by phone index).
  public init(
    os: PhoneSystem, runtime: ClientRuntime, app: AppLifecycle, push: PushSettings, phone: PhoneSettings,
    conversationGrace: SimDuration, startActionProbability: Ratio, random: [SplitMix64]
  ) {
    self.os = os
    self.runtime = runtime
    self.app = app
    self.push = push
    answerAfter = phone.answerAfter
    answerProbability = phone.answerProbability
    self.conversationGrace = conversationGrace
    self.startActionProbability = startActionProbability
    records = [Record](repeating: Record(), count: os.phones.count)
    self.random = random
  }

  @inline(__always)
  func index(_ user: UInt32) -> Int { Int(user - os.phones.lowerBound) }

  /// Whether the app of `user` is busy with a call (which keeps it running in the background).
  public func inCall(_ user: UInt32) -> Bool {
    runtime.clients[Int(user)].callState != .none || os.activeConversations(user) > 0
  }

  /// When the running process of `user`'s app started (nanoseconds).
  public func launchedAt(_ user: UInt32) -> Int64 { records[index(user)].launchedAt }

  // MARK: - Bookkeeping the host reports

  /// The call a reconnect already told `user`'s SDK had ended, as ID + 1.
  public func endSynced(_ user: UInt32) -> UInt32 { records[index(user)].endSynced }

  /// The server accepted `call` for `user`.
  public func accepted(_ user: UInt32, call: UInt32) {
    let i = index(user)
    records[i].acceptedBefore = records[i].acceptedCall
    records[i].acceptedCall = call + 1
  }

  /// The app of `user` declined or hung up the call its SDK knows.
  public func leftCall(_ user: UInt32) { records[index(user)].declinedCall = runtime.clients[Int(user)].call }

  // MARK: - Waking up

  /// Arms each phone's first lifecycle step, token rotation and cellular call.
  public func start<H: PhoneHost>(_ host: inout H, _ scheduler: inout Scheduler) {
    for u in os.phones {
      if let fg = app.foreground {
        scheduler.schedule(after: fg.sampleDuration(&random[index(u)]), H.event(.lifecycle(user: u, epoch: 0)))
      }
      if let life = push.tokenLifetime {
        scheduler.schedule(after: life.sampleDuration(&random[index(u)]), H.event(.tokenRotated(user: u)))
      }
      if let every = app.cellularCallEvery {
        scheduler.schedule(
          after: every.sampleDuration(&random[index(u)]), H.event(.cellularCall(user: u, starts: true)))
      }
    }
  }

  /// Carries out a wake-up the host scheduled.
  public func handle<H: PhoneHost>(_ wake: PhoneWake, _ host: inout H, _ scheduler: inout Scheduler) {
    switch wake {
    case .lifecycle(let user, let epoch): lifecycle(user, epoch: epoch, &host, &scheduler)
    case .tokenRotated(let user): rotateToken(user, &host, &scheduler)
    case .cellularCall(let user, let starts): cellularCall(user, starts: starts, &host, &scheduler)
    case .launched(let user, let pushCall): coldStartFinished(user, pushCall: pushCall, &host, &scheduler)
    case .reportDeadline(let user, let serial): reportDeadline(user, serial: serial, &host, &scheduler)
    case .tokenIssued(let user, let generation): tokenIssued(user, generation: generation, &host, &scheduler)
    case .systemTap(let user, let uuid): systemTap(user, uuid: uuid, &host, &scheduler)
    case .actionTimeout(let id): actionTimeout(id, &host, &scheduler)
    case .conversationCheck(let user, let call): host.observe(.graceAfterCall(phone: user, call: call), scheduler.now)
    case .systemAction(let user, let kind): systemAction(user, kind: kind, &host, &scheduler)
    case .appStart(let user, let action): appStart(user, action: action, &host, &scheduler)
    }
  }

  /// Schedules the next lifecycle step of `user` after `delay`, superseding any other.
  func scheduleLifecycle<H: PhoneHost>(
    _ user: UInt32, after delay: SimDuration, _ host: inout H, _ scheduler: inout Scheduler
  ) {
    let i = index(user)
    records[i].lifecycleEpoch &+= 1
    scheduler.schedule(after: delay, H.event(.lifecycle(user: user, epoch: records[i].lifecycleEpoch)))
  }

  /// The phone's user starts or ends a cellular call, which holds a conversation group meanwhile.
  func cellularCall<H: PhoneHost>(_ user: UInt32, starts: Bool, _ host: inout H, _ scheduler: inout Scheduler) {
    os.setForeignCall(user, starts)
    if starts {
      scheduler.schedule(
        after: app.cellularCallDuration.sampleDuration(&random[index(user)]),
        H.event(.cellularCall(user: user, starts: false)))
    } else if let every = app.cellularCallEvery {
      scheduler.schedule(
        after: every.sampleDuration(&random[index(user)]), H.event(.cellularCall(user: user, starts: true)))
    }
  }

  /// The SDK of `user` (re)connected: it learns the call it is being called in, or that the call
  /// a push announced, or the call it believed it was in, is over.
  public func reconnect<H: PhoneHost>(_ user: UInt32, _ host: inout H, _ scheduler: inout Scheduler) {
    let u = Int(user)
    if !host.isLoggedIn(user) && runtime.clients[u].loggedIn {
      // The server ended the session while the app was away: it hears so on reconnecting.
      runtime.sessionEndedWhileAway(user)
      if runtime.clients[u].subscriptions.contains(.loginEvents) {
        host.run(user, .loginEvent(.kickedOffline), &scheduler)
      }
      return
    }
    let sdkCall = runtime.clients[u].call
    let serverCall = host.serverCall(of: user)
    let pushed = os.lastPushCall(user)
    var stale: [UInt32] = []
    if sdkCall != 0 && serverCall != sdkCall - 1 { stale.append(sdkCall - 1) }
    if pushed != 0 && serverCall != pushed - 1 && sdkCall != pushed && records[index(user)].endSynced != pushed {
      stale.append(pushed - 1)
    }
    for id in stale {
      records[index(user)].endSynced = id + 1
      let c = host.call(id)
      host.deliver(user, .ended(user: user, call: id, reason: c.endReason ?? .noResponse, other: c.caller), &scheduler)
    }
    if let id = serverCall, sdkCall != id + 1 {
      let state = host.serverCallState(of: user)
      if state == .waiting && host.call(id).caller == user {
        // Its own call, still ringing the others: the SDK takes it up again, with no incoming ring.
        runtime.dialing(user, call: id)
      } else {
        host.deliver(
          user, state == .accept ? .started(user: user, call: id) : .received(user: user, call: id), &scheduler)
      }
      // An outgoing or connected call holds an audio session, which keeps an app in the background
      // running: a login answer that reached a suspended app must not leave it deaf to the call.
      if os.appState(user) == .background && (state == .accept || host.call(id).caller == user) {
        os.setAwake(user, true)
      }
    }
  }

  /// `user`'s SDK learnt of its call going: the app keeps running in the background (its audio
  /// session), and an app that was suspended reconnects.
  public func callGoing<H: PhoneHost>(_ user: UInt32, _ host: inout H, _ scheduler: inout Scheduler) {
    guard os.appState(user) == .background, !os.isAwake(user) else { return }
    os.setAwake(user, true)
    reconnect(user, &host, &scheduler)
  }

  // MARK: - PushKit

  /// A VoIP push reached the phone and the system delivers it: it wakes the app (a cold start if it
  /// was killed) and hands it the push. `call` is a push word: the call ID, with a malformed
  /// payload's ``PushMalformation`` in its top bits.
  public func pushArrived<H: PhoneHost>(_ user: UInt32, call: UInt32, _ host: inout H, _ scheduler: inout Scheduler) {
    switch os.appState(user) {
    case .killed:
      scheduler.schedule(
        after: app.coldStart.sampleDuration(&random[index(user)]), H.event(.launched(user: user, pushCall: call + 1))
      )
    case .background where !os.isAwake(user):
      // The SDK reconnects and catches up, then the handler runs.
      os.setAwake(user, true)
      if runtime.clients[Int(user)].loggedIn { reconnect(user, &host, &scheduler) }
      handPush(user, call: call, &host, &scheduler)
    default:
      handPush(user, call: call, &host, &scheduler)
    }
  }

  /// A cold start finished: the new process runs its launch code, then gets the push that woke it.
  func coldStartFinished<H: PhoneHost>(
    _ user: UInt32, pushCall: UInt32, _ host: inout H, _ scheduler: inout Scheduler
  ) {
    if os.appState(user) == .killed { launch(user, foreground: false, &host, &scheduler) }
    if pushCall != 0 { handPush(user, call: pushCall - 1, &host, &scheduler) }
  }

  /// PushKit hands the push to the app's handler, if this process created its registry, and the
  /// report deadline starts.
  func handPush<H: PhoneHost>(_ user: UInt32, call word: UInt32, _ host: inout H, _ scheduler: inout Scheduler) {
    let (call, malformed) = PushMalformation.split(word)
    os.handPush(user, call: call)
    records[index(user)].pushHandedAt = scheduler.now.nanoseconds
    guard os.hasRegistry(user) else {
      // No handler: the push is undeliverable, and no later report makes up for it.
      let serial = PhoneFleet.noHandler | UInt32(os.generation(user))
      scheduler.schedule(after: push.reportDeadline, H.event(.reportDeadline(user: user, serial: serial)))
      return
    }
    let serial = os.pushesHanded(user)
    let generation = os.generation(user)
    scheduler.schedule(after: push.reportDeadline, H.event(.reportDeadline(user: user, serial: serial)))
    let c = host.call(call)
    let push = VoIPPush(
      call: call, callerName: malformed == .noCallerName ? nil : c.caller, mediaType: c.mediaType,
      extReadable: malformed != .badExt)
    host.run(user, .incomingPush(push), &scheduler)
    // A handler that said it finishes later (a completion handler, an `async` method) is judged
    // then; any other finished when the callback returned.
    if !os.handlerDeferred(user) && os.pushesReported(user) < serial {
      handlerReturned(user, serial: serial, generation: generation, &host, &scheduler)
    }
  }

  /// The push handler of `user`'s process `generation` finished with push `serial` unreported
  /// (unless `os` says it was reported): the system kills the app at once (`push.reportBeforeReturn`).
  func handlerReturned<H: PhoneHost>(
    _ user: UInt32, serial: UInt32, generation: UInt16, _ host: inout H, _ scheduler: inout Scheduler
  ) {
    guard push.reportBeforeReturn, os.generation(user) == generation, os.appState(user) != .killed,
      serial > records[index(user)].killedAtSerial
    else { return }
    missedReport(user, noHandler: false, returned: true, &host, &scheduler)
  }

  /// The report deadline of push `serial` passed: if the app has not reported it, the system kills
  /// the app (and after repeated kills stops delivering its VoIP pushes).
  func reportDeadline<H: PhoneHost>(_ user: UInt32, serial: UInt32, _ host: inout H, _ scheduler: inout Scheduler) {
    if serial & PhoneFleet.noHandler != 0 {
      guard UInt32(os.generation(user)) == serial & 0xFFFF, os.appState(user) != .killed else { return }
      return missedReport(user, noHandler: true, &host, &scheduler)
    }
    guard serial > records[index(user)].killedAtSerial else { return }  // judged when the app was killed
    guard os.pushesReported(user) < serial else {
      let r = records[index(user)]
      host.observe(
        .reportedByDeadline(
          phone: user, pushed: os.lastPushCall(user), launchedAt: SimInstant(nanoseconds: r.launchedAt),
          declined: r.declinedCall), scheduler.now)
      return
    }
    missedReport(user, noHandler: false, &host, &scheduler)
  }

  /// The system kills the app for a push it did not report (and may stop delivering its pushes).
  func missedReport<H: PhoneHost>(
    _ user: UInt32, noHandler: Bool, returned: Bool = false, _ host: inout H, _ scheduler: inout Scheduler
  ) {
    let i = index(user)
    let call = os.lastPushCall(user) &- 1
    let wasSuppressed = os.isSuppressed(user)
    records[i].killedAtSerial = os.pushesHanded(user)
    os.killForMissedReport(user, suppressAfter: push.suppressAfter)
    host.observe(
      .missedReport(
        phone: user, call: call, handedAt: SimInstant(nanoseconds: records[i].pushHandedAt), noHandler: noHandler,
        returned: returned, newlySuppressed: os.isSuppressed(user) && !wasSuppressed), scheduler.now)
    records[i].pushHandedAt = -1
    kill(user, &host, &scheduler)
    // The user opens the app again later.
    let away = app.away.sampleDuration(&random[index(user)])
    records[i].reopenAt = scheduler.now.nanoseconds + away.nanoseconds
    scheduleLifecycle(user, after: away, &host, &scheduler)
  }

  /// PushKit delivers the device token to the process that created the registry.
  func tokenIssued<H: PhoneHost>(_ user: UInt32, generation: UInt32, _ host: inout H, _ scheduler: inout Scheduler) {
    guard UInt32(os.generation(user)) == generation, os.hasRegistry(user), os.appState(user) != .killed else {
      return
    }
    host.run(user, .pushTokenUpdated(os.token(user)), &scheduler)
  }

  /// The system replaces the device's token; a running app with a registry hears of the new one.
  public func rotateToken<H: PhoneHost>(_ user: UInt32, _ host: inout H, _ scheduler: inout Scheduler) {
    rotateToken(user, host: H.self, &scheduler)
    host.observe(.tokenRotated, scheduler.now)
  }

  /// Replaces `user`'s token (see ``rotateToken(_:_:_:)``) for a caller that observes the rotation
  /// itself, after this returns; `host` gives the scheduler event of each wake-up.
  public func rotateToken<H: PhoneHost>(_ user: UInt32, host: H.Type, _ scheduler: inout Scheduler) {
    os.rotateToken(user)
    if os.hasRegistry(user) && os.appState(user) != .killed {
      scheduler.schedule(
        after: push.tokenDelay.sampleDuration(&random[index(user)]),
        H.event(.tokenIssued(user: user, generation: UInt32(os.generation(user)))))
    }
    if let life = push.tokenLifetime {
      scheduler.schedule(after: life.sampleDuration(&random[index(user)]), H.event(.tokenRotated(user: user)))
    }
  }

  // MARK: - Conversations

  /// The user starts something in the system UI; the action goes to the app's delegate if it runs.
  func systemAction<H: PhoneHost>(
    _ user: UInt32, kind: ConversationActionKind, _ host: inout H, _ scheduler: inout Scheduler
  ) {
    guard os.isRunning(user) else { return }
    // A Merge joins the conversations on screen (named by the first); a Start is a new one.
    let uuid: UInt32
    var other: UInt32 = 0
    if kind == .merge {
      // Offered only where two groups on screen fit in one (`maximumConversationsPerConversationGroup`).
      guard let (first, second) = os.mergeCandidates(user) else { return }
      uuid = first
      other = second
    } else {
      uuid = os.makeUUID()
    }
    let action = os.makeAction(user, uuid: uuid, kind: kind, other: other)
    scheduler.schedule(after: os.limits.actionTimeout, H.event(.actionTimeout(action: action.id)))
    host.run(user, .conversationAction(action), &scheduler)
  }

  /// The Start action the app asked for reaches its delegate, if the action still waits and the
  /// app still runs (a process that died meanwhile took its conversations with it).
  func appStart<H: PhoneHost>(_ user: UInt32, action id: UInt32, _ host: inout H, _ scheduler: inout Scheduler) {
    guard os.isRunning(user), let a = os.pendingAction(id), a.phone == user, os.conversation(user, a.uuid) != nil
    else { return }
    let action = ConversationAction(
      id: id, kind: .start, uuid: a.uuid, deadline: scheduler.now + os.limits.actionTimeout)
    host.run(user, .conversationAction(action), &scheduler)
  }

  /// The user taps in the system UI of a ringing conversation: answer (a Join) or decline (an End),
  /// as the phone settings say. The action goes to the app's delegate and its timeout starts.
  func systemTap<H: PhoneHost>(_ user: UInt32, uuid: UInt32, _ host: inout H, _ scheduler: inout Scheduler) {
    guard let conv = os.conversation(user, uuid), !conv.connected else { return }
    let kind: ConversationActionKind = random[index(user)].chance(answerProbability) ? .join : .end
    let action = os.makeAction(user, uuid: uuid, kind: kind)
    if kind == .join && !runtime.clients[Int(user)].loggedIn { host.observe(.joinDuringColdStart, scheduler.now) }
    scheduler.schedule(after: os.limits.actionTimeout, H.event(.actionTimeout(action: action.id)))
    host.run(user, .conversationAction(action), &scheduler)
  }

  /// An action's timeout passed: the system fails it if the app has not completed it.
  func actionTimeout<H: PhoneHost>(_ id: UInt32, _ host: inout H, _ scheduler: inout Scheduler) {
    let phone = os.pendingAction(id)?.phone
    if let action = os.timeOut(action: id), let phone {
      host.observe(
        .actionTimedOut(phone: phone, action: id, kind: action.kind, timeout: os.limits.actionTimeout),
        scheduler.now)
      // The delegate hears of it (`timedOutPerforming`) if the process that got the action is
      // still alive. A suspended one hears it now too, as it would on resuming, before any answer
      // that was to complete the action (the model runs a suspended app's completions as they
      // arrive, so the system's word must not wait for the resume).
      if os.appState(phone) != .killed { host.run(phone, .conversationActionTimedOut(action), &scheduler) }
    }
    drain(&host, &scheduler)
  }

  /// Call `call` ended for phone `user`: its conversation must end within the grace period.
  public func callEnded<H: PhoneHost>(_ user: UInt32, call: UInt32, host: H.Type, _ scheduler: inout Scheduler) {
    guard os.activeConversations(user) > 0 else { return }
    scheduler.schedule(after: conversationGrace, H.event(.conversationCheck(user: user, call: call)))
  }

  /// Acts on what the phones' system did during the last callback: tokens to deliver, reports to
  /// ring, completions to judge.
  public func drain<H: PhoneHost>(_ host: inout H, _ scheduler: inout Scheduler) {
    guard os.hasEvents else { return }
    // The spare buffer is taken out first, so that a drain the handling below starts gets its own.
    var events = spareEvents
    spareEvents = []
    os.takeEvents(into: &events)
    defer {
      events.removeAll(keepingCapacity: true)
      spareEvents = events
    }
    let now = scheduler.now
    for e in events {
      switch e {
      case .registryCreated(let phone):
        scheduler.schedule(
          after: push.tokenDelay.sampleDuration(&random[index(phone)]),
          H.event(.tokenIssued(user: phone, generation: UInt32(os.generation(phone)))))
      case .reported(let phone, let uuid, let error, let active):
        records[index(phone)].pushHandedAt = -1
        host.observe(.conversationReported(phone: phone, failed: error != nil), now)
        guard error == nil else { continue }
        // A reported call gives a background app time to run (CallKit keeps it awake while the
        // conversation lasts), so its SDK hears how the call goes.
        if os.appState(phone) == .background && !os.isAwake(phone) { os.setAwake(phone, true) }
        host.observe(
          .conversationCount(phone: phone, active: Int(active), limit: os.limits.maximumConversationGroups), now)
        guard let conv = os.conversation(phone, uuid) else { continue }  // ended at once
        if conv.call != 0 {
          let id = conv.call - 1
          host.observe(.rang(phone: phone, call: id), now)
          if host.call(id).isOver {
            scheduler.schedule(after: conversationGrace, H.event(.conversationCheck(user: phone, call: id)))
          }
        }
        // Two conversations still on screen once the app's code has run (an app that ends a
        // second call's conversation at once shows one): the user may tap "merge".
        if os.mergeCandidates(phone) != nil && random[index(phone)].chance(mergeActionProbability) {
          scheduler.schedule(
            after: answerAfter.sampleDuration(&random[index(phone)]),
            H.event(.systemAction(user: phone, kind: .merge)))
        }
        scheduler.schedule(
          after: answerAfter.sampleDuration(&random[index(phone)]), H.event(.systemTap(user: phone, uuid: uuid)))
      case .handlerReturned(let phone, let serial, let generation, let reported):
        // Judged as it was when the handler finished (a task it left behind may have reported since).
        guard !reported else { continue }
        handlerReturned(phone, serial: serial, generation: generation, &host, &scheduler)
      case .startRequested(let phone, _, let action, let error, let active):
        host.observe(.outgoingStarted(phone: phone, failed: error != nil), now)
        guard error == nil else { continue }
        host.observe(
          .conversationCount(phone: phone, active: Int(active), limit: os.limits.maximumConversationGroups), now)
        // The system answers the request a moment later: the delegate's perform, and its timeout.
        scheduler.schedule(after: os.limits.actionTimeout, H.event(.actionTimeout(action: action)))
        scheduler.schedule(after: .zero, H.event(.appStart(user: phone, action: action)))
      case .ended(let phone, _, _, let reason):
        if let reason { host.observe(.conversationEnded(reason), now) }
        if os.isRunning(phone) && random[index(phone)].chance(startActionProbability) {
          scheduler.schedule(
            after: answerAfter.sampleDuration(&random[index(phone)]),
            H.event(.systemAction(user: phone, kind: .start)))
        }
      case .completed(let by, let id, let fulfilled):
        let call = os.pendingAction(id)?.call ?? 0
        switch os.settle(action: id, fulfilled: fulfilled) {
        case .onTime(let phone, _, let kind):
          host.observe(.actionSettled(fulfilled: fulfilled), now)
          if kind == .join && fulfilled {
            let r = records[index(phone)]
            let accepted = call != 0 && (r.acceptedCall == call || r.acceptedBefore == call)
            host.observe(.joinFulfilled(phone: phone, call: call == 0 ? nil : call - 1, accepted: accepted), now)
          }
        case .afterTimeout:
          host.observe(.lateCompletion(phone: by, action: id, repeated: false, fulfilled: fulfilled), now)
        case .repeated, .unknown:
          host.observe(.lateCompletion(phone: by, action: id, repeated: true, fulfilled: fulfilled), now)
        }
      }
    }
    // Settling actions may have ended conversations.
    if os.hasEvents { drain(&host, &scheduler) }
  }
}

extension PendingOperation {
  /// An SDK call made on `user`'s behalf at `at` (by the SDK's own rules, the system, or a fault),
  /// with no completion.
  public static func system(_ user: UInt32, _ kind: OperationKind, target: UInt32 = 0, at: SimInstant)
    -> PendingOperation
  {
    var op = PendingOperation(
      user: user, kind: kind, target: target, seat: -1, policy: .abortWhenOccupied, timeout: .zero, issuedAt: at)
    op.onBehalf = true
    return op
  }
}
