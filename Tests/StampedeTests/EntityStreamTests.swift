import Foundation
import Testing

@testable import Chaos
@testable import LiveStack
@testable import Profiles
@testable import Runner
@testable import Scenario
@testable import SimKernel

/// Every room, user, phone and fault kind draws from its own stream, keyed by what it is rather
/// than by its index, so removing unrelated entities (as `shrink` does) leaves a failing entity's
/// life exactly as it was.
@Suite struct EntityStreamTests {
  /// Four rooms with viewers arriving over a minute, device failures and two rate faults that
  /// draw per user; no calls and no co-hosting, so the rooms never meet.
  static let rooms = """
    {
      name: "entity", duration: "6m", seed: 3,
      population: { rooms: 4, audiencePerRoom: 30, adminsPerRoom: 1 },
      arrival: { pattern: "poisson", over: "1m" },
      seats: { maxSeatCount: 6, packageLimit: 4, mode: "apply", applyTimeout: "20s" },
      audience: {
        stay: "lognormal(5m, 0.3)", applyProbability: 0.6, applyAfter: "exponential(1m)",
        seatTime: "lognormal(60s, 0.5)", maxApplies: 3,
      },
      host: { thinkTime: "lognormal(2s, 0.6)", acceptProbability: 0.8, inviteEvery: "exponential(90s)" },
      network: { clientServer: "lognormal(40ms, 0.4)" },
      devices: { microphoneDenied: "5%" },
      faults: { heal: "1m", plan: [{ kind: "network.loss", rate: "3%" }, { kind: "seat.rejection", rate: "10%" }] },
    }
    """

  /// The events of `room` in a run of `text`: time, kind, users and detail (request IDs are
  /// numbered across the whole server, so they are left out).
  func roomEvents(_ text: String, room: UInt32) throws -> (events: [String], faults: UInt64) {
    let profile = try Profile.parse(Data(text.utf8))
    let run = SimulationRun(profile: profile, profilePath: "entity", profileData: Data(text.utf8), seed: 3)
    let recorder = TraceRecorder(filter: TraceFilter.parse(["room:\(room)"])!, jsonl: nil, keep: true)
    let result = run.execute(observer: recorder)
    let events = recorder.records.map {
      "\($0.timeNs) \($0.description.kind) \($0.description.users) \(withoutRequestIDs($0.description.detail))"
    }
    return (events, result.world.backend.chaos.injected.reduce(0, +))
  }

  /// `detail` with the number after "application" or "invitation" (a server-wide request ID) left out.
  func withoutRequestIDs(_ detail: String) -> String {
    var words = detail.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
    for i in words.indices.dropFirst()
    where ["application", "invitation"].contains(words[i - 1]) && Int(words[i]) != nil {
      words[i] = "#"
    }
    return words.joined(separator: " ")
  }

  @Test func removingOtherRoomsLeavesARoomsLifeExactlyAsItWas() throws {
    let four = try roomEvents(Self.rooms, room: 1)
    let two = try roomEvents(TestProfile(Self.rooms).with("population.rooms", json5: "2").text, room: 1)
    #expect(four.events.count > 300)
    // Faults fired in every room, more of them with more rooms; each user's draws are its own.
    #expect(two.faults > 0 && four.faults > two.faults)
    #expect(four.events == two.events)
  }

  @Test func leavingOutTheFirstRoomsKeepsALaterRoomsLifeAsItWas() throws {
    // Room 3 of four, and the same room as room 1 of two that leave out the first two: its user
    // IDs differ (they are numbered from the first room there is), its times and kinds do not.
    func timesAndKinds(_ text: String, room: UInt32) throws -> [String] {
      let profile = try Profile.parse(Data(text.utf8))
      let run = SimulationRun(profile: profile, profilePath: "entity", profileData: Data(text.utf8), seed: 3)
      let recorder = TraceRecorder(filter: TraceFilter.parse(["room:\(room)"])!, jsonl: nil, keep: true)
      _ = run.execute(observer: recorder)
      return recorder.records.map { "\($0.timeNs) \($0.description.kind) \($0.description.users.count)" }
    }
    let four = try timesAndKinds(Self.rooms, room: 3)
    let later = TestProfile(Self.rooms).with("population.rooms", json5: "2").with("population.firstRoom", json5: "2")
    let two = try timesAndKinds(later.text, room: 1)
    #expect(four.count > 300)
    #expect(four == two)
    // Without the offset, the second room of two is the population's room 1, another life.
    let plain = try timesAndKinds(TestProfile(Self.rooms).with("population.rooms", json5: "2").text, room: 1)
    #expect(plain != four)
    let wide = Layout(viewers: [5, 7, 3, 4], staffPerRoom: 2, phoneCount: 6)
    let tail = Layout(viewers: [3, 4], staffPerRoom: 2, phoneCount: 2, firstRoom: 2, firstPhone: 4)
    #expect(tail.identity(of: 0) == wide.identity(of: wide.roomBase[2]))
    #expect(tail.identity(of: tail.roomBase[1] + 3) == wide.identity(of: wide.roomBase[3] + 3))
    #expect(tail.identity(of: tail.phones.lowerBound + 1) == wide.identity(of: wide.phones.lowerBound + 5))
    // Given the room, a member's identity is the same without reading its home room; and every
    // member's differs.
    var seen = Set<UInt64>()
    for room in 0..<UInt32(wide.rooms) {
      for u in wide.staff(of: room).lowerBound..<wide.audience(of: room).upperBound {
        #expect(wide.identity(of: u, inRoom: room) == wide.identity(of: u))
        seen.insert(wide.identity(of: u, inRoom: room))
      }
    }
    #expect(seen.count == 19 + 4 * 2)
  }

