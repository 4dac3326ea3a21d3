/// A span of simulated time, in whole nanoseconds.
///
/// Durations and instants are distinct types so that an instant can never be added to an instant.
/// Arithmetic wraps nowhere: overflow traps, which in a 292-year range means a bug.
@frozen
public struct SimDuration: Hashable, Comparable, Sendable, CustomStringConvertible {
  /// The length in nanoseconds.
  public var nanoseconds: Int64

  /// Creates a duration of `nanoseconds` nanoseconds.
  @inlinable
  public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }

  /// The empty duration.
  public static let zero = SimDuration(nanoseconds: 0)

  /// `n` nanoseconds.
  @inlinable public static func nanoseconds(_ n: Int64) -> SimDuration { SimDuration(nanoseconds: n) }
  /// `n` microseconds.
  @inlinable public static func microseconds(_ n: Int64) -> SimDuration { SimDuration(nanoseconds: n * 1_000) }
  /// `n` milliseconds.
  @inlinable public static func milliseconds(_ n: Int64) -> SimDuration { SimDuration(nanoseconds: n * 1_000_000) }
  /// `n` seconds.
  @inlinable public static func seconds(_ n: Int64) -> SimDuration { SimDuration(nanoseconds: n * 1_000_000_000) }
  /// `n` minutes.
  @inlinable public static func minutes(_ n: Int64) -> SimDuration { SimDuration(nanoseconds: n * 60_000_000_000) }
  /// `n` hours.
  @inlinable public static func hours(_ n: Int64) -> SimDuration { SimDuration(nanoseconds: n * 3_600_000_000_000) }

  /// The duration in milliseconds, as a `Double` (for reports only, never for simulation decisions).
  @inlinable public var milliseconds: Double { Double(nanoseconds) / 1e6 }
  /// The duration in seconds, as a `Double` (for reports only, never for simulation decisions).
  @inlinable public var seconds: Double { Double(nanoseconds) / 1e9 }

  @inlinable public static func < (lhs: SimDuration, rhs: SimDuration) -> Bool { lhs.nanoseconds < rhs.nanoseconds }
  @inlinable public static func + (lhs: SimDuration, rhs: SimDuration) -> SimDuration {
    SimDuration(nanoseconds: lhs.nanoseconds + rhs.nanoseconds)
  }
  @inlinable public static func - (lhs: SimDuration, rhs: SimDuration) -> SimDuration {
    SimDuration(nanoseconds: lhs.nanoseconds - rhs.nanoseconds)
  }
  @inlinable public static func * (lhs: SimDuration, rhs: Int64) -> SimDuration {
    SimDuration(nanoseconds: lhs.nanoseconds * rhs)
  }

  /// The shortest exact spelling in the largest whole unit: `250ms`, `1.5s`, `30m`, `2h`, `0s`.
  public var description: String { DurationFormat.format(nanoseconds) }

  /// This duration rounded down to a multiple of `unit` (for display: `22m20.57s` would print
  /// exactly as `1340570.243654ms`; rounded to 100 ms it prints `1340.5s`).
  public func rounded(to unit: SimDuration) -> SimDuration {
    precondition(unit.nanoseconds > 0, "the unit must be positive")
    return SimDuration(nanoseconds: nanoseconds / unit.nanoseconds * unit.nanoseconds)
  }
}

/// A point in simulated time: nanoseconds since the start of the run.
///
/// Virtual time starts at zero and moves only when the kernel executes an event.
@frozen
public struct SimInstant: Hashable, Comparable, Sendable, CustomStringConvertible {
  /// Nanoseconds since the start of the run.
  public var nanoseconds: Int64

  /// Creates the instant `nanoseconds` after the start of the run.
  @inlinable
  public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }

  /// The start of every run.
  public static let zero = SimInstant(nanoseconds: 0)
  /// Later than any instant a run can reach; used as "no end".
  public static let distantFuture = SimInstant(nanoseconds: Int64.max)

  @inlinable public static func < (lhs: SimInstant, rhs: SimInstant) -> Bool { lhs.nanoseconds < rhs.nanoseconds }
  @inlinable public static func + (lhs: SimInstant, rhs: SimDuration) -> SimInstant {
    SimInstant(nanoseconds: lhs.nanoseconds + rhs.nanoseconds)
  }
  @inlinable public static func - (lhs: SimInstant, rhs: SimInstant) -> SimDuration {
    SimDuration(nanoseconds: lhs.nanoseconds - rhs.nanoseconds)
  }

  /// The time since the start of the run, e.g. `t=1.5s`, or in milliseconds to three decimals
  /// where no larger unit is exact (`t=1060005.263ms`, as findings give their times).
  public var description: String {
    let exact = DurationFormat.format(nanoseconds)
    guard nanoseconds >= 1_000_000, exact.hasSuffix("us") || exact.hasSuffix("ns") else { return "t=" + exact }
    let micros = (nanoseconds + 500) / 1000
    let fraction = String(micros % 1000)
    return "t=\(micros / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction + "ms"
  }
}

