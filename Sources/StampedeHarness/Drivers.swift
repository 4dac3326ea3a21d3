import AtomicXCore
import Clients
import Combine
import LiveCommunicationKit
import LiveStack
import PushKit
import SimKernel
import VirtualPlatform

/// What the drivers of one run share: the app host (made at the first callback, when the run's
/// runtime is known), a random stream for the taps, and who drives which user.
public final class Harness: @unchecked Sendable {
  var host: AppHost?
  /// The drivers, when the run's app objects are kept at its end (a cycle that is never broken).
  var kept: [AnyObject] = []
  /// `host`, uncounted: lent to the hottest callbacks with no retain (see ``withHost(for:_:)``).
  var lentHost: Unmanaged<AppHost>?
  var random: Xoshiro256
  /// App objects that two users' apps hold (see ``SharedObjectWatch``).
  lazy var sharedObjects = SharedObjectWatch()
  /// The number of users of the run.
  let userCount: Int
  /// Per user: the driver whose UI to read after its code ran. The drivers own the harness, so
  /// these do not own them; a plain buffer of uncounted references, which the hook after each
  /// callback reads with no retain of a table or a driver.
  let settlers: UnsafeMutablePointer<Unmanaged<Settling>?>

  init(random: Xoshiro256, userCount: Int) {
    self.random = random
    self.userCount = userCount
    settlers = .allocate(capacity: max(1, userCount))
    settlers.initialize(repeating: nil, count: max(1, userCount))
  }

  /// The run is over: the host lets go of every app object it keeps for its users.
  deinit {
    host?.shutdown()
    settlers.deallocate()
  }

  func host(for runtime: ClientRuntime) -> AppHost {
    if let host { return host }
    // App code's randomness comes from the run's seed: a copy of the taps' stream, drawn from
    // without moving it.
    var seeding = random
    let h = AppHost(runtime: runtime, randomSeed: seeding.next())
    // Neither reference is counted (nor retained around the calls: the closure runs on every piece
    // of app code): the host clears this closure when the harness shuts it down, and it runs only
    // on the host that holds it.
    let uncounted = Unmanaged.passUnretained(h)
    let settlers = self.settlers
    let count = userCount
    h.afterUserCode = { user in
      assert(Int(user) < count, "a user beyond the run's")
      uncounted._withUnsafeGuaranteedRef { h in
        AtomicXDelivery.settle(user, host: h)
        settlers[Int(user)]?._withUnsafeGuaranteedRef { $0.settle(user, host: h) }
      }
    }
    host = h
    lentHost = Unmanaged.passUnretained(h)
    return h
  }

  /// Runs `body` with the host lent rather than retained (the harness keeps it for the whole run):
  /// for a callback every viewer gets at every seat change.
  @inline(__always)
  func withHost(for runtime: ClientRuntime, _ body: (AppHost) -> Void) {
    if let lentHost { return lentHost._withUnsafeGuaranteedRef(body) }
    body(host(for: runtime))
  }

  func sample(_ d: Distribution) -> SimDuration { d.sampleDuration(&random) }
  func chance(_ r: Ratio) -> Bool { random.chance(r) }
}

/// A driver whose UI the harness reads after its user's code ran (a class, not a protocol, so that
/// the harness can hold its drivers as `Unmanaged` references).
class Settling {
  /// Reads `user`'s UI after its code ran.
  func settle(_ user: UInt32, host: AppHost) {}
}

/// One user's app objects, in a box: an array of boxes stores class references, which the drivers'
/// unspecialized code reads with a retain and no lookup of type metadata.
final class ObjectsBox<Objects> {
  let value: Objects
  init(_ value: Objects) { self.value = value }
}

/// Tags of the drivers' timers.
enum Tap: UInt32 {
  case apply = 1
  case giveUp, leaveSeat, leaveRoom, answerInvitation, secondTap
  case decide = 10
  case invite, kick, lock, unlock, move, endLive
  case dial = 20
  case answer, hangUp, callerGiveUp, inviteToCall
}

