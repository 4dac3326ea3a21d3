import Foundation
import Testing
import ToolSupport

@testable import Chaos
@testable import Clients
@testable import Profiles
@testable import Runner
@testable import Scenario

@Suite struct ShrinkTests {
  /// Fails its threshold as soon as more than 40 applications are filed: big enough to fail,
  /// with plenty to remove.
  static let failing = """
    {
      name: "failing", duration: "10m",
      population: { rooms: 6, audiencePerRoom: "lognormal(200, 0.5)", adminsPerRoom: 1 },
      seats: { maxSeatCount: 8, packageLimit: 6 },
      audience: { stay: "1h", applyProbability: 0.3, applyAfter: "exponential(1m)", patience: "30s" },
      host: { thinkTime: "2s", inviteEvery: "exponential(2m)", kickEvery: "exponential(5m)" },
      workload: { coHosting: { fraction: 1, after: "3m", duration: "2m" } },
      thresholds: ["counter.seat.applications < 40"],
    }
    """

  @Test func shrinkingKeepsTheFailureWithinItsBudgetAndMakesTheProfileSmaller() throws {
    let tree = try JSONValue.parse(json5: Data(ShrinkTests.failing.utf8))
    var shrinker = Shrinker(tree: tree, profilePath: "failing.json5", budget: 60)
    let outcome = try shrinker.shrink(seed: 3, nearbySeeds: 2)
    #expect(outcome.runs <= 60)
    #expect(outcome.signature == "threshold counter.seat.applications < 40")
    #expect(Shrinker.size(outcome.tree) < Shrinker.size(tree) / 10)
    #expect(!outcome.steps.isEmpty)
    // The written profile reads back and still fails the same way.
    let text = JSON5Writer.write(outcome.tree)
    let profile = try Profile.parse(Data(text.utf8))
    let run = SimulationRun(profile: profile, profilePath: "s.json5", profileData: Data(text.utf8), seed: outcome.seed)
    #expect(Shrinker.signature(run.report(run.execute(), startedAt: Date())) == outcome.signature)
    #expect(profile.workload.coHosting == nil)
  }

  /// Candidates run side by side give the shrink of one at a time: the same profile, seed, steps
  /// and count of runs, with the runs it did not need counted apart.
  @Test func sideBySideShrinksAsOneAtATime() throws {
    let tree = try JSONValue.parse(json5: Data(ShrinkTests.failing.utf8))
    var one = Shrinker(tree: tree, profilePath: "failing.json5", budget: 30)
    var three = Shrinker(tree: tree, profilePath: "failing.json5", budget: 30)
    three.jobs = 3
    let a = try one.shrink(seed: 3, nearbySeeds: 1)
    let b = try three.shrink(seed: 3, nearbySeeds: 1)
    #expect(JSON5Writer.write(a.tree) == JSON5Writer.write(b.tree))
    #expect(a.seed == b.seed && a.steps == b.steps && a.runs == b.runs)
    #expect(a.alongside == 0 && b.alongside > 0)
  }

  /// The profile document at `path` with `mistakes` planted.
  func document(_ path: String, mistakes: [ClientMistake]) throws -> JSONValue {
    let data = try Data(contentsOf: repositoryRoot.appendingPathComponent(path))
    return try JSONValue.parse(json5: data).setting("mistakes", to: .array(mistakes.map { .string($0.rawValue) }))
  }

  @Test(
    .long,
    arguments: [
      ClientMistake.kickWithDisconnect, .doubleTapApply, .moveReadAsLeave, .callsBeforeLogin, .pushNotReported,
      .returnOnMalformedPush, .noFallbackBeyondLimit,
    ])
  func aCatalogueMistakeShrinksToTenUsersOrFewerWithinTheDefaultBudget(_ mistake: ClientMistake) throws {
    let tree = try document("profiles/mistakes.json5", mistakes: [mistake])
    var shrinker = Shrinker(tree: tree, profilePath: "profiles/mistakes.json5", budget: 200)
    let outcome = try shrinker.shrink(seed: 1)
    #expect(outcome.runs <= 200)
    #expect(Shrinker.users(outcome.tree) <= 10, "\(mistake.rawValue): \(outcome.after)")
    // The same invariant still fails, and the shrunk profile reproduces on its own (its seed).
    let text = JSON5Writer.write(outcome.tree)
    let profile = try Profile.parse(Data(text.utf8))
    #expect(profile.defaultSeed == outcome.seed && profile.mistakes == [mistake])
    let run = SimulationRun(
      profile: profile, profilePath: "s.json5", profileData: Data(text.utf8), seed: profile.defaultSeed)
    #expect(Shrinker.signature(run.report(run.execute(), startedAt: Date())) == outcome.signature)
  }

