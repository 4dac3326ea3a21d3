import Foundation
import LiveStack
import Metrics
import Testing
import ToolSupport

@testable import History
@testable import Profiles
@testable import Reports
@testable import Runner
@testable import Scenario

/// The tests `compare` relies on, checked against known values and against their own theory:
/// under the null hypothesis a test at level 0.05 rejects about 5% of the time.
@Suite struct StatisticsTests {
  @Test func tailsMatchTables() {
    // Textbook critical values: each has a 5% (or 1%) upper tail.
    #expect(abs(Statistics.chiSquareUpperTail(3.841, degrees: 1) - 0.05) < 2e-4)
    #expect(abs(Statistics.chiSquareUpperTail(18.307, degrees: 10) - 0.05) < 2e-4)
    #expect(abs(Statistics.chiSquareUpperTail(6.635, degrees: 1) - 0.01) < 1e-4)
    #expect(abs(Statistics.chiSquareUpperTail(124.342, degrees: 100) - 0.05) < 3e-4)
    #expect(abs(Statistics.twoSidedNormalP(1.959964) - 0.05) < 1e-6)
    #expect(abs(Statistics.twoSidedNormalP(-2.575829) - 0.01) < 1e-6)
    // Q(1, x) = e^-x exactly.
    for x in [0.1, 1.0, 2.5, 10.0] { #expect(abs(Statistics.regularizedUpperGamma(1, x) - exp(-x)) < 1e-12) }
  }

  @Test func signedRankMatchesHandComputation() {
    // Ten positive differences: W+ = 55, mean 27.5, variance 96.25, z = 2.8031; exactly, only
    // all-positive and all-negative are as extreme: p = 2/1024.
    let t = Statistics.signedRankTest((1...10).map(Double.init))!
    #expect(abs(t.statistic - 2.8031) < 1e-3)
    #expect(abs(t.p - 2.0 / 1024) < 1e-12)
    // Six, as a sweep of six seeds gives: p = 2/64, which no level of 0.01 is reached by.
    #expect(abs(Statistics.signedRankTest([3, 1, 4, 1.5, 5, 9])!.p - 0.03125) < 1e-12)
    #expect(Statistics.signedRankMinimumP(pairs: 6) == 0.03125)
    #expect(Statistics.signedRankPairsNeeded(alpha: 0.01) == 8)
    #expect(Statistics.signedRankPairsNeeded(alpha: 0.05) == 6)
    // W+ = 1 + 2 of 1..5 (mean 7.5): sums at least as far from the mean are 0..3 and 12..15, 5
    // assignments on each side of 32 (tables: P(W <= 3) = 5/32): p = 10/32.
    #expect(abs(Statistics.signedRankTest([1, 2, -3, -4, -5])!.p - 10.0 / 32) < 1e-12)
    // Tied ranks (1.5, 1.5, 3): W+ = 1.5 + 3 = 4.5 of 6, as far as 1.5; sums 0, 1.5, 1.5, 3, 3,
    // 4.5, 4.5, 6: all but 3 and 3 qualify, p = 6/8.
    #expect(abs(Statistics.signedRankTest([1, -1, 2])!.p - 0.75) < 1e-12)
    // Beyond the exact limit, the normal approximation.
    let big = Statistics.signedRankTest((1...80).map(Double.init))!
    #expect(abs(big.p - Statistics.twoSidedNormalP(big.statistic)) < 1e-15)
    // Symmetric differences: no evidence either way.
    #expect(Statistics.signedRankTest([1, -1, 2, -2, 3, -3, 4, -4])!.p > 0.99)
    // All equal: p = 1; no pairs: no test.
    #expect(Statistics.signedRankTest([0, 0, 0, 0, 0, 0, 0])!.p == 1)
    #expect(Statistics.signedRankTest([]) == nil)
  }

  /// Exponential samples with mean `meanNs`, as a histogram's bucket counts.
  static func buckets(_ rng: inout SplitMixForTests, n: Int, meanNs: Double) -> [Int: UInt64] {
    var out: [Int: UInt64] = [:]
    for _ in 0..<n {
      let u = (Double(rng.next() >> 11) + 0.5) / 9_007_199_254_740_992
      out[Histogram.bucketIndex(UInt64(-log(u) * meanNs)), default: 0] += 1
    }
    return out
  }

  @Test func bucketTestRejectsAtItsLevelUnderTheNullAndFindsAShift() {
    var rng = SplitMixForTests(seed: 11)
    let trials = 400
    var rejections = 0
    for _ in 0..<trials {
      let a = Self.buckets(&rng, n: 1_500, meanNs: 20e6)
      let b = Self.buckets(&rng, n: 1_500, meanNs: 20e6)
      if Statistics.bucketTest(a, b)!.p < 0.05 { rejections += 1 }
    }
    // 5% of 400 is 20; three standard deviations (4.4 each) either side.
    #expect((7...33).contains(rejections), "rejected \(rejections) of \(trials) same-distribution pairs")
    // A 20% slower distribution is found.
    let a = Self.buckets(&rng, n: 20_000, meanNs: 20e6)
    let b = Self.buckets(&rng, n: 20_000, meanNs: 24e6)
    #expect(Statistics.bucketTest(a, b)!.p < 1e-4)
    #expect(Statistics.bucketTest(a, a)!.p == 1)
  }

  @Test func signedRankRejectsAtItsLevelUnderTheNull() {
    var rng = SplitMixForTests(seed: 12)
    var rejections = 0
    for _ in 0..<400 {
      let diffs = (0..<30).map { _ in Double(rng.next() >> 11) / 9_007_199_254_740_992 - 0.5 }
      if Statistics.signedRankTest(diffs)!.p < 0.05 { rejections += 1 }
    }
    #expect((7...33).contains(rejections), "rejected \(rejections) of 400")
  }

  @Test func rateAndProportionTests() {
    // Equal rates over equal time: nothing to see; a doubled rate is found.
    #expect(Statistics.rateTest(countA: 1_000, exposureA: 100, countB: 1_000, exposureB: 100)!.p == 1)
    #expect(Statistics.rateTest(countA: 1_000, exposureA: 100, countB: 1_000, exposureB: 50)!.p < 1e-6)
    // 500 in 100 s against 1,000 in 200 s is the same rate.
    #expect(Statistics.rateTest(countA: 500, exposureA: 100, countB: 1_000, exposureB: 200)!.p > 0.99)
    #expect(Statistics.rateTest(countA: 1, exposureA: 0, countB: 1, exposureB: 1) == nil)
    // 10% against 12% of 10,000: z = 4.5, p about 7e-6.
    let p = Statistics.proportionTest(hitsA: 1_000, trialsA: 10_000, hitsB: 1_200, trialsB: 10_000)!
    #expect(abs(p.statistic - 4.5) < 0.05)
    #expect(Statistics.proportionTest(hitsA: 5, trialsA: 4, hitsB: 1, trialsB: 4) == nil)
  }
}

@Suite struct ComparisonTests {
  static func side(_ label: String, seeds: [(UInt64, Double)], meanScale: Double = 1, samplesPerSeed: Int = 1)
    -> ComparedSide
  {
    var h = Histogram()
    for (_, mean) in seeds {
      // Spread evenly about the seed's mean, from half of it to one and a half times it.
      for k in 0..<samplesPerSeed {
        let spread = samplesPerSeed == 1 ? 1 : 0.5 + Double(k) / Double(samplesPerSeed - 1)
        h.record(UInt64(mean * meanScale * spread * 1e6))
      }
    }
    let l = LatencySummary(h)
    return ComparedSide(
      label: label, kind: "sweep", profileName: "p", profileSha256: "x", toolVersion: "0.1.0", verdict: "pass",
      measured: MeasuredMetrics(
        latencies: ["seat.apply_to_response": l], counters: ["seat.applied": 1_000], simulatedSeconds: 100,
        violations: ["seat.single-occupancy": 0]),
      events: 1,
      seeds: seeds.map {
        .init(seed: $0.0, verdict: "pass", traceHash: "h", latencyMeansMs: ["seat.apply_to_response": $0.1 * meanScale])
      },
      repro: nil)
  }

