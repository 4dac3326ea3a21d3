import Foundation
import Testing
import ToolSupport

@testable import Clients
@testable import Profiles
@testable import Reports
@testable import Runner
@testable import Scenario

/// A run that did not reach its end is never a pass: its verdict is `incomplete`, its exit code is
/// not 0, and its report names what was not judged; a violation before the cut still fails it.
@Suite struct VerdictTests {
  func report(_ text: String, seed: UInt64 = 5, clients: SimulationRun.ClientFactory? = nil, stop: Bool = false) throws
    -> RunReport
  {
    let data = Data(text.utf8)
    var run = SimulationRun(profile: try Profile.parse(data), profilePath: "v.json5", profileData: data, seed: seed)
    run.clients = clients
    return run.report(run.execute(shouldStop: { stop }), startedAt: Date())
  }

  @Test func aRunCutByTheEventBudgetIsIncompleteNotPass() throws {
    let smoke = String(decoding: try repositoryProfile("smoke.json5").1, as: UTF8.self)
    let cut = try report(TestProfile(smoke).with("limits.maxEvents", 3000).text, seed: 1)
    #expect(cut.stopReason == "eventBudget")
    #expect(cut.violationCount == 0)
    #expect(cut.verdict == "incomplete")
    #expect(cut.exitStatus == 5)
    #expect(cut.reachedEnd == false)
    let notJudged = try #require(cut.notJudged)
    #expect(notJudged.contains("client.view-matches-server"))
    #expect(notJudged.contains("request.terminal-within-timeout"))
    #expect(MarkdownReport.render(cut).contains("INCOMPLETE"))
    #expect(MarkdownReport.render(cut).contains("| `client.view-matches-server` | liveness | not judged |"))
    #expect(HTMLReport.render(cut).contains("not judged"))
    let junit = JUnitReport.render(cut)
    #expect(junit.contains("the event budget ended the run"))
    #expect(junit.contains("<skipped message=\"not judged: the run stopped before its end\"/>"))
    // The same profile run to its end passes and judges everything.
    let whole = try report(smoke, seed: 1)
    #expect(whole.verdict == "pass" && whole.exitStatus == 0 && whole.notJudged == nil)
  }

  @Test func anInterruptedRunIsIncompleteWithExit130() throws {
    // Interruption is checked between slices of events: a run longer than one slice.
    let seatRush = String(decoding: try repositoryProfile("seat-rush.json5").1, as: UTF8.self)
    let r = try report(seatRush, seed: 1, stop: true)
    #expect(r.complete == false)
    #expect(r.verdict == "incomplete")
    #expect(r.exitStatus == 130)
    #expect(MarkdownReport.render(r).contains("INCOMPLETE (interrupted)"))
  }

  @Test func aViolationBeforeTheCutStillFailsWithExit1() throws {
    let clients: SimulationRun.ClientFactory = { _ in ClientSet(audience: InvariantTests.CallbackOnlyStatus()) }
    let whole = try report(InvariantTests.flashCrowd.text, clients: clients)
    #expect(whole.violationCount > 0)
    // Cut one event short of the end: the violations came long before.
    let text = InvariantTests.flashCrowd.with("limits.maxEvents", .number(Double(whole.events - 1))).text
    let r = try report(text, clients: clients)
    #expect(r.stopReason == "eventBudget")
    #expect(r.violationCount > 0)
    #expect(r.verdict == "fail")
    #expect(r.exitStatus == 1)
    #expect(r.notJudged != nil)
  }

  @Test func aSweepCountsIncompleteSeedsAndTheCommandLineExits5() throws {
    let folder = ProcessTool.temporaryFolder()
    let profile = folder.appendingPathComponent("cut.json5")
    let smoke = String(decoding: try repositoryProfile("smoke.json5").1, as: UTF8.self)
    try TestProfile(smoke).with("limits.maxEvents", 3000).text.write(to: profile, atomically: true, encoding: .utf8)
    let run = try Tool.run([
      "run", profile.path, "--out", folder.appendingPathComponent("run").path, "--progress", "none",
    ])
    #expect(run.status == 5, "\(run.stderr)")
    #expect(run.stderr.contains("the verdict is incomplete"))
    #expect(try Tool.report(at: folder.appendingPathComponent("run"))["verdict"] as? String == "incomplete")
    let sweep = try Tool.run([
      "sweep", profile.path, "--seeds", "1..3", "--jobs", "1", "--out", folder.appendingPathComponent("sweep").path,
      "--quiet",
    ])
    #expect(sweep.status == 5, "\(sweep.stdout)\(sweep.stderr)")
    #expect(sweep.stdout.contains("3 failed (3 of them incomplete)"))
  }
}