  @Test(.long) func aMistakeUnderSwarmChaosShrinksToTwentyUsersAndThreeFaultKindsOrFewer() throws {
    let tree = try document("profiles/swarm-chaos.json5", mistakes: [.doubleTapApply])
    var shrinker = Shrinker(tree: tree, profilePath: "profiles/swarm-chaos.json5", budget: 200)
    let outcome = try shrinker.shrink(seed: 1)
    #expect(outcome.steps.first == "swarm → the plan seed 1 drew")
    #expect(Shrinker.users(outcome.tree) <= 20, "\(outcome.after)")
    guard case .array(let plan)? = outcome.tree.value(at: "faults.plan") else {
      Issue.record("the shrunk profile has no explicit fault plan")
      return
    }
    #expect(plan.count <= 3)
  }

  @Test func aSwarmPlanWrittenOutRunsTheSameFaults() throws {
    let tree = try document("profiles/swarm-chaos.json5", mistakes: [])
    let explicit = try #require(Shrinker.explicitSwarm(tree, seed: 5))
    guard case .array(let plan)? = explicit.value(at: "faults.plan") else {
      Issue.record("no explicit plan")
      return
    }
    #expect(!plan.isEmpty && plan.count < FaultKind.allCases.count)
    // The delivery order the seed drew is written out too (seed 5 draws these).
    let profile = try Profile.parse(Data(JSON5Writer.write(tree).utf8))
    let (ties, depth) = profile.ordering(seed: 5)
    #expect(explicit.value(at: "network.ties") == .string(ties ? "seeded" : "fifo"))
    #expect(explicit.value(at: "network.pct") == .integer(Int64(depth)))
    func hash(_ t: JSONValue) throws -> String {
      let text = JSON5Writer.write(t)
      let profile = try Profile.parse(Data(text.utf8))
      let run = SimulationRun(
        profile: profile, profilePath: "p.json5", profileData: Data(text.utf8), seed: 5, duration: .minutes(5))
      return run.execute().traceHash.description
    }
    #expect(try hash(tree) == hash(explicit))
  }

  @Test func aPassingSeedHasNothingToShrink() throws {
    let passing = TestProfile(ShrinkTests.failing).with("thresholds", ["counter.seat.applications < 1000000"])
    var shrinker = Shrinker(tree: passing.tree, profilePath: "p.json5", budget: 10)
    #expect(throws: Shrinker.ShrinkError.self) { try shrinker.shrink(seed: 3) }
  }

  @Test func theCorpusRemembersEachFailureOnceAndListsItsSeedsInOrder() throws {
    let path = ProcessTool.temporaryPath("corpus").appendingPathComponent("seeds.jsonl")
      .path
    let corpus = FailingSeedCorpus(path: path)
    #expect(corpus.rows().isEmpty)
    let a = FailingSeedCorpus.Row(profileSha256: "aa", profile: "p", seed: 7, failure: "x", repro: "r7")
    let b = FailingSeedCorpus.Row(profileSha256: "aa", profile: "p", seed: 3, failure: "y", repro: "r3")
    let c = FailingSeedCorpus.Row(profileSha256: "bb", profile: "q", seed: 7, failure: "z", repro: "q7")
    #expect(try corpus.add([a, b]) == 2)
    #expect(try corpus.add([a, c]) == 1)
    #expect(corpus.rows() == [a, b, c])
    #expect(corpus.seeds(forProfile: "aa") == [7, 3])
    #expect(corpus.seeds(forProfile: "cc").isEmpty)
    // The same seed failing under a mistake is another failure to remember.
    let d = FailingSeedCorpus.Row(
      profileSha256: "aa", profile: "p", seed: 7, failure: "w", repro: "r7m", mistakes: ["resubscribe-on-apply"])
    #expect(try corpus.add([d, a]) == 1)
    #expect(corpus.rows(forProfile: "aa").map(\.mistakes) == [nil, nil, ["resubscribe-on-apply"]])
  }

  @Test func concurrentWritersLoseNoRow() throws {
    let path = ProcessTool.temporaryPath("corpus").appendingPathComponent("seeds.jsonl")
      .path
    DispatchQueue.concurrentPerform(iterations: 8) { writer in
      let corpus = FailingSeedCorpus(path: path)
      for seed in 0..<25 {
        let row = FailingSeedCorpus.Row(
          profileSha256: "aa", profile: "p", seed: UInt64(writer * 100 + seed), failure: "f", repro: "r")
        _ = try? corpus.add([row])
      }
    }
    let rows = FailingSeedCorpus(path: path).rows()
    #expect(rows.count == 200)
    #expect(Set(rows.map(\.seed)).count == 200)
  }
}
