import SimKernel

// Dispatch's work items and groups, on the simulated platform: what they run, they run as the
// current virtual user's work on its one simulated thread, at simulated times.

/// A block of app work that can be submitted to a queue, performed, cancelled, and observed: the
/// cancellable timeout a call screen arms (`asyncAfter(deadline:execute:)` with an item it cancels
/// when the answer comes) runs here as it does under Dispatch.
///
/// As in Dispatch, cancelling stops any later execution (an item already submitted returns at once
/// when its turn comes) and does not stop one under way; `notify` work is submitted when an
/// execution, or its cancelled attempt, completes. Waiting (`wait()`) would block the one simulated
/// thread that every piece of a user's code runs on, and is not offered.
public final class DispatchWorkItem: @unchecked Sendable {
  private let block: () -> Void
  private var notifications: [() -> Void] = []
  private var completed = false
  /// Whether ``cancel()`` was called.
  public private(set) var isCancelled = false

  /// An item running `block` (QoS and flags are accepted and ignored). The block is not required to
  /// be `@Sendable`: written in a main-actor view model it keeps the view model's isolation, which
  /// the user's simulated main thread gives it wherever the item runs.
  public init(qos: DispatchQoS = .unspecified, flags: DispatchWorkItemFlags = [], block: @escaping () -> Void) {
    self.block = block
  }

  /// Runs the block now, on the caller's turn, unless the item was cancelled; then submits the
  /// work waiting on its completion.
  public func perform() {
    if !isCancelled { block() }
    complete()
  }

  /// Stops every later execution of the item (one under way goes on).
  public func cancel() { isCancelled = true }

  /// Submits `work` to `queue` when the item's execution completes (at once if it has).
  @preconcurrency
  public func notify(
    qos: DispatchQoS = .unspecified, flags: DispatchWorkItemFlags = [], queue: DispatchQueue,
    execute work: @escaping @Sendable () -> Void
  ) {
    if completed { return queue.async(execute: work) }
    notifications.append { queue.async(execute: work) }
  }

  /// Submits `item` to `queue` when this item's execution completes (at once if it has).
  public func notify(queue: DispatchQueue, execute item: DispatchWorkItem) {
    if completed { return queue.async(execute: item) }
    notifications.append { queue.async(execute: item) }
  }

  /// Not offered: it would block the simulated thread that runs every piece of the user's code,
  /// so the work it waits for could never run.
  @available(
    *, unavailable,
    message: "blocks the one simulated thread every piece of a user's code runs on; use notify(queue:execute:)"
  )
  public func wait() {}

  private func complete() {
    guard !completed else { return }
    completed = true
    let waiting = notifications
    notifications = []
    for submit in waiting { submit() }
  }
}

/// A group of app work whose completion can be observed: `enter()` and `leave()` around each
/// piece (an SDK call and its completion, say), `notify(queue:execute:)` for what follows them
/// all. Work submitted with `async(group:)` enters the group until it has run.
///
/// A `leave()` without a matching `enter()` stops an iOS app (Dispatch traps: "Unbalanced call to
/// dispatch_group_leave()"); here it is a finding of the run, `app.platform-contract`, and the
/// group stays empty. Waiting (`wait()`) would block the one simulated thread, and is not offered.
public final class DispatchGroup: @unchecked Sendable {
  private var entered = 0
  private var notifications: [() -> Void] = []

  /// An empty group.
  public init() {}

  /// One more piece of work is under way.
  public func enter() { entered += 1 }

  /// A piece of work has finished: when none is left, the work waiting on the group is submitted.
  public func leave() {
    guard entered > 0 else {
      return AppHost.reportContractBroken(
        "DispatchGroup.leave() without a matching enter() (a phone's app stops here: \"Unbalanced call to dispatch_group_leave()\")"
      )
    }
    entered -= 1
    guard entered == 0 else { return }
    let waiting = notifications
    notifications = []
    for submit in waiting { submit() }
  }

  /// Submits `work` to `queue` once every piece of work in the group has finished (at once if
  /// none is under way).
  @preconcurrency
  public func notify(
    qos: DispatchQoS = .unspecified, flags: DispatchWorkItemFlags = [], queue: DispatchQueue,
    execute work: @escaping @Sendable () -> Void
  ) {
    if entered == 0 { return queue.async(execute: work) }
    notifications.append { queue.async(execute: work) }
  }

