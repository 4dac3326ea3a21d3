import Clients
import Foundation
import Profiles
import Reports
import Runner
import Scenario

/// `stampede mistakes`.
enum MistakesCommand {
  static func main(_ args: [String]) throws -> ExitCode {
    let options = try Options(args, valued: ["--seeds", "--profile", "--jobs", "--mistake"], flags: ["--json"])
    guard options.positional.isEmpty else { throw UsageError("mistakes takes no positional arguments") }
    let rangeText = options.values["--seeds"] ?? "1..10"
    guard let seeds = Sharding.parseRange(rangeText) else {
      throw UsageError("--seeds: expected A..B with A ≤ B (decimal or 0x-hex), got '\(rangeText)'")
    }
    let local = FileManager.default.fileExists(atPath: "profiles/mistakes.json5") ? "profiles/mistakes.json5" : nil
    guard let path = options.values["--profile"] ?? local ?? KernelBench.locate("profiles/mistakes.json5") else {
      throw UsageError("mistakes: cannot find profiles/mistakes.json5; run from the repository or pass --profile FILE")
    }
    let jobs = try options.jobs()
    let selected = try RunCommand.mistakes(options.values["--mistake"])
    let mistakes = ClientMistake.allCases.filter { selected.isEmpty || selected.contains($0) }
    guard let loaded = loadProfile(path) else { return .usage }
    guard Jemalloc.isProcessAllocator else {
      printError(
        "\(AppRegistry.program): jemalloc is not the process allocator; rebuild with libjemalloc-dev installed.")
      return .usage
    }
    var profile = loaded.profile
    // Each mistake is run alone: a profile's own selection would blur which one was caught.
    profile.mistakes = []
    let checks = MistakeCatalogue.checkAll(
      mistakes, profile: profile, profilePath: path, profileData: loaded.data, seeds: seeds, jobs: jobs)
    let missed = checks.filter { !$0.caught }
    if options.flags.contains("--json") {
      struct Output: Codable { var mistakes: [MistakeCheck] }
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
      print(String(decoding: try encoder.encode(Output(mistakes: checks)), as: UTF8.self))
    } else {
      print("client mistakes on \(path), seeds \(seeds.from)..\(seeds.to):")
      for c in checks {
        let number = ClientMistake(rawValue: c.id)!.number
        let head = String(format: "%2d  %@", number, c.id.padding(toLength: 36, withPad: " ", startingAt: 0))
        if let seed = c.firstFailingSeed {
          print(
            "\(head) caught on seed \(seed) after \(c.seedsTried) seed(s), \(c.events) events by \(c.caughtBy.joined(separator: ", "))"
          )
        } else {
          print("\(head) NOT CAUGHT in \(c.seedsTried) seed(s), \(c.events) events")
        }
      }
      print(
        missed.isEmpty
          ? "all \(checks.count) caught"
          : "\(missed.count) of \(checks.count) not caught: a gap in the oracles (\(missed.map(\.id).joined(separator: ", ")))"
      )
    }
    return missed.isEmpty ? .pass : .invariantViolated
  }
}
