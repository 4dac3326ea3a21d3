import Foundation
import Testing

@testable import Clients
@testable import LiveStack
@testable import Oracles
@testable import Profiles
@testable import Reports
@testable import Runner
@testable import Scenario
@testable import SimKernel

@Suite struct InvariantTests {
  let t0 = SimInstant.zero

  /// One room of 4 seats (package limit 3): owner 0, audience 1...5, all in the room.
  func room() -> (SeatService, Checker) {
    var s = SeatService(rooms: [RoomSettings(maxSeatCount: 4, packageLimit: 3, seatMode: .apply)], userCount: 6)
    _ = s.join(user: 0, room: 0, role: .owner)
    for u in 1...5 as ClosedRange<UInt32> { _ = s.join(user: u, room: 0) }
    return (s, Checker(seats: s))
  }

  func observeAll(_ s: inout SeatService, _ c: inout Checker) {
    for change in s.changes { c.observe(change, seats: s, at: t0) }
    s.drain()
  }

  @Test func everyInvariantHasAStableIDAKindAndADescription() {
    let ids = Checker.catalogue.map(\.id)
    #expect(Set(ids).count == ids.count)
    #expect(ids.allSatisfy { $0.contains(".") && !$0.contains(" ") })
    #expect(Checker.catalogue.allSatisfy { !$0.description.isEmpty })
    #expect(
      Checker.catalogue.filter { $0.kind == .liveness }.map(\.id) == [
        "request.terminal-within-timeout", "client.view-matches-server", "call.released-within-timeout",
        "push.reported-within-deadline", "conversation.ends", "conversation.action-completed-in-time",
        "push.call-shown-or-declined", "seat.lock-released",
      ])
    // The enum's raw values are the catalogue's indices, and the names are stable.
    #expect(InvariantID.allCases.map(\.rawValue) == Array(Checker.catalogue.indices))
    let stable: [InvariantID: String] = [
      .singleOccupancy: "seat.single-occupancy", .tokenUploadWhenLoggedIn: "push.token-upload-when-logged-in",
      .pushReported: "push.reported-within-deadline", .actionCompletedOnce: "conversation.action-completed-once",
      .joinAfterAccept: "conversation.join-after-accept", .conversationEndedWithCall: "conversation.ended-with-call",
      .conversationLimits: "conversation.within-limits", .conversationEnds: "conversation.ends",
      .eventsHeard: "client.events-heard", .openedOnce: "device.opened-once",
      .disconnectByGuest: "coguest.disconnect-by-guest", .answerListedApplicant: "coguest.answer-listed-applicant",
      .actionInTime: "conversation.action-completed-in-time", .callShownOrDeclined: "push.call-shown-or-declined",
      .callValidUse: "call.valid-use", .oneActiveCall: "call.one-active-per-user",
      .callReleased: "call.released-within-timeout", .terminalWithinTimeout: "request.terminal-within-timeout",
      .viewMatchesServer: "client.view-matches-server",
    ]
    for (id, name) in stable { #expect(Checker.catalogue[id.rawValue].id == name && id.id == name) }
  }

  @Test func correctOperationsTripNothing() throws {
    var (s, c) = room()
    _ = try s.apply(user: 1, seatIndex: -1, now: t0).get()
    _ = try s.acceptApplication(guest: 1, by: 0, now: t0).get()
    _ = try s.invite(guest: 2, by: 0, seatIndex: 3, now: t0).get()
    _ = try s.acceptInvitation(user: 2, inviter: 0, now: t0).get()
    #expect(s.setLocked(seat: 0, true, by: 0) == nil)
    c.observeLock(room: 0, seat: 0, seats: s)
    _ = try s.move(user: 2, to: 1, policy: .abortWhenOccupied, by: 0).get()
    observeAll(&s, &c)
    c.observeRoom(0, seats: s, at: t0)
    #expect(c.log.total == 0)
  }

  @Test func aUserOnTwoSeatsIsCaught() throws {
    var (s, c) = room()
    _ = try s.apply(user: 1, seatIndex: 0, now: t0).get()
    _ = try s.acceptApplication(guest: 1, by: 0, now: t0).get()
    s._forcePlace(user: 1, room: 0, seat: 2)
    observeAll(&s, &c)
    #expect(c.log.count("seat.single-occupancy") >= 1)
    #expect(c.log.first(.singleOccupancy)?.entities == ["room:0", "user:1"])
  }

