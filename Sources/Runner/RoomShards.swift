import Chaos
import Foundation
import LiveStack
import Profiles
import Scenario

/// One run split into room shards that run on several threads (docs/DESIGN.md, "One run on every
/// core").
///
/// A shard is the profile's run over a contiguous range of its rooms, written as the same profile
/// with `population.firstRoom` and `population.rooms` narrowed: every room and person keeps its
/// identity and so every random draw it makes. The shards are fixed by the profile (never by the
/// thread count), so the run's trace hash, the hash of the shards' hashes in shard order, is the
/// same for any number of threads; the figures merge exactly.
public enum RoomShards {
  /// The most shards a run is split into.
  public static let most = 16
  /// The fewest people a shard is given: each shard samples and checks on its own beat, events
  /// a small shard spends a good share of its time on.
  public static let fewestPeople = 2_000

  /// Why `profile` cannot be split into room shards (the rooms meet through something a shard
  /// cannot see), with the key to change; `nil` when it can. `app` says whether app code runs.
  public static func refusal(_ profile: Profile, app: Bool) -> String? {
    if app {
      return "app code runs on one virtual main thread for every user of the process (--app)"
    }
    if profile.calls != nil {
      return "calls ring phone users across rooms (calls: remove the section)"
    }
    let services = profile.server.named + [("messaging", profile.server.messaging)]
    for (name, s) in services where s.workers != nil || s.queueLimit != nil || s.perApp != nil {
      return
        "server.\(name) is one queue for every room (server.\(name).workers, queueLimit and ratePerApp couple the rooms)"
    }
    if profile.faults.swarm || (profile.network.ties.map { $0 != .fifo } ?? false) {
      return "the delivery order is drawn across all rooms (network.ties must be fifo, and faults not \"swarm\")"
    }
    if let depth = profile.network.pctDepth, depth != 0 {
      return "change points are drawn across all rooms (network.pct must be 0)"
    }
    for (i, entry) in profile.faults.entries.enumerated() {
      if case .fraction = entry.target {
        return
          "faults entry \(i + 1) (\(entry.kind.rawValue)) picks a fraction of users by their number in the whole run (target fraction:…)"
      }
    }
    if !profile.faults.steered.isEmpty {
      return "steered outcomes are counted across all rooms (explore sweeps steer them)"
    }
    return nil
  }

  /// The room ranges of the shards of a run over `layout`: at most ``most``, contiguous, each cut
  /// where the running count of people passes its share, so that they are of about the same size.
  /// With co-hosting (`pairs`), rooms 2k and 2k+1 co-host and so stay in one shard.
  public static func plan(_ layout: Layout, pairs: Bool) -> [Range<Int>] {
    let group = pairs ? 2 : 1
    let groups = (layout.rooms + group - 1) / group
    func people(_ r: Int) -> Int { layout.audience(of: UInt32(r)).count + layout.staffPerRoom }
    let total = (0..<layout.rooms).reduce(0) { $0 + people($1) }
    let count = max(1, min(most, groups, total / fewestPeople))
    var ranges: [Range<Int>] = []
    var start = 0
    var sum = 0
    var g = 0
    while g < groups {
      let lo = g * group
      let hi = min(layout.rooms, lo + group)
      sum += (lo..<hi).reduce(0) { $0 + people($1) }
      g += 1
      let left = count - ranges.count - 1
      // Cut once this shard's share is reached, or when each later shard needs one group.
      if left > 0 && (sum * count >= total * (ranges.count + 1) || groups - g == left) {
        ranges.append(start..<hi)
        start = hi
      }
    }
    ranges.append(start..<layout.rooms)
    return ranges.filter { !$0.isEmpty }
  }

  /// The profile of the shard of `rooms` (indices into `profile`'s rooms, laid out as `layout`):
  /// its rooms keep their identities, and fault targets that name rooms or users by number are
  /// renumbered to the shard's (a target with none of them in the shard targets nobody).
  public static func profile(_ profile: Profile, rooms: Range<Int>, layout: Layout) -> Profile {
    var p = profile
    p.population.firstRoom = profile.population.firstRoom + rooms.lowerBound
    p.population.rooms = rooms.count
    let users = Int(layout.roomBase[rooms.lowerBound])..<Int(layout.roomBase[rooms.upperBound])
    /// `range` as numbers from `first` on, within `count`.
    func local(_ range: ClosedRange<UInt32>, first: Int, count: Int) -> ClosedRange<UInt32> {
      let lo = max(Int(range.lowerBound), first) - first
      let hi = min(Int(range.upperBound), first + count - 1) - first
      return lo <= hi ? UInt32(lo)...UInt32(hi) : UInt32.max...UInt32.max
    }
    for i in p.faults.entries.indices {
      switch p.faults.entries[i].target {
      case .rooms(let r): p.faults.entries[i].target = .rooms(local(r, first: rooms.lowerBound, count: rooms.count))
      case .users(let r): p.faults.entries[i].target = .users(local(r, first: users.lowerBound, count: users.count))
      case .all, .role, .fraction: break
      }
    }
    return p
  }
}
