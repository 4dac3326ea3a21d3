import Foundation
import Testing

@testable import Clients
@testable import LiveStack
@testable import Metrics
@testable import Oracles
@testable import Profiles
@testable import Scenario
@testable import SimKernel

/// Seat lists fanned out to every viewer through room messaging: each viewer's list follows the
/// room's with its own delay, at a cost of O(changes); room messaging as a service with workers,
/// a time per recipient and a rate limit that merges; `client.view-matches-server` for viewers.
@Suite struct FanOutTests {
  /// Viewers that apply when told to, and log `connected` with the time whenever a timer of theirs
  /// fires.
  static func readingAudience() -> (ScriptedClient, ReadLog) {
    let audience = ScriptedClient()
    audience.onApply = { c in c.coGuest.applyForSeat(timeout: .seconds(30)) }
    let log = ReadLog()
    audience.onTimer = { _, c in log.reads.append((c.now.nanoseconds / 1_000_000, c.coGuest.connected)) }
    return (audience, log)
  }

  final class ReadLog { var reads: [(ms: Int64, connected: [UInt32])] = [] }

  @Test func aViewerSeesAnotherGuestSeatedOneDelayAfterTheServerSeatedIt() throws {
    // Viewer 2 applies at 1,000 ms; every message takes 10 ms: the application reaches the server
    // at 1,010, the host hears it at 1,020 and accepts, the accept reaches the server at 1,030 and
    // seats 2. The broadcast leaves at once, so viewer 3 sees 2 from 1,040 on, not a millisecond
    // before; its SDK never got an event for it.
    let host = ScriptedClient.acceptingHost()
    let (audience, log) = Self.readingAudience()
    var s = try Staged(audience: audience, host: host, admin: ScriptedClient())
    s.apply(2, atMs: 1000)
    s.timer(3, atMs: 1039)
    s.timer(3, atMs: 1040)
    s.run(untilMs: 5000)
    #expect(log.reads.map(\.ms) == [1039, 1040])
    #expect(log.reads[0].connected == [])
    #expect(log.reads[1].connected == [2])
    #expect(!audience.log.contains { $0.hasPrefix("3 seat") }, "a viewer that only reads hears no event")
    #expect(audience.log.contains("2 seat 0 +2"))
    #expect(s.counter("seat.changes") == 1)
    // One broadcast to the five members of the room (owner, admin, three viewers).
    #expect(s.counter("messaging.broadcasts") == 1 && s.counter("messaging.downlink") == 5)
    #expect(s.violations == 0)
  }

  @Test func theDownlinkRateSeriesAddsUpToTheMessagesCounted() throws {
    // Samples every second: each value is the downlink messages since the previous sample, per
    // second, so the values add up to every message counted (one broadcast to five members here,
    // and the members' own joins, which change no seat, add none).
    let host = ScriptedClient.acceptingHost()
    let audience = ScriptedClient()
    audience.onApply = { c in c.coGuest.applyForSeat(timeout: .seconds(30)) }
    let text = TestProfile(stagedProfile).with("timeSeries", json5: "{ interval: \"1s\" }").text
    var s = try Staged(text, audience: audience, host: host, admin: ScriptedClient())
    s.apply(2, atMs: 1000)
    s.apply(3, atMs: 3000)
    s.run(untilMs: 6000)
    let rates = s.world.series.column("messaging.downlink_per_second")!
    #expect(rates.reduce(0, +) == 10 && s.counter("messaging.downlink") == 10)
    #expect(rates[2] == 5 && rates[4] == 5, "\(rates)")
  }

