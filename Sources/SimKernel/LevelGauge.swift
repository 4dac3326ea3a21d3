/// A whole-number level that changes in steps over simulated time (a queue's length, busy
/// workers): the time spent at each level, from which its time-weighted mean and quantiles follow.
public struct LevelGauge: Sendable {
  /// The level now.
  public private(set) var level = 0
  /// The highest level reached.
  public private(set) var peak = 0
  /// When the level last changed (nanoseconds).
  var sinceNs: Int64 = 0
  /// Nanoseconds spent at each level (grown as higher levels are reached).
  var timeAt: [Int64] = [0]
  /// Every change as (time, new level), when the gauge keeps them (``keepingChanges()``): the
  /// sum of several gauges is exact only from their steps, not from their time-per-level tables.
  public private(set) var changes: [(atNs: Int64, level: Int)]?

  /// A gauge at level zero from time zero.
  public init() {}

  /// A gauge at level zero from time zero that also keeps its changes, so that it can be summed
  /// with others (``sum(_:)``).
  public static func keepingChanges() -> LevelGauge {
    var g = LevelGauge()
    g.changes = []
    return g
  }

  /// The gauge whose level at every instant is the sum of `parts`' levels then, each of which
  /// must keep its changes: their steps merged in time order (ties in the order of `parts`).
  /// Levels passed through within one instant take no time, so the time at each level, the mean
  /// and the quantiles are those of the gauge that had seen all the steps itself.
  public static func sum(_ parts: [LevelGauge]) -> LevelGauge {
    var steps: [(atNs: Int64, part: Int, delta: Int)] = []
    for (k, part) in parts.enumerated() {
      precondition(part.changes != nil, "only gauges that keep their changes can be summed")
      var previous = 0
      for c in part.changes! {
        steps.append((c.atNs, k, c.level - previous))
        previous = c.level
      }
    }
    // A stable sort keeps each part's own steps in order.
    let ordered = steps.enumerated().sorted { a, b in
      a.element.atNs != b.element.atNs ? a.element.atNs < b.element.atNs : a.offset < b.offset
    }
    var total = LevelGauge.keepingChanges()
    for step in ordered { total.add(step.element.delta, at: step.element.atNs) }
    return total
  }

  /// The level becomes `newLevel` at `nowNs` (never before the last change).
  public mutating func set(_ newLevel: Int, at nowNs: Int64) {
    precondition(newLevel >= 0, "a level is never negative")
    // The same level goes on: its time accrues when it next changes (or at the end), the same sum.
    if newLevel == level { return }
    changes?.append((nowNs, newLevel))
    timeAt[level] &+= max(0, nowNs - sinceNs)
    sinceNs = max(sinceNs, nowNs)
    level = newLevel
    if newLevel > peak {
      peak = newLevel
      timeAt.grow(toInclude: newLevel, filling: 0)
    }
  }

  /// The level moves by `delta` at `nowNs`.
  public mutating func add(_ delta: Int, at nowNs: Int64) { set(level + delta, at: nowNs) }

  /// Time at each level up to `endNs` (the level now held until then).
  func times(untilNs endNs: Int64) -> [Int64] {
    var t = timeAt
    t[level] &+= max(0, endNs - sinceNs)
    return t
  }

  /// The time-weighted mean level over `[0, endNs)`.
  public func mean(untilNs endNs: Int64) -> Double {
    guard endNs > 0 else { return Double(level) }
    var sum = 0.0
    for (l, t) in times(untilNs: endNs).enumerated() where t > 0 { sum += Double(l) * Double(t) }
    return sum / Double(endNs)
  }

  /// The smallest level at or below which the gauge spent at least the share `q` of `[0, endNs)`.
  public func quantile(_ q: Double, untilNs endNs: Int64) -> Int {
    let t = times(untilNs: endNs)
    let total = t.reduce(0, &+)
    guard total > 0 else { return level }
    let want = q * Double(total)
    var cumulative = 0.0
    for (l, spent) in t.enumerated() {
      cumulative += Double(spent)
      if cumulative >= want { return l }
    }
    return t.count - 1
  }

  /// The share of `[0, endNs)` the level was at least 1, over `capacity` (0 when none): for a
  /// count of busy servers, their utilisation.
  public func utilisation(capacity: Int, untilNs endNs: Int64) -> Double {
    guard capacity > 0, endNs > 0 else { return 0 }
    return min(1, mean(untilNs: endNs) / Double(capacity))
  }
}
