import Metrics
import Scenario

extension RunReport {
  /// The value `threshold` measures in this report: milliseconds for latency times, a plain number
  /// otherwise; `nil` for a latency statistic of a metric without samples.
  public func value(of threshold: Threshold) -> Double? {
    switch threshold.subject {
    case .latency(let name, let statistic):
      guard let l = latencies[name] else { return nil }
      switch statistic {
      case .count: return Double(l.count)
      case .mean: return l.meanMs
      case .p50: return l.p50Ms
      case .p90: return l.p90Ms
      case .p99: return l.p99Ms
      case .p999: return l.p999Ms
      case .max: return l.maxMs
      }
    case .counter(let name):
      return Double(counters[name] ?? 0)
    case .violations(let id):
      return Double(invariants.filter { id == nil || $0.id == id }.reduce(0) { $0 + $1.violations })
    }
  }

  /// Evaluates `thresholds` into ``thresholds`` and settles the verdict: `fail` if an invariant
  /// was violated, else `incomplete` if the run did not reach its end, else `fail` if a threshold
  /// failed, else `pass`.
  public mutating func evaluate(_ thresholds: [Threshold]) {
    self.thresholds = thresholds.map { t in
      let v = value(of: t)
      var unit: String?
      if case .latency(_, let statistic) = t.subject, statistic.isTime { unit = "ms" }
      return ThresholdResult(expression: t.expression, value: v, passed: t.passes(v), unit: unit)
    }
    if violationCount > 0 {
      verdict = "fail"
    } else if !reachedEnd {
      verdict = "incomplete"
    } else {
      verdict = self.thresholds.allSatisfy(\.passed) ? "pass" : "fail"
    }
    notJudged = reachedEnd ? nil : invariants.filter { $0.kind == "liveness" && $0.off != true }.map(\.id)
  }

  /// Invariant violations of every kind.
  public var violationCount: Int { invariants.reduce(0) { $0 + $1.violations } }

  /// Thresholds that failed.
  public var failedThresholds: [ThresholdResult] { thresholds.filter { !$0.passed } }
}
