import Chaos
import Foundation
import Metrics
import Testing
import ToolSupport

@testable import Clients
@testable import Oracles
@testable import Profiles
@testable import Runner
@testable import Scenario

/// Runs the built `stampede` binary in a separate process.
enum Tool {
  static let tool = ProcessTool("stampede", root: repositoryRoot)
  static var binary: URL { tool.binary }
  static func run(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
    try tool.run(arguments)
  }
  static func temporaryFolder() -> URL { ProcessTool.temporaryFolder() }
  static func report(at folder: URL) throws -> [String: Any] { try ProcessTool.report(at: folder) }
}

@Suite(.serialized) struct CommandLineTests {
  /// `stampede app init` writes a package that builds against this checkout: its manifest names
  /// the checkout by path, its view model is the example's, its profile extends smoke; a folder
  /// in use, a name no package can have and a folder that is no checkout are refused.
  @Test func appInitWritesAPackageAndRefusesWhatItCannotUse() throws {
    let folder = Tool.temporaryFolder().appendingPathComponent("stage-app")
    let r = try Tool.run(["app", "init", folder.path, "--name", "stage", "--stampede", repositoryRoot.path])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stdout.contains("swift run stage run profiles/smoke.json5 --app stage"))
    let manifest = try String(contentsOf: folder.appendingPathComponent("Package.swift"), encoding: .utf8)
    #expect(manifest.contains(".package(path: \"\(repositoryRoot.standardizedFileURL.path)\")"))
    #expect(manifest.contains("plugins: [.plugin(name: \"PlatformShadows\", package: stampede)]"))
    let viewModel = try String(
      contentsOf: folder.appendingPathComponent("Sources/stageApp/AudienceCoGuestViewModel.swift"), encoding: .utf8)
    #expect(
      viewModel
        == (try String(
          contentsOf: repositoryRoot.appendingPathComponent("Examples/ExampleApps/AudienceCoGuestViewModel.swift"),
          encoding: .utf8)))
    let host = try String(
      contentsOf: folder.appendingPathComponent("Sources/stageApp/HostCoGuestViewModel.swift"), encoding: .utf8)
    #expect(
      host
        == (try String(
          contentsOf: repositoryRoot.appendingPathComponent("Examples/ExampleApps/HostCoGuestViewModel.swift"),
          encoding: .utf8)))
    let main = try String(contentsOf: folder.appendingPathComponent("Sources/stage/main.swift"), encoding: .utf8)
    #expect(main.contains("StampedeCLI.main(apps: [app], program: \"stage\")"))
    #expect(main.contains(".with(audience: audience).with(host: host)"))
    #expect(main.contains("host.applicants = { vm in vm.pendingApplicants.map(\\.userID) }"))
    // The profile it writes is a valid one.
    let validate = try Tool.run(["validate", folder.appendingPathComponent("profiles/smoke.json5").path])
    #expect(validate.status == 0, "\(validate.stdout)\(validate.stderr)")
    let again = try Tool.run(["app", "init", folder.path, "--stampede", repositoryRoot.path])
    #expect(again.status == 2 && again.stderr.contains("is not empty"))
    let badName = try Tool.run([
      "app", "init", folder.path + "-2", "--name", "9lives", "--stampede", repositoryRoot.path,
    ])
    #expect(badName.status == 2 && badName.stderr.contains("cannot name a Swift package"))
    let noCheckout = try Tool.run(["app", "init", folder.path + "-3", "--stampede", folder.path])
    #expect(noCheckout.status == 2 && noCheckout.stderr.contains("holds no Stampede Package.swift"))
  }

  /// The package `app init` writes builds and its first run passes, as the help says (a whole
  /// build of Stampede in a fresh folder: the long tests).
  @Test(.long) func anInitedAppPackageBuildsAndRunsSmokeClean() throws {
    let folder = Tool.temporaryFolder().appendingPathComponent("first-app")
    #expect(try Tool.run(["app", "init", folder.path, "--stampede", repositoryRoot.path]).status == 0)
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    p.arguments = ["swift", "run", "first-app", "run", "profiles/smoke.json5", "--app", "first-app", "--quiet"]
    p.currentDirectoryURL = folder
    let out = folder.appendingPathComponent("run.log")
    FileManager.default.createFile(atPath: out.path, contents: nil)
    let handle = try FileHandle(forWritingTo: out)
    p.standardOutput = handle
    p.standardError = handle
    try p.run()
    p.waitUntilExit()
    let log = try String(contentsOf: out, encoding: .utf8)
    #expect(p.terminationStatus == 0, "\(log.suffix(2000))")
    #expect(log.contains("smoke seed 0x1: PASS"), "\(log.suffix(2000))")
  }

  @Test func theSameSeedInTwoProcessesGivesTheSameTraceAndDifferentSeedsDiffer() throws {
    let folder = Tool.temporaryFolder()
    var hashes: [String] = []
    for (i, seed) in ["7", "7", "8"].enumerated() {
      let out = folder.appendingPathComponent("r\(i)")
      let r = try Tool.run(["run", "profiles/smoke.json5", "--seed", seed, "--out", out.path, "--progress", "none"])
      #expect(r.status == 0, "\(r.stderr)")
      let report = try Tool.report(at: out)
      hashes.append(report["traceHash"] as! String)
      #expect((report["events"] as! Int) > 1_000)
      #expect(
        r.stdout.contains("repro: stampede run profiles/smoke.json5 --seed 0x\(String(UInt64(seed)!, radix: 16))"))
    }
    #expect(hashes[0] == hashes[1])
    #expect(hashes[0] != hashes[2])
    #expect(hashes[0].count == 16)
  }

  /// `--threads`: one trace hash for one thread and two, each in its own process; the repro line
  /// carries it and replay reaches the hash; a thread count out of range, a profile whose rooms
  /// meet and a trace are refused with the reason.
  @Test func threadsGiveOneHashInAnyProcessAndAreRefusedWhereRoomsMeet() throws {
    let folder = Tool.temporaryFolder()
    var hashes: [String] = []
    for t in ["1", "2"] {
      let out = folder.appendingPathComponent("t\(t)")
      let r = try Tool.run([
        "run", "profiles/seat-rush.json5", "--duration", "20m", "--threads", t, "--out", out.path, "--progress", "none",
        "--check-determinism",
      ])
      #expect(r.status == 0, "\(r.stderr)")
      #expect(r.stderr.contains("determinism check passed: a second run reached the same trace hash"), "\(r.stderr)")
      let report = try Tool.report(at: out)
      hashes.append(report["traceHash"] as! String)
      #expect(
        report["repro"] as? String == "stampede run profiles/seat-rush.json5 --seed 0x1 --threads \(t) --duration 20m")
    }
    #expect(hashes[0] == hashes[1])
    let replay = try Tool.run(["replay", folder.appendingPathComponent("t2/report.json").path, "--progress", "none"])
    #expect(replay.status == 0 && replay.stderr.contains("reached the report's trace hash"), "\(replay.stderr)")
    let refused: [([String], String)] = [
      (["profiles/seat-rush.json5", "--threads", "0"], "--threads: expected a whole number of threads from 1 to 64"),
      (["profiles/seat-rush.json5", "--threads", "two"], "--threads: expected a whole number of threads from 1 to 64"),
      (["profiles/smoke.json5", "--threads", "2"], "smoke cannot run as room shards: calls ring phone users"),
      (
        ["profiles/seat-rush.json5", "--threads", "2", "--trace", folder.appendingPathComponent("t.jsonl").path],
        "--threads: --trace follows one world's order of events"
      ),
    ]
    for (args, message) in refused {
      let r = try Tool.run(["run"] + args + ["--out", folder.appendingPathComponent("no").path])
      #expect(r.status == 2 && r.stderr.contains(message), "\(args): \(r.stderr)")
    }
  }

  @Test func reportsOfTheSameSeedDifferOnlyInMeasurements() throws {
    let folder = Tool.temporaryFolder()
    var reports: [[String: Any]] = []
    var canonical: [Data] = []
    for i in 0..<2 {
      let out = folder.appendingPathComponent("r\(i)")
      let r = try Tool.run(["run", "profiles/smoke.json5", "--seed", "3", "--out", out.path, "--progress", "none"])
      #expect(r.status == 0)
      var report = try Tool.report(at: out)
      for key in ["meta", "wallSeconds", "peakMemoryBytes"] { report.removeValue(forKey: key) }
      reports.append(report)
      canonical.append(try JSONSerialization.data(withJSONObject: report, options: [.sortedKeys]))
    }
    #expect(canonical[0] == canonical[1])
    let contract = [
      "schemaVersion", "tool", "profile", "seed", "repro", "traceHash", "events", "simulatedSeconds", "population",
      "verdict", "latencies", "counters", "invariants", "faults", "thresholds", "complete",
    ]
    for key in contract { #expect(reports[0][key] != nil, "report.json lacks \(key)") }
    let latencies = reports[0]["latencies"] as! [String: Any]
    let apply = latencies["seat.apply_to_response"] as! [String: Any]
    #expect((apply["count"] as! Int) > 0)
    for key in ["p50Ms", "p90Ms", "p99Ms", "p999Ms", "maxMs", "buckets"] { #expect(apply[key] != nil) }
    let counters = reports[0]["counters"] as! [String: Int]
    #expect(counters["seat.applications"]! > 0)
    #expect(counters["seat.rejected.seat_limit"] != nil && counters["seat.rejected.all_taken"] != nil)
  }

  @Test func aBadProfileExitsTwoNamingFileKeyAndReason() throws {
    let folder = Tool.temporaryFolder()
    let path = folder.appendingPathComponent("x.json5").path
    try TestProfile(minimalProfile).with("population.audiencePerRoom", "ten").text
      .write(toFile: path, atomically: true, encoding: .utf8)
    for command in [["validate", path], ["run", path]] {
      let r = try Tool.run(command)
      #expect(r.status == 2)
      #expect(
        r.stderr.contains("\(path): population.audiencePerRoom: expected a whole number from 0 to 10000000"),
        "\(r.stderr)")
    }
    let missing = try Tool.run(["validate", folder.appendingPathComponent("none.json5").path])
    #expect(missing.status == 2)
    #expect(missing.stderr.contains("cannot read the file"))
  }

  @Test func usageErrorsExitTwo() throws {
    for args in [
      ["frobnicate"], ["run"], ["run", "profiles/smoke.json5", "--seed", "x"],
      ["run", "profiles/smoke.json5", "--bogus"],
      ["run", "profiles/smoke.json5", "--progress", "loud"], ["run", "profiles/smoke.json5", "--duration", "soon"],
      ["bench", "nothing"],
    ] {
      let r = try Tool.run(args)
      #expect(r.status == 2, "\(args)")
      #expect(r.stderr.hasPrefix("stampede: "), "\(args): \(r.stderr)")
    }
    // A file option given a selector is a slip: refused with the command meant, and no file made.
    let folder = ProcessTool.temporaryFolder()
    let slip = try Tool.run([
      "run", "profiles/smoke.json5", "--trace", "user:175", "--out", folder.appendingPathComponent("r").path,
    ])
    #expect(slip.status == 2, "\(slip.stderr)")
    #expect(slip.stderr.contains("--trace takes a file, not a selector: 'user:175'"))
    #expect(slip.stderr.contains("Did you mean --only user:175 --trace FILE?"))
    #expect(!FileManager.default.fileExists(atPath: repositoryRoot.appendingPathComponent("user:175").path))
    // A capacity study needs thresholds (they define the knee), and zipped lists of one length.
    let noThresholds = try Tool.run([
      "capacity", "profiles/seat-rush.json5", "--vary", "population.adminsPerRoom=1,2", "--seeds", "1..1",
    ])
    #expect(noThresholds.status == 2 && noThresholds.stderr.contains("has no thresholds"), "\(noThresholds.stderr)")
    let uneven = try Tool.run([
      "capacity", "profiles/smoke.json5", "--vary", "seats.maxSeatCount=6,8", "--vary", "seats.packageLimit=4",
    ])
    #expect(uneven.status == 2 && uneven.stderr.contains("add --grid"), "\(uneven.stderr)")
    let help = try Tool.run(["help", "run"])
    #expect(help.status == 0 && help.stdout.contains("--seed N"))
    let version = try Tool.run(["version"])
    #expect(version.stdout.hasPrefix("stampede \(StampedeVersion.current)"))
  }

  @Test(.long) func theMistakesCommandReportsEachMistakeAndTheRunRecordsItsMistake() throws {
    let r = try Tool.run([
      "mistakes", "--json", "--seeds", "1..3", "--mistake", "host.kick-with-disconnect,phone.calls-before-login",
    ])
    #expect(r.status == 0, "\(r.stderr)")
    let json = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as! [String: Any]
    let rows = json["mistakes"] as! [[String: Any]]
    #expect(rows.map { $0["id"] as! String } == ["host.kick-with-disconnect", "phone.calls-before-login"])
    #expect(rows[0]["caughtBy"] as? [String] == ["coguest.disconnect-by-guest"])
    #expect(rows[1]["caughtBy"] as? [String] == ["call.valid-use"])
    #expect(rows.allSatisfy { ($0["firstFailingSeed"] as? Int) == 1 && ($0["seedsTried"] as? Int) == 1 })
    let text = try Tool.run(["mistakes", "--seeds", "1..2"])
    #expect(text.status == 0 && text.stdout.contains("all \(ClientMistake.allCases.count) caught"), "\(text.stdout)")
    let unknown = try Tool.run(["mistakes", "--mistake", "host.nap"])
    #expect(unknown.status == 2 && unknown.stderr.contains("unknown mistake 'host.nap'"))
    // A run with a mistake fails, and its repro line carries the mistake, which replay reads back.
    let out = Tool.temporaryFolder()
    let run = try Tool.run([
      "run", "profiles/mistakes.json5", "--mistake", "host.kick-with-disconnect", "--out", out.path, "--progress",
      "none",
    ])
    #expect(run.status == 1)
    let report = try Tool.report(at: out)
    #expect(
      report["repro"] as? String
        == "stampede run profiles/mistakes.json5 --seed 0x1 --mistake host.kick-with-disconnect")
    let replay = try Tool.run(["replay", out.appendingPathComponent("report.json").path, "--progress", "none"])
    #expect(replay.status == 1 && replay.stderr.contains("reached the report's trace hash"), "\(replay.stderr)")
  }

  @Test func sweepTakesQuirksAndPutsThemInEveryReproLine() throws {
    let out = Tool.temporaryFolder()
    let r = try Tool.run([
      "sweep", "profiles/mistakes.json5", "--seeds", "1..1", "--quirk", "second-request-overwrites", "--mistake",
      "host.kick-with-disconnect", "--out", out.path, "--quiet",
    ])
    #expect(r.status == 1, "\(r.stderr)")
    let data = try Data(contentsOf: out.appendingPathComponent("summary.json"))
    let json = try JSONSerialization.jsonObject(with: data) as! [String: Any]
    let failing = json["failing"] as! [[String: Any]]
    #expect(
      failing.first?["repro"] as? String
        == "stampede run profiles/mistakes.json5 --seed 0x1 --quirk second-request-overwrites --mistake host.kick-with-disconnect"
    )
    let unknown = try Tool.run(["sweep", "profiles/smoke.json5", "--seeds", "1..1", "--quirk", "gremlins"])
    #expect(unknown.status == 2 && unknown.stderr.contains("unknown quirk 'gremlins'"))
  }

  /// One bug behind another: `--invariant` keeps a violation that is not the run's earliest (the
  /// default keeps the earliest); an invariant the seed does not violate, or one that does not
  /// exist, is refused with the reason.
  @Test func shrinkKeepsTheInvariantItIsGiven() throws {
    let folder = Tool.temporaryFolder()
    func shrink(_ extra: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
      try Tool.run(
        [
          "shrink", "profiles/mistakes.json5", "--seed", "1", "--mistake", "audience.move-read-as-leave", "--budget",
          "3", "--nearby", "0", "--out", folder.appendingPathComponent("s.json5").path,
        ] + extra)
    }
    let earliest = try shrink([])
    #expect(
      earliest.status == 0 && earliest.stdout.contains("): invariant ui.idle-means-off-seat"), "\(earliest.stdout)")
    let chosen = try shrink(["--invariant", "client.view-matches-server"])
    #expect(chosen.status == 0 && chosen.stdout.contains("): invariant client.view-matches-server"), "\(chosen.stdout)")
    let absent = try shrink(["--invariant", "seat.single-occupancy"])
    #expect(absent.status == 2 && absent.stderr.contains("does not violate seat.single-occupancy"), "\(absent.stderr)")
    let unknown = try shrink(["--invariant", "ui.nope"])
    #expect(unknown.status == 2 && unknown.stderr.contains("unknown invariant 'ui.nope'; expected one of ui."))
  }

  @Test func shrinkWritesTheSelectedMistakesAndQuirksIntoTheProfile() throws {
    let out = Tool.temporaryFolder().appendingPathComponent("shrunk.json5")
    let r = try Tool.run([
      "shrink", "profiles/mistakes.json5", "--seed", "1", "--mistake", "host.kick-with-disconnect", "--quirk",
      "stale-invitation", "--budget", "2", "--out", out.path,
    ])
    #expect(r.status == 0, "\(r.stderr)")
    let profile = try Profile.parse(Data(contentsOf: out))
    #expect(profile.mistakes == [.kickWithDisconnect] && profile.quirks == [.staleInvitation])
    // Named apart: its runs' reports and history stay away from the full profile's.
    #expect(profile.name == "mistakes-shrunk-seed-1")
  }

  @Test(.long) func theFaultBenchmarkRunsEveryKindOnAndOff() throws {
    let r = try Tool.run(["bench", "faults", "--seeds", "2", "--repeat", "1", "--json"])
    #expect(r.status == 0, "\(r.stderr)")
    let json = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as! [String: Any]
    let faults = json["faults"] as! [String: Any]
    #expect(faults["kindsFired"] as? Int == FaultKind.allCases.count)
    #expect(faults["violations"] as? Int == 0)
    #expect((faults["ratio"] as! Double) > 0 && (faults["faultsOffEventsPerSecond"] as! Double) > 0)
    let bad = try Tool.run(["bench", "faults", "--seeds", "0"])
    #expect(bad.status == 2 && bad.stderr.contains("--seeds"))
  }

  @Test func theHelpListsEveryQuirkAndBenchmark() throws {
    let run = try Tool.run(["help", "run"])
    for q in SDKQuirk.allCases { #expect(run.stdout.contains(q.rawValue), "\(q.rawValue)") }
    let bench = try Tool.run(["help", "bench"])
    for b in ["kernel", "stack", "sweep", "faults", "seats"] { #expect(bench.stdout.contains("\n\(b) "), "\(b)") }
  }

  @Test func aShorterDurationAppearsInTheReproLine() throws {
    let out = Tool.temporaryFolder()
    let r = try Tool.run(["run", "profiles/smoke.json5", "--duration", "90s", "--out", out.path, "--progress", "none"])
    #expect(r.status == 0)
    let report = try Tool.report(at: out)
    #expect(report["repro"] as? String == "stampede run profiles/smoke.json5 --seed 0x1 --duration 1.5m")
    #expect(report["simulatedSeconds"] as? Double == 90)
  }

  @Test func theKernelBenchmarkMatchesTheReferenceLoop() throws {
    let r = try Tool.run(["bench", "kernel", "--pending", "1000", "--holds", "20000", "--repeat", "1", "--json"])
    #expect(r.status == 0, "\(r.stderr)")
    let json = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as! [String: Any]
    let rows = json["kernel"] as! [[String: Any]]
    #expect(rows.count == 1)
    #expect(rows[0]["pending"] as? Int == 1000)
    #expect((rows[0]["opsPerSecond"] as! Double) > 0)
    #expect((rows[0]["referenceOpsPerSecond"] as! Double) > 0)
    #expect((rows[0]["ratio"] as! Double) > 0)
  }

  @Test func theSeatsBenchmarkCountsApplicationsAndEventsPerApplication() throws {
    // profiles/bench-mmcc.json5 cut down to 4 rooms of 60 viewers for 20 minutes.
    let text = TestProfile(try String(contentsOf: repositoryRoot.appendingPathComponent("profiles/bench-mmcc.json5")))
      .with("population.rooms", json5: "4").with("population.audiencePerRoom", json5: "60")
      .with("duration", "20m").text
    let file = Tool.temporaryFolder().appendingPathComponent("mmcc.json5")
    try Data(text.utf8).write(to: file)
    let r = try Tool.run(["bench", "seats", "--profile", file.path, "--repeat", "1", "--no-reference", "--json"])
    #expect(r.status == 0, "\(r.stderr)")
    let json = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as! [String: Any]
    let seats = json["seats"] as! [String: Any]
    let applications = seats["applications"] as! Int
    let events = seats["events"] as! Int
    // Each viewer applies once at a uniform time in the hour: about a third of 240 in 20 minutes.
    #expect((50...110).contains(applications), "\(applications)")
    #expect(seats["eventsPerApplication"] as? Double == (Double(events) / Double(applications) * 100).rounded() / 100)
    #expect((seats["applicationsPerSecond"] as! Double) > 0 && (seats["ratio"] as! Double) > 0)
    #expect(seats["violations"] as? Int == 0)
    #expect(json["instructions"] == nil)
    // --no-reference leaves the binary heap out.
    #expect(seats["referenceOpsPerSecond"] == nil && seats["referenceRatio"] == nil)
    #expect(json["threads"] == nil)
    // --threads: the question as room shards answers the same applications, on any thread count.
    let sharded = try Tool.run([
      "bench", "seats", "--profile", file.path, "--repeat", "1", "--no-reference", "--json", "--threads", "2",
    ])
    #expect(sharded.status == 0, "\(sharded.stderr)")
    let both = try JSONSerialization.jsonObject(with: Data(sharded.stdout.utf8)) as! [String: Any]
    let threads = both["threads"] as! [String: Any]
    #expect(threads["applications"] as? Int == applications)
    #expect(threads["sameAnswers"] as? Bool == true && threads["threads"] as? Int == 2)
    #expect((threads["applicationsPerSecond"] as! Double) > 0)
  }

  @Test func theStackBenchmarkPrintsTheContractJSON() throws {
    let r = try Tool.run([
      "bench", "stack", "--rooms", "5", "--audience", "20", "--duration", "5m", "--repeat", "1", "--callers", "300",
      "--json",
    ])
    #expect(r.status == 0, "\(r.stderr)")
    let json = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as! [String: Any]
    let stack = json["stack"] as! [String: Any]
    #expect(stack["population"] as? Int == 5 * 22)
    #expect(stack["audience"] as? Int == 100)
    #expect((stack["eventsPerSecond"] as! Double) > 0)
    #expect((stack["kernelOpsPerSecond"] as! Double) > 0)
    #expect((stack["peakMemoryBytes"] as! Int) > 0)
    #expect(stack["violations"] as? Int == 0)
    let calls = json["calls"] as! [String: Any]
    // Both variants are also measured against the C++ binary heap at their queue size.
    for variant in [stack, calls] {
      let heap = variant["referenceOpsPerSecond"] as! Double
      #expect(heap > 0)
      let expected = ((variant["eventsPerSecond"] as! Double) / heap * 1000).rounded() / 1000
      #expect(abs((variant["referenceRatio"] as! Double) - expected) < 0.0015)
    }
    #expect(calls["phones"] as? Int == 300 && calls["violations"] as? Int == 0)
    #expect((calls["events"] as! Int) > 1000 && (calls["bytesPerUser"] as! Double) > 0)
    #expect(json["kernel"] == nil)
    let bad = try Tool.run(["bench", "stack", "--rooms", "0"])
    #expect(bad.status == 2)
    #expect(bad.stderr.contains("--rooms"))
    // The options are checked before the reference is compiled: a bad value is named even when
    // the reference source could not be built.
    let first = try Tool.run(["bench", "stack", "--rooms", "0", "--reference", "/nonexistent/hold.cpp"])
    #expect(first.status == 2 && first.stderr.contains("--rooms") && !first.stderr.contains("g++"))
    let unbuildable = try Tool.run([
      "bench", "stack", "--rooms", "1", "--audience", "1", "--duration", "1m", "--repeat", "1", "--callers", "0",
      "--reference", "/nonexistent/hold.cpp",
    ])
    #expect(unbuildable.status != 0 && unbuildable.stderr.contains("/nonexistent/hold.cpp"))
  }

  @Test func aFailedThresholdExitsThreeAndIsInEveryReportFile() throws {
    let folder = Tool.temporaryFolder()
    let smoke = try String(contentsOf: repositoryRoot.appendingPathComponent("profiles/smoke.json5"), encoding: .utf8)
    let base = TestProfile(smoke)
    guard case .array(let written)? = base.tree.value(at: "thresholds") else {
      Issue.record("the smoke profile has no thresholds")
      return
    }
    #expect(written.contains("counter.seat.connected > 0"))
    let stricter = written.map { $0 == "counter.seat.connected > 0" ? "counter.seat.connected == 0" : $0 }
    let text = base.with("thresholds", .array(stricter)).text
    let profile = folder.appendingPathComponent("strict.json5")
    try text.write(to: profile, atomically: true, encoding: .utf8)
    let out = folder.appendingPathComponent("out")
    let r = try Tool.run(["run", profile.path, "--duration", "3m", "--out", out.path, "--progress", "none"])
    #expect(r.status == 3, "\(r.stderr)")
    #expect(r.stdout.contains("THRESHOLD FAILED counter.seat.connected == 0: measured"))
    let report = try Tool.report(at: out)
    #expect(report["verdict"] as? String == "fail")
    let thresholds = report["thresholds"] as! [[String: Any]]
    #expect(thresholds.count == 4)
    #expect(
      thresholds.filter { ($0["passed"] as! Bool) == false }.map { $0["expression"] as! String } == [
        "counter.seat.connected == 0"
      ])
    let md = try String(contentsOf: out.appendingPathComponent("report.md"), encoding: .utf8)
    #expect(md.contains("| `counter.seat.connected == 0` |") && md.contains("**FAIL**"))
    let junit = try String(contentsOf: out.appendingPathComponent("junit.xml"), encoding: .utf8)
    #expect(JUnitReader.read(junit)?.failures == 1)
    #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("report.html").path))
  }

  @Test func aThresholdOnAnUnknownMetricIsRefusedBeforeTheRun() throws {
    let folder = Tool.temporaryFolder()
    let profile = folder.appendingPathComponent("bad.json5")
    let text = TestProfile(minimalProfile).with("thresholds", ["push.sent.p99 < 1s"]).text
    try text.write(to: profile, atomically: true, encoding: .utf8)
    for command in ["run", "validate"] {
      let r = try Tool.run(
        [command, profile.path, "--out", folder.appendingPathComponent("o").path].prefix(command == "run" ? 4 : 2).map {
          $0
        })
      #expect(r.status == 2)
      #expect(r.stderr.contains("thresholds[0]: unknown latency 'push.sent'"), "\(r.stderr)")
    }
    #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("o").path))
  }

  @Test func shardedSweepsMergeAndAMissingShardIsReported() throws {
    let folder = Tool.temporaryFolder()
    var summaries: [String] = []
    for k in 0..<2 {
      let out = folder.appendingPathComponent("s\(k)").path
      let r = try Tool.run([
        "sweep", "profiles/smoke.json5", "--seeds", "1..3", "--shard", "\(k + 1)/2", "--jobs", "2", "--out", out,
      ])
      #expect(r.status == 0, "\(r.stderr)")
      #expect(r.stdout.components(separatedBy: "\n").filter { $0.hasPrefix("seed ") }.count == (k == 0 ? 1 : 2))
      summaries.append(out + "/summary.json")
    }
    let merged = folder.appendingPathComponent("m/summary.json").path
    let m = try Tool.run(["merge", summaries[1], summaries[0], "--out", merged])
    #expect(m.status == 0, "\(m.stderr)")
    let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: merged))) as! [String: Any]
    #expect((json["runs"] as! [[String: Any]]).map { $0["seed"] as! Int } == [1, 2, 3])
    #expect(json["complete"] as? Bool == true)
    // The merged shards are the unsharded sweep: the same runs, hash for hash, and the same totals.
    let whole = folder.appendingPathComponent("whole").path
    let w = try Tool.run(["sweep", "profiles/smoke.json5", "--seeds", "1..3", "--jobs", "2", "--out", whole])
    #expect(w.status == 0, "\(w.stderr)")
    let unsharded =
      try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: whole + "/summary.json")))
      as! [String: Any]
    func hashes(_ summary: [String: Any]) -> [String] {
      (summary["runs"] as! [[String: Any]]).map { "\($0["seed"]!) \($0["traceHash"]!) \($0["verdict"]!)" }
    }
    #expect(hashes(json) == hashes(unsharded))
    #expect("\(json["events"] ?? "")" == "\(unsharded["events"] ?? "")")
    #expect(
      (json["counters"] as? [String: Int]) == (unsharded["counters"] as? [String: Int]) && json["counters"] != nil)
    for name in ["summary.md", "summary.html", "junit.xml"] {
      #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("m/" + name).path))
    }
    let missing = try Tool.run(["merge", summaries[1], "--out", folder.appendingPathComponent("x/summary.json").path])
    #expect(missing.status == 2)
    #expect(missing.stderr.contains("1 seed(s) of 1..3 have no result (1)"))
    let twice = try Tool.run(["merge", summaries[1], summaries[1]])
    #expect(twice.status == 2)
    #expect(twice.stderr.contains("refusing to count them twice"))
  }

  /// A report records its build; a replay that reaches another hash blames a change of code when
  /// another build made the report (an app's edit, a new tool), and nondeterminism only when the
  /// same build did. `--history` is refused with the reason: replay records nothing.
  @Test func replayTellsAnotherBuildFromNondeterminism() throws {
    let folder = Tool.temporaryFolder()
    let out = folder.appendingPathComponent("r")
    let r = try Tool.run([
      "run", "profiles/smoke.json5", "--seed", "4", "--duration", "30s", "--out", out.path, "--progress", "none",
      "--history", "off",
    ])
    #expect(r.status == 0, "\(r.stderr)")
    let path = out.appendingPathComponent("report.json")
    var json = try JSONSerialization.jsonObject(with: Data(contentsOf: path)) as! [String: Any]
    var tool = json["tool"] as! [String: Any]
    let build = try #require(tool["build"] as? String)
    #expect(build.count == 40 && tool["program"] as? String == "stampede")
    // The hash as another run would have had it.
    json["traceHash"] = "0123456789abcdef"
    func replay(build: String) throws -> (status: Int32, stdout: String, stderr: String) {
      tool["build"] = build
      json["tool"] = tool
      try JSONSerialization.data(withJSONObject: json).write(to: path)
      return try Tool.run(["replay", path.path, "--progress", "none"])
    }
    let other = try replay(build: String(repeating: "f", count: 40))
    #expect(other.status == 0, "\(other.stderr)")
    #expect(other.stderr.contains("made by another build of this program"), "\(other.stderr)")
    #expect(!other.stderr.contains("NONDETERMINISM"))
    let same = try replay(build: build)
    #expect(same.status == 4 && same.stderr.contains("NONDETERMINISM") && same.stderr.contains("with the same build"))
    let history = try Tool.run(["replay", path.path, "--history", "off"])
    #expect(history.status == 2 && history.stderr.contains("replay records nothing in the history"))
  }

  @Test func replayReachesTheSameHashAndRefusesAChangedProfile() throws {
    let folder = Tool.temporaryFolder()
    let profile = folder.appendingPathComponent("p.json5")
    let smoke = try String(contentsOf: repositoryRoot.appendingPathComponent("profiles/smoke.json5"), encoding: .utf8)
    try smoke.write(to: profile, atomically: true, encoding: .utf8)
    let out = folder.appendingPathComponent("r")
    let r = try Tool.run([
      "run", profile.path, "--seed", "9", "--duration", "2m", "--out", out.path, "--progress", "none",
    ])
    #expect(r.status == 0, "\(r.stderr)")
    let trace = folder.appendingPathComponent("t.jsonl")
    let perfetto = folder.appendingPathComponent("p.json")
    let replay = try Tool.run([
      "replay", out.appendingPathComponent("report.json").path, "--only", "user:7", "--trace", trace.path,
      "--perfetto", perfetto.path, "--progress", "none",
    ])
    #expect(replay.status == 0, "\(replay.stderr)")
    #expect(replay.stderr.contains("replay reached the report's trace hash"))
    let lines = try String(contentsOf: trace, encoding: .utf8).split(separator: "\n")
    #expect(
      !lines.isEmpty && lines.allSatisfy { $0.contains("\"users\":[7") || $0.contains(",7,") || $0.contains(",7]") })
    #expect((try? JSONSerialization.jsonObject(with: Data(contentsOf: perfetto))) != nil)
    // A room's trace, with its requests as spans: metadata first, then every event in time order.
    let roomTrace = folder.appendingPathComponent("room.json")
    let room = try Tool.run([
      "replay", out.appendingPathComponent("report.json").path, "--only", "room:0", "--perfetto", roomTrace.path,
      "--progress", "none",
    ])
    #expect(room.status == 0, "\(room.stderr)")
    let document = try JSONSerialization.jsonObject(with: Data(contentsOf: roomTrace)) as? [String: Any]
    let traceEvents = document?["traceEvents"] as? [[String: Any]] ?? []
    let stamps = traceEvents.compactMap { $0["ts"] as? Double }
    #expect(stamps.count > 100 && stamps == stamps.sorted(), "\(stamps.count) timed events")
    #expect(traceEvents.contains { $0["ph"] as? String == "b" })
    #expect(
      traceEvents.prefix { $0["ph"] as? String == "M" }.count == traceEvents.filter { $0["ph"] as? String == "M" }.count
    )
    // The fingerprint covers the resolved profile: a comment, or a default written out, changes
    // nothing; a value does.
    try
      (smoke.replacingOccurrences(of: "maxApplies: 3,", with: "maxApplies: 3, patience: \"lognormal(25s, 0.5)\",")
      .replacingOccurrences(of: "  patience: \"lognormal(25s, 0.5)\",\n    seatTime", with: "  seatTime")
      .replacingOccurrences(of: "applyTimeout: \"30s\" }", with: "applyTimeout: \"30s\", coHostSeatLimit: 6 }")
      + "\n// a comment\n").write(to: profile, atomically: true, encoding: .utf8)
    let respelled = try Tool.run(["replay", out.appendingPathComponent("report.json").path, "--progress", "none"])
    #expect(respelled.status == 0, "\(respelled.stderr)")
    try smoke.replacingOccurrences(of: "maxApplies: 3,", with: "maxApplies: 2,").write(
      to: profile, atomically: true, encoding: .utf8)
    let changed = try Tool.run(["replay", out.appendingPathComponent("report.json").path, "--progress", "none"])
    #expect(changed.status == 2)
    #expect(changed.stderr.contains("has changed since the report was made"))
  }

  @Test func aSweepRemembersFailingSeedsAndReplaysThemFirstWithCorpus() throws {
    let folder = Tool.temporaryFolder()
    let profile = folder.appendingPathComponent("f.json5")
    try TestProfile(ShrinkTests.failing).with("duration", "2m").text.write(
      to: profile, atomically: true, encoding: .utf8)
    let corpus = folder.appendingPathComponent("corpus.jsonl").path
    let first = try Tool.run([
      "sweep", profile.path, "--seeds", "1..2", "--corpus-file", corpus, "--out",
      folder.appendingPathComponent("a").path,
    ])
    #expect(first.status == 3, "\(first.stderr)")
    #expect(first.stdout.contains("corpus: remembered 2 new failing seed(s)"))
    let again = try Tool.run([
      "sweep", profile.path, "--seeds", "5..5", "--corpus", "--corpus-file", corpus, "--quiet", "--out",
      folder.appendingPathComponent("b").path,
    ])
    #expect(again.status == 3)
    let lines = again.stdout.components(separatedBy: "\n")
    #expect(lines[0] == "corpus: 2 remembered failing seed(s) of this profile first (\(corpus))")
    #expect(lines[1].hasPrefix("corpus seed 1 FAIL") && lines[2].hasPrefix("corpus seed 2 FAIL"))
    #expect(again.stdout.contains("corpus: remembered 1 new failing seed(s)"))
  }

  @Test func aReportListsEveryInvariantAndTheTimeSeries() throws {
    let out = Tool.temporaryFolder()
    let r = try Tool.run(["run", "profiles/smoke.json5", "--out", out.path, "--progress", "none"])
    #expect(r.status == 0, "\(r.stderr)")
    let report = try Tool.report(at: out)
    let invariants = report["invariants"] as! [[String: Any]]
    #expect(invariants.map { $0["id"] as! String } == Checker.catalogue.map(\.id))
    #expect(invariants.allSatisfy { ($0["violations"] as! Int) == 0 && $0["first"] == nil })
    let series = report["timeSeries"] as! [String: Any]
    let columns = series["columns"] as! [String: [Int]]
    #expect(Set(columns.keys) == Set(LiveMetrics.gaugeNames))
    #expect((series["timesMs"] as! [Double]).count == columns["seats.occupied"]!.count)
    let latencies = report["latencies"] as! [String: Any]
    for name in ["seat.apply_to_response", "seat.accept_to_connected", "seat.invite_to_response"] {
      #expect(((latencies[name] as! [String: Any])["count"] as! Int) > 0, "\(name)")
    }
    // The resources, in report.json and as tables a person reads.
    let resources = report["resources"] as! [[String: Any]]
    #expect(resources.map { $0["name"] as! String } == ["room.reviewers", "room.seats"])
    let seats = resources[1]
    #expect((seats["utilisation"] as! Double) > 0 && (seats["refused"] as! [String: Int])["seat_limit"]! > 0)
    let html = try String(contentsOf: out.appendingPathComponent("report.html"), encoding: .utf8)
    #expect(html.contains("<h2>Resources</h2>") && html.contains("<code>room.seats</code>"))
    let md = try String(contentsOf: out.appendingPathComponent("report.md"), encoding: .utf8)
    #expect(md.contains("### Resources") && md.contains("| `room.reviewers` |"))
  }
}

