import Metrics

/// `coverage` in report.json and summary.json: what the clients' code was tested against. For
/// every SDK call made, the outcomes seen and those the call can get that were never seen; for
/// every role, the events its handlers heard.
public struct CoverageReport: Codable, Sendable, Equatable {
  /// One SDK call.
  public struct Call: Codable, Sendable, Equatable {
    /// The call (`applyForSeat`).
    public var call: String
    /// How often each outcome was seen, by name (`ok`, `no answer (-1), carried out`,
    /// `alreadyInQueue (100202)`).
    public var outcomes: [String: UInt64]
    /// The outcomes the call can get that were never seen: what the code was never tested
    /// against.
    public var neverSeen: [String]
  }

  /// The calls made, those with the most outcomes never seen first.
  public var calls: [Call]
  /// Per role (`audience`, `owner`, `admin`, `phone`): how many of each event its handlers heard
  /// (events never heard are left out).
  public var events: [String: [String: UInt64]]

  /// The report of `coverage`.
  public init(_ coverage: OutcomeCoverage) {
    calls = coverage.table.map { row in
      Call(
        call: "\(row.call)",
        outcomes: Dictionary(uniqueKeysWithValues: row.seen.map { ($0.0.name, $0.1) }),
        neverSeen: row.neverSeen.map(\.name))
    }
    var events: [String: [String: UInt64]] = [:]
    for role in OutcomeCoverage.roles {
      var heard: [String: UInt64] = [:]
      for name in OutcomeCoverage.eventNames {
        let n = coverage.heardCount(role: role, name)
        if n > 0 { heard[name] = n }
      }
      if !heard.isEmpty { events[role] = heard }
    }
    self.events = events
  }

  /// Adds another seed's coverage: counts add up, and an outcome is never seen only if it was
  /// never seen in either.
  public mutating func merge(_ other: CoverageReport) {
    var byCall = Dictionary(uniqueKeysWithValues: calls.map { ($0.call, $0) })
    for c in other.calls {
      guard var mine = byCall[c.call] else {
        byCall[c.call] = c
        continue
      }
      for (name, n) in c.outcomes { mine.outcomes[name, default: 0] += n }
      mine.neverSeen = mine.neverSeen.filter { c.neverSeen.contains($0) && mine.outcomes[$0] == nil }
      byCall[c.call] = mine
    }
    calls = byCall.values.sorted {
      $0.neverSeen.count != $1.neverSeen.count ? $0.neverSeen.count > $1.neverSeen.count : $0.call < $1.call
    }
    for (role, heard) in other.events {
      for (name, n) in heard { events[role, default: [:]][name, default: 0] += n }
    }
  }

  /// How many outcomes, over all calls made, were never seen.
  public var gaps: Int { calls.reduce(0) { $0 + $1.neverSeen.count } }

  /// How much was reached: the outcomes seen, over all calls, and the events heard, over all roles.
  public var reached: Int { calls.reduce(0) { $0 + $1.outcomes.count } + events.values.reduce(0) { $0 + $1.count } }
}