  @Test func aNewcomerOnALockedSeatIsCaughtButTheOccupantAtLockTimeIsNot() throws {
    var (s, c) = room()
    _ = try s.apply(user: 1, seatIndex: 0, now: t0).get()
    _ = try s.acceptApplication(guest: 1, by: 0, now: t0).get()
    observeAll(&s, &c)
    #expect(s.setLocked(seat: 0, true, by: 0) == nil)
    #expect(s.setLocked(seat: 1, true, by: 0) == nil)
    c.observeLock(room: 0, seat: 0, seats: s)
    c.observeLock(room: 0, seat: 1, seats: s)
    c.observeRoom(0, seats: s, at: t0)
    #expect(c.log.total == 0)
    s._forcePlace(user: 2, room: 0, seat: 1)
    observeAll(&s, &c)
    #expect(c.log.count("seat.locked-no-newcomer") == 1)
  }

  /// `seat.lock-released`: smoke's hosts lock a seat for 30 s (within its `seats.lockLimit` of
  /// 5 min) and trip nothing; hosts that keep seats locked for 20 min are reported, with the lock's
  /// age; without a limit the lock's intention is the app's and nothing is judged.
  @Test func aSeatLockedPastTheLimitIsCaughtWithItsAge() throws {
    let smoke = TestProfile(
      try String(contentsOf: repositoryRoot.appendingPathComponent("profiles/smoke.json5"), encoding: .utf8))
    func run(_ p: TestProfile) throws -> RunReport {
      let data = Data(p.text.utf8)
      let run = SimulationRun(profile: try Profile.parse(data), profilePath: "smoke.json5", profileData: data, seed: 1)
      return run.report(run.execute(), startedAt: Date())
    }
    func released(_ r: RunReport) -> RunReport.InvariantResult { r.invariants.first { $0.id == "seat.lock-released" }! }
    let correct = try run(smoke)
    #expect(correct.counters["seat.locks", default: 0] > 0)
    #expect(released(correct).violations == 0)
    let held = try run(smoke.with("host.lockFor", "20m"))
    #expect(released(held).violations > 0)
    let message = released(held).first?.message ?? ""
    #expect(message.contains("has stayed locked with nobody on it for 5 min"), "\(message)")
    #expect(message.contains("(seats.lockLimit 5 min 0 s)"), "\(message)")
    #expect(released(try run(smoke.with("host.lockFor", "20m").without("seats.lockLimit"))).violations == 0)
    // Capacity lost: the seat time locked with nobody on it, far more when locks are held for 20
    // minutes, none when nobody locks; the report says so in its own section.
    let lost = correct.counters["seat.locked_empty_ms", default: 0]
    #expect(lost > 0 && held.counters["seat.locked_empty_ms", default: 0] > 5 * lost)
    #expect(MarkdownReport.render(correct).contains("### Capacity lost"))
    let none = try run(smoke.with("host.lockEvery", .null).with("admin.lockEvery", .null))
    #expect(none.counters["seat.locked_empty_ms", default: 0] == 0 && none.capacityLostText == nil)
    #expect(!MarkdownReport.render(none).contains("### Capacity lost"))
  }

  @Test func exceedingThePackageLimitIsCaught() throws {
    var (s, c) = room()
    for u in 1...3 as ClosedRange<UInt32> {
      _ = try s.apply(user: u, seatIndex: -1, now: t0).get()
      _ = try s.acceptApplication(guest: u, by: 0, now: t0).get()
    }
    observeAll(&s, &c)
    #expect(c.log.total == 0)
    s._forcePlace(user: 4, room: 0, seat: 3)
    observeAll(&s, &c)
    #expect(c.log.count("seat.capacity") == 1)
  }

  @Test func aSeatWithoutAGrantIsCaught() {
    var (s, c) = room()
    s._forcePlace(user: 1, room: 0, seat: 0)
    observeAll(&s, &c)
    #expect(c.log.count("seat.connected-requires-grant") == 1)
    #expect(c.log.first(.requiresGrant)?.message.contains("without an accept") == true)
  }

