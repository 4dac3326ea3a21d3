import Foundation

/// `stampede capacity`: one profile parameter swept over a list of values, each value run over a
/// range of seeds, to find how far the system can be pushed while every threshold still holds.
public struct CapacityStudy: Codable, Sendable {
  /// Creates a study.
  public init(
    profile: RunReport.ProfileInfo, key: String, seeds: SweepSummary.SeedSpan, thresholds: [String], points: [Point],
    knee: String?, nonMonotone: Bool
  ) {
    self.profile = profile
    self.key = key
    self.seeds = seeds
    self.thresholds = thresholds
    self.points = points
    self.knee = knee
    self.nonMonotone = nonMonotone
  }

  /// The profile.
  public var profile: RunReport.ProfileInfo
  /// The key path varied.
  public var key: String
  /// Seeds run per value.
  public var seeds: SweepSummary.SeedSpan
  /// The thresholds every seed had to meet.
  public var thresholds: [String]
  /// One entry per value, in the order given.
  public var points: [Point]
  /// The largest value, in the order given, up to which every value met every threshold on every
  /// seed (`nil` if even the first did not).
  public var knee: String?
  /// Set when a value past the knee passed again: the order given may not be one of rising load.
  public var nonMonotone: Bool
  /// Whether the values rise in capacity (they fail first, then pass), so the knee is the
  /// smallest value that passes rather than the largest.
  public var kneeIsSmallest = false
  /// The resource that saturates at the knee (`server.seats`, `room.reviewers`, …): the busiest
  /// one on the failing side of it.
  public var bottleneck: String?
  /// Per latency with a p99 threshold (`… .p99 < X`): X in milliseconds, drawn on its chart.
  public var p99LimitsMs: [String: Double] = [:]

  /// Results for one value.
  public struct Point: Codable, Sendable {
    /// The value, as given.
    public var value: String
    /// Seeds run.
    public var seeds: Int
    /// Seeds that passed (no violation, every threshold met).
    public var passed: Int
    /// `passed / seeds`, with its 95% Wilson interval.
    public var attainment: Interval
    /// Per latency: the 99th percentile over all seeds' samples, and the mean of the seeds' own
    /// 99th percentiles with its 95% interval.
    public var latencies: [String: LatencyPoint]
    /// Share of seat attempts refused for lack of a seat (-2340 or 100205), mean over seeds with
    /// its 95% interval.
    public var seatRejection: Interval
    /// Whether every seed passed.
    public var meetsAll: Bool
    /// Per resource: its utilisation (0–1), the mean over the seeds with its 95% interval.
    public var utilisation: [String: Interval] = [:]
    /// The resource with the highest utilisation at this value: the first to saturate.
    public var busiest: String?
    /// The thresholds that failed on at least one seed.
    public var failedThresholds: [String] = []

    /// Creates a point.
    public init(
      value: String, seeds: Int, passed: Int, attainment: Interval, latencies: [String: LatencyPoint],
      seatRejection: Interval, meetsAll: Bool
    ) {
      self.value = value
      self.seeds = seeds
      self.passed = passed
      self.attainment = attainment
      self.latencies = latencies
      self.seatRejection = seatRejection
      self.meetsAll = meetsAll
    }
  }

  /// A latency at one value.
  public struct LatencyPoint: Codable, Sendable {
    /// p50 over all seeds' samples, in ms.
    public var p50Ms: Double?
    /// p99 over all seeds' samples, in ms.
    public var p99Ms: Double?
    /// Mean of per-seed p99s with its interval, in ms.
    public var seedP99Ms: Interval?

    /// Creates a latency point.
    public init(p50Ms: Double?, p99Ms: Double?, seedP99Ms: Interval?) {
      self.p50Ms = p50Ms
      self.p99Ms = p99Ms
      self.seedP99Ms = seedP99Ms
    }
  }

  /// An estimate with a 95% interval.
  public struct Interval: Codable, Sendable, Equatable {
    /// The estimate.
    public var value: Double
    /// Lower end.
    public var low: Double
    /// Upper end.
    public var high: Double

    /// Creates an interval.
    public init(value: Double, low: Double, high: Double) {
      self.value = value
      self.low = low
      self.high = high
    }
  }
}

extension CapacityStudy.Interval {
  /// The 95% Wilson score interval of `successes` out of `n` (good also at 0% and 100%).
  public static func wilson(successes: Int, of n: Int) -> Self {
    guard n > 0 else { return .init(value: 0, low: 0, high: 1) }
    let z = 1.959964
    let p = Double(successes) / Double(n)
    let nn = Double(n)
    let centre = (p + z * z / (2 * nn)) / (1 + z * z / nn)
    let half = z / (1 + z * z / nn) * (p * (1 - p) / nn + z * z / (4 * nn * nn)).squareRoot()
    // At 0% and 100% the bound on that side is exactly 0 or 1 (the formula gives it up to rounding).
    return .init(
      value: p, low: successes == 0 ? 0 : max(0, centre - half), high: successes == n ? 1 : min(1, centre + half))
  }

  /// The mean of `xs` with a 95% interval from Student's t (normal beyond 30 samples).
  public static func mean(_ xs: [Double]) -> Self {
    guard !xs.isEmpty else { return .init(value: 0, low: 0, high: 0) }
    let n = Double(xs.count)
    let m = xs.reduce(0, +) / n
    guard xs.count > 1 else { return .init(value: m, low: m, high: m) }
    let variance = xs.reduce(0) { $0 + ($1 - m) * ($1 - m) } / (n - 1)
    let t: [Double] = [
      12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
      2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045,
    ]
    let q = xs.count - 1 <= t.count ? t[xs.count - 2] : 1.96
    let half = q * (variance / n).squareRoot()
    return .init(value: m, low: m - half, high: m + half)
  }
}

extension CapacityStudy.Point {
  /// The busiest resource and its utilisation, as a table shows it (`room.reviewers 97%`).
  public var busiestText: String {
    guard let busiest, let u = utilisation[busiest] else { return "–" }
    return "\(busiest) \(Int((u.value * 100).rounded()))%"
  }
}
