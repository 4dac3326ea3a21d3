import Foundation
import Testing
import ToolSupport

/// Runs the built `stampede-examples` binary in a separate process.
enum ExamplesTool {
  static let tool = ProcessTool("stampede-examples", root: repositoryRoot)
  static func run(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
    try tool.run(arguments)
  }
  static func folder() -> URL { ProcessTool.temporaryFolder() }
  static func report(at folder: URL) throws -> [String: Any] { try ProcessTool.report(at: folder) }
}

/// The whole command line works in an executable that registers its own apps: every repro line
/// it prints runs there, and replay and shrink reach the same failure.
@Suite(.serialized) struct ExampleCommandLineTests {
  @Test(.long) func tenThousandViewModelUsersGiveTheSameTraceHashInTwoProcesses() throws {
    let folder = ExamplesTool.folder()
    var hashes: [String] = []
    for i in 0..<2 {
      let out = folder.appendingPathComponent("r\(i)")
      let r = try ExamplesTool.run([
        "run", "profiles/flash-crowd.json5", "--app", "examples", "--seed", "3", "--out", out.path,
        "--progress", "none",
      ])
      #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
      let report = try ExamplesTool.report(at: out)
      let population = report["population"] as! [String: Any]
      #expect(population["audience"] as! Int == 10_000)
      #expect((report["counters"] as! [String: Any])["seat.applications"] as! Int > 1000)
      hashes.append(report["traceHash"] as! String)
    }
    #expect(hashes[0] == hashes[1])
  }

  /// App code that iterates a `Set` (the `accept-all` host answers `Set(applicants)` in a loop)
  /// makes its calls in the set's order, which Swift's per-process random hashing seed would change
  /// from one process to the next: the command line fixes the seed (it starts itself again with
  /// `SWIFT_DETERMINISTIC_HASHING=1`), so two processes give the same run. Without it, three
  /// processes gave three trace hashes for this seed.
  @Test func appCodeIteratingASetRunsTheSameInTwoProcesses() throws {
    let folder = ExamplesTool.folder()
    var hashes: [String] = []
    for i in 0..<2 {
      let out = folder.appendingPathComponent("set\(i)")
      let r = try ExamplesTool.run([
        "run", "profiles/smoke.json5", "--app", "accept-all", "--seed", "1", "--set", "duration=40s", "--out",
        out.path, "--progress", "none",
      ])
      #expect(r.status == 1, "\(r.stdout)\(r.stderr)")
      let report = try ExamplesTool.report(at: out)
      // The batch answered two applicants or more, in the set's order.
      let violated = (report["invariants"] as! [[String: Any]]).filter { ($0["violations"] as? Int ?? 0) > 0 }
      #expect(violated.map { $0["id"] as! String } == ["app.platform-contract"])
      hashes.append(report["traceHash"] as! String)
    }
    #expect(hashes[0] == hashes[1])
  }

  /// App code reads the simulated wall clock: the example call screen logs each call's length
  /// from `Date()`, and the traces of two processes are the same, byte for byte (with the
  /// machine's clock every call lasted "0 s", and each line's text depended on the machine).
  @Test func appCodeReadingDateTracesTheSameInTwoProcesses() throws {
    let folder = ExamplesTool.folder()
    var traces: [String] = []
    for i in 0..<2 {
      let trace = folder.appendingPathComponent("calls\(i).jsonl")
      let r = try ExamplesTool.run([
        "run", "profiles/call-storm.json5", "--app", "examples", "--seed", "1", "--set", "duration=40s", "--out",
        folder.appendingPathComponent("calls\(i)").path, "--progress", "none", "--trace", trace.path,
      ])
      #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
      traces.append(try String(contentsOf: trace, encoding: .utf8))
    }
    #expect(traces[0] == traces[1])
    let lengths = traces[0].split(separator: "\n").filter { $0.contains("[Call] lasted ") }
    #expect(lengths.count > 5)
    #expect(lengths.contains { !$0.contains("lasted 0 s") }, "the calls' lengths are simulated time")
  }