/// Parsing and printing of duration strings such as `250ms`, `1.5s`, `30m`, `2h`, `1h30m`.
public enum DurationFormat {
  /// Units in the order they are tried when printing, largest first.
  static let units: [(suffix: String, nanoseconds: Int64)] = [
    ("h", 3_600_000_000_000), ("m", 60_000_000_000), ("s", 1_000_000_000),
    ("ms", 1_000_000), ("us", 1_000), ("ns", 1),
  ]

  /// Formats `nanoseconds` exactly, using the largest unit that needs at most three decimals.
  public static func format(_ nanoseconds: Int64) -> String {
    if nanoseconds == 0 { return "0s" }
    let sign = nanoseconds < 0 ? "-" : ""
    let magnitude = nanoseconds.magnitude
    for unit in units {
      let size = UInt64(unit.nanoseconds)
      guard magnitude >= size else { continue }
      let whole = magnitude / size
      let rest = magnitude % size
      if rest == 0 { return sign + String(whole) + unit.suffix }
      // Up to three exact decimals; otherwise fall through to a smaller unit.
      if size >= 1000 && rest % (size / 1000) == 0 {
        var fraction = String(rest / (size / 1000))
        while fraction.count < 3 { fraction = "0" + fraction }
        while fraction.hasSuffix("0") { fraction.removeLast() }
        return sign + String(whole) + "." + fraction + unit.suffix
      }
    }
    return sign + String(magnitude) + "ns"
  }

  /// Parses a duration such as `250ms`, `1.5s`, `30m`, `2h`, `1h30m` or `0`.
  ///
  /// Decimal fractions are exact (`1.5s` is 1 500 000 000 ns); a fraction finer than a nanosecond
  /// is rejected rather than rounded. Returns `nil` for anything else.
  public static func parse(_ text: String) -> SimDuration? {
    let s = Array(text.utf8)
    if s == Array("0".utf8) { return .zero }
    var i = 0
    var total: Int64 = 0
    var sawComponent = false
    while i < s.count {
      // Digits, optional fraction.
      var whole: Int64 = 0
      var digits = 0
      while i < s.count, s[i] >= 48, s[i] <= 57 {
        let (m, o1) = whole.multipliedReportingOverflow(by: 10)
        let (a, o2) = m.addingReportingOverflow(Int64(s[i] - 48))
        if o1 || o2 { return nil }
        whole = a
        i += 1
        digits += 1
      }
      var fractionDigits: [UInt8] = []
      if i < s.count, s[i] == 46 {  // "."
        i += 1
        while i < s.count, s[i] >= 48, s[i] <= 57 {
          fractionDigits.append(s[i] - 48)
          i += 1
        }
        if fractionDigits.isEmpty { return nil }
      }
      if digits == 0 { return nil }
      // Unit.
      var unitEnd = i
      while unitEnd < s.count, (s[unitEnd] >= 97 && s[unitEnd] <= 122) || s[unitEnd] == 0xC2 || s[unitEnd] == 0xB5 {
        unitEnd += 1
      }
      let unitText = String(decoding: s[i..<unitEnd], as: UTF8.self)
      i = unitEnd
      guard let size = unitSize(unitText) else { return nil }
      let (wholeNs, o3) = whole.multipliedReportingOverflow(by: size)
      if o3 { return nil }
      var fractionNs: Int64 = 0
      var scale = size
      for d in fractionDigits {
        guard scale % 10 == 0 else { return nil }  // finer than a nanosecond
        scale /= 10
        fractionNs += Int64(d) * scale
      }
      let (sum, o4) = total.addingReportingOverflow(wholeNs)
      let (sum2, o5) = sum.addingReportingOverflow(fractionNs)
      if o4 || o5 { return nil }
      total = sum2
      sawComponent = true
    }
    return sawComponent ? SimDuration(nanoseconds: total) : nil
  }

  static func unitSize(_ unit: String) -> Int64? {
    switch unit {
    case "h": return 3_600_000_000_000
    case "m", "min": return 60_000_000_000
    case "s": return 1_000_000_000
    case "ms": return 1_000_000
    case "us", "µs": return 1_000
    case "ns": return 1
    default: return nil
    }
  }
}

extension SimDuration {
  /// A few nanoseconds that differ from process to process (a `Set`'s iteration order is seeded
  /// per instance): only for planting nondeterminism, to show that the determinism check sees it.
  public static func plantedJitter() -> SimDuration {
    var set = Set<Int64>()
    for i in 0..<64 as Range<Int64> { set.insert(i) }
    return .nanoseconds(set.first!)
  }
}
