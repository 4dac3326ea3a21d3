@_exported import Dispatch
@_exported import Foundation
import SimKernel

// App code sees these declarations instead of Dispatch's and the standard library's: a module that
// imports Dispatch and declares its own `DispatchQueue` shadows Dispatch's for code that imports
// both. Every SDK-compatible module re-exports this one.

/// A point in simulated time, as `DispatchQueue.asyncAfter(deadline:)` takes it.
public struct DispatchTime: Comparable, Sendable {
  /// Nanoseconds since the simulation started.
  public var uptimeNanoseconds: UInt64

  /// A time `uptimeNanoseconds` after the simulation started.
  public init(uptimeNanoseconds: UInt64) { self.uptimeNanoseconds = uptimeNanoseconds }

  /// The simulated time now.
  public static func now() -> DispatchTime {
    let ns = AppHost.current?.now.nanoseconds ?? 0
    return DispatchTime(uptimeNanoseconds: UInt64(max(0, ns)))
  }

  /// The simulation's start.
  public static let zero = DispatchTime(uptimeNanoseconds: 0)

  /// Later than any time a run reaches.
  public static let distantFuture = DispatchTime(uptimeNanoseconds: UInt64(Int64.max / 4))

  /// `time` plus `seconds`.
  public static func + (time: DispatchTime, seconds: Double) -> DispatchTime {
    DispatchTime(uptimeNanoseconds: time.uptimeNanoseconds &+ UInt64(max(0, seconds * 1e9).rounded()))
  }

  /// `time` plus `interval`.
  public static func + (time: DispatchTime, interval: DispatchTimeInterval) -> DispatchTime {
    DispatchTime(uptimeNanoseconds: time.uptimeNanoseconds &+ UInt64(max(0, interval.nanoseconds)))
  }

  /// `time` less `seconds` (not before the simulation's start).
  public static func - (time: DispatchTime, seconds: Double) -> DispatchTime {
    let ns = UInt64(max(0, seconds * 1e9).rounded())
    return DispatchTime(uptimeNanoseconds: time.uptimeNanoseconds > ns ? time.uptimeNanoseconds - ns : 0)
  }

  /// `time` less `interval` (not before the simulation's start).
  public static func - (time: DispatchTime, interval: DispatchTimeInterval) -> DispatchTime {
    let ns = UInt64(max(0, interval.nanoseconds))
    return DispatchTime(uptimeNanoseconds: time.uptimeNanoseconds > ns ? time.uptimeNanoseconds - ns : 0)
  }

  public static func < (a: DispatchTime, b: DispatchTime) -> Bool { a.uptimeNanoseconds < b.uptimeNanoseconds }
}

/// A time interval, as Dispatch spells it.
public enum DispatchTimeInterval: Sendable, Equatable {
  /// Whole seconds.
  case seconds(Int)
  /// Milliseconds.
  case milliseconds(Int)
  /// Microseconds.
  case microseconds(Int)
  /// Nanoseconds.
  case nanoseconds(Int)
  /// Never.
  case never

  var nanoseconds: Int64 {
    switch self {
    case .seconds(let n): return Int64(n) * 1_000_000_000
    case .milliseconds(let n): return Int64(n) * 1_000_000
    case .microseconds(let n): return Int64(n) * 1_000
    case .nanoseconds(let n): return Int64(n)
    case .never: return .max / 4
    }
  }
}

/// Quality-of-service classes, accepted and ignored (one simulated thread runs everything).
public struct DispatchQoS: Sendable {
  /// The default class.
  public static let `default` = DispatchQoS()
  /// User-interactive.
  public static let userInteractive = DispatchQoS()
  /// User-initiated.
  public static let userInitiated = DispatchQoS()
  /// Utility.
  public static let utility = DispatchQoS()
  /// Background.
  public static let background = DispatchQoS()
  /// Unspecified.
  public static let unspecified = DispatchQoS()

  /// The class's QoS class, for `DispatchQueue.global(qos:)`.
  public enum QoSClass: Sendable {
    case `default`, userInteractive, userInitiated, utility, background, unspecified
  }
}