/// The common part of the drivers: per-user objects, and routing of SDK events to the
/// SDK-compatible modules.
class Driver<Objects>: Settling, ClientBehavior {
  let harness: Harness
  /// Per user: its app's objects (while it has any), in an ``ObjectsBox``. Kept as `AnyObject?`,
  /// a concrete type: these drivers run unspecialized (the app's types are not known where they
  /// are compiled), and reading an array of `Objects?` looks up the metadata of
  /// `Optional<Objects>` in the runtime at every access, which on a seat rush is every event.
  @exclusivity(unchecked) var boxes: ContiguousArray<AnyObject?>
  /// Per user: invalidates the taps scheduled for an earlier state.
  @exclusivity(unchecked) var epoch: [UInt32]
  /// Per user: the room (viewers and staff).
  @exclusivity(unchecked) var homeRooms: [UInt32]

  init(harness: Harness) {
    self.harness = harness
    boxes = ContiguousArray(repeating: nil, count: harness.userCount)
    epoch = [UInt32](repeating: 0, count: harness.userCount)
    homeRooms = [UInt32](repeating: .max, count: harness.userCount)
    super.init()
    // A process that ends after its runs keeps their app objects rather than let them go (see
    // ``AppHost/keepsObjectsAtEnd``): the harness holds its drivers, and they hold it.
    if AppHost.keepsObjectsAtEnd { harness.kept.append(self) }
  }

  /// The run is over: each user's app objects and shell go as that user's code.
  deinit {
    guard let host = harness.host else { return }
    for u in boxes.indices where boxes[u] != nil {
      host.releaseObjects(of: UInt32(u), holding: boxes[u]) { boxes[u] = nil }
    }
    for u in shell.indices where !shell[u].isEmpty {
      host.releaseObjects(of: UInt32(u), holding: shell[u]) { shell[u] = [] }
    }
  }

  var showsUI: Bool { true }

  /// The objects of `user`'s app, if it has any.
  @inline(__always)
  func objects(of user: UInt32) -> ObjectsBox<Objects>? {
    guard let b = boxes[Int(user)] else { return nil }
    return unsafeDowncast(b, to: ObjectsBox<Objects>.self)
  }

  /// Gives `user`'s app the objects `objects` (or none). Once it has them, the events its role
  /// must hear are held against it.
  func setObjects(_ objects: Objects?, of user: UInt32) {
    boxes[Int(user)] = objects.map { ObjectsBox($0) }
    if let objects, let host = harness.host {
      host.runtime.clients[Int(user)].subscriptions.remove(.appStarting)
      harness.sharedObjects.check(objects, user: user, launch: UInt32(host.process(of: user)))
    }
  }

  func start(_ client: inout Client) {}
  /// The workload asks the user to tap "apply" now (a flash crowd's "apply now" moment).
  func applyIntent(_ c: inout Client) {
    let host = harness.host(for: c.runtime)
    host.run(as: c.user) { tap(.apply, arg: 0, user: c.user, host: host) }
  }
  func tap(_ tap: Tap, arg: UInt32, user: UInt32, host: AppHost) {}
  /// App code hears its app leave the foreground and come back, as UIKit's notifications.
  var hearsAppLifecycle: Bool { true }
  /// The harness's taps by name in traces ("answer", "hangUp").
  func timerName(tag: UInt32) -> String? {
    Tap(rawValue: tag).map {
      $0 == .decide ? "tap accept or reject" : $0 == .answer ? "tap answer or decline" : "tap \($0)"
    }
  }
  func heard(_ callback: ClientCallback, user: UInt32, host: AppHost) {}

  func schedule(_ tap: Tap, after delay: SimDuration, user: UInt32, arg: UInt32 = 0, host: AppHost) {
    host.runtime.commands.append(.timer(user: user, delay: delay, tag: tap.rawValue, arg: arg))
  }

  func context(_ user: UInt32, role: UserContext.Role) -> UserContext {
    UserContext(userID: VirtualIDs.userID(user), liveID: roomOf(user).map(VirtualIDs.liveID), role: role)
  }

