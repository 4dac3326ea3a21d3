import Foundation
import Testing

@testable import Chaos
@testable import Profiles
@testable import Reports
@testable import Runner
@testable import Scenario
@testable import SimKernel

/// `network.ties` and `network.pct`: racing deliveries ordered by the seed, and PCT-style change
/// points that hold one user back.
@Suite struct DeliveryOrderTests {
  func at(_ ms: Int64) -> SimInstant { .zero + .milliseconds(ms) }

  @Test func seededTiesShiftEachUserByAConstantBelowAMicrosecond() {
    var g = SplitMix64(seed: 7)
    var order = DeliveryOrder(
      seededTies: true, depth: 0, window: .seconds(5), delay: .milliseconds(200), users: 50, healNs: 0, random: &g)
    #expect(order.active)
    let shifts = (0..<UInt32(50)).map { order.extraNs(to: $0, at(10)) }
    #expect(shifts.allSatisfy { (0..<1000).contains($0) })
    #expect(Set(shifts).count > 30, "users are ordered by the seed, not all alike")
    // Constant per user: its own channel keeps its order.
    #expect((0..<UInt32(50)).map { order.extraNs(to: $0, at(99_000)) } == shifts)
  }

  @Test func aChangePointHoldsBackTheUserTheNextDeliveryGoesToForItsWindow() {
    var g = SplitMix64(seed: 3)
    var order = DeliveryOrder(
      seededTies: false, depth: 2, window: .seconds(5), delay: .milliseconds(200), users: 10,
      healNs: SimDuration.minutes(8).nanoseconds, random: &g)
    #expect(order.active && order.points.count == 2)
    #expect(order.points[0].startNs <= order.points[1].startNs)
    #expect(order.points.allSatisfy { $0.startNs < SimDuration.minutes(8).nanoseconds && $0.user == .max })
    let start = order.points[0].startNs / 1_000_000 + 1
    // Before the change point nobody is held back.
    #expect(order.extraNs(to: 4, at(start - 2)) == 0)
    // The first delivery after it names its user, who is then held back for the window.
    #expect(order.extraNs(to: 4, at(start)) == 200_000_000)
    #expect(order.points[0].user == 4)
    #expect(order.extraNs(to: 5, at(start + 10)) == 0)
    #expect(order.extraNs(to: 4, at(start + 4_000)) == 200_000_000)
    #expect(order.extraNs(to: 4, at(start + 5_000)) == 0, "the window has passed")
    // Off, nothing moves.
    var off = DeliveryOrder()
    #expect(!off.active && off.extraNs(to: 4, at(start)) == 0)
  }

  func smoke(_ sets: [String], seed: UInt64 = 1, profile name: String = "smoke", minutes: Int64 = 4) throws
    -> RunReport
  {
    let path = repositoryRoot.appendingPathComponent("profiles/\(name).json5").path
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    let profile = try Profile.parse(data, overrides: try sets.map(Profile.parseSet))
    let run = SimulationRun(
      profile: profile, profilePath: "profiles/\(name).json5", profileData: data, seed: seed,
      duration: .minutes(minutes),
      overrides: sets)
    return run.report(run.execute(), startedAt: Date())
  }

  @Test func orderingsAreReproducibleChangeTheRunAndTheBuiltInClientsStayCorrect() throws {
    let plain = try smoke([])
    for sets in [["network.ties=seeded"], ["network.pct=4"], ["network.ties=seeded", "network.pct=4"]] {
      let a = try smoke(sets)
      let b = try smoke(sets)
      #expect(a.traceHash == b.traceHash, "\(sets)")
      #expect(a.traceHash != plain.traceHash, "\(sets) changed nothing")
      #expect(a.verdict == "pass", "\(sets): \(a.failures)")
      #expect(a.repro.contains("--set network."))
    }
    // Off, as set explicitly, is the default run.
    #expect(try smoke(["network.ties=fifo", "network.pct=0"]).traceHash == plain.traceHash)
  }

  func profile(_ sets: [String], swarm: Bool) throws -> Profile {
    try Profile.parse(
      Data(minimalProfile.utf8), overrides: (sets + (swarm ? ["faults=swarm"] : [])).map(Profile.parseSet))
  }