  @Test func rulesParseWithClearErrors() throws {
    let a = Self.side("a", seeds: (1...10).map { ($0, Double($0)) })
    let v = Comparison.vocabulary(a, a)
    let rule = try RegressionRule.parse("seat.apply_to_response.p99 > +10%", vocabulary: v)
    #expect(rule.relative && rule.bound == 0.1 && rule.comparison == .greater)
    let absolute = try RegressionRule.parse("seat.apply_to_response.p50 >= +50ms", vocabulary: v)
    #expect(!absolute.relative && absolute.bound == 50)
    #expect(try RegressionRule.parse("counter.seat.applied/s < -5%", vocabulary: v).bound == -0.05)
    #expect(throws: ThresholdParseError.self) {
      try RegressionRule.parse("seat.apply_to_respons.p99 > +10%", vocabulary: v)
    }
    do {
      _ = try RegressionRule.parse("seat.apply_to_response.p99 > 10%", vocabulary: v)
      Issue.record("an unsigned change was accepted")
    } catch {
      #expect(error.message.contains("signed change"))
    }
    #expect(rule.change(from: 100, to: 115)! == 0.15)
    #expect(rule.change(from: 0, to: 1) == .infinity)
    #expect(rule.change(from: 5, to: 5) == 0)
  }

  @Test func aSlowerCandidateIsARegressionAndAnIdenticalOneIsNot() throws {
    let seeds = (1...12).map { (UInt64($0), 100.0 + Double($0 * 7 % 13)) }
    let a = Self.side("a", seeds: seeds)
    let b = Self.side("b", seeds: seeds, meanScale: 1.3)
    let rule = try RegressionRule.parse("seat.apply_to_response.mean > +10%", vocabulary: Comparison.vocabulary(a, b))
    let slower = Comparison(a, b, rules: [rule])
    #expect(slower.regressed)
    #expect(slower.latencies[0].pairedTest != nil, "same seeds on both sides: the seeds are paired")
    #expect(slower.rules[0].test!.p < 0.01)
    let same = Comparison(a, Self.side("b", seeds: seeds), rules: [rule])
    #expect(!same.regressed)
    #expect(same.verdictLine == "no significant difference")
    // Crossing a bound without significance is not a regression: one seed is no evidence.
    let one = Self.side("a1", seeds: [(1, 100)])
    let oneSlower = Self.side("b1", seeds: [(1, 100)], meanScale: 1.3)
    let noisy = Comparison(one, oneSlower, rules: [rule])
    #expect(noisy.rules[0].crossed && !noisy.rules[0].significant && !noisy.regressed)
  }