  /// The room of a viewer or staff member (`nil` for a phone user).
  func roomOf(_ user: UInt32) -> UInt32? {
    homeRooms[Int(user)] == .max ? nil : homeRooms[Int(user)]
  }
  /// Per user: the app shell's subscriptions (login and live events).
  var shell: [[AnyCancellable]] = []

  /// The app shell ends the session: kicked offline, the login expired, or the live ended.
  func sessionEnded(_ user: UInt32, host: AppHost) {
    host.runtime.setStatus(user, .left)
  }

  func timer(tag: UInt32, arg: UInt32, _ c: inout Client) {
    let host = harness.host(for: c.runtime)
    if tag == AppHost.jobTag { return host.runJob(arg) }
    guard let t = Tap(rawValue: tag) else { return }
    host.run(as: c.user) { tap(t, arg: arg, user: c.user, host: host) }
  }

  func deliver(_ callback: ClientCallback, _ c: inout Client) {
    let host = harness.host(for: c.runtime)
    let user = c.user
    host.run(as: user) {
      if case .appStateChanged(let foreground) = callback {
        NotificationCenter.default.post(
          name: foreground
            ? UIApplication.willEnterForegroundNotification : UIApplication.didEnterBackgroundNotification)
      }
      AtomicXDelivery.deliver(callback, to: user, host: host)
      PushKitDelivery.deliver(callback, to: user, host: host)
      ConversationDelivery.deliver(callback, to: user, host: host)
      heard(callback, user: user, host: host)
    }
  }

  func guestEvent(_ event: LiveStack.GuestEvent, _ c: inout Client) { deliver(.guestEvent(event), &c) }
  func hostEvent(_ event: LiveStack.HostEvent, _ c: inout Client) { deliver(.hostEvent(event), &c) }
  func seatListChanged(_ change: SeatChangeEvent, _ c: inout Client) {
    let user = c.user
    // The watched states refresh when the user's code returns.
    harness.withHost(for: c.runtime) { $0.run(as: user) {} }
  }
  func sdkStateChanged(_ c: inout Client) {
    let user = c.user
    // As for a seat-list delta: the watched states publish when the (empty) code returns.
    harness.withHost(for: c.runtime) { $0.run(as: user) {} }
  }
  func loginEvent(_ event: LiveStack.LoginEvent, _ c: inout Client) { deliver(.loginEvent(event), &c) }
  func liveEnded(_ c: inout Client) { deliver(.liveEnded, &c) }
  func callEvent(_ event: LiveStack.CallEvent, _ c: inout Client) { deliver(.callEvent(event), &c) }
  func pushTokenUpdated(_ token: UInt16, _ c: inout Client) { deliver(.pushTokenUpdated(token), &c) }
  func incomingPush(_ push: VoIPPush, _ c: inout Client) { deliver(.incomingPush(push), &c) }
  func appStateChanged(foreground: Bool, _ c: inout Client) { deliver(.appStateChanged(foreground: foreground), &c) }
  func conversationAction(_ action: Clients.ConversationAction, _ c: inout Client) {
    deliver(.conversationAction(action), &c)
  }
  func conversationActionTimedOut(_ action: Clients.ConversationAction, _ c: inout Client) {
    deliver(.conversationActionTimedOut(action), &c)
  }

  /// Logs the user in and enters its room through the SDK-compatible stores, then runs `joined`.
  func enterRoom(_ c: inout Client, _ joined: @escaping (AppHost) -> Void) {
    let host = harness.host(for: c.runtime)
    let user = c.user
    homeRooms[Int(user)] = c.room
    precondition(Int(user) < harness.userCount, "a user beyond the run's")
    harness.settlers[Int(user)] = Unmanaged.passUnretained(self)
    let runtime = c.runtime
    let liveID = VirtualIDs.liveID(c.room)
    // Until the shell has logged in and entered the room, the app's objects do not exist: what
    // reaches the user meanwhile is not held against them.
    runtime.clients[Int(user)].subscriptions.insert(.appStarting)
    host.run(as: user) {
      // The app shell (its login and room screens) listens for the session ending.
      if shell.isEmpty { shell = [[AnyCancellable]](repeating: [], count: harness.userCount) }
      shell[Int(user)] = [
        LoginStore.shared.loginEventPublisher.sink { [unowned self] _ in self.sessionEnded(user, host: host) },
        LiveListStore.shared.liveListEventPublisher.sink { [unowned self] _ in self.sessionEnded(user, host: host) },
      ]
      logIn(user, liveID: liveID, runtime: runtime, host: host, joined)
    }
  }
}