  @Test func removingLaterViewersKeepsEveryEarlierViewersArrivalTime() throws {
    let profile = try Profile.parse(Data(Self.rooms.utf8))
    let smaller = try Profile.parse(
      Data(TestProfile(Self.rooms).with("population.audiencePerRoom", json5: "12").text.utf8))
    let streams = RandomStreams(rootSeed: 9)
    let bigLayout = Layout(profile: profile, streams: streams)
    let smallLayout = Layout(profile: smaller, streams: streams)
    let big = Workload(profile: profile, layout: bigLayout, streams: streams)
    let small = Workload(profile: smaller, layout: smallLayout, streams: streams)
    // Viewers take their room's places in order of arrival, so a viewer's place may differ between
    // the two; its identity, and so its arrival time, does not.
    var bigUser: [UInt64: UInt32] = [:]
    for room in UInt32(0)..<4 {
      for u in bigLayout.audience(of: room) { bigUser[bigLayout.identity(of: u)] = u }
    }
    var moved = 0
    for room in UInt32(0)..<4 {
      var last = SimInstant.zero
      for (k, u) in smallLayout.audience(of: room).enumerated() {
        let same = try #require(bigUser[smallLayout.identity(of: u)], "viewer \(k) of room \(room) is in both")
        let at = small.arrivalTime(of: u, room: room, layout: smallLayout)
        #expect(at == big.arrivalTime(of: same, room: room, layout: bigLayout))
        #expect(at >= last, "places follow arrival times")
        last = at
        if same - bigLayout.audience(of: room).lowerBound != UInt32(k) { moved += 1 }
      }
    }
    #expect(moved > 0, "the twelve viewers' places among more viewers differ")
    // The order in which a room's viewers arrive is by time: each next arrival is no sooner.
    var w = big
    var last = SimInstant.zero
    var arrived: [UInt32] = []
    while let at = w.nextArrival(room: 2, layout: bigLayout) {
      #expect(at >= last && at.nanoseconds <= 60_000_000_000)
      last = at
      arrived.append(w.arrive(room: 2, layout: bigLayout))
    }
    // Each arrival takes the room's next place: the viewers active at one time sit side by side.
    #expect(arrived == Array(bigLayout.audience(of: 2)))
    #expect(
      Set(bigLayout.viewerOfPlace[Int(bigLayout.audience(of: 2).lowerBound)...].prefix(arrived.count)).count
        == arrived.count)
    // A closed room (everyone there at time zero) keeps its viewers in their own order.
    let closed = try Profile.parse(
      Data(TestProfile(Self.rooms).with("arrival", json5: "{ pattern: \"closed\" }").text.utf8))
    #expect(Layout(profile: closed, streams: streams).viewerOfPlace.isEmpty)
  }

  @Test func identitiesNameWhatAUserIsNotWhereItSits() {
    let wide = Layout(viewers: [5, 7, 3], staffPerRoom: 3, phoneCount: 4)
    let narrow = Layout(viewers: [2, 7], staffPerRoom: 2, phoneCount: 2)
    // Room 1's owner, first admin and fourth viewer; the second phone.
    let pairs: [(UInt32, UInt32)] = [
      (8, 4), (9, 5), (14, 9), (wide.phones.lowerBound + 1, narrow.phones.lowerBound + 1),
    ]
    for (a, b) in pairs { #expect(wide.identity(of: a) == narrow.identity(of: b)) }
    #expect(Set(wide.identities).count == wide.totalUsers)
    #expect(wide.identity(of: 0) != wide.identity(of: 3))
  }

  @Test func entityStreamsArePinnedAndDependOnTheIdentityOnly() {
    let streams = RandomStreams(rootSeed: 42)
    var a = streams.entity("clients", 7)
    var again = streams.entities("clients", [1, 7, 9])[1]
    #expect(a.next() == again.next())
    var other = streams.entity("clients", 8)
    var otherName = streams.entity("devices", 7)
    let next = a.next()
    #expect(next != other.next() && next != otherName.next())
    #expect(RandomStreams.entitySeed(stream: 1, 2) == 0xF977_A0EA_B49F_FB2F)
  }

  @Test func droppingOneFaultKindLeavesAnotherKindsDecisionsAsTheyWere() throws {
    let layout = Layout(viewers: [50], staffPerRoom: 1, phoneCount: 0)
    let streams = RandomStreams(rootSeed: 5)
    func decisions(_ plan: String) throws -> [Bool] {
      let profile = try Profile.parse(Data(chaosStaged(plan).utf8))
      var chaos = Chaos(plan: profile.faults, duration: .minutes(10), layout: layout, streams: streams)
      var out: [Bool] = []
      for t in 0..<200 {
        let user = UInt32(t % 51)
        if chaos.isOn(.networkLoss) { _ = chaos.requestLoss(user: user, call: 0, .zero + .seconds(Int64(t))) }
        out.append(chaos.fires(.seatRejection, user: user, .zero + .seconds(Int64(t))))
      }
      return out
    }
    let both = try decisions(#"{ kind: "network.loss", rate: "30%" }, { kind: "seat.rejection", rate: "30%" }"#)
    let one = try decisions(#"{ kind: "seat.rejection", rate: "30%" }"#)
    #expect(both == one)
    #expect(both.contains(true) && both.contains(false))
  }
}
