/// Gauges sampled at a fixed simulated interval: one row per sample, one column per name.
///
/// Memory grows with the number of samples (run length / interval), never with the population.
public struct TimeSeries: Equatable, Sendable {
  /// Sampling interval in nanoseconds of simulated time.
  public let intervalNs: Int64
  /// Column names.
  public let names: [String]
  /// Sample times in nanoseconds.
  public private(set) var times: [Int64] = []
  /// Values, row-major: `values[row * names.count + column]`.
  public private(set) var values: [Int64] = []

  /// The columns sampled as running totals and read (``column(_:)``) as the rate per second since
  /// the previous sample, rounded (0 for a sample at time zero).
  public let rates: Set<String>

  /// An empty series of `names`, sampled every `intervalNs`; those in `rates` are running totals
  /// read as rates.
  public init(intervalNs: Int64, names: [String], rates: Set<String> = []) {
    precondition(intervalNs > 0, "the sampling interval must be positive")
    self.intervalNs = intervalNs
    self.names = names
    self.rates = rates
  }

  /// Number of samples taken.
  public var count: Int { times.count }

  /// Appends one sample; `row` must have one value per name.
  public mutating func append(atNs time: Int64, _ row: [Int64]) {
    precondition(row.count == names.count, "a sample needs \(names.count) values, got \(row.count)")
    precondition(times.last.map { $0 < time } ?? true, "samples must move forward in time")
    times.append(time)
    values.append(contentsOf: row)
  }

  /// The column called `name`, if any.
  public func column(_ name: String) -> [Int64]? {
    guard let c = names.firstIndex(of: name) else { return nil }
    let raw = (0..<count).map { values[$0 * names.count + c] }
    guard rates.contains(name) else { return raw }
    return raw.indices.map { i in
      let sinceNs = times[i] - (i > 0 ? times[i - 1] : 0)
      let since = raw[i] - (i > 0 ? raw[i - 1] : 0)
      return sinceNs > 0 ? Int64((Double(since) * 1e9 / Double(sinceNs)).rounded()) : 0
    }
  }
}

extension TimeSeries {
  /// The first `count` samples.
  public func prefix(_ count: Int) -> TimeSeries {
    var s = self
    s.times = Array(times.prefix(count))
    s.values = Array(values.prefix(count * names.count))
    return s
  }

  /// Adds `other`'s samples, taken at the same instants, column by column (another room shard's
  /// of the same run: every gauge, running totals included, is a sum over rooms).
  public mutating func add(_ other: TimeSeries) {
    precondition(other.times == times && other.names == names, "room shards sample at the same instants")
    for i in values.indices { values[i] &+= other.values[i] }
  }

}
