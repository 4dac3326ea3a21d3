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
    /// Violations of every invariant (`nil`) or of one.
    case violations(invariant: String?)
  }

  /// Statistics of a latency metric.
  public enum Statistic: String, Sendable, CaseIterable {
    /// Number of samples (no unit).
    case count
    /// Mean.
    case mean
    /// Median.
    case p50
    /// 90th percentile.
    case p90
    /// 99th percentile.
    case p99
    /// 99.9th percentile.
    case p999
    /// Maximum.
    case max

    /// Whether values carry a time unit.
    public var isTime: Bool { self != .count }
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
  /// The bound: milliseconds for latency times, a plain number otherwise.
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
    if case .latency(_, let stat) = subject, stat.isTime {
      guard let d = parseTime(right) else {
        throw ThresholdParseError("expected a time with a unit (ns, us, ms, s, m) such as 3s or 250ms, got '\(right)'")
      }
      bound = d
    } else {
      guard let n = Double(right), n.isFinite, !right.hasPrefix("+") else {
        throw ThresholdParseError("expected a plain number (no unit) for \(left), got '\(right)'")
      }
      bound = n
    }
    return Threshold(expression: trimmed, subject: subject, comparison: op, bound: bound)
  }

  static func parseSubject(_ left: String, _ v: ThresholdVocabulary) throws(ThresholdParseError) -> Subject {
    if left == "invariants.violations" { return .violations(invariant: nil) }
    if left.hasPrefix("invariants.") {
      let id = String(left.dropFirst("invariants.".count))
      let name = id.hasSuffix(".violations") ? String(id.dropLast(".violations".count)) : id
      guard v.invariants.contains(name) else {
        throw ThresholdParseError("unknown invariant '\(name)'" + suggestion(name, v.invariants))
      }
      return .violations(invariant: name)
    }
    if left.hasPrefix("counter.") {
      let name = String(left.dropFirst("counter.".count))
      guard v.counters.contains(name) else {
        throw ThresholdParseError("unknown counter '\(name)'" + suggestion(name, v.counters))
      }
      return .counter(name: name)
    }
    guard let dot = left.lastIndex(of: ".") else {
      throw ThresholdParseError(
        "expected LATENCY.STAT, counter.NAME or invariants.violations, got '\(left)'")
    }
    let name = String(left[..<dot])
    let statText = String(left[left.index(after: dot)...])
    guard let stat = Statistic(rawValue: statText) else {
      let stats = Statistic.allCases.map(\.rawValue).joined(separator: ", ")
      throw ThresholdParseError("unknown statistic '\(statText)' (expected one of \(stats))")
    }
    guard v.latencies.contains(name) else {
      throw ThresholdParseError("unknown latency '\(name)'" + suggestion(name, v.latencies))
    }
    return .latency(name: name, statistic: stat)
  }

  static func suggestion(_ name: String, _ known: [String]) -> String {
    if let close = KeySuggestion.closest(to: name, among: known) { return " (did you mean '\(close)'?)" }
    return " (known: \(known.sorted().joined(separator: ", ")))"
  }

  /// Milliseconds of `text` such as `3s`, `250ms`, `1.5m`, `800us`, `20ns`.
  static func parseTime(_ text: String) -> Double? {
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
  init(_ message: String) { self.message = message }
}
