import CThreadState
import Clients
import Foundation
import LiveStack
import SimKernel

// dlsym comes through Foundation. Importing Glibc here directly would stop this
// module's `DispatchQueue` from shadowing Dispatch's in app code.

/// The bridge between app code and the simulation: which virtual user's code runs now, and the
/// work that code started (main-queue blocks, `Task` jobs, sleeps), each carried out as a
/// simulation event of the user who started it.
///
/// One host serves one run. While a run hands a callback to app code, the host is this thread's
/// ``current`` host and ``user`` names the virtual user, so that `.shared` singletons and
/// `DispatchQueue.main` resolve to that user's objects and queue.
package final class AppHost {
  /// The timer tag the harness routes to ``runJob(_:)``.
  package static let jobTag: UInt32 = appWorkTimerTag

  /// A piece of deferred work: a `DispatchQueue.async` block, a `receive(on:)` delivery, a sleep
  /// ending.
  package typealias Job = () -> Void

  /// The SDK state of every client.
  package let runtime: ClientRuntime
  /// The virtual user whose code runs now (`UInt32.max`: none).
  @exclusivity(unchecked) package var user: UInt32 = .max
  /// The per-process singletons of the SDK-compatible modules.
  package enum Singleton: Int, CaseIterable {
    case atomicX, pushRegistry, conversationManager, imManager, notificationCenter
  }
  /// Per user, ``Singleton/allCases`` slots in a row: its process's singletons
  /// (`LoginStore.shared`, `NotificationCenter.default`, …). A process death forgets them. One
  /// flat table, so that finding a user's SDK after a seat-list delivery is one load, not two.
  @exclusivity(unchecked) private var singletons: ContiguousArray<AnyObject?>
  private static let singletonKinds = Singleton.allCases.count
  /// Called when the outermost piece of a user's code returns (the harness reads the UI then).
  package var afterUserCode: ((UInt32) -> Void)?
  /// The push being handed to app code on this host right now (PushKit's), if any: kept per host,
  /// since parallel runs deliver pushes on their own threads at once.
  package var pushBeingHandled: AnyObject?
  /// What an SDK-compatible module shares among all the users of this host (one run), made by the
  /// module on first use: AtomicXCore's seat lists, built once for every viewer who sees the same.
  package var atomicXShared: AnyObject?
  @exclusivity(unchecked) var depth = 0
  @exclusivity(unchecked) private var settling = false
  /// Nonzero while objects of a process that is gone (or of a run that is over) are released as
  /// their user's code (see ``releaseObjects(of:_:)``): what that code starts is dropped.
  @exclusivity(unchecked) var releasingGone = 0
  /// While ``forgetSingletons(of:)`` releases them, the singletons of the process that is gone,
  /// so that a `deinit` finds its own process's `NotificationCenter.default`.
  @exclusivity(unchecked) private var dying: ContiguousArray<AnyObject?> = []
  /// Whose singletons ``dying`` holds (`UInt32.max`: none).
  @exclusivity(unchecked) private var dyingUser: UInt32 = .max
  struct JobSlot {
    var user: UInt32
    var process: UInt16
    /// Zero-delay posts in a row that led to this one (0: posted with a delay).
    var chain: UInt16 = 0
    /// The call its user's SDK rang or dialed when the work was armed (see
    /// ``ClientRuntime/workArmedWhileRinging``).
    var ringing: UInt32 = 0
    var job: Job?
  }
  /// The chain of the job running now (0 outside jobs).
  @exclusivity(unchecked) private var runningChain: UInt16 = 0
  @exclusivity(unchecked) private var jobs: [JobSlot] = []
  @exclusivity(unchecked) private var freeJobs: [UInt32] = []
  /// Per user, its phone's defaults databases by suite name ("" for the standard one): kept across
  /// its app's launches, as a phone keeps them.
  private var defaults: [UInt32: [String: UserDefaults]] = [:]
  /// UUIDs seen in printed text, each given a dense number in order of first sight.
  var uuidNumbers: [String: Int] = [:]

  /// The seed of the users' app randomness (see ``AppRandomness``).
  let randomSeed: UInt64
  /// Per user, the stream its app code draws from (made at its first draw).
  var randomStreams: [UInt32: SplitMix64] = [:]

  /// A host for the clients of `runtime`; app code's randomness comes from `randomSeed`.
  package init(runtime: ClientRuntime, randomSeed: UInt64 = 0) {
    self.runtime = runtime
    self.randomSeed = randomSeed
    singletons = ContiguousArray(repeating: nil, count: runtime.clients.count * AppHost.singletonKinds)
    followsCrashes = !runtime.appCrashes.isEmpty
    ConcurrencyHooks.install()
    WallClock.install()
    RuntimeReports.install()
    AppRandomness.install()
  }

  /// A `CheckedContinuation` made in `function` was dropped without being resumed: app code's
  /// finding when its own code dropped it; nothing when the objects of a process that is gone (or
  /// of a run that is over) are being let go of (see ``RuntimeReports``).
  package func continuationDropped(in function: String) {
    guard releasingGone == 0, user != .max else { return }
    AppHost.reportContractBroken(
      "a CheckedContinuation (\(function)) dropped without being resumed: the task waiting on it stays suspended forever"
    )
  }

  /// The simulated time now.
  package var now: SimInstant { runtime.now }

  /// The model's view of `user` for a store call made by app code (in room `room` for the stores
  /// that take one). Its random stream is never drawn from: app code brings its own decisions.
  package func client(_ user: UInt32, room: UInt32 = 0) -> Client {
    Client(user: user, room: room, role: .audience, runtime: runtime, random: SplitMix64(seed: 0))
  }

  /// Runs `body` as `user`'s code, with this host current on this thread.
  ///
  /// Each outermost entry is numbered, and each piece nested in it (see ``AppCrash``). An entry
  /// or nested piece where the user's app crashed in an earlier run of the seed, or one into the
  /// code of a user whose app crashed before and has no process any more, does not run (a body
  /// returning a value, which is the SDK's own code, runs).
  @inline(__always)
  package func run<R>(as user: UInt32, _ body: () throws -> R) rethrows -> R {
    let previousPiece = piece
    if depth == 0 {
      entries &+= 1
      pieces = 0
      piece = 0
      stampede_set_app_entry(entries, user)
      if followsCrashes && crashSkips(user) && R.self == Void.self {
        stampede_app_entry_returned()
        return () as! R
      }
    } else {
      pieces &+= 1
      if followsCrashes && R.self == Void.self && crashSkips(user) { return () as! R }
      piece = pieces
      stampede_set_app_piece(user, pieces)
    }
    let previousUser = self.user
    let previousHost = AppHost.current
    self.user = user
    if previousHost !== self { AppHost.current = self }
    depth += 1
    defer {
      depth -= 1
      if depth == 0 && !settling {
        settling = true
        // The task steps this code started run now, in order, until each suspends on simulated
        // time or an SDK answer; then the user's UI is read.
        repeat {
          runTaskSteps()
          afterUserCode?(user)
        } while taskHead < taskSteps.count
        taskSteps.removeAll(keepingCapacity: true)
        if settleSteps > AppHost.stepsPerTurn { stepsRun.removeAll(keepingCapacity: true) }
        settleSteps = 0
        taskHead = 0
        settling = false
        stampede_app_entry_returned()
      }
      self.user = previousUser
      piece = previousPiece
      stampede_set_app_piece(previousUser, previousPiece)
      if previousHost !== self { AppHost.current = previousHost }
    }
    return try body()
  }

  /// Task steps (a task starting, or resuming without waiting) enqueued by app code, run at the
  /// end of the piece of code that enqueued them: how many steps the compiler makes of an `async`
  /// function (it may merge or split executor hops between builds) then changes neither the events
  /// of a run nor its trace hash.
  struct TaskStep {
    var user: UInt32
    var process: UInt16
    var job: UnownedJob
  }
  @exclusivity(unchecked) private var taskSteps: [TaskStep] = []
  /// Steps run so far in this piece of code, per task (a task's job is the task itself).
  @exclusivity(unchecked) private var stepsRun: [(task: UnsafeRawPointer, steps: Int)] = []

  /// Steps run so far in this piece of code, of every task.
  @exclusivity(unchecked) private var settleSteps = 0

  /// Counts one more step of `job`'s task in this piece of code; how many it has run (counted per
  /// task only once the piece has run more than ``stepsPerTurn`` steps in all, so that the usual
  /// few cost one addition).
  private func stepsOfTask(_ job: UnownedJob) -> Int {
    settleSteps += 1
    if settleSteps <= AppHost.stepsPerTurn { return 1 }
    let task = unsafeBitCast(job, to: UnsafeRawPointer.self)
    if let i = stepsRun.firstIndex(where: { $0.task == task }) {
      stepsRun[i].steps += 1
      return stepsRun[i].steps
    }
    stepsRun.append((task, 1))
    return 1
  }
  @exclusivity(unchecked) private var taskHead = 0

  /// Queues a task step of the current user's code (a step started by a process that is gone
  /// never runs).
  package func enqueueTaskStep(_ job: UnownedJob) {
    if releasingGone > 0 { return }
    taskSteps.append(TaskStep(user: user, process: process(of: user), job: job))
    // Outside any running code (cannot happen for app code, which always runs through `run(as:)`)
    // the step would wait for the next piece of code; run it at once instead.
    if depth == 0 && !settling { runTaskSteps() }
  }

  /// Steps of one task that one piece of code runs before its next waits for the main queue's
  /// next turn (a task that yields, or hops, again and again without waiting for anything).
  static let stepsPerTurn = 16
  /// Work posted at zero delay by work that was itself posted so, in a row, before each further
  /// post waits a turn of the main queue (``mainQueueTurn``) of simulated time.
  static let zeroDelayChain: UInt16 = 64
  /// The step of simulated time a main queue that code keeps busy by spinning (yielding or
  /// re-posting while it waits) advances by: coarser than a real turn, so that a spin of seconds
  /// costs hundreds of events, not millions; what it waits for comes in between.
  static let mainQueueTurn = SimDuration.milliseconds(10)

  private func runTaskSteps() {
    while taskHead < taskSteps.count {
      let step = taskSteps[taskHead]
      taskHead += 1
      guard step.process == process(of: step.user) else { continue }
      let previous = user
      user = step.user
      if stepsOfTask(step.job) > AppHost.stepsPerTurn {
        // A task that yields (`await Task.yield()` in a loop, waiting for an answer) would keep
        // the main queue from everything else, simulated time included: on a phone the answer
        // comes in between. The rest waits for the queue's next turn.
        let job = step.job
        post({ [unowned self] in self.enqueueTaskStep(job) }, after: AppHost.mainQueueTurn)
        user = previous
        continue
      }
      stampede_set_app_user(step.user)
      depth += 1
      step.job.runSynchronously(on: SimulationExecutor.shared.asUnownedSerialExecutor())
      depth -= 1
      user = previous
      stampede_set_app_user(previous)
      if step.user != previous { afterUserCode?(step.user) }
    }
  }

  /// Lets go of every app object kept for the users (their singletons and pending work), each
  /// released as its user's code: the run that used this host is over.
  package func shutdown() {
    afterUserCode = nil
    for i in jobs.indices where jobs[i].job != nil {
      releaseObjects(of: jobs[i].user, holding: jobs[i].job) { jobs[i].job = nil }
    }
    jobs = []
    freeJobs = []
    defaults = [:]
    for u in 0..<singletons.count / AppHost.singletonKinds { forgetSingletons(of: UInt32(u)) }
  }

  /// The current user's singleton `name`, made by `make` the first time. While the objects of a
  /// process that is gone are released, its own singletons are found, and anything made then is
  /// not kept.
  package func singleton<T: AnyObject>(_ name: Singleton, _ make: () -> T) -> T {
    if let existing: T = existingSingleton(name, of: user) { return existing }
    if releasingGone > 0 {
      if user == dyingUser, let d = dying[name.rawValue] { return unsafeDowncast(d, to: T.self) }
      return make()
    }
    let made = make()
    setSingleton(name, made)
    return made
  }

  /// Makes `object` the current user's singleton `name` (replacing any before it); nothing is kept
  /// for a process that is gone.
  package func setSingleton(_ name: Singleton, _ object: AnyObject) {
    if releasingGone > 0 { return }
    singletons[Int(user) * AppHost.singletonKinds + name.rawValue] = object
  }

  /// The singleton `name` of `user`, if it was made.
  @inline(__always)
  package func existingSingleton<T: AnyObject>(_ name: Singleton, of user: UInt32) -> T? {
    guard let object = singletons[Int(user) * AppHost.singletonKinds + name.rawValue] else { return nil }
    return unsafeDowncast(object, to: T.self)
  }

  /// The current user's defaults database of suite `suite` ("" for the standard one), made empty on
  /// first use; it outlives the user's app processes (see ``UserDefaults``).
  package func userDefaults(suite: String) -> UserDefaults {
    if let existing = defaults[user]?[suite] { return existing }
    let made = UserDefaults()
    defaults[user, default: [:]][suite] = made
    return made
  }

  /// Forgets every singleton of `user` (its process died), released as that user's code.
  package func forgetSingletons(of user: UInt32) {
    let base = Int(user) * AppHost.singletonKinds
    guard (base..<base + AppHost.singletonKinds).contains(where: { singletons[$0] != nil }) else { return }
    releaseObjects(of: user, holding: ContiguousArray(singletons[base..<base + AppHost.singletonKinds])) {
      // All the slots are cleared before any object goes (in slot order), so that no deinit finds
      // a sibling of its own still registered; a deinit that asks for one of its process's
      // singletons gets the one still being released.
      let outer = (dying, dyingUser)
      dying = ContiguousArray(singletons[base..<base + AppHost.singletonKinds])
      dyingUser = user
      for i in base..<base + AppHost.singletonKinds { singletons[i] = nil }
      for k in dying.indices { dying[k] = nil }
      (dying, dyingUser) = outer
    }
  }

  /// Posts `job` for the current user, to run as its own event after `delay`. Delayed work notes
  /// the call its user's SDK rings or dials now (`ringing`, if not given), work posted at once
  /// that of the work running now (see ``ClientRuntime/workArmedWhileRinging``).
  package func post(_ job: @escaping Job, after delay: SimDuration = .zero, ringing: UInt32? = nil) {
    // Work started by released code of a process that is gone never runs.
    if releasingGone > 0 { return }
    guard user != .max else { return AppHost.reportOutsideUser("work on a dispatch queue") }
    let slot: UInt32
    let process = self.process(of: user)
    let ringing = ringing ?? (delay > .zero ? ringingCall() : runtime.workArmedWhileRinging)
    // Work that re-posts itself at zero delay (a poll on `DispatchQueue.main.async`) would hold
    // simulated time still; on a phone each turn of the main queue takes a little time, and the
    // answer it waits for comes in between.
    let chain = delay <= .zero ? min(runningChain, .max - 1) + 1 : 0
    let delay = chain > AppHost.zeroDelayChain ? AppHost.mainQueueTurn : max(delay, .zero)
    if let s = freeJobs.popLast() {
      slot = s
      jobs[Int(slot)] = JobSlot(user: user, process: process, chain: chain, ringing: ringing, job: job)
    } else {
      slot = UInt32(jobs.count)
      jobs.append(JobSlot(user: user, process: process, chain: chain, ringing: ringing, job: job))
    }
    runtime.commands.append(.timer(user: user, delay: delay, tag: AppHost.jobTag, arg: slot))
  }

  /// Runs the job in `slot` (the harness calls this when the job's event comes), as its user.
  package func runJob(_ slot: UInt32) {
    guard Int(slot) < jobs.count, var job = jobs[Int(slot)].job else { return }
    let owner = jobs[Int(slot)].user
    let process = jobs[Int(slot)].process
    jobs[Int(slot)].job = nil
    freeJobs.append(slot)
    // Work of a process that has died since dies with it (what it holds is released as its code).
    guard process == self.process(of: owner) else {
      return releaseObjects(of: owner, holding: job) { job = {} }
    }
    // The job, and what it captured, is released inside its user's code.
    let outer = (runningChain, runtime.workArmedWhileRinging)
    runningChain = jobs[Int(slot)].chain
    runtime.workArmedWhileRinging = jobs[Int(slot)].ringing
    run(as: owner) {
      job()
      job = {}
    }
    (runningChain, runtime.workArmedWhileRinging) = outer
  }

  /// The call the current user's SDK rings or dials now, as call ID + 1: `UInt32.max` for a call
  /// its code has just placed (its `calls()` queued, the call not known yet), 0 for none.
  package func ringingCall() -> UInt32 {
    let client = runtime.clients[Int(user)]
    if client.callState == .waiting { return client.call }
    return client.callState == .none && runtime.commands.holdsOperation(.placeCall, by: user) ? .max : 0
  }

  /// The process generation of `user`'s app (phones are killed and relaunched; others have one,
  /// and none after it crashed).
  package func process(of user: UInt32) -> UInt16 {
    guard let os = runtime.phoneSystem, os.phones.contains(user) else {
      return goneByCrash(user) ? 1 : 0
    }
    return os.generation(user)
  }

  /// Whether `user`'s app process is alive.
  package func isAlive(_ user: UInt32) -> Bool {
    guard let os = runtime.phoneSystem, os.phones.contains(user) else {
      return !goneByCrash(user)
    }
    return os.appState(user) != .killed
  }

  // MARK: - Crashes

  /// Whether the app objects of a run are kept when it ends instead of let go of (each released
  /// as its user's code, a `deinit` run for every object). A process that ends after its runs (a
  /// supervised `run`, a sweep's worker, replaced as it grows) keeps them: a killed phone app runs
  /// no `deinit`, and one that traps here, after the report was made, could not be followed.
  nonisolated(unsafe) package static var keepsObjectsAtEnd = false

  /// The outermost entries into users' code so far (see ``AppCrash``).
  @exclusivity(unchecked) package private(set) var entries: UInt64 = 0
  /// Whether this run has crashes to follow: planned ones, or users whose app crashed.
  @exclusivity(unchecked) var followsCrashes = false
  /// The pieces of the current outermost entry so far: entries nested in it and releases of
  /// objects, inside it or after it returned (see ``AppCrash/piece``).
  @exclusivity(unchecked) var pieces: UInt32 = 0
  /// The piece running now (0: the outermost entry's own code).
  @exclusivity(unchecked) var piece: UInt32 = 0
  /// Whether a `deinit` of a dead process crashed earlier in a run of the seed: from there on, the
  /// objects of processes that are gone are kept rather than let go of (``AppCrash/atDeath``).
  @exclusivity(unchecked) var keepsDeadObjects = false
  /// Objects kept instead of let go of, where a `deinit` crashed in an earlier run of the seed.
  var keptObjects: [Any] = []
  /// Users other than phones' whose app crashed: they have no process for the rest of the run (a
  /// phone's app is launched again by a push or by its user).
  @exclusivity(unchecked) var crashedUsers: Set<UInt32> = []

  // MARK: - The host of this thread

  /// The host whose run is handing a callback to app code on this thread, if any (a C
  /// thread-local: a few instructions to read or set, where a pthread key's are library calls).
  package static var current: AppHost? {
    get {
      guard let p = stampede_get_current_host() else { return nil }
      return Unmanaged<AppHost>.fromOpaque(p).takeUnretainedValue()
    }
    set {
      stampede_set_current_host(newValue.map { UnsafeMutableRawPointer(Unmanaged.passUnretained($0).toOpaque()) })
    }
  }

  /// The current host, or a stop with a message naming what needed it: for an SDK object that
  /// belongs to one user's process, which code outside every user has none of.
  package static func required(_ what: String) -> AppHost {
    guard let host = current, host.user != .max else {
      fatalError("\(what) was used outside a simulated virtual user (app code runs only inside a Stampede run)")
    }
    return host
  }

  /// The current host with a user's code running, or `nil` after reporting that app code used
  /// `what` outside every virtual user (see ``reportOutsideUser(_:)``): the caller then does what
  /// a phone would do for code that belongs to no app process, and the run goes on.
  @inline(__always)
  package static func inUser(_ what: String) -> AppHost? {
    if let host = current, host.user != .max { return host }
    reportOutsideUser(what)
    return nil
  }

  /// App code used `what` outside every virtual user's code: on a thread of its own, or in the
  /// release of an object that no user's code released. Inside a run it is a finding of the run
  /// (`app.inside-virtual-user`); with no run on this thread, a warning on standard error, once
  /// per API.
  package static func reportOutsideUser(_ what: String) {
    if let host = current {
      host.runtime.appOutsideUser.append((host.now.nanoseconds, what))
      return
    }
    OutsideWarnings.warn(what)
  }

  /// App code broke a platform contract whose breach stops or hangs an iOS app (`what` says which
  /// and how): inside a run it is a finding of the run (`app.platform-contract`), naming the user
  /// whose code did it; with no run on this thread, a warning on standard error, once per contract.
  package static func reportContractBroken(_ what: String) {
    if let host = current {
      host.runtime.appContractBroken.append((host.now.nanoseconds, host.user, what))
      return
    }
    OutsideWarnings.warn(what)
  }
}