  @Test func tooFewSeedsAreSaidAndThePooledSamplesDecide() throws {
    // Six seeds, B six times slower: even all six moving one way gives the signed-rank test p =
    // 2/64, above 0.01. That is said, and the pooled samples decide.
    let seeds = (1...6).map { (UInt64($0), 100.0 + Double($0)) }
    let a = Self.side("a", seeds: seeds, samplesPerSeed: 50)
    let b = Self.side("b", seeds: seeds, meanScale: 6, samplesPerSeed: 50)
    let rule = try RegressionRule.parse("seat.apply_to_response.p99 > +10%", vocabulary: Comparison.vocabulary(a, b))
    let c = Comparison(a, b, rules: [rule])
    #expect(c.underpowered?.seeds == 6 && c.underpowered?.needed == 8)
    #expect(
      c.underpoweredLine
        == "6 paired seed(s) cannot reach alpha 0.01 (the signed-rank test's smallest p is 0.03125; 8 seeds can): "
        + "latencies are decided by the pooled per-sample test")
    #expect(c.latencies[0].pairedTest!.p == 0.03125 && !c.latencies[0].pairedCanDecide)
    #expect(c.latencies[0].deciding?.test == "chi-square over buckets")
    #expect(c.regressed && c.failed)
    #expect(ComparisonReports.markdown(c).contains("cannot reach alpha 0.01"))
    // At a level the six can reach, they decide themselves.
    let loose = Comparison(a, b, rules: [rule], alpha: 0.05)
    #expect(loose.underpowered == nil && loose.latencies[0].pairedCanDecide && loose.regressed)
    // The same build at 6, 12 and 30 seeds: nothing moved, nothing fails.
    for n in [6, 12, 30] {
      let same = (1...n).map { (UInt64($0), 100.0 + Double($0 % 7)) }
      let x = Comparison(
        Self.side("a", seeds: same, samplesPerSeed: 50), Self.side("b", seeds: same, samplesPerSeed: 50), rules: [rule])
      #expect(!x.failed && x.verdictLine == "no significant difference", "\(n) seeds: \(x.verdictLine)")
      #expect((x.underpowered != nil) == (n < 8))
    }
  }

  @Test func aSeedGoingFromPassToFailFailsTheComparisonUnlessAllowed() throws {
    let seeds = (1...10).map { (UInt64($0), 50.0 + Double($0)) }
    let a = Self.side("a", seeds: seeds)
    var b = Self.side("b", seeds: seeds)
    b.seeds[1].verdict = "fail"
    let c = Comparison(a, b)
    #expect(!c.regressed && c.failed)
    #expect(c.newFailures == [.init(seed: 2, a: "pass", b: "fail")])
    #expect(c.verdictLine == "NEW FAILURES: 1 seed(s) went from pass to fail")
    #expect(ComparisonReports.markdown(c).hasPrefix("## ❌"))
    #expect(ComparisonReports.html(c).contains("NEW FAILURES</span>"))
    let allowed = Comparison(a, b, allowVerdictChanges: true)
    #expect(!allowed.failed)
    #expect(allowed.verdictLine == "no significant difference; 1 seed(s) went from pass to fail (allowed)")
    // Fail to pass is an improvement, never a failure.
    let better = Comparison(b, a)
    #expect(!better.failed && better.fixed.count == 1)
    #expect(better.verdictLine == "no significant difference; 1 seed(s) fixed (fail to pass)")
  }

  @Test func verdictChangesAndReportsNameTheRegression() throws {
    let seeds = (1...10).map { (UInt64($0), 50.0 + Double($0)) }
    let a = Self.side("a", seeds: seeds)
    var b = Self.side("b", seeds: seeds, meanScale: 2)
    b.seeds[3].verdict = "fail"
    b.seeds[3].traceHash = "other"
    let rule = try RegressionRule.parse("seat.apply_to_response.p99 > +10%", vocabulary: Comparison.vocabulary(a, b))
    let c = Comparison(a, b, rules: [rule])
    #expect(c.verdictChanges == [.init(seed: 4, a: "pass", b: "fail")])
    #expect(c.divergentSeeds == [4])
    let md = ComparisonReports.markdown(c)
    // Markdown cells escape what could read as HTML; GitHub shows `&gt;` as `>`.
    #expect(md.hasPrefix("## ❌ stampede compare: REGRESSION: seat.apply_to_response.p99 &gt; +10%"))
    #expect(md.contains("- seed 4: pass → **fail**"))
    let html = ComparisonReports.html(c)
    #expect(html.contains("REGRESSION") && html.contains("class=\"curve-a\"") && !html.contains("http"))
  }
}

@Suite struct HistoryStoreTests {
  static func report(seed: UInt64, verdict: String, hash: String, version: String = "0.1.0") -> RunReport {
    var h = Histogram()
    for v in [1_000_000, 2_000_000, 30_000_000] as [UInt64] { h.record(v) }
    return RunReport(
      complete: true, tool: .init(name: "stampede", version: version),
      profile: .init(name: "p", path: "p.json5", sha256: "abc"), seed: seed, seedHex: "0x\(seed)",
      repro: "stampede run p.json5 --seed \(seed)", traceHash: hash, events: 10, simulatedSeconds: 60,
      stopReason: "endTime", wallSeconds: 0.1, peakMemoryBytes: 1,
      population: .init(audience: 1, hosts: 1, admins: 0, callers: 0),
      verdict: verdict, latencies: ["seat.apply_to_response": LatencySummary(h)], counters: ["seat.applied": 3],
      invariants: [], faults: [], thresholds: [],
      meta: .init(startedAt: "2026-12-03T00:00:00Z", speedup: 1, eventsPerSecond: 1, bytesPerUser: 1, allocator: "x"))
  }

