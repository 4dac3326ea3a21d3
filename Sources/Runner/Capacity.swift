import Foundation
import Reports
import Scenario
import SimKernel

/// Runs a capacity study.
public enum Capacity {
  /// Parses `KEY=V1,V2,…` (or `KEY=V1|V2|…` when values contain commas).
  public static func parseVary(_ text: String) -> (key: String, values: [String])? {
    guard let eq = text.firstIndex(of: "=") else { return nil }
    let key = String(text[..<eq])
    let list = String(text[text.index(after: eq)...])
    let values = list.split(separator: list.contains("|") ? "|" : ",", omittingEmptySubsequences: false)
      .map { String($0).trimmingSpaces }
    guard !key.isEmpty, !values.isEmpty, values.allSatisfy({ !$0.isEmpty }) else { return nil }
    return (key, values)
  }

  /// One profile per value; the first invalid one is reported with its value.
  public static func profiles(data: Data, key: String, values: [String]) throws(ProfileError) -> [Profile] {
    var out: [Profile] = []
    for v in values {
      do {
        out.append(try Profile.parse(data, overrides: [(key, JSONValue.literal(v))]))
      } catch {
        var e = error
        e.message += " (with \(key)=\(v))"
        throw e
      }
    }
    return out
  }

  /// Runs every value over `seeds` with `jobs` parallel runs. `progress` hears each value's point.
  public static func run(
    profiles: [Profile], values: [String], key: String, profilePath: String, profileData: Data,
    seeds: SweepSummary.SeedSpan, jobs: Int, app: ClientApp? = nil, program: String = "stampede",
    progress: (CapacityStudy.Point) -> Void = { _ in }
  ) -> CapacityStudy {
    precondition(profiles.count == values.count, "one profile per value")
    var points: [CapacityStudy.Point] = []
    for (profile, value) in zip(profiles, values) {
      let reports = ReportList()
      var sweep = Sweep(
        profile: profile, profilePath: profilePath, profileData: profileData, seeds: seeds, shard: nil, jobs: jobs)
      sweep.app = app
      sweep.program = program
      let summary = sweep.execute(finished: { reports.add($0) })
      let point = Capacity.point(value: value, summary: summary, reports: reports.sorted)
      progress(point)
      points.append(point)
    }
    var knee: String?
    var failedOnce = false
    var nonMonotone = false
    for p in points {
      if p.meetsAll && !failedOnce {
        knee = p.value
      } else if !p.meetsAll {
        failedOnce = true
      } else {
        nonMonotone = true
      }
    }
    return CapacityStudy(
      profile: RunReport.ProfileInfo(name: profiles[0].name, path: profilePath, sha256: SHA256.hex(profileData)),
      key: key, seeds: seeds, thresholds: profiles[0].thresholds.map(\.expression), points: points, knee: knee,
      nonMonotone: nonMonotone)
  }

  static func point(value: String, summary: SweepSummary, reports: [RunReport]) -> CapacityStudy.Point {
    let passed = reports.filter { $0.verdict == "pass" }.count
    var latencies: [String: CapacityStudy.LatencyPoint] = [:]
    for (name, merged) in summary.latencies {
      let perSeed = reports.compactMap { $0.latencies[name]?.p99Ms }
      latencies[name] = CapacityStudy.LatencyPoint(
        p50Ms: merged.p50Ms, p99Ms: merged.p99Ms, seedP99Ms: perSeed.isEmpty ? nil : .mean(perSeed))
    }
    let rejection = reports.map { r -> Double in
      let refused = Double((r.counters["seat.rejected.seat_limit"] ?? 0) + (r.counters["seat.rejected.all_taken"] ?? 0))
      let granted = Double((r.counters["seat.applications"] ?? 0) + (r.counters["seat.free_takes"] ?? 0))
      return refused + granted == 0 ? 0 : refused / (refused + granted)
    }
    return CapacityStudy.Point(
      value: value, seeds: reports.count, passed: passed, attainment: .wilson(successes: passed, of: reports.count),
      latencies: latencies, seatRejection: .mean(rejection), meetsAll: passed == reports.count && !reports.isEmpty)
  }
}

/// Gathers reports from sweep workers.
final class ReportList: @unchecked Sendable {
  let lock = NSLock()
  var reports: [RunReport] = []
  func add(_ r: RunReport) {
    lock.lock()
    reports.append(r)
    lock.unlock()
  }
  var sorted: [RunReport] { reports.sorted { $0.seed < $1.seed } }
}