/// App code (a closure or an object) the model holds for one user, such as the completion of an
/// SDK call: when the model lets go of it without handing it back (the answer reached a process
/// that is gone, or the run ended first), it is released as that user's code, so that a `deinit`
/// it ends finds its own process's platform.
package final class UserBound<Value> {
  private var value: Value?
  private let host: AppHost
  private let user: UInt32
  private let process: UInt16

  /// Holds `value` for `user` of `host`.
  package init(_ value: Value, host: AppHost, user: UInt32) {
    self.value = value
    self.host = host
    self.user = user
    process = host.process(of: user)
  }

  /// Takes the value out (once); the caller then releases it inside the user's code.
  package func take() -> Value? {
    defer { value = nil }
    return value
  }

  deinit {
    guard value != nil else { return }
    if AppHost.current === host && host.user == user {
      value = nil
      return
    }
    let gone = host.process(of: user) != process || !host.isAlive(user)
    host.releaseObjects(of: user, processGone: gone, holding: value) { value = nil }
  }
}

/// The warnings for app code that ran with no run on its thread, once per API.
enum OutsideWarnings {
  nonisolated(unsafe) static var seen: Set<String> = []
  static let lock = NSLock()

  static func warn(_ what: String) {
    lock.lock()
    let first = seen.insert(what).inserted
    lock.unlock()
    guard first else { return }
    FileHandle.standardError.write(
      Data("warning: app code outside a virtual user: \(what) (no Stampede run on this thread; ignored)\n".utf8))
  }
}

