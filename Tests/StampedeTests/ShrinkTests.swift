import Foundation
import Testing

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

  @Test func aPassingSeedHasNothingToShrink() throws {
    let passing = TestProfile(ShrinkTests.failing).with("thresholds", ["counter.seat.applications < 1000000"])
    var shrinker = Shrinker(tree: passing.tree, profilePath: "p.json5", budget: 10)
    #expect(throws: Shrinker.ShrinkError.self) { try shrinker.shrink(seed: 3) }
  }

  @Test func theCorpusRemembersEachFailureOnceAndListsItsSeedsInOrder() throws {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("corpus-\(UUID().uuidString)/seeds.jsonl")
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
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("corpus-\(UUID().uuidString)/seeds.jsonl")
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
