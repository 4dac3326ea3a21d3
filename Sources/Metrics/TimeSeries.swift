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

  /// An empty series of `names`, sampled every `intervalNs`.
  public init(intervalNs: Int64, names: [String]) {
    precondition(intervalNs > 0, "the sampling interval must be positive")
    self.intervalNs = intervalNs
    self.names = names
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
    return (0..<count).map { values[$0 * names.count + c] }
  }
}
