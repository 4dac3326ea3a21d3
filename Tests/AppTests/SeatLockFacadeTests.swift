import AtomicXCore
import Combine
import Foundation
import Reports
import StampedeCLI
import StampedeHarness
import Testing

@testable import Profiles
@testable import Runner

/// What the seat-lock apps saw, across the users of one run.
final class LockLog: @unchecked Sendable {
  nonisolated(unsafe) static var shared = LockLog()
  /// Seats each room's host locked or unlocked with success: (liveID, seat, locked).
  var answered: [(live: String, seat: Int, locked: Bool)] = []
  /// Every seat list a user's `LiveSeatStore` published: (liveID, user, host, locked seats).
  var seen: [(live: String, user: String, host: Bool, locked: Set<Int>)] = []
}

/// A screen that shows the seat list, with its lock icons, from `LiveSeatStore.state`.
final class SeatScreen {
  let store: LiveSeatStore
  var cancellables = Set<AnyCancellable>()

  init(liveID: String, userID: String, host: Bool) {
    store = LiveSeatStore.create(liveID: liveID)
    store.state
      .map(\.seatList)
      .receive(on: DispatchQueue.main)
      .sink { seats in
        let locked = Set(seats.filter(\.isLocked).map(\.index))
        LockLog.shared.seen.append((liveID, userID, host, locked))
      }
      .store(in: &cancellables)
  }

  func setLocked(_ seat: Int, _ locked: Bool, liveID: String) {
    let done: CompletionClosure = { result in
      if case .success = result { LockLog.shared.answered.append((liveID, seat, locked)) }
    }
    if locked {
      store.lockSeat(seatIndex: seat, completion: done)
    } else {
      store.unlockSeat(seatIndex: seat, completion: done)
    }
  }
}

/// `SeatInfo.isLocked` tells app code what the SDK's seat list would: a seat locked or unlocked
/// by a host reaches every member of the room through room messaging.
@Suite(.serialized) struct SeatLockFacadeTests {
  @Test func everyMembersSeatListShowsTheLocksItsHostsMade() throws {
    LockLog.shared = LockLog()
    var host = HostApp { context in (SeatScreen(liveID: context.liveID!, userID: context.userID, host: true), context) }
    host.lock = { o, seat in o.0.setLocked(seat, true, liveID: o.1.liveID!) }
    host.unlock = { o, seat in o.0.setLocked(seat, false, liveID: o.1.liveID!) }
    let audience = AudienceApp { SeatScreen(liveID: $0.liveID!, userID: $0.userID, host: false) }
    let suite = AppSuite(name: "seat-locks", summary: "seat screens").with(audience: audience).with(host: host)
    let path = repositoryRoot.appendingPathComponent("profiles/smoke.json5").path
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    // Locks every 30 s for 20 s, no calls: the lock taps are what changes the lists' locks.
    let profile = try Profile.parse(
      data,
      overrides: [
        ("host.lockEvery", JSONValue.literal("exponential(30s)")), ("host.lockFor", .literal("20s")),
        ("calls.liveCallees", .literal("0")),
      ])
    var run = SimulationRun(
      profile: profile, profilePath: "profiles/smoke.json5", profileData: data, seed: 1, duration: .minutes(3))
    run.app = suite.clientApp
    let report = run.report(run.execute(), startedAt: Date())
    let log = LockLog.shared
    let locks = log.answered.filter(\.locked)
    #expect(locks.count >= 5, "\(locks.count) locks answered")
    #expect(report.counters["seat.locks", default: 0] >= UInt64(locks.count))
    // Viewers and hosts alike saw locked seats, and only seats a host of their room locked.
    let viewersSaw = log.seen.filter { !$0.host && !$0.locked.isEmpty }
    let hostsSaw = log.seen.filter { $0.host && !$0.locked.isEmpty }
    #expect(Set(viewersSaw.map(\.user)).count >= 3, "viewers that saw a lock: \(Set(viewersSaw.map(\.user)))")
    #expect(!hostsSaw.isEmpty)
    for s in log.seen where !s.locked.isEmpty {
      let lockedThere = Set(locks.filter { $0.live == s.live }.map(\.seat))
      #expect(s.locked.isSubset(of: lockedThere), "\(s.user) saw \(s.locked) locked in \(s.live)")
    }
    // Each lock shows up, and each unlock clears it: every user that saw a seat locked saw it
    // open again afterwards, unless the run ended first.
    let unlocked = log.answered.filter { !$0.locked }
    #expect(!unlocked.isEmpty)
    var reopened = 0
    var shown: [String: Set<Int>] = [:]
    for s in log.seen {
      if let before = shown[s.user], !before.isEmpty, s.locked.isDisjoint(with: before) { reopened += 1 }
      shown[s.user] = s.locked
    }
    #expect(reopened >= 3, "\(reopened) lists reopened")
  }
}
