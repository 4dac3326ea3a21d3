/// Latency percentiles and counter rates per sampling interval: how the seat, call and push
/// latencies and the rates of applications, calls and pushes moved over the run, where the
/// histograms and counters give only the whole run's totals.
///
/// Each sample takes what was recorded since the previous one (the difference of the histograms'
/// buckets and of the counters), so memory grows with the number of samples, never with the
/// population. It only reads the metrics: sampling never changes a run.
public struct IntervalSeries: Sendable, Equatable {
  /// The latencies tracked, as indices into ``LiveMetrics/latencies``.
  public static let latencyIndices = [
    LiveMetrics.applyToResponse, LiveMetrics.dialToConnected, LiveMetrics.pushSendToDelivery,
  ]
  /// The counters whose rates are tracked.
  public static let counterNames = [
    "seat.applications", "seat.accepted", "seat.rejected.seat_limit", "seat.timed_out", "call.placed", "push.sent",
    "push.dropped",
  ]

  /// Sample times in nanoseconds.
  public private(set) var times: [Int64] = []
  /// Per tracked latency, the median of each interval in nanoseconds (`-1` for an interval
  /// without samples).
  public private(set) var p50: [[Int64]]
  /// Per tracked latency, the 99th percentile of each interval (`-1` without samples).
  public private(set) var p99: [[Int64]]
  /// Per tracked counter, its increase over each interval.
  public private(set) var increases: [[UInt64]]

  var previousBuckets: [[UInt64]]
  var previousCounters: [UInt64]
  var counterIndices: [Int]

  /// An empty series over `metrics`' counters.
  public init(_ metrics: LiveMetrics) {
    p50 = Self.latencyIndices.map { _ in [] }
    p99 = Self.latencyIndices.map { _ in [] }
    increases = Self.counterNames.map { _ in [] }
    previousBuckets = Self.latencyIndices.map { _ in [UInt64](repeating: 0, count: Histogram.bucketCount) }
    counterIndices = Self.counterNames.map { name in metrics.counters.names.firstIndex(of: name) ?? -1 }
    previousCounters = counterIndices.map { _ in 0 }
  }

  /// The latency names tracked, in order.
  public static var latencyNames: [String] { latencyIndices.map { LiveMetrics.latencyNames[$0] } }

  /// Closes the interval ending at `atNs`.
  public mutating func sample(_ metrics: LiveMetrics, atNs: Int64) {
    times.append(atNs)
    for (k, index) in Self.latencyIndices.enumerated() {
      let h = metrics.latencies[index]
      // Only the buckets between the smallest and the largest value ever recorded can hold counts.
      let range = h.count == 0 ? 0..<0 : Histogram.bucketIndex(h.min)..<(Histogram.bucketIndex(h.max) + 1)
      var total: UInt64 = 0
      for i in range { total += h.counts[i] - previousBuckets[k][i] }
      p50[k].append(Self.quantile(h.counts, minus: previousBuckets[k], range: range, total: total, parts: 50, per: 100))
      p99[k].append(Self.quantile(h.counts, minus: previousBuckets[k], range: range, total: total, parts: 99, per: 100))
      if total > 0 { for i in range { previousBuckets[k][i] = h.counts[i] } }
    }
    for (k, index) in counterIndices.enumerated() {
      let now = index >= 0 ? metrics.counters.values[index] : 0
      increases[k].append(now - previousCounters[k])
      previousCounters[k] = now
    }
  }

  /// The bucket midpoint at rank ⌈parts·total/per⌉ of `counts - previous` over `range` (outside
  /// it both are 0), `-1` when `total` is 0.
  static func quantile(
    _ counts: [UInt64], minus previous: [UInt64], range: Range<Int>, total: UInt64, parts: UInt64, per: UInt64
  ) -> Int64 {
    guard total > 0 else { return -1 }
    let rank = max(1, (total * parts + per - 1) / per)
    var seen: UInt64 = 0
    for i in range {
      seen += counts[i] - previous[i]
      if seen >= rank { return Int64(Histogram.bucketLowerBound(i) + Histogram.bucketWidth(i) / 2) }
    }
    return -1
  }
}
