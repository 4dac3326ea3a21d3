import Foundation
import Profiles
import Reports
import Runner
import Scenario

/// `stampede capacity`.
enum CapacityCommand {
  static func main(_ args: [String]) throws -> ExitCode {
    let options = try Options(
      args, valued: ["--vary", "--seeds", "--jobs", "--out", "--app", "--set", "--history"], flags: ["--grid"])
    guard options.positional.count == 1, let path = options.positional.first else {
      throw UsageError("capacity takes exactly one PROFILE")
    }
    let varyTexts = options.all["--vary"] ?? []
    guard !varyTexts.isEmpty else { throw UsageError("capacity needs --vary KEY=V1,V2,...") }
    var varies: [(key: String, values: [String])] = []
    for text in varyTexts {
      guard let vary = Capacity.parseVary(text) else {
        throw UsageError("--vary: expected KEY=V1,V2,... (or KEY=V1|V2|... when values contain commas), got '\(text)'")
      }
      guard !varies.contains(where: { $0.key == vary.key }) else {
        throw UsageError("--vary: \(vary.key) is given twice")
      }
      varies.append(vary)
    }
    guard let combined = Capacity.combine(varies, grid: options.flags.contains("--grid")) else {
      let counts = varies.map { "\($0.key): \($0.values.count)" }.joined(separator: ", ")
      throw UsageError(
        "--vary: lists that follow each other must be as long (\(counts)); add --grid to run every combination")
    }
    let rangeText = options.values["--seeds"] ?? "1..10"
    guard let seeds = Sharding.parseRange(rangeText) else {
      throw UsageError("--seeds: expected A..B with A ≤ B, got '\(rangeText)'")
    }
    let jobs = try options.jobs()
    let data: Data
    let profiles: [Profile]
    do {
      data = Data(ProfileKeys.canonicalText(try ProfileSource.tree(path: path)).utf8)
      profiles = try Capacity.profiles(data: data, settings: combined.settings, sets: options.all["--set"] ?? [])
    } catch {
      var e = error
      if e.file == nil { e.setFile(path) }
      printProfileError(e)
      return .usage
    }
    guard !profiles[0].thresholds.isEmpty else {
      printError(
        "\(AppRegistry.program): \(path) has no thresholds, and the knee is where thresholds stop holding; add some, e.g. "
          + "thresholds: [\"seat.apply_to_response.p99 < 10s\", \"seat.wait_for_review.p90 < 10s\"]")
      return .usage
    }
    let key = combined.key
    let out =
      options.values["--out"]
      ?? "reports/\(profiles[0].name)/capacity-\(varies.map(\.key).joined(separator: "+"))"
    try ReportFolder.check(out, writes: CapacityStudy.fileNames)
    print(
      "capacity \(profiles[0].name): \(key) over \(combined.labels.joined(separator: ", ")), seeds \(seeds.from)..\(seeds.to)"
    )
    let study = Capacity.run(
      profiles: profiles, values: combined.labels, key: key, profilePath: path, profileData: data, seeds: seeds,
      jobs: jobs, app: try AppRegistry.app(options.values["--app"]), program: AppRegistry.program,
      progress: { p in
        let p99 = p.latencies.keys.sorted().compactMap { name in
          p.latencies[name]?.p99Ms.map { "\(name).p99=\(String(format: "%.1f", $0))ms" }
        }
        print(
          "  \(key)=\(p.value): \(p.passed)/\(p.seeds) seeds pass, seat rejection "
            + String(format: "%.1f%%", p.seatRejection.value * 100) + ", busiest \(p.busiestText)  "
            + p99.joined(separator: " "))
      })
    do {
      try study.write(to: out)
    } catch {
      printError("\(AppRegistry.program): cannot write to \(out): \(error)")
      return .usage
    }
    print(study.kneeSentence)
    HistoryRecording.record(
      options, variant: HistoryRecording.variant(mistakes: [], quirks: [], app: options.values["--app"], duration: nil),
      reportPath: out + "/capacity.json"
    ) { try $0.record(study, tool: StampedeVersion.current, $1) }
    print("  report: \(out)/capacity.html (also capacity.md, capacity.json)")
    return study.knee == nil ? .thresholdFailed : .pass
  }
}