/// The corpus lives with the sweep and replays each failure with what it failed under.
@Suite(.serialized) struct CorpusTests {
  @Test(.long) func aMistakeFailureRoundTripsThroughTheCorpus() throws {
    let folder = ProcessTool.temporaryFolder()
    let out = folder.appendingPathComponent("sweep")
    let first = try Tool.run([
      "sweep", "profiles/mistakes.json5", "--seeds", "1..2", "--jobs", "2", "--mistake", "audience.seat-limit-as-wait",
      "--out", out.path, "--quiet",
    ])
    #expect(first.status == 1, "\(first.stdout)\(first.stderr)")
    // The summary page links each failing seed to the report the sweep wrote for it.
    let page = try String(contentsOf: out.appendingPathComponent("summary.html"), encoding: .utf8)
    let summary = try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("summary.json")))
    let failing = ((summary as? [String: Any])?["failing"] as? [[String: Any]] ?? []).compactMap { $0["seed"] as? Int }
    #expect(!failing.isEmpty)
    for seed in failing {
      #expect(page.contains("<a href=\"seeds/seed-\(seed)/report.html\">\(seed)</a>"))
      #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("seeds/seed-\(seed)/report.html").path))
    }
    // Sharded, each shard keeps its own corpus, and merge combines them without repeats.
    var shardSummaries: [String] = []
    for k in 1...2 {
      let shard = folder.appendingPathComponent("shard-\(k)")
      let r = try Tool.run([
        "sweep", "profiles/mistakes.json5", "--seeds", "1..2", "--shard", "\(k)/2", "--mistake",
        "audience.seat-limit-as-wait", "--out", shard.path, "--quiet",
      ])
      #expect(r.status == 1, "\(r.stderr)")
      #expect(FailingSeedCorpus(path: shard.appendingPathComponent("failing-seeds.jsonl").path).rows().count == 1)
      shardSummaries.append(shard.appendingPathComponent("summary.json").path)
    }
    let mergedOut = folder.appendingPathComponent("merged/summary.json")
    let m = try Tool.run(["merge"] + shardSummaries + ["--out", mergedOut.path])
    #expect(m.stdout.contains("corpus: 2 failing seed(s)"), "\(m.stdout)\(m.stderr)")
    let mergedRows = FailingSeedCorpus.inFolder(mergedOut.deletingLastPathComponent().path).rows()
    #expect(mergedRows.map(\.seed).sorted() == failing.map(UInt64.init).sorted())
    let junit = try String(contentsOf: out.appendingPathComponent("junit.xml"), encoding: .utf8)
    #expect(junit.contains(" time=\"") && junit.contains(" hostname=\""))
    // Written into the sweep's own folder, not ./reports.
    let corpusFile = out.appendingPathComponent("failing-seeds.jsonl")
    let rows = FailingSeedCorpus(path: corpusFile.path).rows()
    #expect(!rows.isEmpty)
    #expect(rows.allSatisfy { $0.mistakes == ["audience.seat-limit-as-wait"] })
    // Replayed without --mistake on the command line, the remembered seeds still fail: they run
    // with the mistake they failed under.
    let again = try Tool.run([
      "sweep", "profiles/mistakes.json5", "--seeds", "3..3", "--jobs", "1", "--corpus", "--corpus-file",
      corpusFile.path, "--out", folder.appendingPathComponent("again").path, "--quiet",
    ])
    #expect(again.stdout.contains("corpus: \(rows.count) remembered failing seed(s)"))
    #expect(again.stdout.contains("remembered seed(s) still fail"), "\(again.stdout)")
    #expect(again.status == 1)
  }
}
