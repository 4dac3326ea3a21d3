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

  /// Per tracked latency and interval, the histogram's buckets that grew over the interval and by
  /// how much, when the series keeps them (``keepingHistograms(_:)``): percentiles do not add, so
  /// the room shards of one run hand these over and the percentiles are taken after the merge.
  public private(set) var deltas: [[[Growth]]]?

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
      if deltas != nil {
        var grew: [Growth] = []
        for i in range where h.counts[i] != previousBuckets[k][i] {
          grew.append(Growth(bucket: Int32(i), count: h.counts[i] - previousBuckets[k][i]))
        }
        deltas![k].append(grew)
      }
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

  /// How much one histogram bucket grew over one interval.
  public struct Growth: Sendable, Equatable {
    /// The bucket's index.
    public var bucket: Int32
    /// What it gained.
    public var count: UInt64
  }

  /// The first `count` intervals.
  public func prefix(_ count: Int) -> IntervalSeries {
    var s = self
    s.times = Array(times.prefix(count))
    s.p50 = p50.map { Array($0.prefix(count)) }
    s.p99 = p99.map { Array($0.prefix(count)) }
    s.increases = increases.map { Array($0.prefix(count)) }
    s.deltas = deltas?.map { Array($0.prefix(count)) }
    return s
  }

  /// An empty series over `metrics`' counters that keeps each interval's histogram growth, so that
  /// it can be merged with the series of the run's other room shards (``merged(_:)``).
  public static func keepingHistograms(_ metrics: LiveMetrics) -> IntervalSeries {
    var series = IntervalSeries(metrics)
    series.deltas = latencyIndices.map { _ in [] }
    return series
  }

  /// The series of the whole run from its room shards' series, each sampled at the same instants
  /// and keeping its histograms: rates add, and each interval's percentiles are taken from the
  /// sum of the shards' histogram growth, as the run's own histogram would give them.
  public static func merged(_ parts: [IntervalSeries]) -> IntervalSeries {
    var out = parts[0]
    for part in parts.dropFirst() {
      precondition(part.times == out.times, "room shards sample at the same instants")
      for k in out.increases.indices {
        for j in out.increases[k].indices { out.increases[k][j] &+= part.increases[k][j] }
      }
    }
    for k in latencyIndices.indices {
      for j in out.times.indices {
        var grew: [Int32: UInt64] = [:]
        for part in parts {
          for d in part.deltas![k][j] { grew[d.bucket, default: 0] &+= d.count }
        }
        let sorted = grew.sorted { $0.key < $1.key }
        let total = sorted.reduce(0) { $0 &+ $1.value }
        out.p50[k][j] = sparseQuantile(sorted, total: total, parts: 50, per: 100)
        out.p99[k][j] = sparseQuantile(sorted, total: total, parts: 99, per: 100)
        out.deltas![k][j] = sorted.map { Growth(bucket: $0.key, count: $0.value) }
      }
    }
    return out
  }

  /// ``quantile(_:minus:range:total:parts:per:)`` over buckets given as (index, count) in index
  /// order.
  static func sparseQuantile(_ buckets: [(key: Int32, value: UInt64)], total: UInt64, parts: UInt64, per: UInt64)
    -> Int64
  {
    guard total > 0 else { return -1 }
    let rank = max(1, (total * parts + per - 1) / per)
    var seen: UInt64 = 0
    for (i, n) in buckets {
      seen += n
      if seen >= rank { return Int64(Histogram.bucketLowerBound(Int(i)) + Histogram.bucketWidth(Int(i)) / 2) }
    }
    return -1
  }
}
