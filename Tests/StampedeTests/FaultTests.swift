import Chaos
import Foundation
import Testing

@testable import Clients
@testable import LiveStack
@testable import Profiles
@testable import Runner
@testable import Scenario
@testable import SimKernel

@Suite struct FaultTests {
  @Test func faultListsWindowsSetsAndSwarmParse() throws {
    let plan = try TestProfile(minimalProfile).with("population.rooms", 2).with(
      "faults",
      json5: """
        { heal: "10s", plan: [
          { kind: "push.drop", rate: "5%" },
          [{ kind: "network.partition", target: "rooms[0..1]", at: "10s", for: "20s", direction: "up" }],
          { kind: "seat.limit_hit", rate: "swarm" },
        ] }
        """
    ).profile().faults
    #expect(plan.heal == .seconds(10) && plan.entries.count == 3)
    #expect(plan.entries[0].kind == .pushDrop && plan.entries[0].rate == Ratio(1, 20))
    #expect(plan.entries[1].target == .rooms(0...1) && plan.entries[1].at == .seconds(10))
    #expect(plan.entries[1].duration == .seconds(20) && plan.entries[1].direction == .up)
    #expect(plan.entries[2].swarm)
    #expect(try TestProfile(minimalProfile).with("faults", "swarm").profile().faults.swarm)
  }

  @Test(arguments: [
    ("[{ kind: \"push.dorp\", rate: 0.1 }]", "faults[0].kind", "expected one of"),
    ("[{ kind: \"push.drop\" }]", "faults[0]", "needs a rate"),
    ("[{ kind: \"push.drop\", rate: 2 }]", "faults[0].rate", "probability"),
    ("[{ kind: \"network.delay\", target: \"rooms[3]\" }]", "faults[0].target", "a target"),
    ("[{ kind: \"network.partition\", direction: \"sideways\" }]", "faults[0].direction", "one of"),
    ("[{ kind: \"server.outage\", service: \"chat\" }]", "faults[0].service", "one of"),
    ("[{ kind: \"server.outage\", mode: \"slow\" }]", "faults[0].mode", "expected \"fail\" or \"vanish\""),
    ("[{ kind: \"push.drop\", rate: 0.1, extra: \"1s\" }]", "faults[0].extra", "applies only to network.delay"),
    ("[{ kind: \"network.delay\", direction: \"up\" }]", "faults[0].direction", "only to network.partition"),
    ("[{ kind: \"network.partition\", service: \"seats\" }]", "faults[0].service", "not network.partition"),
    ("[{ kind: \"server.slowdown\", mode: \"vanish\" }]", "faults[0].mode", "only to server.outage"),
    ("{ heal: \"2m\", plan: [] }", "faults.heal", "shorter than the duration"),
    ("\"chaos\"", "faults", "\"swarm\" or a list"),
  ])
  func badFaultsNameTheirKeyPath(_ entry: String, _ path: String, _ fragment: String) {
    guard let error = TestProfile(minimalProfile).with("faults", json5: entry).error else {
      Issue.record("accepted: \(entry)")
      return
    }
    #expect(error.path == path, "\(error)")
    #expect(error.message.contains(fragment), "\(error)")
  }

  @Test func targetsParse() {
    #expect(FaultTarget.parse("user:17") == .users(17...17))
    #expect(FaultTarget.parse("users[3..9]") == .users(3...9))
    #expect(FaultTarget.parse("room:2") == .rooms(2...2))
    #expect(FaultTarget.parse("role:phone") == .role(.phone))
    #expect(FaultTarget.parse("fraction:10%") == .fraction(Ratio(1, 10)!))
    #expect(FaultTarget.parse("role:king") == nil && FaultTarget.parse("users[9..3]") == nil)
  }

  @Test func swarmDrawsAreAPureFunctionOfTheSeed() {
    func draw(_ seed: UInt64) -> [FaultEntry] {
      var rng = RandomStreams(rootSeed: seed).stream("fault-swarm")
      return FaultPlan.swarmEntries(&rng, from: [])
    }
    #expect(draw(7) == draw(7))
    #expect(draw(7) != draw(8))
    let kinds = Set(draw(7).map(\.kind))
    #expect(kinds.count > 3 && kinds.count < FaultKind.allCases.count)
    for e in draw(7) {
      let rate = Double(e.rate.numerator) / Double(e.rate.denominator)
      #expect(rate >= e.kind.typicalRate / 10.01 && rate <= min(1, e.kind.typicalRate * 10.01))
    }
  }

