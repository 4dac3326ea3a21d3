import LiveStack
import SimKernel

// Exact merges of what the room shards of one run measured (docs/DESIGN.md, "One run on every
// core"): the rooms of different shards never meet, so the run's figures are the shards' added up.

extension Counters {
  /// Adds `other`'s counters, by name; names this one lacks are registered in `other`'s order.
  public mutating func merge(_ other: Counters) {
    for (name, value) in zip(other.names, other.values) { add(register(name), value) }
  }
}

extension LiveMetrics {
  /// Adds `other`'s counters, latencies and outcome coverage (another room shard's of the same
  /// run); a peak (`messaging.peak_room_per_second`, one room's busiest second) is the larger.
  public mutating func merge(_ other: LiveMetrics) {
    let peak = max(counters.values[messagingPeakRoomPerSecond], other.counters.values[other.messagingPeakRoomPerSecond])
    counters.merge(other.counters)
    counters.set(messagingPeakRoomPerSecond, peak)
    for i in latencies.indices { latencies[i].merge(other.latencies[i]) }
    coverage.merge(other.coverage)
  }
}

extension ReviewBook {
  /// The book of the whole run (`layout`, every room) from its shards' books, which must keep
  /// their gauges' changes: the reviewers' busy count and the applications waiting are the sums of
  /// the shards'.
  public static func merged(_ parts: [ReviewBook], layout: Layout) -> ReviewBook {
    var book = ReviewBook(layout: layout, atOnce: parts[0].atOnce)
    book.busy = LevelGauge.sum(parts.map(\.busy))
    book.waiting = LevelGauge.sum(parts.map(\.waiting))
    return book
  }

  /// Has the busy and waiting gauges keep their changes, so that the book can be merged.
  public mutating func keepChanges() {
    busy = .keepingChanges()
    waiting = .keepingChanges()
  }
}
