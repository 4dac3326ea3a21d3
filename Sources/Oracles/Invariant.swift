import SimKernel

/// Whether an invariant must hold at every event or eventually.
public enum InvariantKind: String, Sendable, Codable {
  /// Must hold at every event.
  case safety
  /// Must hold within a bound once faults have healed.
  case liveness
}

/// One checked property: a stable ID, its kind and a one-line description.
public struct Invariant: Sendable, Hashable {
  /// Stable ID, used in reports and profiles (`seat.single-occupancy`).
  public let id: String
  /// Safety or liveness.
  public let kind: InvariantKind
  /// One line saying what must hold.
  public let description: String
}

/// The first (or any) breach of an invariant, as data.
public struct Violation: Sendable, Equatable {
  /// The invariant's ID.
  public var id: String
  /// When it happened.
  public var at: SimInstant
  /// The entities involved (`room:3`, `user:17`, `request:120`).
  public var entities: [String]
  /// What was seen.
  public var message: String
}

/// Counts violations per invariant and keeps the first of each. A checker records findings here;
/// it never stops or changes the run.
public struct ViolationLog: Sendable {
  /// The invariants this log covers, in report order.
  public let catalogue: [Invariant]
  /// Violations per invariant, index-aligned with `catalogue`.
  public private(set) var counts: [Int]
  /// The first violation of each invariant.
  public private(set) var first: [Violation?]

  /// An empty log over `catalogue`.
  /// Whether each invariant is checked (a switched-off one records nothing).
  public private(set) var enabled: [Bool]

  public init(catalogue: [Invariant]) {
    self.catalogue = catalogue
    counts = [Int](repeating: 0, count: catalogue.count)
    first = [Violation?](repeating: nil, count: catalogue.count)
    enabled = [Bool](repeating: true, count: catalogue.count)
  }

  /// Switches off the invariants whose IDs are in `ids`. Checking never changes the run, so this
  /// changes only what is recorded.
  public mutating func switchOff(_ ids: Set<String>) {
    for (i, inv) in catalogue.enumerated() where ids.contains(inv.id) { enabled[i] = false }
  }

  /// All violations so far.
  public var total: Int { counts.reduce(0, +) }

  /// Records a breach of invariant `id`.
  public mutating func record(
    _ id: InvariantID, at: SimInstant, entities: @autoclosure () -> [String], _ message: @autoclosure () -> String
  ) {
    let index = id.rawValue
    guard enabled[index] else { return }
    counts[index] += 1
    if first[index] == nil {
      first[index] = Violation(id: catalogue[index].id, at: at, entities: entities(), message: message())
    }
  }

  /// Adds `other`'s violations (another room shard's of the same run, checked over the same
  /// catalogue): counts add, and the first of each invariant is the earlier (on a tie, this log's).
  public mutating func merge(_ other: ViolationLog) {
    precondition(other.catalogue.count == catalogue.count, "room shards check the same invariants")
    for i in counts.indices {
      counts[i] += other.counts[i]
      if let theirs = other.first[i], first[i].map({ theirs.at < $0.at }) ?? true { first[i] = theirs }
    }
  }

  /// The violations of invariant `id`.
  public func count(_ id: InvariantID) -> Int { counts[id.rawValue] }

  /// The first violation of invariant `id`, if any.
  public func first(_ id: InvariantID) -> Violation? { first[id.rawValue] }

  /// The count for invariant `id` (0 if unknown).
  public func count(_ id: String) -> Int {
    guard let i = catalogue.firstIndex(where: { $0.id == id }) else { return 0 }
    return counts[i]
  }
}