/// The executor app tasks run on: each job is a simulation event of the user who started it.
final class SimulationExecutor: SerialExecutor, @unchecked Sendable {
  static let shared = SimulationExecutor()

  /// Whether this thread runs a virtual user's code now: then it is that user's main actor (every
  /// piece of a user's code runs on its run's one thread, in simulation order).
  static var isIsolatingHere: Bool {
    guard let host = AppHost.current else { return false }
    return host.user != .max
  }

  func checkIsolated() {
    precondition(
      SimulationExecutor.isIsolatingHere,
      "main-actor code ran outside every virtual user's code (no simulated main actor)")
  }

  func isIsolatingCurrentContext() -> Bool? { SimulationExecutor.isIsolatingHere }

  func enqueue(_ job: consuming ExecutorJob) {
    let unowned = UnownedJob(job)
    if let host = AppHost.current, host.user != .max {
      host.enqueueTaskStep(unowned)
    } else {
      unowned.runSynchronously(on: asUnownedSerialExecutor())
    }
  }
}

/// The concurrency runtime's enqueue hooks, pointed at the current host: a task started or resumed
/// by app code becomes an event of that code's user instead of work on a thread pool.
///
/// This is the one place that knows how jobs are intercepted. When the toolchain offers a way to
/// name the global executor (`ExecutorFactory`), it replaces these hooks and nothing else changes.
enum ConcurrencyHooks {
  typealias Original = @convention(thin) (UnownedJob) -> Void
  typealias Hook = @convention(thin) (UnownedJob, Original) -> Void
  typealias MainOriginal = @convention(thin) () -> UnownedSerialExecutor
  typealias MainHook = @convention(thin) (MainOriginal) -> UnownedSerialExecutor

  nonisolated(unsafe) static var installed = false
  static let lock = NSLock()

  static func install() {
    lock.lock()
    defer { lock.unlock() }
    guard !installed else { return }
    installed = true
    let handle = dlopen(nil, RTLD_NOW)
    for name in ["swift_task_enqueueGlobal_hook", "swift_task_enqueueMainExecutor_hook"] {
      guard let symbol = dlsym(handle, name) else { continue }
      let hook: Hook = { job, original in
        if let host = AppHost.current, host.user != .max {
          host.enqueueTaskStep(job)
        } else {
          original(job)
        }
      }
      symbol.assumingMemoryBound(to: Hook?.self).pointee = hook
    }
    // Inside a virtual user's code the main actor is the user's simulated main thread: main-actor
    // tasks and hops become the user's task steps, and isolation checks ask the simulation.
    if let symbol = dlsym(handle, "swift_task_getMainExecutor_hook") {
      let hook: MainHook = { original in
        SimulationExecutor.isIsolatingHere ? SimulationExecutor.shared.asUnownedSerialExecutor() : original()
      }
      symbol.assumingMemoryBound(to: MainHook?.self).pointee = hook
    }
  }
}