  /// Submits `item` to `queue` once every piece of work in the group has finished.
  public func notify(queue: DispatchQueue, work item: DispatchWorkItem) {
    if entered == 0 { return queue.async(execute: item) }
    notifications.append { queue.async(execute: item) }
  }

  /// Not offered: it would block the simulated thread that runs every piece of the user's code,
  /// so the work it waits for could never run.
  @available(
    *, unavailable,
    message: "blocks the one simulated thread every piece of a user's code runs on; use notify(queue:execute:)"
  )
  public func wait() {}

  /// Not offered (see ``wait()``).
  @available(
    *, unavailable,
    message: "blocks the one simulated thread every piece of a user's code runs on; use notify(queue:execute:)"
  )
  public func wait(timeout: DispatchTime) -> DispatchTimeoutResult { .timedOut }
}

/// What a timed wait returns (the type exists so that signatures which mention it compile).
public enum DispatchTimeoutResult: Sendable {
  /// The wait ended because the work finished.
  case success
  /// The wait ended at its timeout.
  case timedOut
}

/// A point on the wall clock, as `asyncAfter(wallDeadline:)` takes it. The simulation has one
/// clock: wall time is simulated time, so a wall deadline waits exactly as a `DispatchTime` does.
public struct DispatchWallTime: Comparable, Sendable {
  /// Nanoseconds since the simulation started.
  public var nanoseconds: UInt64

  /// The simulated time now.
  public static func now() -> DispatchWallTime {
    DispatchWallTime(nanoseconds: DispatchTime.now().uptimeNanoseconds)
  }

  /// Later than any time a run reaches.
  public static let distantFuture = DispatchWallTime(nanoseconds: UInt64(Int64.max / 4))

  /// `time` plus `seconds`.
  public static func + (time: DispatchWallTime, seconds: Double) -> DispatchWallTime {
    DispatchWallTime(nanoseconds: time.nanoseconds &+ UInt64(max(0, seconds * 1e9).rounded()))
  }

  /// `time` plus `interval`.
  public static func + (time: DispatchWallTime, interval: DispatchTimeInterval) -> DispatchWallTime {
    DispatchWallTime(nanoseconds: time.nanoseconds &+ UInt64(max(0, interval.nanoseconds)))
  }

  public static func < (a: DispatchWallTime, b: DispatchWallTime) -> Bool { a.nanoseconds < b.nanoseconds }
}

/// A counting semaphore in a virtual user's code. Used as a lock (a `wait()` that finds the count
/// above zero, then a `signal()`), it works as Dispatch's does. A `wait()` that would block cannot:
/// every piece of the user's code, the completion that would signal it included, runs on the one
/// simulated thread, as an SDK's completions run on a phone's main thread, so on a phone the app
/// would hang there until the system killed it. That `wait()` is a finding of the run,
/// `app.platform-contract`, and returns at once (the run goes on); a `wait(timeout:)` that would
/// block returns `.timedOut` at once, with no simulated time passing.
public final class DispatchSemaphore: @unchecked Sendable {
  private var value: Int

  /// A semaphore whose count starts at `value` (not below zero).
  public init(value: Int) { self.value = max(0, value) }

  /// Adds one to the count; returns whether a waiter was woken (never: no waiter can wait).
  @discardableResult public func signal() -> Int {
    value += 1
    return 0
  }

  /// Takes one from the count, or, with none to take, reports that the app would hang here.
  public func wait() {
    guard value > 0 else {
      return AppHost.reportContractBroken(
        "DispatchSemaphore.wait() with nothing to signal it (only code that runs on the same thread, after the wait, could: a phone's app hangs here)"
      )
    }
    value -= 1
  }

  /// Takes one from the count if it can, else times out at once.
  public func wait(timeout: DispatchTime) -> DispatchTimeoutResult {
    guard value > 0 else { return .timedOut }
    value -= 1
    return .success
  }

  /// Takes one from the count if it can, else times out at once.
  public func wait(wallTimeout: DispatchWallTime) -> DispatchTimeoutResult {
    wait(timeout: DispatchTime(uptimeNanoseconds: wallTimeout.nanoseconds))
  }
}