/// A dispatch queue of a virtual user: the main queue, a global queue, or one the app made. Work
/// submitted to any of them runs as a simulation event of the user who submitted it, in the order
/// submitted, at the simulated time asked for.
///
/// Every queue is serial and runs on the one simulation thread, so app code never races with
/// itself in real time: the races Stampede finds are the ones the model's timing produces,
/// identical on every run of a seed.
public final class DispatchQueue: @unchecked Sendable {
  /// The queue's label.
  public let label: String

  /// A queue labelled `label` (attributes and QoS are accepted and ignored).
  public init(label: String, qos: DispatchQoS = .default, attributes: Attributes = [], target: DispatchQueue? = nil) {
    self.label = label
  }

  /// Queue attributes, accepted and ignored.
  public struct Attributes: OptionSet, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    /// Concurrent (still run one job at a time).
    public static let concurrent = Attributes(rawValue: 1)
    /// Created inactive (activation is not modelled).
    public static let initiallyInactive = Attributes(rawValue: 2)
  }

  /// The main queue of the current virtual user.
  public static let main = DispatchQueue(label: "com.apple.main-thread")
  nonisolated(unsafe) static var globals: [DispatchQueue] = [DispatchQueue(label: "com.apple.root.default-qos")]

  /// A global queue.
  public static func global(qos: DispatchQoS.QoSClass = .default) -> DispatchQueue { globals[0] }

  /// Runs `work` as a later event of the current user, at the same simulated time (in `group`
  /// until it has run).
  /// (`@preconcurrency`, as Dispatch is to Swift 5 code: a closure written in a `@MainActor` view
  /// model keeps the view model's isolation, which the user's simulated main thread gives it.)
  @preconcurrency
  public func async(
    group: DispatchGroup? = nil, qos: DispatchQoS = .default, flags: DispatchWorkItemFlags = [],
    execute work: @escaping @Sendable () -> Void
  ) {
    // Outside every user's code the work has no app process to run in: reported, and dropped.
    guard let host = AppHost.inUser("DispatchQueue.async") else { return }
    guard let group else { return host.post(work) }
    group.enter()
    host.post {
      work()
      group.leave()
    }
  }

  /// Runs `item` as a later event of the current user, at the same simulated time (a cancelled
  /// item returns at once then).
  public func async(execute item: DispatchWorkItem) {
    AppHost.inUser("DispatchQueue.async")?.post { item.perform() }
  }

  /// Runs `item` in `group` as a later event of the current user, at the same simulated time.
  public func async(group: DispatchGroup, execute item: DispatchWorkItem) {
    async(group: group) { item.perform() }
  }

  /// Runs `work` as an event of the current user at `deadline`.
  @preconcurrency
  public func asyncAfter(
    deadline: DispatchTime, qos: DispatchQoS = .default, flags: DispatchWorkItemFlags = [],
    execute work: @escaping @Sendable () -> Void
  ) {
    guard let host = AppHost.inUser("DispatchQueue.asyncAfter") else { return }
    host.post(work, after: .nanoseconds(max(0, Int64(deadline.uptimeNanoseconds) - host.now.nanoseconds)))
  }

  /// Runs `item` as an event of the current user at `deadline`, unless it is cancelled by then:
  /// the cancellable timeout.
  public func asyncAfter(deadline: DispatchTime, execute item: DispatchWorkItem) {
    asyncAfter(deadline: deadline) { item.perform() }
  }

  /// Runs `work` as an event of the current user at `wallDeadline` (wall time is simulated time).
  @preconcurrency
  public func asyncAfter(
    wallDeadline: DispatchWallTime, qos: DispatchQoS = .default, flags: DispatchWorkItemFlags = [],
    execute work: @escaping @Sendable () -> Void
  ) {
    asyncAfter(deadline: DispatchTime(uptimeNanoseconds: wallDeadline.nanoseconds), execute: work)
  }

  /// Runs `item` as an event of the current user at `wallDeadline`, unless it is cancelled by then.
  public func asyncAfter(wallDeadline: DispatchWallTime, execute item: DispatchWorkItem) {
    asyncAfter(deadline: DispatchTime(uptimeNanoseconds: wallDeadline.nanoseconds)) { item.perform() }
  }

  /// Runs `work` now, on the caller's turn (every queue shares the one simulated thread).
  public func sync<T>(execute work: () throws -> T) rethrows -> T { try work() }

  /// Performs `item` now, on the caller's turn.
  public func sync(execute item: DispatchWorkItem) { item.perform() }
}