@Suite struct InProcessRunTests {
  @Test func jemallocIsTheAllocatorAndReportsAPeak() {
    #expect(Jemalloc.version != nil)
    #expect(Jemalloc.isProcessAllocator)
    let m = PeakMemory()
    let block = [UInt8](repeating: 1, count: 4 << 20)
    #expect(m.runPeakBytes >= 4 << 20)
    #expect(block.count == 4 << 20)
  }

  /// A large table's block asks the kernel for huge pages (its mapping carries the `hg` flag in
  /// /proc/self/smaps); the report names the system's mode.
  @Test func largeTablesAskForHugePages() throws {
    #expect(Jemalloc.summary?.hasPrefix("jemalloc \(Jemalloc.version ?? "?") (transparent huge pages: ") == true)
    // jemalloc's own setting: left to the system and the tables that ask, unless the environment
    // says otherwise.
    if ProcessInfo.processInfo.environment["MALLOC_CONF"] == nil {
      #expect(Jemalloc.hugePageOption == "default")
      #expect(Jemalloc.summary?.hasSuffix("; jemalloc thp: default)") == true)
    }
    if FileManager.default.fileExists(atPath: "/sys/kernel/mm/transparent_hugepage/enabled") {
      #expect(["always", "madvise", "never"].contains(Jemalloc.systemHugePages ?? "?"))
    }
    guard let mode = Jemalloc.systemHugePages, mode != "never" else { return }
    func advised(_ address: UnsafeMutableRawPointer) throws -> Bool {
      let target = UInt(bitPattern: address)
      // (Read to the end: the file reports no size.)
      let handle = try #require(FileHandle(forReadingAtPath: "/proc/self/smaps"))
      defer { try? handle.close() }
      let smaps = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
      var inside = false
      for line in smaps.split(separator: "\n") {
        let fields = line.split(separator: " ", omittingEmptySubsequences: true)
        if let range = fields.first, range.contains("-"), !range.hasSuffix(":") {
          let bounds = range.split(separator: "-").compactMap { UInt($0, radix: 16) }
          inside = bounds.count == 2 && bounds[0] <= target && target < bounds[1]
        } else if inside && line.hasPrefix("VmFlags:") {
          return fields.contains("hg")
        }
      }
      return false
    }
    let count = 8 << 20 / MemoryLayout<Int64>.stride
    let big = UnsafeMutablePointer<Int64>.allocateTable(capacity: count)
    defer { big.deallocate() }
    big.initialize(repeating: 1, count: count)
    // The first whole 2 MiB page inside the block.
    func firstWholePage(_ p: UnsafeRawPointer) -> UnsafeMutableRawPointer {
      UnsafeMutableRawPointer(bitPattern: (UInt(bitPattern: p) + (2 << 20) - 1) & ~((2 << 20) - 1))!
    }
    #expect(try advised(firstWholePage(big)))
    // A per-user table kept as an array asks too, before its first write; its copies are all there.
    let table = [Int32](table: -1, count: 4 << 20)
    #expect(table.count == 4 << 20 && table.allSatisfy { $0 == -1 })
    let page = table.withUnsafeBufferPointer { firstWholePage($0.baseAddress!) }
    #expect(try advised(page))
    // A small one does not, and an empty one is empty.
    #expect([Int32](table: 7, count: 3) == [7, 7, 7])
    #expect([Int32](table: 7, count: 0).isEmpty)
  }

