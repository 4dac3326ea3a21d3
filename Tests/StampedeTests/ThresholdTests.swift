import Foundation
import Testing

@testable import Metrics
@testable import Oracles
@testable import Profiles
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
    ("seat.apply_to_response.p95 < 2s", 2000, .less),
    ("seat.apply_to_response.p99.9 <= 4s", 4000, .lessOrEqual),
    ("seat.apply_to_response.min > 1ms", 1, .greater),
    ("counter.seat.applications/s < 500", 500, .less),
    ("counter.seat.applications/s < 12.5/s", 12.5, .less),
    ("counter.seat.rejected.all_taken / counter.seat.applications < 5%", 0.05, .less),
    ("counter.seat.rejected.all_taken/counter.seat.applications <= 0.25", 0.25, .lessOrEqual),
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
    #expect(
      try Threshold.parse("counter.seat.applications/s > 1").subject == .rate(counter: "seat.applications"))
    #expect(
      try Threshold.parse("counter.seat.rejected.all_taken / counter.seat.applications < 5%").subject
        == .ratio(numerator: "seat.rejected.all_taken", denominator: "seat.applications"))
  }

  @Test(
    arguments: [
      ("p50", 50, 100, "50"), ("p95", 95, 100, "95"), ("p99.9", 999, 1000, "99.9"), ("p999", 999, 1000, "99.9"),
      ("p99.99", 9999, 10000, "99.99"), ("p100", 100, 100, "100"), ("p0.5", 5, 1000, "0.5"),
      ("p12.50", 1250, 10000, "12.5"),
    ] as [(String, UInt64, UInt64, String)])
  func anyPercentileIsAnExactFraction(text: String, parts: UInt64, per: UInt64, spelled: String) throws {
    let t = try Threshold.parse("seat.apply_to_response.\(text) < 1s")
    guard case .latency(_, .percentile(let p)) = t.subject else {
      Issue.record("\(text) is not a percentile")
      return
    }
    #expect(p.parts == parts && p.per == per)
    #expect(p.description == spelled)
  }

  @Test func anExactQuantileRanksWithoutRounding() {
    var h = Histogram()
    // 1000 samples: 999 of 1 ms and one of 1 s. The 99.9th percentile is the 999th smallest
    // (1 ms); a floating-point rank could as well land on the 1000th.
    for _ in 0..<999 { h.record(1_000_000) }
    h.record(1_000_000_000)
    #expect(h.quantile(parts: 999, per: 1000)! < 2_000_000)
    #expect(h.quantile(parts: 9991, per: 10000) == 1_000_000_000)
    #expect(h.quantile(parts: 1, per: 1) == 1_000_000_000)

    var r = sampleReport()
    r.latencies["seat.apply_to_response"] = LatencySummary(h)
    r.evaluate([
      try! Threshold.parse("seat.apply_to_response.p99.9 < 2ms"),
      try! Threshold.parse("seat.apply_to_response.p99.91 < 2ms"),
      try! Threshold.parse("seat.apply_to_response.min == 1ms"),
    ])
    #expect(r.thresholds.map(\.passed) == [true, false, true])
    #expect(r.thresholds[1].value == 1000 && r.thresholds[1].unit == "ms")
    #expect(r.thresholds[0].value == r.latencies["seat.apply_to_response"]!.p999Ms)
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
      "seat.apply_to_response.p0 < 3s",
      "unknown statistic 'p0' (expected count, mean, min, max, or a percentile pN such as p50, p95, p99.9)"
    ),
    ("seat.apply_to_response.p100.5 < 3s", "unknown statistic 'p100.5'"),
    ("seat.apply_to_response.p99. < 3s", "unknown statistic 'p99.'"),
    ("seat.apply_to_response.p99.9999999 < 3s", "unknown statistic"),
    ("seat.apply_to_response.median < 3s", "unknown statistic 'median'"),
    ("seat.apply_to_respons.p99.9 < 3s", "unknown latency 'seat.apply_to_respons' (did you mean"),
    ("counter.seat.applications/s < 5ms", "expected a plain number (no unit)"),
    ("counter.seat.aplications/s < 5", "unknown counter 'seat.aplications' (did you mean 'seat.applications'?)"),
    ("seat.applications/s < 5", "expected counter.NAME in a rate"),
    ("counter.seat.applications / seat.connected < 5%", "expected counter.NAME in a ratio"),
    ("counter.seat.applications / counter.seat.conected < 5%", "unknown counter 'seat.conected'"),
    ("counter.seat.applications / counter.seat.connected < 5ms", "expected a share such as 5% or 0.05"),
    ("counter.seat.applications / counter.seat.connected / counter.seat.connected < 1", "more than one '/'"),
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

    r.evaluate([
      try Threshold.parse("counter.seat.connected/s > 0.1"), try Threshold.parse("counter.seat.connected/s > 0.2"),
      try Threshold.parse("counter.seat.applications / counter.seat.connected < 5%"),
      try Threshold.parse("counter.seat.connected / counter.seat.applications < 5%"),
    ])
    // 7 connections in 60 simulated seconds; 0 applications over 7; 7 over none has no value.
    #expect(r.thresholds.map(\.passed) == [true, false, true, true])
    #expect(abs(r.thresholds[0].value! - 7.0 / 60) < 1e-12 && r.thresholds[0].unit == "/s")
    #expect(r.thresholds[2].value == 0 && r.thresholds[2].unit == "share")
    #expect(r.thresholds[3].value == nil)
    #expect(Spell.thresholdValue(r.thresholds[0]) == "0.1167/s")
    #expect(Spell.thresholdValue(r.thresholds[3]) == "no value (the denominator is 0)")

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