  @Test func aSwarmPlanDrawsEachSeedsOrderAndAProfileThatSetsItKeepsIt() throws {
    let swarm = try profile([], swarm: true)
    let draws = (1...400).map { swarm.ordering(seed: UInt64($0)) }
    // Seeded ties on half the seeds; depth 0 on half, 1 on a quarter, 2 and 3 on an eighth each
    // (each band about four standard deviations wide).
    #expect((160...240).contains(draws.filter(\.seededTies).count))
    let depths = Dictionary(grouping: draws, by: \.depth).mapValues(\.count)
    #expect(depths.keys.sorted() == [0, 1, 2, 3])
    #expect((160...240).contains(depths[0]!) && (65...135).contains(depths[1]!), "\(depths)")
    #expect((25...75).contains(depths[2]!) && (25...75).contains(depths[3]!), "\(depths)")
    // Without a swarm plan: in the order sent, no change points.
    let plain = try profile([], swarm: false)
    #expect((1...50).allSatisfy { plain.ordering(seed: UInt64($0)) == (false, 0) })
    // One setting fixed: it is kept, and the other is drawn as before.
    let fifo = try profile(["network.ties=fifo"], swarm: true)
    let deep = try profile(["network.pct=5"], swarm: true)
    let drawn = try profile(["network.ties=drawn", "network.pct=drawn"], swarm: false)
    for seed in UInt64(1)...50 {
      #expect(fifo.ordering(seed: seed) == (false, swarm.ordering(seed: seed).depth))
      #expect(deep.ordering(seed: seed) == (swarm.ordering(seed: seed).seededTies, 5))
      #expect(drawn.ordering(seed: seed) == swarm.ordering(seed: seed), "\"drawn\" draws without a swarm too")
    }
    // Anything else is refused, naming the key.
    #expect {
      try profile(["network.pct=often"], swarm: false)
    } throws: {
      ($0 as? ProfileError)?.description.contains(#"network.pct: expected a whole number from 0 to 64 or "drawn""#)
        == true
    }
    #expect {
      try profile(["network.ties=random"], swarm: false)
    } throws: {
      ($0 as? ProfileError)?.description.contains(#"network.ties: expected one of "fifo", "seeded", "drawn""#) == true
    }
  }

  @Test func aSwarmRunDrawsItsOrderAndTheBuiltInClientsStayCorrect() throws {
    // A seed that draws seeded ties and a change point.
    let swarm = try profile([], swarm: true)
    let seed = try #require((UInt64(1)...100).first { swarm.ordering(seed: $0) == (true, 1) })
    func run(_ sets: [String]) throws -> RunReport { try smoke(sets, seed: seed, profile: "swarm-chaos", minutes: 8) }
    let drawnRun = try run([])
    let fixed = try run(["network.ties=fifo", "network.pct=0"])
    #expect(drawnRun.traceHash != fixed.traceHash, "the drawn order changed nothing")
    #expect(drawnRun.traceHash == (try run(["network.ties=seeded", "network.pct=1"])).traceHash)
    #expect(drawnRun.verdict == "pass", "\(drawnRun.failures)")
    #expect(fixed.verdict == "pass", "\(fixed.failures)")
  }

  @Test func pctIsRefusedOutOfRangeAndWrittenIntoTheReproLine() throws {
    let bad = try Tool.run(["run", "profiles/smoke.json5", "--pct", "65", "--history", "off"])
    #expect(bad.status == 2 && bad.stderr.contains("--pct: expected a whole number of change points from 0 to 64"))
    let drawn = try Tool.run([
      "run", "profiles/smoke.json5", "--pct", "drawn", "--history", "off", "--duration", "1m", "--out",
      Tool.temporaryFolder().appendingPathComponent("drawn").path,
    ])
    #expect(drawn.status == 0 && drawn.stdout.contains("--set network.pct=drawn"), "\(drawn.stdout)\(drawn.stderr)")
    let folder = Tool.temporaryFolder().appendingPathComponent("pct")
    let r = try Tool.run([
      "sweep", "profiles/smoke.json5", "--seeds", "1..2", "--pct", "3", "--jobs", "1", "--quiet", "--history", "off",
      "--out", folder.path, "--set", "duration=2m",
    ])
    #expect(r.status == 0 || r.status == 3, "\(r.stderr)")
    let summary =
      try JSONSerialization.jsonObject(
        with: Data(contentsOf: folder.appendingPathComponent("summary.json"))) as! [String: Any]
    let runs = summary["runs"] as! [[String: Any]]
    #expect(runs.count == 2)
    #expect(runs.allSatisfy { ($0["repro"] as! String).hasSuffix("--set network.pct=3") })
  }
}