extension Driver {
  /// The app shell's login, then entering the room. A step that got no answer (-1: the server
  /// may never have heard it) is sent again after `SDKTiming.resendAfter`, as an app's login
  /// screen retries; any other failure ends the user's session.
  func logIn(
    _ user: UInt32, liveID: String, runtime: ClientRuntime, host: AppHost, _ joined: @escaping (AppHost) -> Void
  ) {
    LoginStore.shared.login(sdkAppID: 1_400_000_000, userID: VirtualIDs.userID(user), userSig: "") { result in
      switch result {
      case .success: self.enter(user, liveID: liveID, runtime: runtime, host: host, joined)
      case .failure(let e) where e.code == -1:
        VirtualPlatform.DispatchQueue.main.asyncAfter(
          deadline: VirtualPlatform.DispatchTime.now() + SDKTiming.resendAfter.seconds
        ) {
          self.logIn(user, liveID: liveID, runtime: runtime, host: host, joined)
        }
      case .failure: runtime.setStatus(user, .left)
      }
    }
  }

  func enter(
    _ user: UInt32, liveID: String, runtime: ClientRuntime, host: AppHost, _ joined: @escaping (AppHost) -> Void
  ) {
    LiveListStore.shared.joinLive(liveID: liveID) { result in
      switch result {
      case .success:
        runtime.setStatus(user, .idle)
        joined(host)
      case .failure(let e) where e.code == -1:
        VirtualPlatform.DispatchQueue.main.asyncAfter(
          deadline: VirtualPlatform.DispatchTime.now() + SDKTiming.resendAfter.seconds
        ) {
          self.enter(user, liveID: liveID, runtime: runtime, host: host, joined)
        }
      case .failure: runtime.setStatus(user, .left)
      }
    }
  }
}

/// Drives an ``AudienceApp``.
final class AudienceDriver<Objects>: Driver<Objects> {
  let app: AudienceApp<Objects>
  let settings: AudienceSettings
  @exclusivity(unchecked) var applies: [UInt8]

  init(app: AudienceApp<Objects>, settings: AudienceSettings, harness: Harness) {
    self.app = app
    self.settings = settings
    applies = [UInt8](repeating: 0, count: harness.userCount)
    super.init(harness: harness)
  }

  override func start(_ c: inout Client) {
    enterRoom(&c) { [unowned self] host in
      let user = host.user
      setObjects(onMainActor { app.make(context(user, role: .audience)) }, of: user)
      schedule(.leaveRoom, after: harness.sample(settings.stay), user: user, host: host)
      if harness.chance(settings.applyProbability) {
        schedule(.apply, after: harness.sample(settings.applyAfter), user: user, host: host)
      }
    }
  }

  override func heard(_ callback: ClientCallback, user: UInt32, host: AppHost) {
    if case .guestEvent(.onHostInvitationReceived(let inviter)) = callback, app.answerInvitation != nil {
      schedule(.answerInvitation, after: harness.sample(settings.invitationThink), user: user, arg: inviter, host: host)
    }
  }

