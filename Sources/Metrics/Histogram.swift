import SimKernel

/// A log-linear (HDR-style) histogram of non-negative values, in nanoseconds for latencies.
///
/// Values below 128 have a bucket each. Above, every power of two is split into 64 equal buckets, so
/// a bucket is at most 1/64 of its lower bound wide and reporting its midpoint is within 0.79% of
/// any value in it. Memory is fixed (3,776 counters) whatever the run length, and merging adds
/// counters: exact and independent of order.
public struct Histogram: Equatable, Sendable {
  /// Bits of sub-bucket resolution per power of two.
  public static let subBucketBits = 6
  /// How many buckets exist.
  public static let bucketCount = 128 + (63 - 6) * 64
  /// The name of the bucket scheme, written beside serialized buckets.
  public static let scheme = "log-linear: exact below 128, then 64 buckets per power of two"

  /// Count per bucket.
  public private(set) var counts: [UInt64]
  /// Number of recorded values.
  public private(set) var count: UInt64 = 0
  /// Sum of recorded values (wrapping never happens below 584 years of total latency).
  public private(set) var sum: UInt64 = 0
  /// Smallest recorded value, exact.
  public private(set) var min: UInt64 = .max
  /// Largest recorded value, exact.
  public private(set) var max: UInt64 = 0

  /// An empty histogram.
  public init() { counts = [UInt64](repeating: 0, count: Histogram.bucketCount) }

  /// The bucket that holds `value`.
  @inlinable
  public static func bucketIndex(_ value: UInt64) -> Int {
    if value < 128 { return Int(value) }
    let magnitude = 63 - value.leadingZeroBitCount  // ≥ 7
    let shift = magnitude - subBucketBits
    let sub = Int(value >> UInt64(shift)) - 64  // 0..<64
    return 128 + (magnitude - 7) * 64 + sub
  }

  /// The smallest value in bucket `index`.
  public static func bucketLowerBound(_ index: Int) -> UInt64 {
    if index < 128 { return UInt64(index) }
    let magnitude = (index - 128) / 64 + 7
    let sub = UInt64((index - 128) % 64 + 64)
    return sub << UInt64(magnitude - subBucketBits)
  }

  /// The number of values bucket `index` spans.
  public static func bucketWidth(_ index: Int) -> UInt64 {
    if index < 128 { return 1 }
    return 1 << UInt64((index - 128) / 64 + 7 - subBucketBits)
  }

  /// Records one value.
  public mutating func record(_ value: UInt64) {
    counts[Histogram.bucketIndex(value)] &+= 1
    count &+= 1
    sum &+= value
    if value < min { min = value }
    if value > max { max = value }
  }

  /// Records a duration (negative durations count as zero).
  public mutating func record(_ duration: SimDuration) {
    record(UInt64(Swift.max(0, duration.nanoseconds)))
  }

  /// Adds every value of `other` to this histogram.
  public mutating func merge(_ other: Histogram) {
    for i in 0..<counts.count where other.counts[i] != 0 { counts[i] &+= other.counts[i] }
    count &+= other.count
    sum &+= other.sum
    if other.count > 0 {
      min = Swift.min(min, other.min)
      max = Swift.max(max, other.max)
    }
  }

  /// The value at quantile `q` in `[0, 1]`: the midpoint of the bucket holding the ⌈q·count⌉-th
  /// smallest value, clamped to the exact minimum and maximum. `nil` when empty.
  public func quantile(_ q: Double) -> UInt64? {
    guard count > 0 else { return nil }
    if q >= 1 { return max }
    let rank = Swift.max(1, UInt64((q * Double(count)).rounded(.up)))
    var seen: UInt64 = 0
    for (index, c) in counts.enumerated() where c != 0 {
      seen += c
      if seen >= rank {
        let mid = Histogram.bucketLowerBound(index) + Histogram.bucketWidth(index) / 2
        return Swift.min(Swift.max(mid, min), max)
      }
    }
    return max
  }

  /// The value at the exact quantile `parts / per` (`999 / 1000`): as ``quantile(_:)`` with the
  /// rank ⌈parts·count / per⌉ computed in whole numbers. `nil` when empty.
  public func quantile(parts: UInt64, per: UInt64) -> UInt64? {
    guard count > 0 else { return nil }
    if parts >= per { return max }
    let product = count.multipliedFullWidth(by: parts)
    let (quotient, remainder) = per.dividingFullWidth(product)
    let rank = Swift.max(1, quotient + (remainder > 0 ? 1 : 0))
    var seen: UInt64 = 0
    for (index, c) in counts.enumerated() where c != 0 {
      seen += c
      if seen >= rank {
        let mid = Histogram.bucketLowerBound(index) + Histogram.bucketWidth(index) / 2
        return Swift.min(Swift.max(mid, min), max)
      }
    }
    return max
  }

  /// The mean of recorded values, or `nil` when empty.
  public var mean: Double? { count == 0 ? nil : Double(sum) / Double(count) }

  /// Non-empty buckets as `(index, count)` pairs in index order.
  public var nonEmptyBuckets: [(index: Int, count: UInt64)] {
    counts.enumerated().compactMap { $0.element == 0 ? nil : ($0.offset, $0.element) }
  }

  /// Rebuilds a histogram from serialized parts; `nil` if they are inconsistent.
  public init?(buckets: [(index: Int, count: UInt64)], sum: UInt64, min: UInt64, max: UInt64) {
    self.init()
    for (index, c) in buckets {
      guard index >= 0, index < Histogram.bucketCount else { return nil }
      counts[index] &+= c
      count &+= c
    }
    self.sum = sum
    if count > 0 {
      self.min = min
      self.max = max
    }
  }
}
