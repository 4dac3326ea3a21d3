import Foundation
import LiveStack
import SimKernel

/// A pass/fail criterion on a run's results, written k6-style:
/// `seat.apply_to_response.p99 < 3s`, `counter.seat.rejected.seat_limit <= 100`,
/// `invariants.violations == 0`.
public struct Threshold: Sendable, Equatable, CustomStringConvertible {
  /// What a threshold measures.
  public enum Subject: Sendable, Equatable {
    /// A statistic of a latency metric.
    case latency(name: String, statistic: Statistic)
    /// A counter's value.
    case counter(name: String)
    /// A counter's value per simulated second (`counter.NAME/s`).
    case rate(counter: String)
    /// One counter's value over another's (`counter.A / counter.B`); no value while the
    /// denominator is 0.
    case ratio(numerator: String, denominator: String)
    /// Violations of every invariant (`nil`) or of one.
    case violations(invariant: String?)

    /// Whether the bound is a time (milliseconds), a share (`5%` or `0.05`) or a plain number.
    public var boundKind: BoundKind {
      switch self {
      case .latency(_, let statistic): return statistic.isTime ? .time : .number
      case .ratio: return .share
      case .counter, .rate, .violations: return .number
      }
    }
  }

  /// What a threshold's bound is.
  public enum BoundKind: Sendable {
    /// A time with a unit, held in milliseconds.
    case time
    /// A fraction, written `5%` or `0.05`.
    case share
    /// A plain number.
    case number
  }

  /// Statistics of a latency metric.
  public enum Statistic: Sendable, Equatable, CustomStringConvertible {
    /// Number of samples (no unit).
    case count
    /// Mean.
    case mean
    /// Exact minimum.
    case min
    /// Exact maximum.
    case max
    /// A percentile: `p95`, `p99.9` (and `p999`, the 99.9th).
    case percentile(Percentile)

    /// Median.
    public static let p50 = Statistic.percentile(Percentile(parts: 50, per: 100))
    /// 90th percentile.
    public static let p90 = Statistic.percentile(Percentile(parts: 90, per: 100))
    /// 99th percentile.
    public static let p99 = Statistic.percentile(Percentile(parts: 99, per: 100))
    /// 99.9th percentile.
    public static let p999 = Statistic.percentile(Percentile(parts: 999, per: 1000))

    /// Whether values carry a time unit.
    public var isTime: Bool { self != .count }

    /// The spelling in an expression (`p99.9` for any 99.9th percentile).
    public var description: String {
      switch self {
      case .count: return "count"
      case .mean: return "mean"
      case .min: return "min"
      case .max: return "max"
      case .percentile(let p): return "p" + p.description
      }
    }

    /// Reads `count`, `mean`, `min`, `max` or `pN` with N a percentage above 0 and at most 100
    /// (`p95`, `p99.9`, `p99.99`); `p999` is the 99.9th, as reports name it.
    public static func parse(_ text: String) -> Statistic? {
      switch text {
      case "count": return .count
      case "mean": return .mean
      case "min": return .min
      case "max": return .max
      case "p999": return .p999
      default:
        guard text.hasPrefix("p"), let p = Percentile.parse(String(text.dropFirst())) else { return nil }
        return .percentile(p)
      }
    }

    /// The statistics a threshold may name, for messages.
    static let spellings = "count, mean, min, max, or a percentile pN such as p50, p95, p99.9"
  }

  /// An exact percentage: `99.9` is 999 parts per 1000, so a rank is never off by a rounding.
  public struct Percentile: Sendable, Equatable, CustomStringConvertible {
    /// Parts of ``per``.
    public let parts: UInt64
    /// A power of ten, at least 100.
    public let per: UInt64

    /// `parts` in `per` (a power of ten ≥ 100, `0 < parts ≤ per`).
    public init(parts: UInt64, per: UInt64) {
      self.parts = parts
      self.per = per
    }

    /// Reads a decimal percentage above 0 and at most 100, with at most six decimals.
    public static func parse(_ text: String) -> Percentile? {
      let pieces = text.split(separator: ".", omittingEmptySubsequences: false)
      guard pieces.count <= 2, let whole = pieces.first, !whole.isEmpty, whole.count <= 3,
        whole.allSatisfy({ $0.isASCII && $0.isNumber })
      else { return nil }
      let fraction = pieces.count == 2 ? pieces[1] : ""
      guard fraction.count <= 6, fraction.allSatisfy({ $0.isASCII && $0.isNumber }),
        pieces.count == 1 || !fraction.isEmpty
      else {
        return nil
      }
      var per: UInt64 = 100
      for _ in fraction { per *= 10 }
      guard let parts = UInt64(whole + fraction), parts > 0, parts <= per else { return nil }
      return Percentile(parts: parts, per: per)
    }