/// Work-item flags, accepted and ignored.
public struct DispatchWorkItemFlags: OptionSet, Sendable {
  public let rawValue: UInt
  public init(rawValue: UInt) { self.rawValue = rawValue }
  /// A barrier (every queue is serial already).
  public static let barrier = DispatchWorkItemFlags(rawValue: 1)
}

/// Writes the items as the standard `print` would, into the current virtual user's trace instead
/// of standard output. Outside a simulation it prints as usual.
public func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
  printItems(items, separator: separator, terminator: terminator)
}

/// `print` with its items as an array (what the `PlatformShadows` plugin's `print` forwards to).
public func printItems(_ items: [Any], separator: String = " ", terminator: String = "\n") {
  let text = items.map { "\($0)" }.joined(separator: separator)
  if let host = AppHost.current, host.user != .max {
    host.printed(text)
  } else {
    Swift.print(text, terminator: terminator)
  }
}

extension Task where Success == Never, Failure == Never {
  /// Suspends the current task for `nanoseconds` of simulated time.
  public static func sleep(nanoseconds: UInt64) async throws {
    try await simulatedSleep(Int64(min(nanoseconds, UInt64(Int64.max / 2))))
  }

  /// Suspends the current task for `duration` of simulated time.
  public static func sleep(for duration: Duration) async throws {
    let (s, atto) = duration.components
    try await simulatedSleep(s * 1_000_000_000 + atto / 1_000_000_000)
  }

  /// Suspends the current task until the simulated time `deadline` (a `DispatchTime`).
  public static func sleep(until deadline: DispatchTime) async throws {
    let now = AppHost.current?.now.nanoseconds ?? 0
    try await simulatedSleep(Int64(deadline.uptimeNanoseconds) - now)
  }
}

func simulatedSleep(_ nanoseconds: Int64) async throws {
  // Outside every user's code there is no simulated clock to sleep on: reported, and the task
  // goes on at once.
  guard let host = AppHost.inUser("Task.sleep") else { return try Task.checkCancellation() }
  try Task.checkCancellation()
  // As the standard library's sleep: cancelling the task ends it at once (with
  // `CancellationError`), not at its deadline. The cancel comes from some user's code on the
  // simulation's thread; the sleep then ends as the sleeper's next piece of work, at that time.
  let sleep = SimulatedSleep(host: host, user: host.user)
  await withTaskCancellationHandler {
    await withUnsafeContinuation { (k: UnsafeContinuation<Void, Never>) in
      sleep.continuation = k
      host.post({ sleep.wake() }, after: .nanoseconds(max(0, nanoseconds)))
    }
  } onCancel: {
    sleep.cancelled()
  }
  try Task.checkCancellation()
}

/// One task's simulated sleep: woken by its deadline or, earlier, by the task's cancellation.
final class SimulatedSleep: @unchecked Sendable {
  let host: AppHost
  let user: UInt32
  var continuation: UnsafeContinuation<Void, Never>?
  var woken = false

  init(host: AppHost, user: UInt32) {
    self.host = host
    self.user = user
  }

  func wake() {
    guard !woken, let k = continuation else { return }
    woken = true
    continuation = nil
    k.resume()
  }

  /// The task was cancelled: it wakes as its user's next piece of work (the deadline's job then
  /// finds it awake and does nothing).
  func cancelled() {
    guard !woken, AppHost.current === host else { return }
    host.run(as: user) { host.post { [self] in wake() } }
  }
}