  @Test func aSecondTerminalAnswerOrALaterEventIsCaught() {
    var (_, c) = room()
    c.observeTerminalAnswer(request: 7, user: 1, at: t0)
    #expect(c.log.total == 0)
    c.observeTerminalAnswer(request: 7, user: 1, at: t0)
    #expect(c.log.count("request.one-terminal-outcome") == 1)
    c.observeEventAfterTerminal(request: 7, user: 1, at: t0)
    #expect(c.log.count("request.one-terminal-outcome") == 2)
    c.observeEventAfterTerminal(request: 8, user: 1, at: t0)
    #expect(c.log.count("request.one-terminal-outcome") == 2)
  }

  @Test func duplicateOrConnectedApplicantsAreCaught() {
    var (_, c) = room()
    c.observeApplicants(host: 0, applicants: [1, 2], seatView: [4, 0], at: t0)
    #expect(c.log.total == 0)
    c.observeApplicants(host: 0, applicants: [1, 2, 1], seatView: [4, 0], at: t0)
    c.observeApplicants(host: 0, applicants: [1, 3], seatView: [4, 0], at: t0)
    #expect(c.log.count("coguest.no-duplicate-applicants") == 2)
  }

  @Test func clientStatesAreChecked() {
    var (_, c) = room()
    c.observeClient(user: 1, status: .connecting, seenSeat: nil, captureOn: true, sawOwnLeave: false, at: t0)
    c.observeClient(user: 1, status: .connected, seenSeat: 2, captureOn: true, sawOwnLeave: false, at: t0)
    #expect(c.log.total == 0)
    c.observeClient(user: 1, status: .applying, seenSeat: 2, captureOn: false, sawOwnLeave: false, at: t0)
    #expect(c.log.count("client.not-applying-while-seated") == 1)
    c.observeClient(user: 1, status: .idle, seenSeat: nil, captureOn: true, sawOwnLeave: false, at: t0)
    c.observeClient(user: 1, status: .connected, seenSeat: nil, captureOn: true, sawOwnLeave: true, at: t0)
    #expect(c.log.count("device.capture-only-while-seated") == 2)
  }

  // MARK: Whole runs

  /// A viewer whose client opens the microphone as soon as it applies: the device invariant must
  /// catch it in a real run.
  final class MicOnApply: ClientBehavior {
    func start(_ c: inout Client) {
      c.login.login { c, _ in c.liveList.joinLive { c, _ in c.status = .idle } }
    }
    func applyIntent(_ c: inout Client) {
      c.status = .applying
      c.coGuest.applyForSeat(timeout: .seconds(30))
      c.device.openLocalMicrophone()
    }
  }

  /// A viewer whose UI status follows only the response callback, and who never subscribed to the
  /// seat list: when the accept event is slower than the seat list, it shows "applying" while
  /// seated.
  final class CallbackOnlyStatus: ClientBehavior {
    func start(_ c: inout Client) {
      c.coGuest.subscribeGuestEvents()
      c.login.login { c, _ in c.liveList.joinLive { c, _ in c.status = .idle } }
    }
    func applyIntent(_ c: inout Client) {
      c.status = .applying
      c.coGuest.applyForSeat(timeout: .seconds(30))
    }
    func guestEvent(_ e: GuestEvent, _ c: inout Client) {
      if case .onGuestApplicationResponded(let ok, _) = e { c.status = ok ? .connected : .idle }
    }
  }

  static let mistakeProfile = """
    {
      name: "mistake", duration: "10m",
      population: { rooms: 3, audiencePerRoom: 30, adminsPerRoom: 1 },
      seats: { maxSeatCount: 4, packageLimit: 4 },
      audience: { stay: "1h", applyProbability: 1, applyAfter: "exponential(30s)" },
      host: { thinkTime: "lognormal(2s, 0.5)" },
      network: { clientServer: "lognormal(50ms, 0.8)" },
    }
    """

  /// The mistake profile with every viewer tapping "apply" within 20 s of the first minute.
  static let flashCrowd = TestProfile(mistakeProfile).with(
    "workload.flashCrowd", json5: "{ at: \"1m\", fraction: 1, within: \"20s\", lockSeatsUntilOpen: false }")