  @Test func recordsRoundTripAndFlakySeedsAreClassified() throws {
    let folder = ProcessTool.temporaryFolder()
    let store = try HistoryStore(path: folder.appendingPathComponent("h.sqlite").path)
    let plain = HistoryStore.Provenance(variant: "", gitCommit: "c1", reportPath: nil)
    let first = try store.record(Self.report(seed: 7, verdict: "pass", hash: "aaaa"), plain)
    try store.record(Self.report(seed: 7, verdict: "pass", hash: "aaaa"), plain)
    // Seed 8: one build disagrees with itself (a determinism bug).
    try store.record(Self.report(seed: 8, verdict: "pass", hash: "bbbb"), plain)
    try store.record(Self.report(seed: 8, verdict: "fail", hash: "cccc"), plain)
    // Seed 9: a new version behaves differently (a behaviour change).
    try store.record(Self.report(seed: 9, verdict: "pass", hash: "dddd"), plain)
    try store.record(Self.report(seed: 9, verdict: "fail", hash: "eeee", version: "0.2.0"), plain)
    // Seed 10 under a mistake is a different variant, not a disagreement.
    try store.record(Self.report(seed: 10, verdict: "pass", hash: "ffff"), plain)
    try store.record(
      Self.report(seed: 10, verdict: "fail", hash: "9999"),
      .init(variant: "mistakes=x", gitCommit: "c1", reportPath: nil))
    // Seed 11: two runs of one version, one recorded without its commit: nobody knows the build.
    try store.record(Self.report(seed: 11, verdict: "pass", hash: "1111"), plain)
    try store.record(
      Self.report(seed: 11, verdict: "pass", hash: "2222"), .init(variant: "", gitCommit: nil, reportPath: nil))
    let flaky = try store.flakySeeds()
    #expect(flaky.map(\.seed) == [8, 9, 11])
    #expect(flaky.first { $0.seed == 11 }?.cause == .unknownBuild)
    #expect(flaky.first { $0.seed == 8 }?.cause == .determinismBug)
    #expect(flaky.first { $0.seed == 9 }?.cause == .behaviourChange)
    let entries = try store.entries(profile: "p")
    #expect(entries.count == 10 && entries[0].id == first && entries[0].seed == 7 && entries[0].gitCommit == "c1")
    let side = try #require(try store.side(id: first))
    #expect(
      side.measured.latencies["seat.apply_to_response"]
        == Self.report(seed: 7, verdict: "pass", hash: "").latencies["seat.apply_to_response"])
    #expect(side.measured.counters == ["seat.applied": 3] && side.seeds.map(\.seed) == [7])
  }

  /// One commit, two executables (an app's uncommitted edit between two runs): outcomes that
  /// disagree across build IDs are a behaviour change, not a determinism bug; one build ID that
  /// disagrees with itself is one.
  @Test func theSameCommitWithAnotherBuildIsABehaviourChange() throws {
    let store = try HistoryStore(path: ProcessTool.temporaryFolder().appendingPathComponent("h.sqlite").path)
    func build(_ id: String) -> HistoryStore.Provenance {
      .init(variant: "", gitCommit: "c1", reportPath: nil, buildID: id)
    }
    try store.record(Self.report(seed: 1, verdict: "pass", hash: "aaaa"), build("b1"))
    try store.record(Self.report(seed: 1, verdict: "fail", hash: "bbbb"), build("b2"))
    try store.record(Self.report(seed: 2, verdict: "pass", hash: "cccc"), build("b1"))
    try store.record(Self.report(seed: 2, verdict: "fail", hash: "dddd"), build("b1"))
    let flaky = try store.flakySeeds()
    #expect(flaky.first { $0.seed == 1 }?.cause == .behaviourChange)
    #expect(flaky.first { $0.seed == 2 }?.cause == .determinismBug)
    #expect(flaky.first { $0.seed == 1 }?.outcomes.map(\.buildID) == ["b1", "b2"])
  }

  /// A history written before build IDs were recorded opens, gains the column, and merges into a
  /// new one (its entries without a build ID).
  @Test func aHistoryWithoutBuildIDsOpensAndMerges() throws {
    let folder = ProcessTool.temporaryFolder()
    let oldPath = folder.appendingPathComponent("old.sqlite").path
    let old = try HistoryStore(path: oldPath)
    try old.record(
      Self.report(seed: 3, verdict: "pass", hash: "eeee"), .init(variant: "", gitCommit: "c", reportPath: nil))
    // As the old schema had it: no build_id column.
    try old.db.execute("ALTER TABLE entries DROP COLUMN build_id")
    #expect(try !old.db.columns(of: "entries").contains("build_id"))
    let merged = try HistoryStore(path: folder.appendingPathComponent("new.sqlite").path)
    #expect(try merged.importEntries(from: oldPath) == 1)
    #expect(try merged.entries().map(\.seed) == [3])
    let reopened = try HistoryStore(path: oldPath)
    #expect(try reopened.db.columns(of: "entries").contains("build_id"))
    try reopened.record(
      Self.report(seed: 3, verdict: "fail", hash: "ffff"),
      .init(variant: "", gitCommit: "c", reportPath: nil, buildID: "b"))
    #expect(try reopened.flakySeeds().first?.cause == .behaviourChange)
  }

  @Test func concurrentWritersLoseNothing() throws {
    let path = ProcessTool.temporaryFolder().appendingPathComponent("h.sqlite").path
    _ = try HistoryStore(path: path)
    let failures = LockedCount()
    DispatchQueue.concurrentPerform(iterations: 4) { worker in
      do {
        let store = try HistoryStore(path: path)
        for i in 0..<25 {
          try store.record(
            Self.report(seed: UInt64(worker * 100 + i), verdict: "pass", hash: "h"),
            .init(variant: "", gitCommit: nil, reportPath: nil))
        }
      } catch {
        failures.add()
      }
    }
    #expect(failures.value == 0)
    #expect(try HistoryStore(path: path).entries().count == 100)
  }
}

