import Foundation
import Testing

@testable import Metrics
@testable import Oracles
@testable import Reports
@testable import Scenario

@Suite struct ThresholdTests {
  @Test(arguments: [
    ("seat.apply_to_response.p99 < 3s", 3000.0, Threshold.Comparison.less),
    ("seat.apply_to_response.p50<=250ms", 250, .lessOrEqual),
    ("  seat.accept_to_connected.max >= 1.5m ", 90_000, .greaterOrEqual),
    ("seat.invite_to_response.mean > 800us", 0.8, .greater),
    ("login.to_room.p999 == 20ns", 0.00002, .equal),
    ("seat.apply_to_response.count > 10", 10, .greater),
    ("counter.seat.rejected.seat_limit <= 100", 100, .lessOrEqual),
    ("counter.errors.alreadyProcessed == 0", 0, .equal),
    ("invariants.violations == 0", 0, .equal),
    ("invariants.seat.capacity.violations == 0", 0, .equal),
    ("invariants.seat.capacity < 1", 1, .less),
  ])
  func parses(text: String, bound: Double, comparison: Threshold.Comparison) throws {
    let t = try Threshold.parse(text)
    #expect(abs(t.bound - bound) <= bound * 1e-12)
    #expect(t.comparison == comparison)
    #expect(t.expression == text.trimmingCharacters(in: .whitespaces))
  }

  @Test func subjectsAreTheRightKind() throws {
    #expect(
      try Threshold.parse("seat.apply_to_response.p99 < 3s").subject
        == .latency(name: "seat.apply_to_response", statistic: .p99))
    #expect(try Threshold.parse("counter.seat.connected > 0").subject == .counter(name: "seat.connected"))
    #expect(try Threshold.parse("invariants.violations == 0").subject == .violations(invariant: nil))
    #expect(try Threshold.parse("invariants.seat.capacity == 0").subject == .violations(invariant: "seat.capacity"))
  }

  @Test(arguments: [
    ("seat.apply_to_response.p99", "expected METRIC OP VALUE"),
    ("seat.apply_to_response.p99 <", "expected METRIC OP VALUE"),
    ("< 3s", "expected METRIC OP VALUE"),
    ("seat.apply_to_response.p99 < 3s < 4s", "more than one operator"),
    (
      "seat.apply_to_respons.p99 < 3s",
      "unknown latency 'seat.apply_to_respons' (did you mean 'seat.apply_to_response'?)"
    ),
    (
      "seat.apply_to_response.p95 < 3s",
      "unknown statistic 'p95' (expected one of count, mean, p50, p90, p99, p999, max)"
    ),
    ("seat.apply_to_response.p99 < 3", "expected a time with a unit (ns, us, ms, s, m)"),
    ("seat.apply_to_response.p99 < 3h", "expected a time with a unit"),
    ("seat.apply_to_response.p99 < -3s", "expected a time with a unit"),
    ("seat.apply_to_response.count < 3s", "expected a plain number (no unit)"),
    ("counter.seat.conected > 0", "unknown counter 'seat.conected' (did you mean 'seat.connected'?)"),
    ("counter.seat.connected > 1ms", "expected a plain number (no unit)"),
    ("invariants.seat.nothing == 0", "unknown invariant 'seat.nothing'"),
    ("p99 < 3s", "expected LATENCY.STAT"),
  ])
  func refuses(text: String, fragment: String) {
    do {
      _ = try Threshold.parse(text)
      Issue.record("\(text) parsed")
    } catch {
      #expect(error.message.contains(fragment), "\(error.message)")
    }
  }

  @Test func everyComparisonEvaluatesAndAnEmptyLatencyPasses() throws {
    let cases: [(String, Double, Bool)] = [
      ("counter.seat.connected < 5", 4, true), ("counter.seat.connected < 5", 5, false),
      ("counter.seat.connected <= 5", 5, true), ("counter.seat.connected <= 5", 6, false),
      ("counter.seat.connected > 5", 6, true), ("counter.seat.connected > 5", 5, false),
      ("counter.seat.connected >= 5", 5, true), ("counter.seat.connected >= 5", 4, false),
      ("counter.seat.connected == 5", 5, true), ("counter.seat.connected == 5", 4, false),
    ]
    for (text, value, passes) in cases {
      #expect(try Threshold.parse(text).passes(value) == passes, "\(text) at \(value)")
    }
    #expect(try Threshold.parse("seat.apply_to_response.p99 < 3s").passes(nil))
  }

  @Test func aProfileWithABadThresholdNamesItsIndexAndReason() {
    let e = TestProfile(minimalProfile).with(
      "thresholds", ["invariants.violations == 0", "seat.apply_to_response.p99 < 3 s"]
    ).error
    #expect(e?.path == "thresholds[1]")
    #expect(e?.message.contains("expected a time with a unit") == true)
    #expect(e?.message.contains("in \"seat.apply_to_response.p99 < 3 s\"") == true)
  }

  // MARK: Evaluation against a report

  @Test func aReportEvaluatesItsThresholdsAndSettlesTheVerdictAndExitStatus() throws {
    var r = sampleReport()
    r.evaluate([
      try Threshold.parse("seat.apply_to_response.p99 < 3s"), try Threshold.parse("counter.seat.connected > 0"),
    ])
    #expect(r.thresholds.map(\.passed) == [true, true])
    #expect(r.thresholds[0].unit == "ms" && r.thresholds[0].value == 2500)
    #expect(r.thresholds[1].unit == nil && r.thresholds[1].value == 7)
    #expect(r.verdict == "pass" && r.exitStatus == 0)

    r.evaluate([try Threshold.parse("seat.apply_to_response.p99 < 2s")])
    #expect(r.verdict == "fail" && r.exitStatus == 3)

    r.invariants[0].violations = 2
    r.evaluate([
      try Threshold.parse("seat.apply_to_response.p99 < 2s"), try Threshold.parse("invariants.violations == 0"),
    ])
    #expect(r.thresholds.map(\.passed) == [false, false])
    #expect(r.thresholds[1].value == 2)
    #expect(r.verdict == "fail" && r.exitStatus == 1)
  }
}

/// A small report with one latency (p99 2.5 s), a counter and the seat invariants, for writer tests.
func sampleReport(name: String = "sample", repro: String = "stampede run profiles/sample.json5 --seed 0x1") -> RunReport
{
  var latency = LatencySummary(Histogram())
  latency.count = 100
  latency.p50Ms = 120
  latency.p90Ms = 900
  latency.p99Ms = 2500
  latency.p999Ms = 2900
  latency.maxMs = 3000
  latency.meanMs = 300
  return RunReport(
    complete: true, tool: .init(name: "stampede", version: "0.1.0"),
    profile: .init(name: name, path: "profiles/sample.json5", sha256: String(repeating: "ab", count: 32)), seed: 1,
    seedHex: "0x1", repro: repro, traceHash: "0123456789abcdef", events: 1234, simulatedSeconds: 60,
    stopReason: "endTime", wallSeconds: 0.5, peakMemoryBytes: 1 << 20,
    population: .init(audience: 10, hosts: 1, admins: 0, callers: 0), verdict: "pass",
    latencies: ["seat.apply_to_response": latency], counters: ["seat.connected": 7, "seat.applications": 0],
    invariants: Checker.catalogue.map {
      RunReport.InvariantResult(
        id: $0.id, kind: $0.kind.rawValue, violations: 0, description: $0.description, first: nil)
    }, faults: [], thresholds: [],
    meta: .init(startedAt: "2026-01-01T00:00:00Z", speedup: 1, eventsPerSecond: 1, bytesPerUser: 1, allocator: "x"))
}