  @Test func aFaultThatNeverFiresChangesNothing() throws {
    // A configured kind with no opportunity (pushes in a profile without phones) and one at rate
    // zero: the trace is the one without faults, since faults draw from their own stream only.
    let base = minimalProfile
    let with = TestProfile(minimalProfile).with(
      "faults",
      json5: "{ heal: \"10s\", plan: [{ kind: \"push.drop\", rate: \"50%\" }, { kind: \"seat.limit_hit\", rate: 0 }] }"
    ).text
    func hash(_ text: String) throws -> String {
      let p = try Profile.parse(Data(text.utf8))
      var world = LiveWorld(profile: p, streams: RandomStreams(rootSeed: 3))
      var sim = Simulation()
      world.start(&sim.scheduler)
      _ = sim.run(&world, until: .zero + p.duration)
      return sim.traceHash.description
    }
    #expect(try hash(base) == hash(with))
  }

  @Test func aPartitionHoldsMessagesUntilItsWindowEnds() throws {
    // Viewers of room 0 are cut off from 1 s to 3 s: a login sent at 1.5 s reaches the server when
    // the partition heals.
    let text = chaosStaged("{ kind: \"network.partition\", target: \"users[2..2]\", at: \"1s\", for: \"2s\" }")
    var s = try Staged(text, audience: ScriptedClient(), host: ScriptedClient(), admin: ScriptedClient())
    s.run(untilMs: 1500)
    let late = s.world.backend.fifo(downlink: false, 2, .zero + .milliseconds(1500), &s.world.measured)
    let other = s.world.backend.fifo(downlink: false, 3, .zero + .milliseconds(1500), &s.world.measured)
    #expect(late == .zero + .seconds(3))
    #expect(other == .zero + .milliseconds(1510))
    let after = s.world.backend.fifo(downlink: true, 2, .zero + .milliseconds(3500), &s.world.measured)
    #expect(after == .zero + .milliseconds(3510))
    #expect(s.counter("fault.network.partition") == 1)
  }

  /// A run shortened with `--duration` heals `faults.heal` before its own end, not the profile's:
  /// nightly-chaos cut to 20 minutes once judged liveness while faults still fired (they went on
  /// to 25 minutes), so an answer a fault dropped a moment before the end was a finding.
  @Test func aShortenedRunHealsBeforeItsOwnEnd() throws {
    let (profile, data) = try repositoryProfile("nightly-chaos.json5")
    let heal = profile.faults.heal
    let full = SimulationRun(profile: profile, profilePath: "nightly-chaos.json5", profileData: data, seed: 1)
    #expect(full.makeWorld().backend.chaos.chaosEnd == (profile.duration - heal).nanoseconds)
    let short = SimulationRun(
      profile: profile, profilePath: "nightly-chaos.json5", profileData: data, seed: 1, duration: .minutes(20))
    #expect(short.durationOverridden && short.duration == .minutes(20))
    #expect(short.makeWorld().backend.chaos.chaosEnd == (SimDuration.minutes(20) - heal).nanoseconds)
    #expect(short.repro.hasSuffix("--duration 20m"), "\(short.repro)")
  }

  @Test func theNightlyChaosProfileFiresEveryKindAndRunsClean() throws {
    let (profile, data) = try repositoryProfile("nightly-chaos.json5")
    let run = SimulationRun(profile: profile, profilePath: "nightly-chaos.json5", profileData: data, seed: 1)
    let result = run.execute()
    let coverage = result.world.faultCoverage
    #expect(coverage.count >= 15)
    #expect(coverage.allSatisfy { $0.injected > 0 }, "\(coverage.filter { $0.injected == 0 })")
    #expect(result.world.checker.log.total == 0, "\(result.world.checker.log.first.compactMap { $0 })")
    let report = run.report(result, startedAt: Date())
    #expect(report.faults.count == coverage.count)
    // Each kind had its documented effect.
    let counters = result.world.metrics.counters
    func n(_ name: String) -> UInt64 { counters.value(name) ?? 0 }
    let effects: [(FaultKind, String)] = [
      (.pushDrop, "push.lost.dropped"), (.tokenInvalidated, "push.lost.token_invalidated"),
      (.micDenied, "errors.microphoneNotAuthorized"), (.cameraDenied, "errors.cameraNotAuthorized"),
      (.micOccupied, "errors.microphoneOccupied"), (.seatLimitHit, "errors.seatLimitExceeded"),
      (.serverOutage, "errors.failed"), (.seatAcceptRace, "probe.accept_lost_to_other_host"),
      (.appKilled, "app.cold_starts"), (.pushDuplicate, "conversation.reported"),
      (.pushMalformed, "push.malformed"), (.networkReorder, "network.reordered"),
    ]
    // The kinds added for fidelity are configured and fire.
    for kind in [FaultKind.pushMalformed, .networkReorder, .loginOtherDevice, .callEndByServer] {
      #expect(coverage.contains { $0.kind == kind }, "\(kind) is not in nightly-chaos")
    }
    // Most calls end before the server would (10 s to 10 min later), but some do not.
    #expect(n("call.ended.endByServer") > 0)
    for (kind, effect) in effects {
      #expect(n("fault.\(kind.rawValue)") > 0 && n(effect) >= n("fault.\(kind.rawValue)") / 2, "\(kind) → \(effect)")
    }
  }