final class LockedCount: @unchecked Sendable {
  private let lock = NSLock()
  private var n = 0
  func add() { lock.withLock { n += 1 } }
  var value: Int { lock.withLock { n } }
}

/// The command line: a sweep recorded and listed, two sweeps of the same build compared clean, and
/// a planted regression (a slower host) caught.
@Suite(.serialized) struct CompareCommandTests {
  @Test func compareCatchesASlowerThinkTimeAndPassesTheSameBuild() throws {
    let folder = ProcessTool.temporaryFolder()
    let history = folder.appendingPathComponent("history.sqlite").path
    func sweep(_ name: String, _ extra: [String] = []) throws {
      let r = try Tool.run(
        [
          "sweep", "profiles/smoke.json5", "--seeds", "1..10", "--quiet", "--jobs", "2", "--out",
          folder.appendingPathComponent(name).path, "--history", history, "--set", "duration=2m",
        ] + extra)
      // The slower host may fail smoke's latency threshold on a seed (exit 3); the same build not.
      #expect(r.status == 0 || (!extra.isEmpty && r.status == 3), "\(r.stderr)")
    }
    try sweep("a")
    try sweep("b")
    try sweep("slow", ["--set", "host.thinkTime=\"lognormal(4s, 0.6)\""])
    let listed = try Tool.run(["history", "--history", history, "--metric", "seat.apply_to_response.p99"])
    #expect(listed.status == 0)
    #expect(
      listed.stdout.components(separatedBy: "\n").filter {
        $0.contains(" sweep ") && $0.contains(" smoke ") && $0.contains(" 1..10 ")
      }.count == 3, "\(listed.stdout)")
    let rule = "seat.apply_to_response.mean > +10%"
    let same = try Tool.run(
      [
        "compare", folder.appendingPathComponent("a").path, folder.appendingPathComponent("b").path, "--fail-on", rule,
        "--out", folder.appendingPathComponent("same").path,
      ])
    #expect(same.status == 0, "\(same.stdout)\(same.stderr)")
    #expect(same.stdout.hasPrefix("compare: no significant difference"))
    let slow = try Tool.run(
      [
        "compare", "history:1", "history:3", "--history", history, "--fail-on", rule, "--out",
        folder.appendingPathComponent("slow-cmp").path,
      ])
    #expect(slow.status == 3, "\(slow.stdout)\(slow.stderr)")
    #expect(slow.stdout.hasPrefix("compare: REGRESSION: seat.apply_to_response.mean > +10%"))
    let md = try String(contentsOf: folder.appendingPathComponent("slow-cmp/compare.md"), encoding: .utf8)
    #expect(md.contains("Wilcoxon signed-rank over seeds"))
    let bad = try Tool.run([
      "compare", "history:1", "history:3", "--history", history, "--fail-on", "seat.nope.p99 > +1%",
    ])
    #expect(bad.status == 2 && bad.stderr.contains("unknown latency 'seat.nope'"), "\(bad.stderr)")
  }

  /// A sixfold slower host over six seeds: the seeds are too few for the paired test (said), the
  /// pooled samples find the regression, and the seeds that now fail fail the comparison too.
  @Test func aPlantedRegressionOverSixSeedsExitsThree() throws {
    let folder = ProcessTool.temporaryFolder()
    func sweep(_ name: String, seeds: String, _ extra: [String] = []) throws -> String {
      let out = folder.appendingPathComponent(name).path
      let history = folder.appendingPathComponent("history.sqlite").path
      let r = try Tool.run(
        ["sweep", "profiles/smoke.json5", "--seeds", seeds, "--quiet", "--out", out, "--history", history] + extra)
      // The slower host fails smoke's latency threshold (exit 3).
      #expect(r.status == 0 || r.status == 3, "\(r.stderr)")
      return out + "/summary.json"
    }
    func compare(_ a: String, _ b: String, _ extra: [String]) throws -> (status: Int32, stdout: String, stderr: String)
    {
      try Tool.run(["compare", a, b, "--out", folder.appendingPathComponent("cmp").path] + extra)
    }
    let a = try sweep("a", seeds: "1..6")
    let c = try sweep("c", seeds: "1..6", ["--set", "host.thinkTime=lognormal(12s, 0.6)"])
    let rule = ["--fail-on", "seat.apply_to_response.p99 > +10%"]
    let planted = try compare(a, c, rule)
    #expect(planted.status == 3, "\(planted.stdout)")
    #expect(planted.stdout.contains("6 paired seed(s) cannot reach alpha 0.01"), "\(planted.stdout)")
    #expect(planted.stdout.contains("rule seat.apply_to_response.p99 > +10%: +"), "\(planted.stdout)")
    #expect(planted.stdout.contains(": REGRESSION"), "\(planted.stdout)")
    // The seeds that went from pass to fail fail it without any rule, unless allowed.
    let verdicts = try compare(a, c, [])
    #expect(verdicts.status == 3 && verdicts.stdout.contains("went from pass to fail"), "\(verdicts.stdout)")
    #expect(try compare(a, c, ["--allow-verdict-changes"]).status == 0)
    // Two sweeps of the same build pass at 6, 12 and 30 seeds (short runs, to keep the suite fast).
    for n in [6, 12, 30] {
      let short = ["--set", "duration=10s"]
      let x = try sweep("x\(n)", seeds: "1..\(n)", short)
      let y = try sweep("y\(n)", seeds: "1..\(n)", short + ["--jobs", "2"])
      let same = try compare(x, y, rule)
      #expect(same.status == 0, "\(n) seeds: \(same.stdout)")
      #expect(same.stdout.contains("cannot reach alpha") == (n < 8), "\(n) seeds: \(same.stdout)")
    }
  }

  /// deploy/nightly-gate.sh, the nightly recipe's last step: the first night passes with nothing to
  /// compare, a night like the last passes, a slower one exits 3, an unknown profile 2.
  @Test func theNightlyGateComparesTonightWithTheLastNight() throws {
    let folder = ProcessTool.temporaryFolder()
    let history = folder.appendingPathComponent("history.sqlite").path
    func night(_ extra: [String] = []) throws {
      let r = try Tool.run(
        [
          "sweep", "profiles/smoke.json5", "--seeds", "1..8", "--quiet", "--recheck", "25%", "--history", history,
          "--out", folder.appendingPathComponent("night").path, "--set", "duration=1m",
        ] + extra)
      #expect(r.status == 0 || r.status == 3, "\(r.stderr)")
    }
    func gate(_ profile: String) throws -> (status: Int32, output: String) {
      let outURL = folder.appendingPathComponent("gate-\(profile).txt")
      FileManager.default.createFile(atPath: outURL.path, contents: nil)
      let p = Process()
      p.executableURL = repositoryRoot.appendingPathComponent("deploy/nightly-gate.sh")
      p.arguments = [
        history, profile, folder.appendingPathComponent("compare").path, "seat.apply_to_response.p99 > +10%",
      ]
      p.environment = ProcessInfo.processInfo.environment.merging(["STAMPEDE": Tool.binary.path]) { $1 }
      let out = try FileHandle(forWritingTo: outURL)
      p.standardOutput = out
      p.standardError = out
      try p.run()
      p.waitUntilExit()
      return (p.terminationStatus, try String(contentsOf: outURL, encoding: .utf8))
    }
    try night()
    let first = try gate("smoke")
    #expect(first.status == 0 && first.output.contains("nothing to compare it with yet"), "\(first.output)")
    try night()
    let same = try gate("smoke")
    #expect(same.status == 0 && same.output.contains("comparing sweep #2 of 'smoke' with #1"), "\(same.output)")
    try night(["--set", "host.thinkTime=lognormal(12s, 0.6)"])
    let slower = try gate("smoke")
    #expect(slower.status == 3 && slower.output.contains("REGRESSION"), "\(slower.output)")
    let unknown = try gate("nope")
    #expect(unknown.status == 2 && unknown.output.contains("holds no sweep of profile 'nope'"), "\(unknown.output)")
  }

  @Test func twoRunsOfOneSeedNameTheirFirstDivergentEvent() throws {
    let folder = ProcessTool.temporaryFolder()
    func run(_ name: String, _ extra: [String]) throws {
      let r = try Tool.run(
        [
          "run", "profiles/smoke.json5", "--quiet", "--duration", "2m", "--out",
          folder.appendingPathComponent(name).path,
        ]
          + extra)
      #expect(r.status == 0, "\(r.stderr)")
    }
    try run("a", [])
    try run("b", ["--set", "host.thinkTime=\"lognormal(4s, 0.6)\""])
    let r = try Tool.run(
      [
        "compare", folder.appendingPathComponent("a").path, folder.appendingPathComponent("b").path, "--out",
        folder.appendingPathComponent("cmp").path,
      ])
    #expect(r.status == 0)
    #expect(r.stdout.contains("first divergent event: first divergent event #"), "\(r.stdout)")
    let same = try Tool.run(
      [
        "compare", folder.appendingPathComponent("a").path, folder.appendingPathComponent("a").path, "--out",
        folder.appendingPathComponent("cmp2").path,
      ])
    #expect(same.stdout.contains("none: both runs execute the same"), "\(same.stdout)")
  }
}

