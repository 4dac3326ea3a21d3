import Foundation
import Oracles
import Profiles
import Reports
import Runner
import Scenario

/// `stampede shrink`.
enum ShrinkCommand {
  static func main(_ args: [String]) throws -> ExitCode {
    let options = try Options(
      args,
      valued: [
        "--seed", "--out", "--budget", "--nearby", "--mistake", "--quirk", "--app", "--set", "--worker-memory",
        "--invariant", "--jobs",
      ],
      flags: ["--in-process"])
    guard options.positional.count == 1, let path = options.positional.first else {
      throw UsageError("shrink takes exactly one PROFILE")
    }
    guard let seedText = options.values["--seed"], let seed = SeedFormat.parse(seedText) else {
      throw UsageError("shrink needs --seed N (the failing seed)")
    }
    guard let budget = Int(options.values["--budget"] ?? "200"), (1...100_000).contains(budget) else {
      throw UsageError("--budget: expected a whole number of runs from 1 to 100000")
    }
    guard let nearby = Int(options.values["--nearby"] ?? "8"), (0...1000).contains(nearby) else {
      throw UsageError("--nearby: expected a whole number of seeds from 0 to 1000")
    }
    let data: Data
    var tree: JSONValue
    let profile: Profile
    do {
      data = try Data(contentsOf: URL(fileURLWithPath: path))
      let sets = options.all["--set"] ?? []
      profile = try Profile.load(path: path, sets: sets).profile
      // The shrunk profile stands alone: the profiles this one extends are merged in.
      // The overrides become part of the shrunk profile, which then reproduces on its own.
      tree = try Profile.applying(sets, to: try ProfileSource.tree(path: path))
    } catch let error as ProfileError {
      printProfileError(error)
      return .usage
    } catch {
      printError("\(AppRegistry.program): cannot read \(path): \(error.localizedDescription)")
      return .usage
    }
    // Selected mistakes and SDK quirks become part of the profile, so the shrunk one reproduces
    // on its own.
    let selected = [
      (
        "mistakes", profile.mistakes.map(\.rawValue),
        try RunCommand.mistakes(options.values["--mistake"]).map(\.rawValue)
      ),
      ("quirks", profile.quirks.map(\.rawValue), try RunCommand.quirks(options.values["--quirk"]).map(\.rawValue)),
    ]
    for (key, listed, added) in selected where !added.isEmpty {
      do {
        tree = try tree.setting(key, to: .array(Set(listed + added).sorted().map { .string($0) }))
      } catch {
        printError("\(AppRegistry.program): shrink: \(error.description)")
        return .usage
      }
    }
    let out = options.values["--out"] ?? "reports/\(profile.name)/shrunk-seed-\(seed).json5"
    var shrinker = Shrinker(tree: tree, profilePath: path, budget: budget)
    shrinker.jobs = try options.jobs()
    if let id = options.values["--invariant"] {
      guard Checker.catalogue.contains(where: { $0.id == id }) else {
        let near = Checker.catalogue.map(\.id).filter {
          $0.hasPrefix(id.split(separator: ".").first.map(String.init) ?? "")
        }
        throw UsageError(
          "--invariant: unknown invariant '\(id)'"
            + "; expected one of \((near.isEmpty ? Checker.catalogue.map(\.id) : near).joined(separator: ", "))")
      }
      shrinker.invariant = id
    }
    let app = try AppRegistry.app(options.values["--app"])
    shrinker.app = app
    // App code runs in worker processes, as a sweep's does: a crash of it is followed (the
    // candidate runs again with that app process dying there) and can be what is shrunk.
    var pool: WorkerPool?
    if let app, !options.flags.contains("--in-process") {
      let text = options.values["--worker-memory"] ?? "1g"
      guard let limit = WorkerPool.parseMemory(text) else {
        throw UsageError("--worker-memory: expected a size such as 512m or 2g, got '\(text)'")
      }
      let workers = WorkerPool(profilePath: path, memoryLimit: limit)
      let lost = LostRuns()
      shrinker.runner = { document, seed in
        let job = SeedJob(
          seed: seed, overrides: [], mistakes: [], quirks: [], app: app.name, crashes: [], profile: document)
        switch workers.run(job) {
        case .report(let report, _): return report
        case .lost(let why):
          lost.note(why)
          return nil
        }
      }
      shrinker.lostReason = { lost.first }
      pool = workers
    } else if options.values["--worker-memory"] != nil {
      throw UsageError("--worker-memory: only a shrink of app code (--app NAME) runs in worker processes")
    }
    defer { pool?.shutdown() }
    // As `run` prints its repro line: the seed, then the app.
    func repro(_ seed: UInt64) -> String {
      ([AppRegistry.program, "run", ShellQuote.quote(out), "--seed", SeedFormat.format(seed)]
        + (app.map { ["--app", $0.name] } ?? [])).joined(separator: " ")
    }
    let outcome: Shrinker.Outcome
    do {
      outcome = try shrinker.shrink(seed: seed, nearbySeeds: nearby)
    } catch {
      printError("\(AppRegistry.program): shrink: \(error.description)")
      return .usage
    }
    let header = """
      // Shrunk by `stampede shrink` from \(path) (sha256 \(SHA256.hex(data).prefix(16))…) with seed \(SeedFormat.format(seed)),
      // in \(outcome.runs) runs: \(outcome.before) → \(outcome.after).
      // It still fails the same way: \(outcome.signature).
      // Steps: \(outcome.steps.isEmpty ? "none" : outcome.steps.joined(separator: "; ")).
      // Reproduce: \(repro(outcome.seed))

      """
    // Named apart, so that runs of it keep their reports (reports/<name>-shrunk-seed-N[-app]/…) and
    // history away from the full profile's and from other shrinks of it (the name steers nothing
    // in a run).
    let name = "\(profile.name)-shrunk-seed-\(seed)" + (app.map { "-" + $0.name } ?? "")
    let shrunk = (try? outcome.tree.setting("name", to: .string(name))) ?? outcome.tree
    do {
      try AtomicFile.write(Data((header + JSON5Writer.write(shrunk) + "\n").utf8), to: out)
    } catch {
      printError("\(AppRegistry.program): cannot write \(out): \(error)")
      return .usage
    }
    let beside = outcome.alongside > 0 ? ", and \(outcome.alongside) more run alongside that it did not need" : ""
    print("shrunk in \(outcome.runs) runs (budget \(budget)\(beside)): \(outcome.signature)")
    print("  before: \(outcome.before)")
    print("  after:  \(outcome.after)")
    print("  wrote \(out)")
    print("repro: \(repro(outcome.seed))")
    return .pass
  }
}

/// The first reason a candidate run gave no report (a worker that died outside app code), for the
/// message when the first run itself gave none.
final class LostRuns: @unchecked Sendable {
  private let lock = NSLock()
  private var reasons: [String] = []
  func note(_ why: String) { lock.withLock { reasons.append(why) } }
  var first: String? { lock.withLock { reasons.first } }
}