  /// An app team's executable names itself in its help and its messages, not `stampede`.
  @Test func theExecutableNamesItselfInHelpAndMessages() throws {
    let help = try ExamplesTool.run(["help"])
    #expect(help.status == 0)
    #expect(help.stdout.hasPrefix("stampede-examples "))
    #expect(help.stdout.contains("\n  stampede-examples run PROFILE"))
    #expect(!help.stdout.contains("\n  stampede run"), "every command line names the executable")
    let runHelp = try ExamplesTool.run(["run", "--help"])
    #expect(runHelp.stdout.contains("stampede-examples run"))
    // Only the command name is replaced, once.
    #expect(!help.stdout.contains("stampede-examples-examples"))
    let version = try ExamplesTool.run(["version"])
    #expect(version.stdout.hasPrefix("stampede-examples "))
    // A message about a run: refused before any work, named by the executable.
    let refused = try ExamplesTool.run(["run", "profiles/smoke.json5", "--app", "no-such-app"])
    #expect(refused.status == 2)
    #expect(refused.stderr.hasPrefix("stampede-examples: --app: no app 'no-such-app' in stampede-examples"))
    let folder = ExamplesTool.folder()
    let out = folder.appendingPathComponent("named")
    let r = try ExamplesTool.run([
      "run", "profiles/smoke.json5", "--app", "examples", "--set", "duration=30s", "--out", out.path,
      "--history", "off",
    ])
    #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
    #expect(!(r.stdout + r.stderr).contains("\nstampede: ") && !(r.stdout + r.stderr).hasPrefix("stampede: "))
  }

  /// The examples' audience view model is `@MainActor`: under `sweep --jobs 2` each world runs
  /// on a thread of its own with its own simulated main actor, and every seed's trace hash is the
  /// one `--jobs 1` gives.
  @Test func mainActorViewModelsGiveTheSameHashesForAnyNumberOfJobs() throws {
    let folder = ExamplesTool.folder()
    var hashes: [[String]] = []
    for jobs in ["1", "2"] {
      let out = folder.appendingPathComponent("jobs-\(jobs)")
      let r = try ExamplesTool.run([
        "sweep", "profiles/smoke.json5", "--app", "examples", "--seeds", "1..4", "--jobs", jobs, "--quiet",
        "--history", "off", "--set", "duration=2m", "--out", out.path,
      ])
      #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
      let data = try Data(contentsOf: out.appendingPathComponent("summary.json"))
      let summary = try JSONSerialization.jsonObject(with: data) as! [String: Any]
      hashes.append((summary["runs"] as! [[String: Any]]).map { $0["traceHash"] as! String })
    }
    #expect(hashes[0].count == 4 && hashes[0] == hashes[1])
  }

  @Test(.long) func aFailingAppRunReplaysAndShrinksThroughTheExamplesExecutable() throws {
    let folder = ExamplesTool.folder()
    let out = folder.appendingPathComponent("run")
    let r = try ExamplesTool.run([
      "run", "profiles/smoke.json5", "--app", "double-tap", "--seed", "2", "--out", out.path, "--progress", "none",
    ])
    #expect(r.status == 1)
    let report = try ExamplesTool.report(at: out)
    let repro = report["repro"] as! String
    #expect(repro == "stampede-examples run profiles/smoke.json5 --seed 0x2 --app double-tap")

    let replay = try ExamplesTool.run([
      "replay", out.appendingPathComponent("report.json").path, "--out",
      folder.appendingPathComponent("replay").path, "--progress", "none",
    ])
    #expect(replay.status == 1, "\(replay.stderr)")
    #expect(replay.stderr.contains("replay reached the report's trace hash \(report["traceHash"] as! String)"))

    let shrunk = folder.appendingPathComponent("shrunk.json5")
    let shrink = try ExamplesTool.run([
      "shrink", "profiles/smoke.json5", "--seed", "2", "--app", "double-tap", "--budget", "40", "--out", shrunk.path,
    ])
    #expect(shrink.status == 0, "\(shrink.stderr)")
    #expect(shrink.stdout.contains("invariant ui.idle-means-nothing-pending"))
    let line = shrink.stdout.split(separator: "\n").first { $0.hasPrefix("repro: ") }!
    #expect(
      line.hasPrefix("repro: stampede-examples run \(shrunk.path) --seed ") && line.hasSuffix(" --app double-tap"))
    let words = line.dropFirst("repro: stampede-examples ".count).split(separator: " ").map(String.init)
    let again = try ExamplesTool.run(
      words + ["--out", folder.appendingPathComponent("again").path, "--progress", "none"])
    #expect(again.status == 1)
    #expect(try ExamplesTool.report(at: folder.appendingPathComponent("again"))["verdict"] as! String == "fail")
  }

  @Test func anUnknownAppIsAUsageErrorNamingTheKnownOnes() throws {
    let r = try ExamplesTool.run(["run", "profiles/smoke.json5", "--app", "nope", "--out", ExamplesTool.folder().path])
    #expect(r.status == 2)
    #expect(r.stderr.contains("no app 'nope'"))
    #expect(r.stderr.contains("examples, examples-phones, guarded-screen, double-tap, seat-list-guest, guide-push"))
  }
}
