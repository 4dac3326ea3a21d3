/// Exact named counters stored densely: a world registers its names once and counts by index.
public struct Counters: Equatable, Sendable {
  /// Counter names, index-aligned with `values`.
  public private(set) var names: [String] = []
  /// Counter values.
  public private(set) var values: [UInt64] = []

  /// An empty set of counters.
  public init() {}

  /// Registers `name` (or finds it) and returns its index.
  public mutating func register(_ name: String) -> Int {
    if let i = names.firstIndex(of: name) { return i }
    names.append(name)
    values.append(0)
    return names.count - 1
  }

  /// Adds `amount` to counter `index`.
  public mutating func add(_ index: Int, _ amount: UInt64 = 1) { values[index] &+= amount }

  /// Sets the counter at `index` to `value`.
  public mutating func set(_ index: Int, _ value: UInt64) { values[index] = value }

  /// The value of counter `name`, or `nil` if it was never registered.
  public func value(_ name: String) -> UInt64? { names.firstIndex(of: name).map { values[$0] } }

  /// The counters as a name-sorted list.
  public var sorted: [(name: String, value: UInt64)] {
    zip(names, values).map { ($0, $1) }.sorted { $0.name < $1.name }
  }
}