  /// Requests and answers lost ten times as often as in the nightly run: the built-in clients
  /// reconcile (sending cancels, leaves and logins again, cancelling invitations with no answer)
  /// and the server drops members whose heartbeat stopped, so every invariant holds.
  @Test(arguments: [1, 2, 3] as [UInt64])
  func theBuiltInClientsSurviveHeavyRequestLoss(seed: UInt64) throws {
    let (_, data) = try repositoryProfile("nightly-chaos.json5")
    let nightly = TestProfile(String(decoding: data, as: UTF8.self))
    guard case .array(let plan)? = nightly.tree.value(at: "faults.plan") else {
      Issue.record("the nightly profile has no fault plan")
      return
    }
    let heavier: [JSONValue] = plan.map { entry in
      guard case .object(var fields) = entry, fields["kind"] == "network.loss" else { return entry }
      fields["rate"] = "10%"
      return .object(fields)
    }
    #expect(heavier != plan, "the nightly plan has a network.loss entry")
    let text = nightly.with("faults.plan", .array(heavier)).text
    let profile = try Profile.parse(Data(text.utf8))
    let run = SimulationRun(profile: profile, profilePath: "loss.json5", profileData: Data(text.utf8), seed: seed)
    let result = run.execute()
    #expect((result.world.metrics.counters.value("fault.network.loss") ?? 0) > 500)
    #expect(result.world.checker.log.total == 0, "\(result.world.checker.log.first.compactMap { $0 })")
  }

  @Test func aLostRequestOrAnswerTimesOutInTheSDK() throws {
    // Every request of the staged room is lost one way or the other: each login completes with -1
    // after the SDK's 10 s timeout.
    let text = chaosStaged("{ kind: \"network.loss\", rate: 1 }")
    let client = ScriptedClient()
    client.logsIn = false
    var s = try Staged(text, audience: client, host: ScriptedClient(), admin: ScriptedClient())
    var results: [String] = []
    client.onApply = { c in c.login.login { c, r in results.append("\(c.now) \(r)") } }
    s.apply(2, atMs: 1000)
    s.run(untilMs: 20_000)
    #expect(results == ["t=11s failure(LiveStack.SeatError.failed)"])
    #expect(s.counter("fault.network.loss") >= 1)
  }

  /// A window acts from its start up to (not at) its end; one without a duration lasts until the
  /// heal; a rate fault limited to a window fires only inside it; nothing acts once healing began.
  @Test func faultWindowsOpenAndCloseOnTheirBoundaries() {
    var plan = FaultPlan()
    plan.heal = .minutes(2)
    var early = FaultEntry(kind: .networkDelay, rate: .one)
    early.at = .seconds(10)
    early.duration = .seconds(5)
    early.extra = .seconds(1)
    var late = FaultEntry(kind: .networkDelay, rate: .one)
    late.at = .minutes(7)
    late.extra = .seconds(3)
    var rejections = FaultEntry(kind: .seatRejection, rate: .one)
    rejections.at = .seconds(30)
    rejections.duration = .seconds(10)
    plan.entries = [early, late, rejections]
    let layout = Layout(viewers: [3], staffPerRoom: 1, phoneCount: 0)
    var chaos = Chaos(plan: plan, duration: .minutes(10), layout: layout, streams: RandomStreams(rootSeed: 1))
    func at(_ ms: Int64) -> SimInstant { .zero + .milliseconds(ms) }
    func extra(_ ms: Int64) -> Int64 { chaos.messageFaults(user: 1, downlink: true, at(ms)).extraNs }
    func fires(_ ms: Int64) -> Bool { chaos.fires(.seatRejection, user: 1, at(ms)) }
    #expect(extra(9_999) == 0)
    #expect(extra(10_000) == 1_000_000_000)
    #expect(extra(14_999) == 1_000_000_000)
    #expect(extra(15_000) == 0)
    #expect(extra(420_000) == 3_000_000_000)
    let window = chaos.window(.networkDelay, user: 1, at(420_000))
    #expect(window?.endNs == SimDuration.minutes(8).nanoseconds)
    #expect(extra(479_999) == 3_000_000_000)
    #expect(extra(480_000) == 0)
    // Back in time (a quiet stretch found later never hides an earlier window).
    #expect(extra(20_000) == 0)
    #expect(extra(12_000) == 1_000_000_000)
    #expect(extra(9_000) == 0)
    #expect(extra(10_500) == 1_000_000_000)
    #expect(extra(300_000) == 0)
    #expect(extra(419_999) == 0)
    #expect(fires(29_999) == false)
    #expect(fires(30_000))
    #expect(fires(39_999))
    #expect(fires(40_000) == false)
  }
}