  /// The huge-page share comes from smaps_rollup's anonymous and huge-page fields; a file without
  /// them gives none.
  @Test func theHugePageShareIsReadFromSmapsRollup() {
    let text = """
      55d0c0000000-7ffd8a7f1000 ---p 00000000 00:00 0                          [rollup]
      Rss:             3049804 kB
      Anonymous:       3000000 kB
      AnonHugePages:   2174976 kB
      ShmemPmdMapped:        0 kB
      """
    #expect(Jemalloc.hugePageShare(smapsRollup: text) == 0.725)
    #expect(Jemalloc.hugePageShare(smapsRollup: "Rss: 10 kB\nAnonymous: 0 kB\nAnonHugePages: 0 kB") == nil)
    #expect(Jemalloc.hugePageShare(smapsRollup: "Rss: 10 kB") == nil)
    if FileManager.default.fileExists(atPath: "/proc/self/smaps_rollup") {
      let share = Jemalloc.hugePageShare
      #expect(share != nil && share! >= 0 && share! <= 1)
    }
  }

  @Test func runningTwiceInOneProcessGivesTheSameHash() throws {
    let (profile, data) = try Profile.load(path: repositoryRoot.appendingPathComponent("profiles/smoke.json5").path)
    let a = SimulationRun(profile: profile, profilePath: "p", profileData: data, seed: 5, duration: .minutes(3))
      .execute()
    let b = SimulationRun(profile: profile, profilePath: "p", profileData: data, seed: 5, duration: .minutes(3))
      .execute()
    #expect(a.traceHash == b.traceHash)
    #expect(a.events == b.events)
    #expect(a.stopReason == .endTime)
  }

  @Test func anInterruptedRunIsMarkedIncomplete() throws {
    // seat-rush runs for more than one slice of events, so asking it to stop ends it early.
    let path = repositoryRoot.appendingPathComponent("profiles/seat-rush.json5").path
    let (profile, data) = try Profile.load(path: path)
    let run = SimulationRun(profile: profile, profilePath: "p", profileData: data, seed: 5)
    var calls = 0
    let result = run.execute(shouldStop: {
      calls += 1
      return true
    })
    #expect(calls == 1)
    #expect(result.interrupted)
    #expect(result.events == SimulationRun.sliceEvents)
    let report = run.report(result, startedAt: Date())
    #expect(!report.complete)
    #expect(report.simulatedSeconds < 7200)
  }

  @Test func sha256MatchesTheStandardVectors() {
    #expect(SHA256.hex(Array("".utf8)) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    #expect(SHA256.hex(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    let long = Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)
    #expect(SHA256.hex(long) == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
  }
}
