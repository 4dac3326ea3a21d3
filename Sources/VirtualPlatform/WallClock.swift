import CPlatformHooks

/// The wall clock app code reads: `Date()`, `Date.now` and C's `time` and `gettimeofday` give the
/// simulated time inside a virtual user's code, from ``epoch`` at the run's time zero, so code that
/// stamps, compares or prints dates runs the same in every run of a seed. Everywhere else (the
/// command line, reports, the run history) the clock is the machine's. The monotonic clocks
/// (`ContinuousClock`, `SuspendingClock`) stay the machine's.
///
/// How: the `CPlatformHooks` library defines the C library's wall-clock functions in the executable,
/// which exports them in place of the C library's (Foundation's `Date()` reads
/// `clock_gettime(CLOCK_REALTIME)`), and asks the hook installed here whether app code is running.
public enum WallClock {
  /// The simulated wall clock at every run's time zero: 2026-01-01 00:00:00 UTC, in seconds since
  /// 1970.
  public static let epoch: Int64 = 1_767_225_600

  /// Makes the wall clock follow the current virtual user's simulated time (once per process).
  static func install() {
    stampede_set_wall_clock_hook {
      guard let host = AppHost.current, host.user != .max else { return -1 }
      return WallClock.epoch * 1_000_000_000 + host.now.nanoseconds
    }
  }

  /// The machine's wall clock in nanoseconds since 1970, whoever asks.
  public static var machineNanoseconds: Int64 { stampede_real_wall_clock_ns() }
}
