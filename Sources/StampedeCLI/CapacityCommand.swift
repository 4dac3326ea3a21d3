import Foundation
import Reports
import Runner
import Scenario

/// `stampede capacity`.
enum CapacityCommand {
  static func main(_ args: [String]) throws -> ExitCode {
    let options = try Options(args, valued: ["--vary", "--seeds", "--jobs", "--out", "--app"], flags: [])
    guard options.positional.count == 1, let path = options.positional.first else {
      throw UsageError("capacity takes exactly one PROFILE")
    }
    guard let varyText = options.values["--vary"] else { throw UsageError("capacity needs --vary KEY=V1,V2,...") }
    guard let vary = Capacity.parseVary(varyText) else {
      throw UsageError(
        "--vary: expected KEY=V1,V2,... (or KEY=V1|V2|... when values contain commas), got '\(varyText)'")
    }
    let rangeText = options.values["--seeds"] ?? "1..10"
    guard let seeds = Sharding.parseRange(rangeText) else {
      throw UsageError("--seeds: expected A..B with A ≤ B, got '\(rangeText)'")
    }
    let cores = ProcessInfo.processInfo.activeProcessorCount
    guard let jobs = Int(options.values["--jobs"] ?? String(cores)), (1...1024).contains(jobs) else {
      throw UsageError("--jobs: expected a whole number from 1 to 1024")
    }
    let data: Data
    let profiles: [Profile]
    do {
      data = try Data(contentsOf: URL(fileURLWithPath: path))
      profiles = try Capacity.profiles(data: data, key: vary.key, values: vary.values)
    } catch let error as ProfileError {
      var e = error
      e.file = path
      printError(e.description)
      return .usage
    } catch {
      printError("stampede: cannot read \(path): \(error.localizedDescription)")
      return .usage
    }
    let out = options.values["--out"] ?? "reports/\(profiles[0].name)/capacity-\(vary.key)"
    print(
      "capacity \(profiles[0].name): \(vary.key) over \(vary.values.joined(separator: ", ")), seeds \(seeds.from)..\(seeds.to)"
    )
    let study = Capacity.run(
      profiles: profiles, values: vary.values, key: vary.key, profilePath: path, profileData: data, seeds: seeds,
      jobs: jobs, app: try AppRegistry.app(options.values["--app"]), program: AppRegistry.program,
      progress: { p in
        let p99 = p.latencies.keys.sorted().compactMap { name in
          p.latencies[name]?.p99Ms.map { "\(name).p99=\(String(format: "%.1f", $0))ms" }
        }
        print(
          "  \(vary.key)=\(p.value): \(p.passed)/\(p.seeds) seeds pass, seat rejection "
            + String(format: "%.1f%%", p.seatRejection.value * 100) + "  " + p99.joined(separator: " "))
      })
    do {
      try study.write(to: out)
    } catch {
      printError("stampede: cannot write to \(out): \(error)")
      return .usage
    }
    print(study.kneeSentence)
    print("  report: \(out)/capacity.html (also capacity.md, capacity.json)")
    return .pass
  }
}