    /// The percentage in its shortest spelling: `95`, `99.9`.
    public var description: String {
      var parts = parts
      var per = per
      while per > 100 && parts % 10 == 0 {
        parts /= 10
        per /= 10
      }
      let whole = String(parts / (per / 100))
      guard per > 100 else { return whole }
      let fraction = String(parts % (per / 100))
      let width = String(per / 100).count - 1
      return whole + "." + String(repeating: "0", count: width - fraction.count) + fraction
    }
  }

  /// Comparison operators.
  public enum Comparison: String, Sendable, CaseIterable {
    /// Less than.
    case less = "<"
    /// Less than or equal.
    case lessOrEqual = "<="
    /// Greater than.
    case greater = ">"
    /// Greater than or equal.
    case greaterOrEqual = ">="
    /// Equal.
    case equal = "=="

    /// `value op bound`.
    public func holds(_ value: Double, _ bound: Double) -> Bool {
      switch self {
      case .less: return value < bound
      case .lessOrEqual: return value <= bound
      case .greater: return value > bound
      case .greaterOrEqual: return value >= bound
      case .equal: return value == bound
      }
    }
  }

  /// The expression as written.
  public let expression: String
  /// What it measures.
  public let subject: Subject
  /// The comparison.
  public let comparison: Comparison
  /// The bound: milliseconds for latency times, a fraction for ratios (`5%` is 0.05), a plain
  /// number otherwise (counters, counts per simulated second, violations).
  public let bound: Double

  public var description: String { expression }

  /// Whether `value` (milliseconds for latency times) passes. A latency statistic of a metric with
  /// no samples has no value and passes: there was nothing to be slow.
  public func passes(_ value: Double?) -> Bool {
    guard let value else { return true }
    return comparison.holds(value, bound)
  }
}

/// The metric names a threshold may refer to.
public struct ThresholdVocabulary: Sendable {
  /// Latency metric names.
  public var latencies: [String]
  /// Counter names.
  public var counters: [String]
  /// Invariant IDs.
  public var invariants: [String]

  /// A vocabulary of these names.
  public init(latencies: [String], counters: [String], invariants: [String]) {
    self.latencies = latencies
    self.counters = counters
    self.invariants = invariants
  }
}

extension Threshold {
  /// Parses `text` against the names in `vocabulary`. The error message says what is wrong and
  /// what was expected.
  public static func parse(_ text: String, vocabulary: ThresholdVocabulary) throws(ThresholdParseError)
    -> Threshold
  {
    let trimmed = text.trimmingSpaces
    // Longest operators first, so "<=" is not read as "<".
    let ops: [Comparison] = [.lessOrEqual, .greaterOrEqual, .equal, .less, .greater]
    guard let (op, range) = ops.lazy.compactMap({ op in trimmed.range(of: op.rawValue).map { (op, $0) } }).first else {
      throw ThresholdParseError("expected METRIC OP VALUE with OP one of <, <=, >, >=, ==")
    }
    let left = String(trimmed[..<range.lowerBound]).trimmingSpaces
    let right = String(trimmed[range.upperBound...]).trimmingSpaces
    guard !left.isEmpty, !right.isEmpty else { throw ThresholdParseError("expected METRIC OP VALUE") }
    if right.contains(where: { "<>=".contains($0) }) { throw ThresholdParseError("more than one operator") }
    let subject = try parseSubject(left, vocabulary)
    let bound: Double
    switch subject.boundKind {
    case .time:
      guard let d = parseTime(right) else {
        throw ThresholdParseError("expected a time with a unit (ns, us, ms, s, m) such as 3s or 250ms, got '\(right)'")
      }
      bound = d
    case .share:
      let number = right.hasSuffix("%") ? String(right.dropLast()) : right
      guard let n = Double(number), n.isFinite, n >= 0, !number.hasPrefix("+") else {
        throw ThresholdParseError("expected a share such as 5% or 0.05 for a ratio, got '\(right)'")
      }
      bound = right.hasSuffix("%") ? n / 100 : n
    case .number:
      var number = right
      if case .rate = subject, number.hasSuffix("/s") { number = String(number.dropLast(2)).trimmingSpaces }
      guard let n = Double(number), n.isFinite, !number.hasPrefix("+") else {
        throw ThresholdParseError("expected a plain number (no unit) for \(left), got '\(right)'")
      }
      bound = n
    }
    return Threshold(expression: trimmed, subject: subject, comparison: op, bound: bound)
  }

