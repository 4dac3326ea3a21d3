import Foundation
import Profiles
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
    try profiles(data: data, settings: values.map { [(key, $0)] })
  }

  /// One profile per setting (a list of key and value overrides, applied after the `--set`
  /// overrides `sets`); the first invalid one is reported with its overrides.
  public static func profiles(data: Data, settings: [[(key: String, value: String)]], sets: [String] = [])
    throws(ProfileError) -> [Profile]
  {
    let base = try sets.map(Profile.parseSet)
    var out: [Profile] = []
    for overrides in settings {
      do {
        out.append(
          try Profile.parse(data, overrides: base + overrides.map { ($0.key, JSONValue.literal($0.value)) }))
      } catch {
        var e = error
        e.message += " (with " + overrides.map { "\($0.key)=\($0.value)" }.joined(separator: ", ") + ")"
        throw e
      }
    }
    return out
  }

  /// The settings several `--vary` lists make: zipped value by value (the later keys follow the
  /// first; every list must be as long), or every combination with `grid`. Returns the study's key
  /// (the keys joined by " × " for a grid, " + " otherwise), each setting, and its label.
  public static func combine(_ varies: [(key: String, values: [String])], grid: Bool) -> (
    key: String, settings: [[(key: String, value: String)]], labels: [String]
  )? {
    guard let first = varies.first else { return nil }
    if varies.count == 1 {
      return (first.key, first.values.map { [(first.key, $0)] }, first.values)
    }
    var settings: [[(key: String, value: String)]] = []
    if grid {
      settings = [[]]
      for v in varies { settings = settings.flatMap { s in v.values.map { s + [(v.key, $0)] } } }
    } else {
      guard varies.allSatisfy({ $0.values.count == first.values.count }) else { return nil }
      for i in first.values.indices { settings.append(varies.map { ($0.key, $0.values[i]) }) }
    }
    let labels = settings.map { $0.map(\.value).joined(separator: grid ? " × " : " + ") }
    return (varies.map(\.key).joined(separator: grid ? " × " : " + "), settings, labels)
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
    let (knee, kneeIndex, rising, nonMonotone) = Capacity.knee(points.map(\.meetsAll))
    var study = CapacityStudy(
      profile: RunReport.ProfileInfo(
        name: profiles[0].name, path: profilePath, sha256: SHA256.profile(profileData, sets: [])),
      key: key, seeds: seeds, thresholds: profiles[0].thresholds.map(\.expression), points: points,
      knee: knee.map { points[$0].value }, nonMonotone: nonMonotone)
    study.kneeIsSmallest = rising
    for t in profiles[0].thresholds {
      if case .latency(let name, let statistic) = t.subject, statistic == .p99,
        t.comparison == .less || t.comparison == .lessOrEqual
      {
        study.p99LimitsMs[name] = t.bound
      }
    }
    study.bottleneck = Capacity.bottleneck(points, kneeIndex: kneeIndex, rising: rising)
    return study
  }

  /// Where the thresholds stop (or start) holding, given whether each value met them all.
  ///
  /// Values that rise in load pass first and then fail: the knee is the largest value that passes.
  /// Values that rise in capacity (admins, workers, seats) fail first and then pass: the knee is the
  /// smallest value that passes (`rising`). A pass after a failure, or a failure after a pass, beyond
  /// that one change is `nonMonotone`. Returns the knee's index, the index of the value beside it
  /// on the failing side (where the bottleneck shows), whether capacity rises, and monotony.
  static func knee(_ meets: [Bool]) -> (knee: Int?, failingBeside: Int?, rising: Bool, nonMonotone: Bool) {
    guard let first = meets.first else { return (nil, nil, false, false) }
    let changes = zip(meets, meets.dropFirst()).filter { $0 != $1 }.count
    if first {
      // Load rises: the last pass before the first failure.
      let fail = meets.firstIndex(of: false)
      return (fail.map { $0 - 1 } ?? meets.count - 1, fail, false, changes > 1)
    }
    // Capacity rises (or nothing passes): the first pass, and the failure just before it.
    guard let pass = meets.firstIndex(of: true) else { return (nil, meets.count - 1, true, false) }
    return (pass, pass - 1, true, changes > 1)
  }

  /// The resource that saturates at the knee: the busiest one on the failing side of it (or, when
  /// every value passed, at the heaviest value).
  static func bottleneck(_ points: [CapacityStudy.Point], kneeIndex: Int?, rising: Bool) -> String? {
    guard !points.isEmpty else { return nil }
    let at = kneeIndex ?? (rising ? 0 : points.count - 1)
    return points[at].busiest
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
    var point = CapacityStudy.Point(
      value: value, seeds: reports.count, passed: passed, attainment: .wilson(successes: passed, of: reports.count),
      latencies: latencies, seatRejection: .mean(rejection), meetsAll: passed == reports.count && !reports.isEmpty)
    // Each resource's utilisation, with its interval over the seeds; the busiest saturates first.
    var names: [String] = []
    for r in reports { for u in r.resources ?? [] where !names.contains(u.name) { names.append(u.name) } }
    var utilisation: [String: CapacityStudy.Interval] = [:]
    for name in names {
      utilisation[name] = .mean(reports.map { r in r.resources?.first { $0.name == name }?.utilisation ?? 0 })
    }
    point.utilisation = utilisation
    point.busiest = names.max { (utilisation[$0]?.value ?? 0, $1) < (utilisation[$1]?.value ?? 0, $0) }
    var failed: [String] = []
    for r in reports {
      for t in r.thresholds where t.failed && !failed.contains(t.expression) { failed.append(t.expression) }
    }
    point.failedThresholds = failed
    return point
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