  func run(_ audience: ClientBehavior, flash: Bool = true) throws -> LiveWorld {
    let text = InvariantTests.flashCrowd.text
    let profile = try Profile.parse(Data((flash ? text : InvariantTests.mistakeProfile).utf8))
    var world = LiveWorld(profile: profile, streams: RandomStreams(rootSeed: 5), audience: audience)
    var sim = Simulation()
    world.start(&sim.scheduler)
    _ = sim.run(&world, until: .zero + profile.duration)
    return world
  }

  @Test func aClientCapturingBeforeItIsSeatedIsCaughtInARun() throws {
    let world = try run(MicOnApply())
    #expect(world.checker.log.count("device.capture-only-while-seated") > 0)
  }

  @Test func aClientWhoseStatusIgnoresTheSeatListIsCaughtInARun() throws {
    let world = try run(CallbackOnlyStatus())
    // The seat list is not subscribed, but the SDK keeps it: the client shows "applying" while
    // the SDK already knows it is seated.
    #expect(world.checker.log.count("client.not-applying-while-seated") > 0)
  }

  @Test func aFirstViolationComesWithTheEventsThatLedToIt() throws {
    let text = InvariantTests.flashCrowd.text
    let data = Data(text.utf8)
    var run = SimulationRun(profile: try Profile.parse(data), profilePath: "m.json5", profileData: data, seed: 5)
    run.clients = { _ in ClientSet(audience: InvariantTests.CallbackOnlyStatus()) }
    let result = run.execute()
    let report = run.report(result, startedAt: Date())
    let broken = try #require(report.invariants.first { $0.id == "client.not-applying-while-seated" })
    let first = try #require(broken.first)
    #expect(broken.violations > 0)
    let user = try #require(first.entities.first)
    #expect(!first.excerpt.isEmpty && first.excerpt.count <= 12)
    #expect(first.excerpt.allSatisfy { $0.contains(user) })
    // The seat list reached the client while it still showed "applying".
    #expect(first.excerpt.suffix(3).contains { $0.contains("seats +") })
    #expect(first.excerpt.contains { $0.contains("applyForSeat") })
    // Behaviours are made afresh for the replay: the excerpt run reached the same violation.
    #expect(report.verdict == "fail" && report.exitStatus == 1)
    // report.md carries the excerpt too, under its invariant, line for line.
    let markdown = MarkdownReport.render(report)
    #expect(
      markdown.contains("Causal excerpt of `client.not-applying-while-seated` (the last \(first.excerpt.count) lines"))
    #expect(markdown.contains(first.excerpt.joined(separator: "\n")))
    // ...with the command that writes every event of its users from the start, where the excerpt
    // may begin after the cause.
    let command = "stampede run m.json5 --seed 0x5 --trace trace-client.not-applying-while-seated.jsonl --only \(user)"
    #expect(report.traceCommand(for: first, invariant: broken.id) == command)
    #expect(markdown.contains("Every event of its users from the start of the run:\n\n```sh\n\(command)\n```"))
    #expect(HTMLReport.render(report).contains("<code>\(command)</code>"))
    // Users first; a violation that names none is traced by its rooms; one with neither has none.
    var rooms = first
    rooms.entities = ["room:3", "request:7"]
    #expect(report.traceCommand(for: rooms, invariant: "x")?.hasSuffix("--trace trace-x.jsonl --only room:3") == true)
    rooms.entities = ["user:4", "room:3", "user:9"]
    #expect(report.traceCommand(for: rooms, invariant: "x")?.hasSuffix("--only user:4,user:9") == true)
    rooms.entities = ["call:2"]
    #expect(report.traceCommand(for: rooms, invariant: "x") == nil)
  }

  /// An excerpt keeps its last lines, but a run of alike events (a seat-list broadcast heard time
  /// after time) is one line that counts them, so the cause before them stays in the window.
  @Test func anExcerptFoldsRunsOfAlikeEvents() {
    var events: [(key: String, timeNs: Int64, index: Int64)] = [
      ("clientReply user:3: cancelApplication → failed (-1)", 1_000_000, 1)
    ]
    for i in 0..<20 {
      events.append(("broadcastSeen user:3: seat-list broadcast", 2_000_000 + Int64(i) * 1_000_000, 2 + Int64(i)))
    }
    events.append(("clientNotice user:3: seats -3@2", 30_000_000, 30))
    let lines = SimulationRun.collapsed(events, limit: 3)
    #expect(lines.count == 3)
    #expect(lines[0] == "1.000ms #1 clientReply user:3: cancelApplication → failed (-1)")
    #expect(lines[1] == "2.000ms #2 broadcastSeen user:3: seat-list broadcast (×20, the last at 21.000ms #21)")
    #expect(lines[2] == "30.000ms #30 clientNotice user:3: seats -3@2")
    // With room for two lines, the oldest goes; nothing alike is folded across another event.
    #expect(SimulationRun.collapsed(events, limit: 2).first?.hasPrefix("2.000ms #2 broadcastSeen") == true)
    #expect(SimulationRun.collapsed([], limit: 3).isEmpty)
  }

  @Test func aSwitchedOffInvariantRecordsNothingAndChangesNothingElse() throws {
    let flash = InvariantTests.flashCrowd.text
    let off = InvariantTests.flashCrowd.with("invariants.off", ["client.not-applying-while-seated"]).text
    func run(_ text: String) throws -> RunReport {
      let data = Data(text.utf8)
      var run = SimulationRun(profile: try Profile.parse(data), profilePath: "m.json5", profileData: data, seed: 5)
      run.clients = { _ in ClientSet(audience: InvariantTests.CallbackOnlyStatus()) }
      return run.report(run.execute(), startedAt: Date())
    }
    let on = try run(flash)
    let without = try run(off)
    #expect(on.invariants.first { $0.id == "client.not-applying-while-seated" }!.violations > 0)
    let switched = without.invariants.first { $0.id == "client.not-applying-while-seated" }!
    #expect(switched.violations == 0 && switched.off == true)
    #expect(on.traceHash == without.traceHash)
    #expect(on.events == without.events)
    #expect(JUnitReport.render(without).contains("<skipped message=\"switched off in the profile\"/>"))
    #expect(TestProfile(minimalProfile).with("invariants.off", ["seat.nope"]).error?.path == "invariants.off[0]")
  }

  @Test func theBuiltInClientsRunTheSameWorkloadClean() throws {
    let profile = try Profile.parse(Data(InvariantTests.mistakeProfile.utf8))
    var world = LiveWorld(profile: profile, streams: RandomStreams(rootSeed: 5))
    var sim = Simulation()
    world.start(&sim.scheduler)
    _ = sim.run(&world, until: .zero + profile.duration)
    #expect(world.metrics.counters.value("seat.connected")! > 10)
    #expect(world.checker.log.total == 0)
  }

  @Test func seatRushRunsCleanAndHitsBothSeatLimits() throws {
    let path = repositoryRoot.appendingPathComponent("profiles/seat-rush.json5").path
    let profile = try Profile.load(path: path).profile
    var world = LiveWorld(profile: profile, streams: RandomStreams(rootSeed: profile.defaultSeed))
    var sim = Simulation()
    world.start(&sim.scheduler)
    _ = sim.run(&world, until: .zero + profile.duration)
    world.judgeLiveness(now: sim.now)
    let log = world.checker.log
    #expect(log.total == 0, "\(log.first.compactMap { $0 })")
    #expect(world.metrics.counters.value("seat.rejected.seat_limit")! > 1000)
    #expect(world.metrics.counters.value("seat.rejected.all_taken")! > 1000)
    #expect(world.metrics.counters.value("seat.connected")! > 1000)
    for name in ["seat.invitations", "seat.kicked", "seat.moved", "seat.locks", "live.co_host_sessions", "live.ended"] {
      #expect(world.metrics.counters.value(name)! > 0, "\(name)")
    }
  }

  @Test func everyRequestReachesATerminalStateAtQuiescence() throws {
    // Everyone leaves and every live ends, so the world runs out of events.
    let text = """
      {
        name: "drain", duration: "100h",
        population: { rooms: 4, audiencePerRoom: 60, adminsPerRoom: 1 },
        seats: { maxSeatCount: 4, packageLimit: 3, applyTimeout: "0s" },
        audience: { stay: "lognormal(10m, 0.5)", applyProbability: 0.8, applyAfter: "exponential(1m)",
                    patience: null, maxApplies: 3 },
        host: { thinkTime: "lognormal(20s, 1)", acceptProbability: 0.5, inviteEvery: "exponential(2m)",
                inviteTimeout: "0s", endLiveAfter: "30m" },
        devices: { microphoneDenied: "5%" },
      }
      """
    let profile = try Profile.parse(Data(text.utf8))
    var world = LiveWorld(profile: profile, streams: RandomStreams(rootSeed: 3))
    var sim = Simulation()
    world.start(&sim.scheduler)
    let reason = sim.run(&world, until: .zero + profile.duration)
    #expect(reason == .quiescent)
    world.judgeLiveness(now: sim.now)
    #expect(world.server.seats.requests.count > 100)
    #expect(world.server.seats.requests.allSatisfy { $0.state.isTerminal })
    #expect(world.server.seats.pendingCount == 0)
    #expect(world.server.seats.occupiedTotal == 0)
    #expect(world.runtime.devicesOn[0] == 0)
    #expect(world.checker.log.total == 0)
  }

  /// `seat.lock-released` keeps the locks in the order they were taken through unlocks (which
  /// leave gaps, closed once they are half the list) and locks taken again: the locks still held
  /// past the limit are reported, the oldest first, and a seat whose unlock is on its way is not.
  @Test func staffLocksKeepTheirOrderThroughUnlocksAndCompaction() {
    let rooms = 40
    var s = SeatService(
      rooms: Array(repeating: RoomSettings(maxSeatCount: 2, packageLimit: 2, seatMode: .apply), count: rooms),
      userCount: rooms)
    let runtime = ClientRuntime(
      layout: Layout(viewers: Array(repeating: 0, count: rooms), staffPerRoom: 1, phoneCount: 0),
      settings: RoomSettings(maxSeatCount: 2, packageLimit: 2, seatMode: .apply), quirks: [])
    var c = Checker(seats: s)
    c.lockLimitNs = SimDuration.seconds(60).nanoseconds
    func at(_ seconds: Int64) -> SimInstant { SimInstant(nanoseconds: seconds * 1_000_000_000) }
    func lock(_ r: Int, _ locked: Bool, _ t: Int64) {
      #expect(s.setLocked(room: UInt32(r), seat: 1, locked) == nil)
      c.observeStaffLock(room: UInt32(r), seat: 1, locked: locked, by: UInt32(r), at: at(t))
    }
    for r in 0..<rooms {
      runtime.clients[r].loggedIn = true
      runtime.clients[r].joinedRoom = UInt32(r) + 1
      lock(r, true, Int64(r))
    }
    // Ten unlocks: gaps, not yet closed. Room 20's unlock is on its way.
    for r in 0..<10 { lock(r, false, 50) }
    c.observeUnlock(room: 20, seat: 1, sent: true, at: at(50))
    #expect(c.staffLockGaps == 10 && c.staffLocks.count == rooms)
    // Twenty-four more: at 32 gaps in 40 they are closed (rooms 20 and 33 still held then),
    // and the last two unlocks leave gaps again.
    for r in 10..<34 where r != 20 { lock(r, false, 51) }
    lock(20, false, 51)
    #expect(c.staffLocks.count == 8 && c.staffLockGaps == 2)
    #expect(c.staffLocks.filter { $0.slot >= 0 }.map(\.room) == Array(34..<40))
    // Room 5 locked again, after all of them; room 36's unlock fails (its clock starts again).
    lock(5, true, 52)
    c.observeUnlock(room: 36, seat: 1, sent: false, at: at(100))
    c.checkLocks(seats: s, runtime: runtime, at: at(140))
    // Past 60 s at 140 s: rooms 34, 35, 37, 38, 39 (locked at 34-39 s) and room 5 (52 s); room 36
    // was last seen failing to unlock at 100 s.
    let id = Checker.catalogue.firstIndex { $0.id == "seat.lock-released" }!
    #expect(c.log.counts[id] == 6)
    #expect(c.log.first[id]?.entities == ["room:34", "user:34"])
    c.checkLocks(seats: s, runtime: runtime, at: at(161))
    #expect(c.log.counts[id] == 7, "room 36, once")
  }
}