  /// Reads a metric expression (`seat.apply_to_response.p99`, `counter.NAME`, `counter.NAME/s`,
  /// `counter.A / counter.B`, `invariants.violations`) against the names in `v`.
  public static func parseSubject(_ left: String, _ v: ThresholdVocabulary) throws(ThresholdParseError) -> Subject {
    if left == "invariants.violations" { return .violations(invariant: nil) }
    if left.hasPrefix("invariants.") {
      let id = String(left.dropFirst("invariants.".count))
      let name = id.hasSuffix(".violations") ? String(id.dropLast(".violations".count)) : id
      guard v.invariants.contains(name) else {
        throw ThresholdParseError("unknown invariant '\(name)'" + suggestion(name, v.invariants))
      }
      return .violations(invariant: name)
    }
    if let slash = left.firstIndex(of: "/") {
      let top = String(left[..<slash]).trimmingSpaces
      let bottom = String(left[left.index(after: slash)...]).trimmingSpaces
      if bottom == "s" { return .rate(counter: try counterName(top, v, role: "a rate")) }
      guard !bottom.contains("/") else { throw ThresholdParseError("more than one '/' in '\(left)'") }
      return .ratio(
        numerator: try counterName(top, v, role: "a ratio"), denominator: try counterName(bottom, v, role: "a ratio"))
    }
    if left.hasPrefix("counter.") { return .counter(name: try counterName(left, v, role: "a counter")) }
    // The longest latency name that the expression starts with, so a statistic may hold a dot
    // (`p99.9`).
    let name = v.latencies.filter { left.hasPrefix($0 + ".") }.max { $0.count < $1.count }
    guard let name else {
      guard let dot = left.lastIndex(of: ".") else {
        throw ThresholdParseError(
          "expected LATENCY.STAT, counter.NAME, counter.NAME/s, counter.A / counter.B or invariants.violations, "
            + "got '\(left)'")
      }
      // The name is what comes before the statistic (which may hold a dot), else before the last dot.
      let statStart = left.indices.first {
        left[$0] == "." && Statistic.parse(String(left[left.index(after: $0)...])) != nil
      }
      let guess = String(left[..<(statStart ?? dot)])
      throw ThresholdParseError("unknown latency '\(guess)'" + suggestion(guess, v.latencies))
    }
    let statText = String(left.dropFirst(name.count + 1))
    guard let stat = Statistic.parse(statText) else {
      throw ThresholdParseError("unknown statistic '\(statText)' (expected \(Statistic.spellings))")
    }
    return .latency(name: name, statistic: stat)
  }

  /// The counter `text` names (`counter.NAME`), known to `v`.
  static func counterName(_ text: String, _ v: ThresholdVocabulary, role: String) throws(ThresholdParseError)
    -> String
  {
    guard text.hasPrefix("counter.") else {
      throw ThresholdParseError("expected counter.NAME in \(role), got '\(text)'")
    }
    let name = String(text.dropFirst("counter.".count))
    guard v.counters.contains(name) else {
      throw ThresholdParseError("unknown counter '\(name)'" + suggestion(name, v.counters))
    }
    return name
  }

  static func suggestion(_ name: String, _ known: [String]) -> String {
    if let close = KeySuggestion.closest(to: name, among: known) { return " (did you mean '\(close)'?)" }
    return " (known: \(known.sorted().joined(separator: ", ")))"
  }

  /// Milliseconds of `text` such as `3s`, `250ms`, `1.5m`, `800us`, `20ns`.
  public static func parseTime(_ text: String) -> Double? {
    let units: [(String, Double)] = [("ns", 1e-6), ("us", 1e-3), ("ms", 1), ("s", 1e3), ("m", 60e3)]
    for (unit, scale) in units where text.hasSuffix(unit) {
      let number = text.dropLast(unit.count)
      // "ms" also ends in "s"; require the whole prefix to be a number.
      guard let v = Double(number), v.isFinite, v >= 0, !number.hasPrefix("+") else { continue }
      return v * scale
    }
    return nil
  }
}

/// Why a threshold expression was refused.
public struct ThresholdParseError: Error, Sendable, Equatable {
  /// One line.
  public let message: String
  /// Creates an error saying `message`.
  public init(_ message: String) { self.message = message }
}
