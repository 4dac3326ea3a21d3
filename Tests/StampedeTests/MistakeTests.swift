import Foundation
import Testing

@testable import Clients
@testable import Oracles
@testable import Profiles
@testable import Runner
@testable import Scenario
@testable import SimKernel

@Suite struct MistakeTests {
  @Test func theCatalogueHasTwentyFiveStableIDsEachWithAnInvariantThatExists() {
    #expect(ClientMistake.allCases.count == 25)
    let ids = ClientMistake.allCases.map(\.rawValue)
    #expect(Set(ids).count == 25 && ids.allSatisfy { $0.contains(".") && !$0.contains(" ") })
    let invariants = Set(Checker.catalogue.map(\.id))
    for m in ClientMistake.allCases {
      #expect(invariants.contains(m.caughtBy), "\(m.rawValue)")
      #expect(!m.summary.isEmpty)
    }
    #expect(ClientMistake.lateRegistry.number == 16 && ClientMistake.hostEventsNotRetained.number == 1)
    #expect(
      ClientMistake.moveReadAsLeave.number == 19 && ClientMistake.cameraOnInBackground.number == 23
        && ClientMistake.inviteWhileRinging.number == 24 && ClientMistake.rejectionIgnored.number == 25)
  }

  @Test(arguments: ClientMistake.allCases)
  func everyMistakeIsCaughtWithinTheCataloguedSeeds(_ mistake: ClientMistake) throws {
    let (profile, data) = try mistakesProfile()
    let seeds = ClientMistake.catchWithinSeeds
    var caughtLog: ViolationLog?
    let check = MistakeCatalogue.check(
      mistake, profile: profile, profilePath: "profiles/mistakes.json5", profileData: data,
      seeds: .init(from: seeds.lowerBound, to: seeds.upperBound)
    ) { caughtLog = $0 }
    #expect(check.caught, "\(mistake.rawValue) was not caught")
    #expect(check.caughtBy.contains(mistake.caughtBy), "\(mistake.rawValue): \(check.caughtBy)")
    #expect(check.repro?.hasSuffix("--mistake \(mistake.rawValue)") == true)
    // The first violation names who did it.
    let log = try #require(caughtLog)
    let i = try #require(Checker.catalogue.firstIndex { $0.id == mistake.caughtBy })
    let first = try #require(log.first[i])
    #expect(first.entities.contains { $0.hasPrefix("user:") }, "\(first)")
    #expect(!first.message.isEmpty)
  }

  @Test func theBuiltInClientsRunTheProvingGroundClean() throws {
    let (profile, data) = try mistakesProfile()
    #expect(profile.mistakes.isEmpty)
    for seed: UInt64 in 1...3 {
      let run = SimulationRun(profile: profile, profilePath: "p", profileData: data, seed: seed)
      let world = run.execute().world
      #expect(world.checker.log.total == 0, "seed \(seed): \(world.checker.log.first.compactMap { $0 })")
      // The conditions the phone mistakes need did occur.
      for name in ["push.duplicated", "conversation.report_failed", "conversation.actions_failed", "app.cold_starts"] {
        #expect((world.metrics.counters.value(name) ?? 0) > 0, "seed \(seed): \(name)")
      }
    }
  }

  @Test func aProfileSelectsMistakesAndAnUnknownOneIsAKeyPathError() throws {
    let with = TestProfile(minimalProfile).with("mistakes", ["host.kick-with-disconnect"])
    #expect(try with.profile().mistakes == [.kickWithDisconnect])
    let error = try #require(TestProfile(minimalProfile).with("mistakes", ["host.nap"]).error)
    #expect(error.path == "mistakes[0]" && error.message.contains("host.kick-with-disconnect"))
  }

  @Test func shrinkingAMistakeKeepsItFailingWithinItsBudget() throws {
    let text = """
      {
        name: "kicks", duration: "10m", mistakes: ["host.kick-with-disconnect"],
        population: { rooms: 5, audiencePerRoom: 60, adminsPerRoom: 1 },
        seats: { maxSeatCount: 8, packageLimit: 6, applyTimeout: "30s" },
        audience: { stay: "1h", applyProbability: 0.6, applyAfter: "exponential(30s)", seatTime: "10m" },
        host: { thinkTime: "2s", kickEvery: "exponential(3m)", inviteEvery: "exponential(1m)" },
      }
      """
    let tree = try JSONValue.parse(json5: Data(text.utf8))
    var shrinker = Shrinker(tree: tree, profilePath: "kicks.json5", budget: 60)
    let outcome = try shrinker.shrink(seed: 1, nearbySeeds: 2)
    #expect(outcome.runs <= 60)
    #expect(outcome.signature.contains("coguest.disconnect-by-guest"))
    #expect(Shrinker.size(outcome.tree) < Shrinker.size(tree))
    let shrunk = try Profile.parse(Data(JSON5Writer.write(outcome.tree).utf8))
    #expect(shrunk.mistakes == [.kickWithDisconnect])
  }

  @Test func switchingEveryCheckerOffLeavesTheTraceAndFindsNothing() throws {
    let (profile, _) = try mistakesProfile()
    var p = profile
    p.mistakes = [.kickWithDisconnect]
    func run(checking: Bool) -> (String, Int) {
      var world = LiveWorld(profile: p, streams: RandomStreams(rootSeed: 1))
      world.checking = checking
      var sim = Simulation()
      world.start(&sim.scheduler)
      _ = sim.run(&world, until: .zero + .minutes(5))
      return (sim.traceHash.description, world.checker.log.total)
    }
    let on = run(checking: true)
    let off = run(checking: false)
    #expect(on.0 == off.0)
    #expect(on.1 > 0 && off.1 == 0)
  }

  @Test func theLivenessSlackIsAProfileSetting() throws {
    #expect(
      try TestProfile(minimalProfile).with("invariants.livenessSlack", "12s").profile().livenessSlack == .seconds(12))
    #expect(try Profile.parse(Data(minimalProfile.utf8)).livenessSlack == .seconds(5))
  }
}
