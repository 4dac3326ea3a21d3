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

  func smoke(_ sets: [String], seed: UInt64 = 1) throws -> RunReport {
    let path = repositoryRoot.appendingPathComponent("profiles/smoke.json5").path
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    let profile = try Profile.parse(data, overrides: try sets.map(Profile.parseSet))
    let run = SimulationRun(
      profile: profile, profilePath: "profiles/smoke.json5", profileData: data, seed: seed, duration: .minutes(4),
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

  @Test func pctIsRefusedOutOfRangeAndWrittenIntoTheReproLine() throws {
    let bad = try Tool.run(["run", "profiles/smoke.json5", "--pct", "65", "--history", "off"])
    #expect(bad.status == 2 && bad.stderr.contains("--pct: expected a whole number of change points from 0 to 64"))
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