@Suite struct ShardHistoryTests {
  @Test func mergeGathersTheShardsHistoriesAndRecordsTheWholeSweep() throws {
    let folder = ProcessTool.temporaryFolder()
    let history = folder.appendingPathComponent("history.sqlite").path
    for k in 1...2 {
      let r = try Tool.tool.runRecording(
        [
          "sweep", "profiles/smoke.json5", "--seeds", "1..4", "--shard", "\(k)/2", "--quiet", "--out",
          folder.appendingPathComponent("shard-\(k)").path,
        ])
      #expect(r.status == 0, "\(r.stderr)")
      // With no --history, a shard records beside its summary.
      #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("shard-\(k)/history.sqlite").path))
    }
    // The test tool switches history off by default; the merge names a file.
    let merged = try Tool.run(
      [
        "merge", folder.appendingPathComponent("shard-1/summary.json").path,
        folder.appendingPathComponent("shard-2/summary.json").path, "--out",
        folder.appendingPathComponent("all/summary.json").path,
        "--history", history,
      ])
    #expect(merged.status == 0, "\(merged.stderr)")
    #expect(merged.stdout.contains("history: 2 shard entries gathered"), "\(merged.stdout)")
    let store = try HistoryStore(path: history, create: false)
    let entries = try store.entries()
    #expect(entries.map(\.kind) == ["shard", "shard", "sweep"])
    #expect(entries.last?.seedsFrom == 1 && entries.last?.seedsTo == 4 && entries.last?.verdict == "pass")
    // Gathering again copies nothing twice.
    #expect(try store.importEntries(from: folder.appendingPathComponent("shard-1/history.sqlite").path) == 0)
  }
}

