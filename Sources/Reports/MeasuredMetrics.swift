import Metrics

/// What a run, a sweep or a history entry measured, in the form thresholds, `compare` and
/// `history` read values from: latencies with their buckets, exact counters, the simulated time
/// the counters accrued over, and invariant violations.
public struct MeasuredMetrics: Sendable {
  /// Latency summaries by metric name.
  public var latencies: [String: LatencySummary]
  /// Exact counters by name.
  public var counters: [String: UInt64]
  /// Simulated seconds the counters accrued over (summed over seeds for a sweep).
  public var simulatedSeconds: Double
  /// Violations by invariant ID.
  public var violations: [String: Int]

  /// Creates a set of measurements.
  public init(
    latencies: [String: LatencySummary], counters: [String: UInt64], simulatedSeconds: Double,
    violations: [String: Int]
  ) {
    self.latencies = latencies
    self.counters = counters
    self.simulatedSeconds = simulatedSeconds
    self.violations = violations
  }

  /// The names a metric expression may use here.
  public var vocabulary: ThresholdVocabulary {
    ThresholdVocabulary(
      latencies: latencies.keys.sorted(), counters: counters.keys.sorted(), invariants: violations.keys.sorted())
  }

  /// The value `subject` measures: milliseconds for latency times, a fraction for ratios, a plain
  /// number otherwise (per simulated second for rates); `nil` for a latency statistic of a metric
  /// without samples and for a ratio whose denominator is 0.
  public func value(of subject: Threshold.Subject) -> Double? {
    switch subject {
    case .latency(let name, let statistic):
      guard let l = latencies[name] else { return nil }
      switch statistic {
      case .count: return Double(l.count)
      case .mean: return l.meanMs
      case .min: return l.minMs
      case .max: return l.maxMs
      // The summary's own columns where it has one, so the value is the one its table shows.
      case .p50: return l.p50Ms
      case .p90: return l.p90Ms
      case .p99: return l.p99Ms
      case .p999: return l.p999Ms
      case .percentile(let p):
        return l.histogram?.quantile(parts: p.parts, per: p.per).map(LatencySummary.ms)
      }
    case .counter(let name):
      return Double(counters[name] ?? 0)
    case .rate(let name):
      guard simulatedSeconds > 0 else { return nil }
      return Double(counters[name] ?? 0) / simulatedSeconds
    case .ratio(let numerator, let denominator):
      let bottom = counters[denominator] ?? 0
      guard bottom > 0 else { return nil }
      return Double(counters[numerator] ?? 0) / Double(bottom)
    case .violations(let id):
      return Double(violations.filter { id == nil || $0.key == id }.reduce(0) { $0 + $1.value })
    }
  }
}

extension RunReport {
  /// This run's measurements.
  public var measured: MeasuredMetrics {
    var v: [String: Int] = [:]
    for i in invariants { v[i.id, default: 0] += i.violations }
    return MeasuredMetrics(
      latencies: latencies, counters: counters, simulatedSeconds: simulatedSeconds, violations: v)
  }
}

extension SweepSummary {
  /// The sweep's measurements: merged buckets, summed counters over the seeds' summed simulated time.
  public var measured: MeasuredMetrics {
    var v: [String: Int] = [:]
    for i in invariants { v[i.id, default: 0] += i.violations }
    return MeasuredMetrics(
      latencies: latencies, counters: counters, simulatedSeconds: runs.reduce(0) { $0 + $1.simulatedSeconds },
      violations: v)
  }
}
