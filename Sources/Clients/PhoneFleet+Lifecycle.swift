import LiveStack
import SimKernel

/// The apps' lifecycle: the user leaves, opens and closes its app; the system reclaims a
/// suspended one and launches killed ones.
extension PhoneFleet {
  /// The user leaves or opens the app, or the system reclaims a suspended one.
  func lifecycle<H: PhoneHost>(_ user: UInt32, epoch: UInt32, _ host: inout H, _ scheduler: inout Scheduler) {
    // Not a step of the user's: a fault sent the app to the background, and it hears so now.
    if epoch == PhoneFleet.movedEpoch { return flushMoves(&host, &scheduler) }
    let i = index(user)
    guard epoch == records[i].lifecycleEpoch else { return }
    let now = scheduler.now.nanoseconds
    switch os.appState(user) {
    case .foreground:
      let away = app.away.sampleDuration(&random[index(user)])
      records[i].reopenAt = now + away.nanoseconds
      if random[index(user)].chance(app.closeProbability) {
        close(user, &host, &scheduler)
        scheduleLifecycle(user, after: away, &host, &scheduler)
      } else {
        leaveApp(user)
        let reclaim = app.suspendedLifetime.sampleDuration(&random[index(user)])
        scheduleLifecycle(user, after: min(away, reclaim), &host, &scheduler)
        flushMoves(&host, &scheduler)
      }
    case .background:
      if now >= records[i].reopenAt {
        os.setApp(user, .foreground)
        // `willEnterForeground` comes first; what the SDK learns on reconnecting follows.
        if notifiesLifecycle { host.run(user, .appStateChanged(foreground: true), &scheduler) }
        if runtime.clients[Int(user)].loggedIn { reconnect(user, &host, &scheduler) }
        if let fg = app.foreground {
          scheduleLifecycle(user, after: fg.sampleDuration(&random[index(user)]), &host, &scheduler)
        }
      } else if inCall(user) {
        // A call keeps the app running; the system looks again later.
        let next = app.suspendedLifetime.sampleDuration(&random[index(user)])
        let until = SimDuration(nanoseconds: records[i].reopenAt - now)
        scheduleLifecycle(user, after: min(next, until), &host, &scheduler)
      } else {
        kill(user, &host, &scheduler)
        scheduleLifecycle(user, after: .nanoseconds(records[i].reopenAt - now), &host, &scheduler)
      }
    case .killed:
      launch(user, foreground: true, &host, &scheduler)
      if let fg = app.foreground {
        scheduleLifecycle(user, after: fg.sampleDuration(&random[index(user)]), &host, &scheduler)
      }
    }
  }

  /// The user leaves the app for the home screen: it goes to the background, kept awake only by a
  /// call. An app that listens hears so (see ``flushMoves(_:_:)``).
  public func leaveApp(_ user: UInt32) {
    os.setApp(user, .background)
    os.setAwake(user, inCall(user))
    if notifiesLifecycle { pendingBackground.append(user) }
  }

  /// The epoch of a lifecycle wake-up that only tells apps sent to the background so (see
  /// ``flushMoves(_:_:)``), never a step of their users'.
  public static let movedEpoch = UInt32.max

  /// Whether apps that went to the background have yet to hear so.
  @inline(__always) public var hasPendingMoves: Bool { !pendingBackground.isEmpty }

  /// The apps that went to the background hear so (`UIApplication.didEnterBackgroundNotification`),
  /// at the instant they went, each still there.
  public func flushMoves<H: PhoneHost>(_ host: inout H, _ scheduler: inout Scheduler) {
    let users = pendingBackground
    pendingBackground = []
    for u in users where os.appState(u) == .background { host.run(u, .appStateChanged(foreground: false), &scheduler) }
  }

  /// The user swipes the app away. The SDK's documented rules on closing: a caller hangs up, a
  /// ringing callee rejects, a connected callee hangs up; then the process dies.
  func close<H: PhoneHost>(_ user: UInt32, _ host: inout H, _ scheduler: inout Scheduler) {
    let c = runtime.clients[Int(user)]
    if c.call != 0 && c.loggedIn {
      let isCaller = host.call(c.call - 1).caller == user
      let kind: OperationKind = c.callState == .waiting && !isCaller ? .rejectCall : .hangupCall
      host.issue(.system(user, kind, at: scheduler.now), &scheduler)
    }
    kill(user, &host, &scheduler)
  }

  /// The app's process dies: its SDK state is gone and the system ends its conversations. The
  /// server keeps its login (pushes still reach the phone).
  public func kill<H: PhoneHost>(_ user: UInt32, _ host: inout H, _ scheduler: inout Scheduler) {
    os.setApp(user, .killed)
    runtime.processDied(user)
    drain(&host, &scheduler)
  }

  /// A new process of the app starts (the user opened it, or PushKit woke it) and its code runs.
  func launch<H: PhoneHost>(_ user: UInt32, foreground: Bool, _ host: inout H, _ scheduler: inout Scheduler) {
    os.launch(user, foreground: foreground)
    records[index(user)].launchedAt = scheduler.now.nanoseconds
    host.observe(.coldStart, scheduler.now)
    records[index(user)].endSynced = 0
    host.run(user, .appLaunched, &scheduler)
  }
}