@Suite struct IntervalSeriesTests {
  @Test func eachIntervalHoldsOnlyItsOwnSamples() {
    var m = LiveMetrics()
    var series = IntervalSeries(m)
    for _ in 0..<100 { m.latencies[LiveMetrics.applyToResponse].record(UInt64(1_000_000)) }
    m.counters.add(m.applications, 100)
    series.sample(m, atNs: 10_000_000_000)
    series.sample(m, atNs: 20_000_000_000)
    for _ in 0..<100 { m.latencies[LiveMetrics.applyToResponse].record(UInt64(50_000_000)) }
    m.counters.add(m.applications, 30)
    series.sample(m, atNs: 30_000_000_000)
    let k = IntervalSeries.latencyIndices.firstIndex(of: LiveMetrics.applyToResponse)!
    func midpoint(_ v: UInt64) -> Int64 {
      let i = Histogram.bucketIndex(v)
      return Int64(Histogram.bucketLowerBound(i) + Histogram.bucketWidth(i) / 2)
    }
    // The third interval's median is 50 ms although the whole run's is 1 ms; the empty one has none.
    #expect(series.p50[k] == [midpoint(1_000_000), -1, midpoint(50_000_000)])
    #expect(series.p99[k] == [midpoint(1_000_000), -1, midpoint(50_000_000)])
    let c = IntervalSeries.counterNames.firstIndex(of: "seat.applications")!
    #expect(series.increases[c] == [100, 0, 30])
  }

  @Test func aRunsRatesAddUpToItsCountersAndItsPercentilesStayInRange() throws {
    let (profile, data) = try repositoryProfile("smoke.json5")
    let run = SimulationRun(profile: profile, profilePath: "p", profileData: data, seed: 3, duration: .minutes(4))
    let report = run.report(run.execute(), startedAt: Date())
    let ts = try #require(report.timeSeries)
    let rates = try #require(ts.rates)
    var previous = 0.0
    let seconds = ts.timesMs.map { t in
      defer { previous = t }
      return (t - previous) / 1000
    }
    for name in IntervalSeries.counterNames {
      let total = zip(rates[name]!, seconds).reduce(0) { $0 + $1.0 * $1.1 }
      // Counted until the last sample; the counter runs on to the end (at most one interval more).
      #expect(total <= Double(report.counters[name]!) + 0.5, "\(name)")
      #expect(total >= Double(report.counters[name]!) * 0.8 - 1, "\(name): \(total) of \(report.counters[name]!)")
    }
    let apply = try #require(ts.latencies?["seat.apply_to_response"])
    #expect(apply.p99Ms.compactMap { $0 }.count > 5)
    for (p50, p99) in zip(apply.p50Ms, apply.p99Ms) {
      #expect((p50 == nil) == (p99 == nil))
      if let p50, let p99 { #expect(p50 <= p99 && p99 <= report.latencies["seat.apply_to_response"]!.maxMs! * 1.01) }
    }
  }
}

/// Same-instant deliveries to one client as one event, request timeouts as one timer per timeout
/// length, and a viewer's arrival and app start as one event: fewer events, the same results.
@Suite struct DownlinkBatchTests {
  /// Counters, latency buckets, invariant results and resource figures of a report: everything it
  /// decided, without the events and the trace hash, which batching changes.
  static func results(_ r: RunReport) throws -> String {
    var copy = r
    copy.events = 0
    copy.traceHash = ""
    copy.wallSeconds = 0
    copy.peakMemoryBytes = 0
    copy.meta = .init(startedAt: "", speedup: 0, eventsPerSecond: 0, bytesPerUser: 0, allocator: "")
    copy.invariants = copy.invariants.map { i in
      var i = i
      i.first?.excerpt = []
      return i
    }
    return String(decoding: try copy.jsonData(), as: UTF8.self)
  }

  /// Chaos (duplicates, reordering, late answers, partitions) and the client mistakes, where
  /// deliveries interleave most.
  static let wide: [(String, UInt64)] =
    (1...3).map { ("nightly-chaos.json5", UInt64($0)) } + (1...2).map { ("mistakes.json5", UInt64($0)) }
    + [("flash-crowd.json5", 2)]

  /// A profile of each kind in `make test`; every pair in `make test-long`.
  static let batchingCases: [(String, UInt64)] =
    longTestsEnabled
    ? wide + [
      ("smoke.json5", UInt64(1)), ("smoke.json5", 7), ("seat-rush.json5", 2), ("nightly-chaos.json5", 1),
      ("nightly-chaos.json5", 5), ("call-storm.json5", 3), ("flash-crowd-staffing.json5", 1),
    ]
    : [
      ("nightly-chaos.json5", 1), ("mistakes.json5", 1), ("smoke.json5", 7), ("call-storm.json5", 3),
      ("flash-crowd-staffing.json5", 1),
    ]