  @Test func roomMessagingAtCapacityDelaysTheListsAndTheStaffDeltasThatGoWithThem() throws {
    // One messaging worker takes 100 ms a broadcast plus 10 ms for each of the room's five
    // members: the broadcast seating viewer 2 (at 1,030) leaves at 1,180. Viewer 3 sees it at
    // 1,190, and so do the host's and the admin's deltas, which go with the broadcast. Viewer 2
    // hears its own seat point to point, with its accept event, at 1,040.
    let host = ScriptedClient.acceptingHost()
    let admin = ScriptedClient()
    let (audience, log) = Self.readingAudience()
    var heard: [String] = []
    let note: (SeatChangeEvent, inout Client) -> Void = { ch, c in
      heard.append("\(c.now.nanoseconds / 1_000_000) \(c.user) +\(ch.user)")
    }
    audience.onSeat = note
    host.onSeat = note
    admin.onSeat = note
    audience.onGuest = { e, c in
      if case .onGuestApplicationResponded = e { heard.append("\(c.now.nanoseconds / 1_000_000) \(c.user) accepted") }
    }
    let text = TestProfile(stagedProfile).with(
      "server", json5: "{ messaging: { workers: 1, serviceTime: \"constant(100ms)\", perRecipient: \"10ms\" } }"
    ).text
    var s = try Staged(text, audience: audience, host: host, admin: admin)
    s.apply(2, atMs: 1000)
    s.timer(3, atMs: 1189)
    s.timer(3, atMs: 1190)
    s.run(untilMs: 5000)
    #expect(heard == ["1040 2 +2", "1040 2 accepted", "1190 0 +2", "1190 1 +2"])
    #expect(log.reads.map(\.connected) == [[], [2]])
    let usage = s.world.resources(end: .zero + .seconds(5)).first { $0.name == "server.messaging" }
    #expect(usage?.capacity == "1 worker(s)")
    #expect(s.violations == 0)
  }

  @Test func overTheRoomRateLimitChangesWaitForTheNextSecondAndMerge() throws {
    // One broadcast a second per room. Viewers 2, 3 and 4 are seated at 1,030, 1,130 and 1,230:
    // the first goes out at once; the second waits for 2,000; the third joins it (a merge). The
    // watching viewer 5 sees [2] until 2,009 and [2, 3, 4] from 2,010.
    let host = ScriptedClient.acceptingHost()
    let (audience, log) = Self.readingAudience()
    let text = TestProfile(stagedProfile)
      .with("population", json5: "{ rooms: 1, audiencePerRoom: 4, adminsPerRoom: 1 }")
      .with("seats", json5: "{ maxSeatCount: 4, packageLimit: 4, applyTimeout: \"30s\", keepOwnerOnSeat: false }")
      .with("server", json5: "{ messaging: { ratePerRoom: 1 } }").text
    var s = try Staged(text, audience: audience, host: host, admin: ScriptedClient())
    s.apply(2, atMs: 1000)
    s.apply(3, atMs: 1100)
    s.apply(4, atMs: 1200)
    for ms: Int64 in [1239, 2009, 2010] { s.timer(5, atMs: ms) }
    s.run(untilMs: 5000)
    #expect(log.reads.map(\.connected) == [[2], [2], [2, 3, 4]])
    #expect(s.counter("seat.changes") == 3)
    #expect(s.counter("messaging.broadcasts") == 2 && s.counter("messaging.merged") == 1)
    let usage = s.world.resources(end: .zero + .seconds(5)).first { $0.name == "server.messaging" }!
    #expect(usage.refused == ["merged": 1])
    #expect(s.violations == 0)
  }

  @Test func codeThatSubscribesToEveryChangeHearsOthersSeatsWhenTheyReachIt() throws {
    // Viewer 3 subscribes to every change; viewer 4 only to its own seat. When 2 is seated (at
    // 1,030), 3 hears it at 1,040 as a delta; 4 hears nothing.
    let host = ScriptedClient.acceptingHost()
    let audience = ScriptedClient()
    var heard: [String] = []
    audience.onApply = { c in c.coGuest.applyForSeat(timeout: .seconds(30)) }
    audience.onSeat = { ch, c in heard.append("\(c.now.nanoseconds / 1_000_000) \(c.user) +\(ch.user)") }
    audience.onTimer = { _, c in c.liveSeat.subscribeEveryChange() }
    var s = try Staged(audience: audience, host: host, admin: ScriptedClient())
    s.timer(3, atMs: 500)
    s.apply(2, atMs: 1000)
    s.run(untilMs: 5000)
    #expect(heard == ["1040 2 +2", "1040 3 +2"])
    #expect(s.world.server.feed.watchers(of: 0) == [3])
    #expect(s.violations == 0)
  }

