import SimKernel

// Foundation's timers on the simulated platform. On a phone a timer fires on the main run loop;
// here it fires as an event of the virtual user whose code scheduled it, at simulated times.

/// A timer of a virtual user: `Timer.scheduledTimer(withTimeInterval:repeats:block:)` (a call's
/// duration label, a ringing screen's timeout), or `Timer(timeInterval:repeats:block:)` added with
/// `RunLoop.main.add(_:forMode:)`. Its block runs as that user's code after each interval of
/// simulated time, until ``invalidate()``; a non-repeating timer fires once, then is invalid.
/// A timer of an app process that dies never fires again.
///
/// A timer made with a fire date (`Timer(fire:interval:repeats:block:)`) first fires at that date
/// of the simulated wall clock. The target-selector initializers need the Objective-C runtime and
/// are not offered.
public final class Timer: @unchecked Sendable {
  /// The interval between firings (seconds; at least 0.1 ms, as Foundation has it).
  public let timeInterval: Double
  /// Accepted and ignored: a simulated timer fires exactly on time.
  public var tolerance: Double = 0
  /// Always `nil` (the block-based timers carry none).
  public let userInfo: Any? = nil
  /// Whether the timer can still fire.
  public private(set) var isValid = true
  private let repeats: Bool
  private let block: (Timer) -> Void
  private var scheduled = false
  /// The wall-clock date of the first firing, for a timer made with one (`init(fire:…)`).
  private let firstFire: Date?

  /// A timer that fires `block` every `interval` seconds (once, unless `repeats`) once added to a
  /// run loop. (The block is not required to be `@Sendable`: written in a main-actor view model it
  /// keeps the view model's isolation, which the user's simulated main thread gives it.)
  public init(timeInterval interval: Double, repeats: Bool, block: @escaping (Timer) -> Void) {
    timeInterval = max(interval, 0.0001)
    self.repeats = repeats
    self.block = block
    firstFire = nil
  }

  /// A timer that first fires at `date` (a date of the simulated wall clock, `Date()` in app code),
  /// then every `interval` seconds if it `repeats`, once added to a run loop; a date already past
  /// fires at once.
  public init(fire date: Date, interval: Double, repeats: Bool, block: @escaping (Timer) -> Void) {
    timeInterval = max(interval, 0.0001)
    self.repeats = repeats
    self.block = block
    firstFire = date
  }

  /// A timer that fires `block` every `interval` seconds (once, unless `repeats`), scheduled at once
  /// on the current user's main run loop.
  @discardableResult
  public class func scheduledTimer(
    withTimeInterval interval: Double, repeats: Bool, block: @escaping (Timer) -> Void
  ) -> Timer {
    let timer = Timer(timeInterval: interval, repeats: repeats, block: block)
    timer.schedule()
    return timer
  }

  /// Fires the timer now, on the caller's turn, without changing a repeating timer's schedule; a
  /// non-repeating timer is invalid afterwards.
  public func fire() {
    guard isValid else { return }
    block(self)
    if !repeats { isValid = false }
  }

  /// Stops the timer: it never fires again.
  public func invalidate() { isValid = false }

  /// Puts the timer on the current user's main run loop (once).
  func schedule() {
    guard isValid, !scheduled else { return }
    guard let host = AppHost.inUser("Timer") else { return }
    scheduled = true
    // Read inside the user's code, `Date()` is the simulated wall clock.
    post(on: host, after: firstFire.map { max(0, $0.timeIntervalSince(Date())) } ?? timeInterval)
  }

  /// What the SDK rang or dialed when the timer was scheduled: a repeating timer's every firing is
  /// armed then (see ``AppHost/post(_:after:ringing:)``).
  private var ringing: UInt32?

  private func post(on host: AppHost, after seconds: Double) {
    if ringing == nil { ringing = host.ringingCall() }
    host.post(
      { [self] in
        guard isValid else { return }
        block(self)
        guard isValid else { return }
        if repeats {
          post(on: host, after: timeInterval)
        } else {
          isValid = false
        }
      }, after: .nanoseconds(Int64((seconds * 1e9).rounded())), ringing: ringing)
  }
}

/// The run loop timers are added to. Every virtual user has one thread, whose run loop is the
/// simulation itself: adding a timer schedules it for the current user, in any mode. Running the
/// loop by hand (`run()`, `run(until:)`) would block that thread, and is not offered.
public final class RunLoop: @unchecked Sendable {
  /// A run-loop mode (every mode is the same one here).
  public struct Mode: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    /// The default mode.
    public static let `default` = Mode(rawValue: "kCFRunLoopDefaultMode")
    /// The common modes.
    public static let common = Mode(rawValue: "kCFRunLoopCommonModes")
    /// The mode while a scroll view tracks a touch.
    public static let tracking = Mode(rawValue: "UITrackingRunLoopMode")
  }

  private init() {}

  /// The current user's main run loop.
  public static let main = RunLoop()
  /// The run loop of the thread app code runs on: the main one.
  public static var current: RunLoop { main }

  /// Schedules `timer` for the current user (a timer already scheduled stays as it is).
  public func add(_ timer: Timer, forMode mode: Mode) { timer.schedule() }

  /// Not offered: it would block the simulated thread that runs every piece of a user's code.
  @available(*, unavailable, message: "blocks the one simulated thread every piece of a user's code runs on")
  public func run() {}

  /// Not offered (see ``run()``).
  @available(*, unavailable, message: "blocks the one simulated thread every piece of a user's code runs on")
  public func run(until limitDate: Date) {}
}