  @Test(arguments: batchingCases)
  func batchingChangesNoResultAndSavesEvents(profile name: String, seed: UInt64) throws {
    let (profile, data) = try repositoryProfile(name)
    var run = SimulationRun(profile: profile, profilePath: "p", profileData: data, seed: seed, duration: .minutes(5))
    let batched = run.report(run.execute(), startedAt: Date())
    run.coalescesEvents = false
    let single = run.report(run.execute(), startedAt: Date())
    #expect(
      batched.events < single.events, "\(name) seed \(seed): \(batched.events) events batched, \(single.events) not")
    #expect(try Self.results(batched) == Self.results(single), "\(name) seed \(seed)")
  }

  /// The viewers who arrive over time start their apps in their arrivals' events, which name
  /// them; with the savings off, each arrival is followed by its own `clientStart`.
  @Test func anArrivingViewerStartsInItsArrivalsEvent() throws {
    let (profile, data) = try repositoryProfile("smoke.json5")
    var run = SimulationRun(profile: profile, profilePath: "p", profileData: data, seed: 3, duration: .minutes(5))
    func starts(_ run: SimulationRun) -> (arrived: [UInt32], started: [UInt32], layout: Layout) {
      let recorder = TraceRecorder(filter: TraceFilter(), jsonl: nil, keep: true)
      let result = run.execute(observer: recorder)
      func users(_ kind: String) -> [UInt32] {
        recorder.records.filter { $0.description.kind == kind }.map { $0.description.users[0] }
      }
      return (users("arrival"), users("clientStart"), result.world.layout)
    }
    let fused = starts(run)
    let layout = fused.layout
    // Smoke's viewers arrive over two minutes: all of them within the five.
    let viewers = (0..<UInt32(layout.rooms)).flatMap { Array(layout.audience(of: $0)) }
    #expect(!viewers.isEmpty)
    #expect(fused.arrived.sorted() == viewers.sorted())
    #expect(fused.started.allSatisfy { layout.role(of: $0) != .audience || layout.isPhone($0) })
    run.coalescesEvents = false
    let single = starts(run)
    #expect(single.arrived == fused.arrived)
    #expect(single.started.count == fused.started.count + viewers.count)
    #expect(Set(single.started).isSuperset(of: viewers))
  }
}

@Suite struct TrendPageTests {
  @Test func thePageChartsTheMetricMarksFailuresAndListsDisagreeingSeeds() {
    let points = [
      TrendPage.Point(
        id: 1, recordedAt: "2026-12-01T00:00:00Z", kind: "sweep", seeds: "1..10", build: "0.1.0 @abc", verdict: "pass",
        value: 120, reportPath: "a/summary.json"),
      TrendPage.Point(
        id: 2, recordedAt: "2026-12-02T00:00:00Z", kind: "sweep", seeds: "1..10", build: "0.1.0 @def", verdict: "fail",
        value: 180, reportPath: nil),
      TrendPage.Point(
        id: 3, recordedAt: "2026-12-03T00:00:00Z", kind: "run", seeds: "4", build: "0.1.0 @def", verdict: "pass",
        value: nil, reportPath: nil),
    ]
    let html = TrendPage.render(
      title: "stampede history: p", metric: "seat.apply_to_response.p99", timeValued: true, points: points,
      flaky: ["determinism bug: p seed 4: …"])
    #expect(html.contains("3 recorded run(s), 1 not passing"))
    #expect(html.contains("1 seed(s) with disagreeing outcomes"))
    // Two dots (the third entry has no value), the failing one red; newest first in the table.
    #expect(html.components(separatedBy: "<circle").count - 1 == 2)
    #expect(html.contains("class=\"miss\"") && html.contains("class=\"hit\""))
    #expect(html.range(of: "<td class=\"n\">3</td>")!.lowerBound < html.range(of: "<td class=\"n\">1</td>")!.lowerBound)
    #expect(html.contains("<a href=\"a/summary.json\">"))
    #expect(html.contains("180.0 ms") && !html.contains("http"))
  }
}

@Suite struct SweepVariantTests {
  @Test func shardsRunUnderDifferentMistakesAreNotMergedAndTheVariantIsKept() throws {
    let folder = ProcessTool.temporaryFolder()
    func shard(_ k: Int, _ extra: [String]) throws {
      let r = try Tool.run(
        [
          "sweep", "profiles/smoke.json5", "--seeds", "1..2", "--shard", "\(k)/2", "--quiet", "--set",
          "duration=\"2m\"",
          "--out", folder.appendingPathComponent("s\(k)").path,
        ] + extra)
      #expect([0, 1, 3].contains(r.status), "\(r.stderr)")
    }
    try shard(1, ["--mistake", "host.stale-applicants"])
    try shard(2, [])
    let paths = [1, 2].map { folder.appendingPathComponent("s\($0)/summary.json").path }
    let refused = try Tool.run(["merge"] + paths + ["--out", folder.appendingPathComponent("m/summary.json").path])
    #expect(refused.status == 2)
    #expect(refused.stderr.contains("different mistakes, quirks or apps"), "\(refused.stderr)")
    try shard(2, ["--mistake", "host.stale-applicants"])
    let merged = try Tool.run(["merge"] + paths + ["--out", folder.appendingPathComponent("m/summary.json").path])
    #expect([0, 1, 3].contains(merged.status), "\(merged.stderr)")
    let summary = try JSONDecoder().decode(
      SweepSummary.self, from: Data(contentsOf: folder.appendingPathComponent("m/summary.json")))
    #expect(summary.variant == "mistakes=host.stale-applicants")
  }
}