  @Test func aViewerWhoseListDisagreesWithTheServerIsCaught() throws {
    // Planted: room messaging's copy of seat 1 names a user the server never seated. Every viewer
    // in the room then shows it, and the sampled check (and the end of the run) says so.
    let host = ScriptedClient.acceptingHost()
    let audience = ScriptedClient()
    audience.onApply = { c in c.coGuest.applyForSeat(timeout: .seconds(30)) }
    var s = try Staged(audience: audience, host: host, admin: ScriptedClient())
    s.apply(2, atMs: 1000)
    s.run(untilMs: 2000)
    #expect(s.violations == 0)
    s.world.server.feed._corrupt(room: 0, seat: 1, occupant: 4 + 1)
    s.world.observers.checkViewerLists(sample: 1, server: s.world.server)  // viewer 3
    #expect(s.world.checker.log.count(.viewMatchesServer) == 1)
    #expect(
      s.world.checker.log.first(.viewMatchesServer)?.message
        == "viewer 3's seat list shows [2, 4] but the server has [2, -]")
  }

  @Test func theBuiltInClientsAgreeWithEveryViewersListUnderMessagingAtCapacity() throws {
    // Half an hour of the seat rush with room messaging at one worker and one broadcast a second
    // per room: lists lag and merge, and no viewer's list, once settled, disagrees.
    let data = try repositoryProfile("seat-rush.json5").1
    let text = TestProfile(String(decoding: data, as: UTF8.self))
      .with("duration", json5: "\"30m\"")
      // The evening's flash crowd is at 60m, beyond this half hour.
      .with("workload.flashCrowd", json5: "null")
      .with(
        "server",
        json5: "{ messaging: { workers: 1, serviceTime: \"constant(20ms)\", perRecipient: \"100us\", ratePerRoom: 1 } }"
      ).text
    let (world, _) = try runProfile(text, seed: 3)
    #expect(world.checker.log.total == 0, "\(world.checker.log.first.compactMap { $0?.message }.prefix(3))")
    let c = world.metrics.counters
    #expect(c.value("messaging.broadcasts")! > 500)
    #expect(c.value("messaging.merged")! > 0)
    #expect(c.value("messaging.downlink")! > 10 * c.value("messaging.broadcasts")!)
    // The log keeps only what some viewer may not have seen yet: a few entries per room.
    #expect(c.value("seat.changes")! > 2000)
    #expect(world.server.feed.loggedEntries < 3 * world.layout.rooms, "\(world.server.feed.loggedEntries)")
  }

  @Test func aViewerAtPeaceIsCheckedAgainWhenTheServerChangesItsSeat() throws {
    // The built-in viewer 2 applies at 1 s and is seated and connected: its UI checks then find
    // it at peace and stop. When the server takes its seat away, the UI is due again at once,
    // without its code having run.
    var s = try Staged()
    s.apply(2, atMs: 1000)
    s.run(untilMs: 30_000)
    #expect(s.world.runtime.clients[2].status == .connected)
    func due(_ u: Int) -> Bool { s.world.observers.uiWatch.bits[u >> 6] & (1 << UInt64(u & 63)) != 0 }
    #expect(!due(2))
    _ = s.world.server.seats.leaveSeat(user: 2)
    var sim = s.sim
    var world = s.world
    world.backend.drainServer(&world.measured, &world.observers, &sim.scheduler)
    s.world = world
    s.sim = sim
    #expect(due(2))
    #expect(s.violations == 0)
  }

  @Test func theListAViewerSeesIsTheServersAsItStoodOneDelayAgo() {
    // Three viewers 10, 50 and 200 ms behind; seat 0 filled at 1 s, emptied at 1.1 s, refilled
    // at 1.12 s by a broadcast that waits for a worker until 1.3 s.
    let feed = RoomFeed(
      seatCounts: [2], delayUs: [0, 10_000, 50_000, 200_000], homeRoom: { _ in 0 },
      messaging: ServiceSettings(
        workers: nil, serviceTime: .constant(0), queueLimit: nil, perUser: nil, perRoom: nil, perApp: nil))
    #expect(feed.immediate)
    func at(_ ms: Int64) -> SimInstant { .zero + .milliseconds(ms) }
    feed.record(SeatChange(room: 0, seat: 0, user: 7, seated: true))
    _ = feed.changed(room: 0, members: 4, now: at(1000)) { _ in 0 }
    feed.record(SeatChange(room: 0, seat: 0, user: 7, seated: false))
    _ = feed.changed(room: 0, members: 4, now: at(1100)) { _ in 0 }
    #expect(feed.view(room: 0, viewer: 1, now: at(1009)) == [0, 0])
    #expect(feed.view(room: 0, viewer: 1, now: at(1010)) == [8, 0])
    #expect(feed.view(room: 0, viewer: 1, now: at(1110)) == [0, 0])
    #expect(feed.view(room: 0, viewer: 2, now: at(1120)) == [8, 0])
    #expect(feed.view(room: 0, viewer: 3, now: at(1199)) == [0, 0])
    #expect(feed.view(room: 0, viewer: 3, now: at(1250)) == [8, 0])
    #expect(!feed.isSettled(room: 0, viewer: 3, now: at(1299)) && feed.isSettled(room: 0, viewer: 3, now: at(1300)))
    #expect(feed.broadcasts == 2 && feed.downlink == 8)
    #expect(feed.entries(room: 0, sentAt: at(1100).nanoseconds).map(\.before) == [8])
  }

  @Test func aLockReachesEachMemberOneDelayAfterItsBroadcastAndLeavesTheOccupantsAlone() {
    // Staff 0 (no delay) and viewers 1 (10 ms) and 2 (50 ms); user 7 sits on seat 1. Seat 1 is
    // locked at 1 s and unlocked at 2 s, each broadcast at once.
    let feed = RoomFeed(
      seatCounts: [3], delayUs: [0, 10_000, 50_000], homeRoom: { _ in 0 }, messaging: .unlimited)
    func at(_ ms: Int64) -> SimInstant { .zero + .milliseconds(ms) }
    feed.record(SeatChange(room: 0, seat: 1, user: 7, seated: true))
    _ = feed.changed(room: 0, members: 3, now: at(500)) { _ in 0 }
    #expect(feed.recordLock(room: 0, seat: 1, true))
    #expect(!feed.recordLock(room: 0, seat: 1, true), "locking a locked seat changes nothing")
    _ = feed.changed(room: 0, members: 3, now: at(1000)) { _ in 0 }
    #expect(feed.locks(room: 0, viewer: 0, now: at(1000)) == [false, true, false])
    #expect(feed.locks(room: 0, viewer: 1, now: at(1009)) == [false, false, false])
    #expect(feed.locks(room: 0, viewer: 1, now: at(1010)) == [false, true, false])
    #expect(feed.locks(room: 0, viewer: 2, now: at(1049)) == [false, false, false])
    // Occupants never carry the lock: every list and check the oracles read is as before.
    #expect(feed.view(room: 0, viewer: 1, now: at(1500)) == [0, 8, 0])
    #expect(feed.serverList(room: 0) == [0, 8, 0])
    #expect(feed.viewAgrees(room: 0, viewer: 1, now: at(1500), ignoring: .max) { $0 == 1 ? 8 : 0 })
    // A lock is no seat-list delta, but its broadcast says it changed a lock.
    var heard = 0
    feed.deltas(room: 0, viewer: 1, sentNs: at(1000).nanoseconds) { heard += $0.count }
    #expect(heard == 0)
    #expect(feed.locksChanged(room: 0, sentAt: at(1000).nanoseconds))
    #expect(!feed.locksChanged(room: 0, sentAt: at(500).nanoseconds))
    // The guest leaves its locked seat: the seat stays locked, and the leave is a delta.
    feed.record(SeatChange(room: 0, seat: 1, user: 7, seated: false))
    _ = feed.changed(room: 0, members: 3, now: at(1500)) { _ in 0 }
    feed.deltas(room: 0, viewer: 1, sentNs: at(1500).nanoseconds) { heard += $0.count }
    #expect(heard == 1)
    #expect(feed.locks(room: 0, viewer: 1, now: at(1600)) == [false, true, false])
    #expect(feed.recordLock(room: 0, seat: 1, false))
    _ = feed.changed(room: 0, members: 3, now: at(2000)) { _ in 0 }
    #expect(feed.locks(room: 0, viewer: 2, now: at(2049)) == [false, true, false])
    #expect(feed.locks(room: 0, viewer: 2, now: at(2050)) == [false, false, false])
    // A room created locked is locked for everyone from the start, with nothing to broadcast.
    feed.recordLock(room: 0, seat: 2, true, logged: false)
    #expect(feed.locks(room: 0, viewer: 2, now: at(2050)) == [false, false, true])
    #expect(!feed.isBusy(room: 0))
    #expect(feed.broadcasts == 4)
  }

  @Test func aSeatListUpdatedInPlaceIsTheOneTheSDKWouldBuildAfresh() {
    // Staff 0, viewers 1-3 in one room of 4 seats; viewer 1 hears broadcasts 10 ms late. The list
    // an app-facing store keeps is brought up to date in its own storage; at every step it must
    // equal the list built afresh, and say whether it changed.
    let runtime = ClientRuntime(
      layout: Layout(viewers: [3], staffPerRoom: 1, phoneCount: 0),
      settings: RoomSettings(maxSeatCount: 4, packageLimit: 4, seatMode: .apply, coHostSeatLimit: 0, ownerSeat: false),
      quirks: [])
    let feed = RoomFeed(
      seatCounts: [4], delayUs: [0, 10_000, 10_000, 10_000], homeRoom: { _ in 0 },
      messaging: ServiceSettings(
        workers: nil, serviceTime: .constant(0), queueLimit: nil, perUser: nil, perRoom: nil, perApp: nil))
    runtime.feed = feed
    runtime.clients[1].joinedRoom = 1
    func at(_ ms: Int64) -> SimInstant { .zero + .milliseconds(ms) }
    var list: [UInt32] = []
    func step(_ ms: Int64) -> Bool {
      runtime.now = at(ms)
      let changed = runtime.updateSeatList(of: 1, &list)
      #expect(list == runtime.seatList(of: 1), "at \(ms) ms")
      return changed
    }
    #expect(step(0))  // from nothing to four empty seats
    #expect(list == [0, 0, 0, 0])
    #expect(!step(1))
    feed.record(SeatChange(room: 0, seat: 1, user: 3, seated: true))
    _ = feed.changed(room: 0, members: 4, now: at(1000)) { _ in 0 }
    #expect(!step(1009))
    let storage = list.withUnsafeBufferPointer { $0.baseAddress }
    #expect(step(1010))
    #expect(list == [0, 4, 0, 0])
    #expect(list.withUnsafeBufferPointer { $0.baseAddress } == storage, "updated in place")
    // The viewer's own messages put it on seat 2; the server's list has it on seat 3 (a broadcast
    // it has heard): its SDK shows it where its own messages say, and nowhere else.
    feed.record(SeatChange(room: 0, seat: 3, user: 1, seated: true))
    _ = feed.changed(room: 0, members: 4, now: at(2000)) { _ in 0 }
    runtime.clients[1].seenSeat = 2
    #expect(step(2020))
    #expect(list == [0, 4, 2, 0])
    #expect(!step(2021))
    // Leaving the room leaves no list.
    runtime.clients[1].joinedRoom = 0
    #expect(step(3000))
    #expect(list.isEmpty)
  }

  @Test func aBroadcastsDeltasLeaveOutTheViewersOwnSeatAndChangesThatChangedNothing() {
    // Immediate messaging: every change leaves at once. User 5 takes seat 0, user 6 seat 1, user
    // 5 leaves seat 0 and takes it again (seat 0 as it was: no change for the others), all at 1 s.
    let feed = RoomFeed(
      seatCounts: [3], delayUs: [0, 0, 0, 0, 0, 0, 0, 0], homeRoom: { _ in 0 }, messaging: .unlimited)
    let t = SimInstant.zero + .seconds(1)
    for c in [
      SeatChange(room: 0, seat: 0, user: 5, seated: true), SeatChange(room: 0, seat: 1, user: 6, seated: true),
    ] {
      feed.record(c)
    }
    _ = feed.changed(room: 0, members: 8, now: t) { _ in 0 }
    var heard: [[SeatChange]] = []
    feed.deltas(room: 0, viewer: 7, sentNs: t.nanoseconds) { b in heard.append((0..<b.count).map { b[$0] }) }
    #expect(heard.flatMap { $0 }.map(\.user) == [5, 6])
    heard = []
    // User 5 hears only user 6's seat: its own it hears by its own messages.
    feed.deltas(room: 0, viewer: 5, sentNs: t.nanoseconds) { b in heard.append((0..<b.count).map { b[$0] }) }
    #expect(heard.flatMap { $0 }.map(\.user) == [6])
    heard = []
    // Another instant's broadcast is not this one.
    feed.deltas(room: 0, viewer: 7, sentNs: t.nanoseconds + 1) { b in heard.append((0..<b.count).map { b[$0] }) }
    #expect(heard.isEmpty)
  }

  @Test func eachRoomDrawsItsBroadcastTimesFromItsOwnStream() {
    let settings = ServiceSettings(
      workers: 1, serviceTime: .exponential(mean: 1e8), queueLimit: nil, perUser: nil, perRoom: nil, perApp: nil)
    func feed() -> RoomFeed {
      let f = RoomFeed(seatCounts: [2, 2], delayUs: [], homeRoom: { _ in nil }, messaging: settings)
      f.takeRandom([SplitMix64(seed: 1), SplitMix64(seed: 2)])
      return f
    }
    let a = feed()
    let b = feed()
    // Room 1's draws do not move room 0's.
    let room0 = (0..<3).map { _ in a.drawServiceNs(0) }
    _ = (0..<5).map { _ in b.drawServiceNs(1) }
    #expect((0..<3).map { _ in b.drawServiceNs(0) } == room0)
    #expect(Set(room0).count == 3)
  }

  @Test func oneWorkerServesTheRoomsInTurnAndARoomsChangesWaitForItsBroadcast() {
    // One worker, 100 ms a broadcast. Room 0 changes at 0 (served 0–100 ms), room 1 at 10 ms
    // (queued), room 0 again at 20 ms (waits behind its own broadcast) and at 30 ms (a merge:
    // it goes with the one of 20 ms). Room 1 is served 100–200 ms, room 0's second 200–300 ms.
    let feed = RoomFeed(
      seatCounts: [2, 2], delayUs: [0, 0], homeRoom: { _ in nil },
      messaging: ServiceSettings(
        workers: 1, serviceTime: .constant(0.1e9), queueLimit: nil, perUser: nil, perRoom: nil, perApp: nil))
    func at(_ ms: Int64) -> SimInstant { .zero + .milliseconds(ms) }
    let service: (UInt32) -> Int64 = { _ in 100_000_000 }
    feed.record(SeatChange(room: 0, seat: 0, user: 1, seated: true))
    #expect(feed.changed(room: 0, members: 3, now: at(0), serviceNs: service) == .sendAt(at(100)))
    feed.record(SeatChange(room: 1, seat: 0, user: 2, seated: true))
    #expect(feed.changed(room: 1, members: 3, now: at(10), serviceNs: service) == .none)
    feed.record(SeatChange(room: 0, seat: 1, user: 3, seated: true))
    #expect(feed.changed(room: 0, members: 3, now: at(20), serviceNs: service) == .none)
    feed.record(SeatChange(room: 0, seat: 0, user: 1, seated: false))
    #expect(feed.changed(room: 0, members: 3, now: at(30), serviceNs: service) == .none)
    var released: [Notice] = []
    let first = feed.sent(
      room: 0, members: { _ in 3 }, now: at(100), serviceNs: service, release: { released.append($0) })
    #expect(first.next?.room == 1 && first.next?.step == .sendAt(at(200)))
    #expect(first.this == .none)  // queued behind room 1
    let second = feed.sent(
      room: 1, members: { _ in 3 }, now: at(200), serviceNs: service, release: { released.append($0) })
    #expect(second.next?.room == 0 && second.next?.step == .sendAt(at(300)))
    _ = feed.sent(room: 0, members: { _ in 3 }, now: at(300), serviceNs: service, release: { released.append($0) })
    #expect(feed.entries(room: 0, sentAt: at(300).nanoseconds).count == 2)
    #expect(feed.broadcasts == 3 && feed.downlink == 9)
    #expect(feed.view(room: 0, viewer: 0, now: at(300)) == [0, 4])
  }

  @Test func roomMessagingRefusesSettingsItCannotHave() {
    for (key, value) in [("queueLimit", "10"), ("ratePerUser", "1"), ("ratePerApp", "5")] {
      let text = TestProfile(stagedProfile).with("server", json5: "{ messaging: { \(key): \(value) } }").text
      #expect {
        _ = try Profile.parse(Data(text.utf8))
      } throws: { error in
        let e = error as? ProfileError
        return e?.path == "server.messaging.\(key)" && e!.message.contains("not a setting of room messaging")
      }
    }
    let ok = TestProfile(stagedProfile).with(
      "server", json5: "{ messaging: { workers: 4, serviceTime: \"2ms\", perRecipient: \"20us\", ratePerRoom: 5 } }"
    ).text
    let p = try? Profile.parse(Data(ok.utf8))
    #expect(p?.server.messaging.perRecipient == .microseconds(20) && p?.server.messaging.perRoom == 5)
  }
}
