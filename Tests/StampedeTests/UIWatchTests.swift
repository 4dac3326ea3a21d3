import Testing

@testable import Oracles
@testable import Profiles
@testable import Scenario
@testable import SimKernel

/// The set of UIs due for a check: one bit per user, and one bit per word of those bits, so that
/// a round visits only the words with a user due.
@Suite struct UIWatchTests {
  /// Random watches, touches, checks at peace and unwatches against a plain set: each round lists
  /// exactly the users due, in ID order, the count agrees, and a word is marked exactly when it
  /// has a user due.
  @Test func aRoundListsExactlyTheUsersDueInIDOrder() {
    let users = 20_000
    var watch = UIWatch(users: users)
    var expected = Set<UInt32>()
    var watched = Set<UInt32>()
    var random = SplitMix64(seed: 11)
    var problems: [String] = []
    for step in 0..<40_000 {
      // Users cluster in a few ranges, as the active rooms of a run do, so words fill and empty.
      let base = UInt32(random.next(below: 4)) * 5_000
      let user = base + UInt32(random.next(below: random.next(below: 2) == 0 ? 300 : 5_000))
      switch random.next(below: 4) {
      case 0:
        watch.watch(user, until: SimInstant(nanoseconds: 1_000))
        watched.insert(user)
        expected.insert(user)
      case 1:
        watch.touch(user, now: SimInstant(nanoseconds: 1_000))
        watched.insert(user)
        expected.insert(user)
      case 2:
        // A check finds a due user at peace (only due users are checked).
        if expected.contains(user) {
          watch.atPeace(user)
          expected.remove(user)
        }
      default:
        if watched.contains(user) {
          watch.unwatch(user)
          watched.remove(user)
          expected.remove(user)
        }
      }
      if step % 1_000 == 999 {
        var listed: [UInt32] = []
        watch.appendDue(to: &listed)
        if listed != expected.sorted() {
          problems.append("step \(step): \(listed.count) listed, \(expected.count) due")
        }
        if watch.count != expected.count { problems.append("step \(step): count \(watch.count)") }
        // The due flag in the watch record agrees with the bit set, and the end time is kept
        // under it.
        for u in watched where watch.isDue(u) != expected.contains(u) || watch.end(of: u) != 1_000 {
          problems.append("step \(step): user \(u) flagged \(watch.isDue(u)), ends \(watch.end(of: u))")
        }
        for w in 0..<watch.bits.count {
          let marked = watch.words[w >> 6] & (1 << UInt64(w & 63)) != 0
          if marked != (watch.bits[w] != 0) { problems.append("step \(step): word \(w) marked \(marked)") }
        }
      }
    }
    #expect(problems.count == 0, "first problems: \(problems.prefix(5))")
  }

  @Test func usersBeyondTheSizeGivenUpFrontGrowTheTables() {
    var watch = UIWatch(users: 10)
    watch.watch(70_000, until: SimInstant(nanoseconds: 5))
    watch.touch(3, now: SimInstant(nanoseconds: 5))
    var listed: [UInt32] = []
    watch.appendDue(to: &listed)
    #expect(listed == [3, 70_000])
    watch.unwatch(70_000)
    listed.removeAll()
    watch.appendDue(to: &listed)
    #expect(listed == [3] && watch.count == 1)
  }
}
