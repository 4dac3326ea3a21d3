import Clients
import ExampleSuites
import Foundation
import Reports
import SimKernel
import Testing
import ToolSupport

@testable import Profiles
@testable import Runner
@testable import StampedeCLI

/// App code that crashes (a nil force-unwrapped in a completion) is a finding of the run, and the
/// run goes on without that user's app process: in a supervised `run`, and in a sweep's worker
/// processes, which also bound the memory app code can keep past its seeds.
@Suite(.serialized) struct CrashFollowingTests {
  /// The `review-timer` host panel force-unwraps a review's start time that a withdrawal removed
  /// while its accept was in flight: the host's app crashes, once per host that meets the race.
  /// Each crash is followed (the run says so, and goes on), the report names it with the frame
  /// that crashed, nothing else is held against the dead apps, and two processes agree.
  @Test func aCrashingAppIsAFindingAndTheRunGoesOn() throws {
    let folder = ExamplesTool.folder()
    var hashes: [String] = []
    for i in 0..<2 {
      let out = folder.appendingPathComponent("crash\(i)")
      let r = try ExamplesTool.run([
        "run", "profiles/smoke.json5", "--app", "review-timer", "--seed", "2", "--set", "duration=40s", "--out",
        out.path, "--progress", "none",
      ])
      #expect(r.status == 1, "\(r.stdout)\(r.stderr)")
      #expect(r.stderr.contains("running the seed again with its process dying there"), "\(r.stderr)")
      // The runtime's crash report is the supervisor's to read, not the user's to wade through.
      #expect(!r.stderr.contains("*** Program crashed"), "\(r.stderr)")
      let report = try ExamplesTool.report(at: out)
      let invariants = report["invariants"] as! [[String: Any]]
      let violated = invariants.filter { ($0["violations"] as? Int ?? 0) > 0 }
      #expect(violated.map { $0["id"] as! String } == ["app.crash-free"])
      let first = (violated.first?["first"] as? [String: Any])?["message"] as? String ?? ""
      #expect(first.contains("Unexpectedly found nil while unwrapping an Optional value"), "\(first)")
      #expect(first.contains("ReviewTimingHostViewModel.acceptFirst()"), "\(first)")
      #expect(report["simulatedSeconds"] as? Double == 40, "the run went on past the crash")
      hashes.append(report["traceHash"] as! String)
    }
    #expect(hashes[0] == hashes[1])
  }