  override func tap(_ tap: Tap, arg: UInt32, user: UInt32, host: AppHost) {
    guard let box = objects(of: user) else { return }
    let o = box.value
    let status = host.runtime.clients[Int(user)].status
    switch tap {
    case .apply:
      guard status == .idle, Int(applies[Int(user)]) < settings.maxApplies, let apply = app.apply else { return }
      applies[Int(user)] &+= 1
      onMainActor { apply(o) }
      // People double-tap buttons; a view model must not apply twice.
      if harness.chance(app.doubleTap) { schedule(.secondTap, after: .milliseconds(150), user: user, host: host) }
    case .secondTap:
      onMainActor { app.apply?(o) }
    case .giveUp:
      if status == .applying, arg == epoch[Int(user)] { onMainActor { app.cancel?(o) } }
    case .leaveSeat:
      if status == .connected, arg == epoch[Int(user)] { onMainActor { app.disconnect?(o) } }
    case .answerInvitation:
      let accept = harness.chance(settings.acceptInvitation)
      onMainActor { app.answerInvitation?(o, VirtualIDs.userID(arg), accept) }
    case .leaveRoom:
      leave(user, host: host, alreadyOut: false)
    default: break
    }
  }

  /// The viewer leaves the room for good: its app's leave action (or a plain `leaveLive`), and it
  /// taps nothing more. Its objects stay alive after its own leave action, as an app's may after
  /// a screen closes; when the harness leaves for an app with no leave code, the screen it stands
  /// in for closes, and its objects go.
  func leave(_ user: UInt32, host: AppHost, alreadyOut: Bool) {
    guard host.runtime.clients[Int(user)].status != .left, objects(of: user) != nil else { return }
    let standIn = !alreadyOut && app.leave == nil
    if !alreadyOut {
      if let leave = app.leave, let box = objects(of: user) {
        onMainActor { leave(box.value) }
      } else {
        // The app has no code of its own for it: the harness leaves as a correct room screen
        // does on its way out, with the camera and microphone closed first.
        DeviceStore.shared.closeLocalCamera()
        DeviceStore.shared.closeLocalMicrophone()
        LiveListStore.shared.leaveLive()
      }
    }
    host.runtime.setStatus(user, .left)
    // The closed screen's objects go as that user's code: a completion still on its way (a camera
    // opening) finds them gone, as its `[weak self]` would on a phone.
    if standIn {
      host.releaseObjects(of: user, processGone: false, holding: boxes[Int(user)]) { boxes[Int(user)] = nil }
    }
  }

  override func settle(_ user: UInt32, host: AppHost) {
    guard let box = objects(of: user), let probe = app.status else { return }
    let runtime = host.runtime
    runtime.ui.noteStatusProbe(user)
    // The objects are handed over borrowed from the box: a copy would retain the view model, whose
    // count lives in a side table once app code holds it weakly (`[weak self]`), one more miss.
    let ui = onMainActor { probe(box.value) }
    let new: CoGuestStatus =
      switch ui {
      case .idle: .idle
      case .applying: .applying
      case .connected: .connected
      }
    let old = runtime.clients[Int(user)].status
    guard new != old, old != .left, old != .away else { return }
    runtime.setStatus(user, new)
    epoch[Int(user)] &+= 1
    let e = epoch[Int(user)]
    switch new {
    case .applying:
      if let p = settings.patience { schedule(.giveUp, after: harness.sample(p), user: user, arg: e, host: host) }
    case .connected:
      schedule(.leaveSeat, after: harness.sample(settings.seatTime), user: user, arg: e, host: host)
    case .idle:
      // After a seat session the viewer applies again as a fresh arrival would; after a failed
      // application, as the profile's retry policy says.
      let again = old == .connected ? settings.applyAfter : settings.retry.other ?? settings.retry.rejected
      if let again, Int(applies[Int(user)]) < settings.maxApplies {
        schedule(.apply, after: harness.sample(again), user: user, host: host)
      }
    default: break
    }
  }
}

/// Runs app code isolated to the main actor. Inside a virtual user's code the main actor is that
/// user's simulated main thread (see `ConcurrencyHooks`), so `@MainActor` view models and the
/// taps and probes written for them run unchanged; code that is not main-actor isolated runs as
/// it is.
@inline(__always)
func onMainActor<T>(_ body: @MainActor () -> T) -> T {
  withoutActuallyEscaping(body) { body in
    nonisolated(unsafe) let run = body
    nonisolated(unsafe) var result: T?
    MainActor.assumeIsolated { result = run() }
    return result!
  }
}