  /// The `serial-accept` host panel spins until its previous accept is answered, on the thread
  /// that would deliver the answer: when an answer is slow or lost, its app hangs. The hang watch
  /// ends the piece of code that ran too long, and the hang is followed as a crash is.
  @Test func aHungAppIsAFindingAndTheRunGoesOn() throws {
    let out = ExamplesTool.folder().appendingPathComponent("hang")
    let r = try ExamplesTool.tool.runExternal(
      "STAMPEDE_APP_HANG_SECONDS=1",
      [
        ExamplesTool.tool.binary.path, "run", "profiles/smoke.json5", "--app", "serial-accept", "--seed", "5",
        "--set", "duration=40s", "--out", out.path, "--progress", "none",
      ])
    #expect(r.status == 1, "\(r.stdout)\(r.stderr)")
    let report = try ExamplesTool.report(at: out)
    let violated = (report["invariants"] as! [[String: Any]]).filter { ($0["violations"] as? Int ?? 0) > 0 }
    #expect(violated.map { $0["id"] as! String } == ["app.crash-free"])
    let first = (violated.first?["first"] as? [String: Any])?["message"] as? String ?? ""
    #expect(
      first.hasSuffix(
        "hung: one piece of its code did not return (iOS's watchdog ends an app whose main thread stops answering)"),
      "\(first)")
    // Where it was stopped is said on standard error (it differs from run to run; the report not).
    #expect(r.stderr.contains("stopped in"), "\(r.stderr)")
    #expect(report["simulatedSeconds"] as? Double == 40)
  }

  /// A script stops a run by its PID: the supervising process passes the interrupt on, and the
  /// run ends as an interrupted run does (exit 130, its report marked incomplete).
  @Test func anInterruptSentToTheRunReachesItsChild() throws {
    let out = ExamplesTool.folder().appendingPathComponent("interrupted")
    let process = Process()
    process.executableURL = ExamplesTool.tool.binary
    process.arguments = [
      "run", "profiles/capacity-1m.json5", "--out", out.path, "--progress", "none", "--history", "off",
    ]
    process.currentDirectoryURL = repositoryRoot
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    Thread.sleep(forTimeInterval: 2)
    kill(process.processIdentifier, SIGINT)
    process.waitUntilExit()
    #expect(process.terminationStatus == 130)
    let report = try ExamplesTool.report(at: out)
    #expect(report["complete"] as? Bool == false)
  }

  /// A sweep of the crashing app runs its seeds in worker processes: every seed fails with the
  /// crash, none is lost, and each seed's trace hash is the supervised run's.
  @Test func aSweepFollowsCrashesInItsWorkers() throws {
    let folder = ExamplesTool.folder()
    let out = folder.appendingPathComponent("sweep")
    let r = try ExamplesTool.run([
      "sweep", "profiles/smoke.json5", "--app", "review-timer", "--seeds", "1..3", "--jobs", "2", "--out", out.path,
      "--history", "off", "--quiet",
    ])
    #expect(r.status == 1, "\(r.stdout)\(r.stderr)")
    let summary = try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("summary.json")))
    let runs = (summary as! [String: Any])["runs"] as! [[String: Any]]
    #expect(runs.count == 3)
    for row in runs {
      #expect(row["verdict"] as? String == "fail")
      #expect((row["firstViolation"] as? String ?? "").hasPrefix("app.crash-free"), "\(row)")
      #expect((row["events"] as? Int ?? 0) > 10_000)
    }
    let single = folder.appendingPathComponent("single")
    let one = try ExamplesTool.run([
      "run", "profiles/smoke.json5", "--app", "review-timer", "--seed", "3", "--out", single.path, "--progress", "none",
    ])
    #expect(one.status == 1)
    let hash = try ExamplesTool.report(at: single)["traceHash"] as! String
    #expect(runs.first { $0["seed"] as? Int == 3 }?["traceHash"] as? String == hash)
  }

  /// `guarded-screen`'s call screen asserts in `deinit` that no call is on it. A phone never runs
  /// it (the app holds the screen for its process's life), but the process of an app killed
  /// during a call is let go of at its next launch. That trap is followed without a finding: the
  /// seed runs again with dead processes' objects kept, and passes, in a `run` and in a sweep's
  /// workers alike.
  @Test func aDeinitOfADeadProcessIsNoFinding() throws {
    let folder = ExamplesTool.folder()
    let single = folder.appendingPathComponent("guarded")
    let common = ["profiles/call-storm.json5", "--app", "guarded-screen", "--set", "duration=20m", "--history", "off"]
    let one = try ExamplesTool.run(["run"] + common + ["--seed", "1", "--out", single.path, "--progress", "none"])
    #expect(one.status == 0, "\(one.stdout)\(one.stderr)")
    #expect(one.stderr.contains("GuardedCallScreen.deinit"), "\(one.stderr)")
    #expect(one.stderr.contains("so this is not a finding"), "\(one.stderr)")
    let report = try ExamplesTool.report(at: single)
    #expect(report["verdict"] as? String == "pass")
    let kept = (report["counters"] as? [String: Any])?["app.dead_objects_kept"] as? Int ?? 0
    #expect(kept > 0)
    let out = folder.appendingPathComponent("guarded-sweep")
    let sweep = try ExamplesTool.run(
      ["sweep"] + common + ["--seeds", "1..2", "--jobs", "2", "--out", out.path, "--quiet"])
    #expect(sweep.status == 0, "\(sweep.stdout)\(sweep.stderr)")
    let summary = try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("summary.json")))
    let runs = (summary as! [String: Any])["runs"] as! [[String: Any]]
    #expect(runs.first { $0["seed"] as? Int == 1 }?["traceHash"] as? String == report["traceHash"] as? String)
  }

  /// `shrink` of a crashing app runs its candidates in workers that follow the crashes, so the
  /// crash itself is the failure kept; the shrunk profile reproduces it in a supervised `run`. In
  /// this process (`--in-process`) a crash ends the shrink with a message, never a result.
  @Test func aCrashIsShrunkAndItsReproCrashesAgain() throws {
    let folder = ExamplesTool.folder()
    let shrunk = folder.appendingPathComponent("shrunk.json5")
    let r = try ExamplesTool.run([
      "shrink", "profiles/smoke.json5", "--app", "review-timer", "--seed", "1", "--budget", "8", "--nearby", "0",
      "--out", shrunk.path,
    ])
    #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
    #expect(r.stdout.contains("): invariant app.crash-free"), "\(r.stdout)")
    // Smaller than smoke's four rooms of 200 viewers and ten minutes.
    let after = r.stdout.components(separatedBy: "\n").first { $0.contains("after:") } ?? ""
    #expect(!after.contains("4 room(s)") || !after.contains("10m"), "\(after)")
    let out = folder.appendingPathComponent("repro")
    let repro = try ExamplesTool.run([
      "run", shrunk.path, "--app", "review-timer", "--out", out.path, "--progress", "none", "--history", "off",
    ])
    #expect(repro.status == 1, "\(repro.stderr)")
    let invariants = try ExamplesTool.report(at: out)["invariants"] as! [[String: Any]]
    #expect(invariants.filter { ($0["violations"] as? Int ?? 0) > 0 }.map { $0["id"] as! String } == ["app.crash-free"])
    let inside = try ExamplesTool.run([
      "shrink", "profiles/smoke.json5", "--app", "review-timer", "--seed", "1", "--budget", "2", "--nearby", "0",
      "--out", folder.appendingPathComponent("inside.json5").path, "--in-process",
    ])
    #expect(inside.status == 1, "\(inside.stderr)")
    #expect(inside.stderr.contains("in this process does not follow crashes"), "\(inside.stderr)")
    #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("inside.json5").path))
  }

  /// Worker processes change nothing of a sweep's results: the correct examples in workers
  /// replaced after every seed (`--worker-memory 1k`) give the summary of a sweep in one process.
  @Test func workersGiveTheSweepOfOneProcess() throws {
    let folder = ExamplesTool.folder()
    var summaries: [Data] = []
    for extra in [["--worker-memory", "1k"], ["--in-process"]] {
      let out = folder.appendingPathComponent(extra[0])
      let r = try ExamplesTool.run(
        [
          "sweep", "profiles/smoke.json5", "--app", "examples", "--seeds", "1..4", "--set", "duration=40s", "--jobs",
          "2", "--out", out.path, "--history", "off", "--quiet",
        ] + extra)
      #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
      let data = try Data(contentsOf: out.appendingPathComponent("summary.json"))
      var summary = try JSONSerialization.jsonObject(with: data) as! [String: Any]
      summary["meta"] = nil
      summaries.append(try JSONSerialization.data(withJSONObject: summary, options: .sortedKeys))
    }
    #expect(summaries[0] == summaries[1])
  }

  /// In one process, a planned crash is carried out at its entry: the finding, with its detail;
  /// the user's app gone for the rest of the run (nothing else held against it); the same run
  /// every time, and not the run without the crash.
  @Test func aPlannedCrashKillsTheUsersAppAtItsEntry() throws {
    let path = repositoryRoot.appendingPathComponent("profiles/smoke.json5").path
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    func run(_ crashes: [AppCrash]) throws -> RunReport {
      var run = SimulationRun(
        profile: try Profile.parse(data), profilePath: "profiles/smoke.json5", profileData: data, seed: 1,
        duration: .seconds(40))
      run.app = exampleSuites.first { $0.name == "examples" }!.clientApp
      run.appCrashes = crashes
      return run.report(run.execute(), startedAt: Date())
    }
    let plain = try run([])
    #expect(violated(plain).isEmpty)
    // User 0 hosts room 0; entry 3,000 is well inside the run.
    let crash = AppCrash(entry: 3_000, user: 0, detail: "planted: index out of range")
    let a = try run([crash])
    let b = try run([crash])
    #expect(violated(a) == ["app.crash-free"])
    let finding = a.invariants.first { $0.id == "app.crash-free" }!
    #expect(finding.violations == 1)
    #expect(finding.first?.message == "user 0's app crashed, and its process died: planted: index out of range")
    #expect(a.traceHash == b.traceHash)
    #expect(a.traceHash != plain.traceHash)
  }

  @Test func crashPlansSurviveTheirEncoding() {
    let plan = [
      AppCrash(entry: 12, user: 3, detail: "Fatal error: a: b\\c\nd"),
      AppCrash(entry: 7, user: 4_000_000, detail: ""),
      AppCrash(entry: 7, piece: 12, user: 5, atDeath: true, detail: "in deinit"),
    ]
    #expect(AppCrash.decode(AppCrash.encode(plan)) == plan)
    #expect(AppCrash.decode("") == [])
    #expect(AppCrash.decode("x:1:y") == nil)
  }

  @Test func breadcrumbsAndCrashReportsAreRead() {
    #expect(
      CrashFollowing.Breadcrumb("crash 4812 203 0 4 0")
        == CrashFollowing.Breadcrumb("crash 4812 203 0 4 0"))
    let crumb = CrashFollowing.Breadcrumb("crash 4812 203 1 4 0")
    #expect(crumb?.entry == 4812 && crumb?.user == 203 && crumb?.releasing == true && crumb?.signal == 4)
    #expect(CrashFollowing.Breadcrumb("crash 1 2 3") == nil)
    let before = [
      "progress: 40%",
      "/home/me/App/VM.swift:2: Fatal error: Unexpectedly found nil while unwrapping an Optional value",
    ]
    let backtrace = [
      "*** Program crashed: Illegal instruction at 0x00007f313bf6df7f ***",
      "Thread 0 \"d2\" crashed:",
      "  0      0x00007f313bf6df7f closure #1 in closure #1 in _assertionFailure(_:_:file:line:flags:) + 623 in libswiftCore.so",
      "  1 [ra] 0x00007f313c0f961f _assertionFailure(_:_:file:line:flags:) + 302 in libswiftCore.so",
      "  2 [ra] 0x000055b473ffd2c6 VM.tap() + 197 in d2 at /home/me/App/VM.swift:2:34",
      "  3 [ra] 0x000055b473ffd10b go(_:) + 26 in d2 at /home/me/App/VM.swift:3:46",
    ]
    #expect(
      CrashReport.detail(before: before, crash: backtrace, signal: 4)
        == "Fatal error: Unexpectedly found nil while unwrapping an Optional value in VM.tap() at VM.swift:2")
    // A release build: no message, no line numbers; the signal and the frame.
    #expect(
      CrashReport.detail(before: [], crash: ["  0 0x000055c94ea803d2 go(_:) + 82 in m"], signal: 4)
        == "illegal instruction (a Swift runtime trap) in go(_:)")
    // A frame of the standard library specialized into the program is passed over for the
    // program's own code that called it.
    let specialized = [
      "  0 0x000055c94ea803d2 specialized Array.subscript.getter + 12 in app at //<compiler-generated>",
      "  1 [ra] 0x000055c94ea80400 SeatPanelViewModel.acceptRow(_:) + 82 in app at /src/App/SeatPanel.swift:88:17",
    ]
    #expect(
      CrashReport.detail(before: [], crash: specialized, signal: 4)
        == "illegal instruction (a Swift runtime trap) in SeatPanelViewModel.acceptRow(_:) at SeatPanel.swift:88")
    // A release build's report names the failure in its title, and its first frame is inlined.
    let release = [
      "*** Swift runtime failure: Unexpectedly found nil while unwrapping an Optional value ***",
      "  0 [inlined] [system] 0x0000555aa657c396 Swift runtime failure: Unexpectedly found nil while unwrapping an Optional value in app at //<compiler-generated>",
      "  1                    0x0000555aa657c396 AcceptRowPanel.accept(_:) + 214 in app at /src/App/PlantedBugs.swift:28:6",
    ]
    #expect(
      CrashReport.detail(before: [], crash: release, signal: 4)
        == "Fatal error: Unexpectedly found nil while unwrapping an Optional value in AcceptRowPanel.accept(_:) at PlantedBugs.swift:28"
    )
    // The app's glue (a thunk in its main.swift) rather than the harness that called it.
    let root = CrashReport.stampedeSources
    let glue = [
      "  0 [inlined] [system] 0x01 specialized Array.subscript.getter in app at //<compiler-generated>",
      "  1 0x01 specialized thunk for @escaping (Panel) -> () + 22 in app at /src/app/Sources/app/main.swift:31:9",
      "  2 [ra] 0x02 closure #1 in AudienceDriver.tap(_:arg:user:host:) + 20 in app at \(root)StampedeHarness/Drivers.swift:329:21",
    ]
    #expect(CrashReport.firstAppFrame(glue) == "specialized thunk for @escaping (Panel) -> () at main.swift:31")
    // No backtrace: the message with its file.
    #expect(
      CrashReport.detail(before: before, crash: [], signal: 4)
        == "Fatal error: Unexpectedly found nil while unwrapping an Optional value (VM.swift:2)")
  }

  /// A crash every user meets is not followed one user at a time (a run each), and a run's
  /// crashes have a bound; a race that crashes a few apps is followed.
  @Test func followingHasBounds() {
    let race = (0..<8).map { AppCrash(entry: UInt64($0), user: UInt32($0), detail: "Fatal error in accept") }
    #expect(CrashFollowing.refusal(race, next: "Fatal error in accept") == nil)
    let launch = (0..<24).map { AppCrash(entry: UInt64($0), user: UInt32($0), detail: "Fatal error in init") }
    #expect(
      CrashFollowing.refusal(launch, next: "Fatal error in init")?.contains("the same crash in 25 users' apps") == true)
    #expect(CrashFollowing.refusal(launch, next: "another") == nil)
    let many = (0..<100).map { AppCrash(entry: UInt64($0), user: UInt32($0), detail: "crash \($0)") }
    #expect(CrashFollowing.refusal(many, next: "one more")?.contains("more than 100 times") == true)
  }

  /// A seed whose worker gave no report fails with the reason, and a recheck leaves it out (it
  /// has no trace hash to compare).
  @Test func aLostSeedFailsAndIsNotRechecked() {
    let lost = SweepSummary.SeedResult(lost: 7, reason: "the worker process crashed outside app code", repro: "r")
    #expect(lost.row.verdict == "fail" && lost.row.exitStatus == 1)
    #expect(lost.row.firstViolation == "the worker process crashed outside app code")
    var kept = lost.row
    kept.seed = 8
    kept.traceHash = "0123456789abcdef"
    #expect(Sweep.recheckSeeds([lost.row, kept], share: 100) == [8])
  }

  /// The runtime's crash report is taken from a child's standard error even when its first line
  /// arrives split across two reads (two workers crashing at once made that happen).
  @Test func aCrashReportSplitAcrossReadsIsTaken() throws {
    let pipe = Pipe()
    let relay = ErrorRelay(pipe.fileHandleForReading)
    for piece in [
      "progress 10%\n\n**", "* Signal 4: Backtracing from 0x1...\n", "  1 0x2 VM.tap() + 3 in app at /a/VM.swift:9:1\n",
    ] {
      pipe.fileHandleForWriting.write(Data(piece.utf8))
      Thread.sleep(forTimeInterval: 0.05)
    }
    try pipe.fileHandleForWriting.close()
    let (before, crash) = relay.finish()
    #expect(crash.first == "*** Signal 4: Backtracing from 0x1...")
    #expect(CrashReport.firstAppFrame(crash) == "VM.tap() at VM.swift:9")
    #expect(before.contains("progress 10%"))
  }

  /// The runtime's warning that it could not stop a thread while it read the crash's stacks goes
  /// with the report it belongs to, not to the supervisor's standard error.
  @Test func theRuntimesThreadWarningGoesWithTheCrashReport() throws {
    let pipe = Pipe()
    let relay = ErrorRelay(pipe.fileHandleForReading)
    let warning =
      "swift-runtime: failed to suspend thread 3066 while processing a crash; backtraces will be missing information"
    pipe.fileHandleForWriting.write(Data("app line\n\(warning)\n\n*** Signal 6: Backtracing from 0x1...\n".utf8))
    try pipe.fileHandleForWriting.close()
    let (before, crash) = relay.finish()
    #expect(crash.first == warning)
    #expect(crash.contains("*** Signal 6: Backtracing from 0x1..."))
    #expect(before.contains("app line") && !before.contains(warning))
  }

  /// A worker that ran another build (the executable rebuilt during a sweep) is said, once.
  @Test func aWorkerOfAnotherBuildIsSaid() {
    #expect(WorkerPool.otherBuild("aaaa", mine: "aaaa") == nil)
    #expect(WorkerPool.otherBuild(nil, mine: "aaaa") == nil)
    #expect(WorkerPool.otherBuild("bbbb1234567890ff", mine: "aaaa")?.contains("another build (bbbb12345678)") == true)
  }

  @Test func workerMemoryReadsSizes() {
    #expect(WorkerPool.parseMemory("1k") == 1024)
    #expect(WorkerPool.parseMemory("512m") == 512 << 20)
    #expect(WorkerPool.parseMemory("2G") == 2 << 30)
    #expect(WorkerPool.parseMemory("4096") == 4096)
    #expect(WorkerPool.parseMemory("0") == nil)
    #expect(WorkerPool.parseMemory("lots") == nil)
  }
}
