import Foundation
import Reports
import Testing

/// The conventional flags and output of the command line, each through the built binary.
@Suite(.serialized) struct OutputFlagTests {
  @Test func runJsonPrintsTheReportToStdoutAndTheSameReportToTheFolder() throws {
    let out = Tool.temporaryFolder().appendingPathComponent("r")
    let r = try Tool.run(["run", "profiles/smoke.json5", "--duration", "60s", "--json", "--out", out.path])
    #expect(r.status == 0, "\(r.stderr)")
    let printed = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as! [String: Any]
    let written = try Tool.report(at: out)
    #expect(printed["traceHash"] as? String == written["traceHash"] as? String)
    #expect(printed["verdict"] as? String == "pass")
    #expect(!r.stdout.contains("repro:"))
  }

  /// `--out` never overwrites a file that is not a Stampede report: a run, a sweep, a comparison
  /// and a merge refuse before doing any work, and leave the file as it was. Reports of their own,
  /// old ones without the marks included, are written over.
  @Test func anOutThatWouldOverwriteSomethingElseIsRefused() throws {
    let folder = Tool.temporaryFolder()
    let notes = folder.appendingPathComponent("notes")
    try FileManager.default.createDirectory(at: notes, withIntermediateDirectories: true)
    let mine = "# My notes\n"
    try mine.write(to: notes.appendingPathComponent("report.md"), atomically: true, encoding: .utf8)
    let run = try Tool.run(["run", "profiles/smoke.json5", "--duration", "30s", "--quiet", "--out", notes.path])
    #expect(run.status == 2)
    #expect(
      run.stderr.contains("--out: \(notes.path)/report.md is not a Stampede report, and writing the report there"),
      "\(run.stderr)")
    #expect(try String(contentsOf: notes.appendingPathComponent("report.md"), encoding: .utf8) == mine)
    #expect(!FileManager.default.fileExists(atPath: notes.appendingPathComponent("report.json").path))
    let ci = folder.appendingPathComponent("ci")
    try FileManager.default.createDirectory(at: ci, withIntermediateDirectories: true)
    try "<testsuites name=\"lint\"/>\n".write(
      to: ci.appendingPathComponent("junit.xml"), atomically: true, encoding: .utf8)
    let sweep = try Tool.run([
      "sweep", "profiles/smoke.json5", "--seeds", "1..2", "--quiet", "--history", "off", "--out", ci.path,
      "--set", "duration=30s",
    ])
    #expect(sweep.status == 2 && sweep.stderr.contains("junit.xml is not a Stampede report"), "\(sweep.stderr)")
    #expect(!FileManager.default.fileExists(atPath: ci.appendingPathComponent("summary.json").path))
    // A report folder of Stampede's own is written over, also one whose Markdown and HTML predate the marks.
    let r = folder.appendingPathComponent("r")
    for _ in 0..<2 {
      let again = try Tool.run(["run", "profiles/smoke.json5", "--duration", "30s", "--quiet", "--out", r.path])
      #expect(again.status == 0, "\(again.stderr)")
    }
    for name in ["report.md", "report.html"] {
      let url = r.appendingPathComponent(name)
      let text = try String(contentsOf: url, encoding: .utf8)
      #expect(text.contains(name.hasSuffix("md") ? ReportOwnership.markdownMark : ReportOwnership.htmlMark))
      try text.replacingOccurrences(of: ReportOwnership.markdownMark, with: "").replacingOccurrences(
        of: ReportOwnership.htmlMark, with: ""
      ).write(to: url, atomically: true, encoding: .utf8)
    }
    #expect(try Tool.run(["run", "profiles/smoke.json5", "--duration", "30s", "--quiet", "--out", r.path]).status == 0)
    // compare into a folder with someone else's page, and merge onto someone else's JSON.
    try "<html>mine</html>".write(to: notes.appendingPathComponent("compare.html"), atomically: true, encoding: .utf8)
    let compare = try Tool.run(["compare", r.path, r.path, "--no-replay", "--out", notes.path])
    #expect(
      compare.status == 2 && compare.stderr.contains("compare.html is not a Stampede report"), "\(compare.stderr)")
    let shard = folder.appendingPathComponent("s")
    #expect(
      try Tool.run([
        "sweep", "profiles/smoke.json5", "--seeds", "1..2", "--quiet", "--history", "off", "--out", shard.path,
        "--set", "duration=30s",
      ]).status == 0)
    let settings = notes.appendingPathComponent("settings.json")
    try "{\"theme\": \"dark\"}".write(to: settings, atomically: true, encoding: .utf8)
    let merge = try Tool.run([
      "merge", shard.appendingPathComponent("summary.json").path, "--out", settings.path, "--history", "off",
    ])
    #expect(merge.status == 2 && merge.stderr.contains("is not a Stampede sweep summary"), "\(merge.stderr)")
    #expect(try String(contentsOf: settings, encoding: .utf8) == "{\"theme\": \"dark\"}")
  }

  @Test func runQuietPrintsOnlyTheVerdictLine() throws {
    let out = Tool.temporaryFolder().appendingPathComponent("r")
    let r = try Tool.run(["run", "profiles/smoke.json5", "--duration", "60s", "--quiet", "--out", out.path])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stdout == "smoke seed 0x1: PASS\n")
    let both = try Tool.run(["run", "profiles/smoke.json5", "--quiet", "--json"])
    #expect(both.status == 2 && both.stderr.contains("--json and --quiet cannot go together"))
  }

  @Test func countersPrintOneALineLargestFirstTopTwelveByDefault() throws {
    let out = Tool.temporaryFolder().appendingPathComponent("r")
    let r = try Tool.run(["run", "profiles/smoke.json5", "--duration", "60s", "--out", out.path])
    #expect(r.status == 0)
    let lines = r.stdout.split(separator: "\n").map(String.init)
    guard let head = lines.firstIndex(where: { $0.hasPrefix("  counters") }) else {
      Issue.record("no counters heading in:\n\(r.stdout)")
      return
    }
    #expect(lines[head].contains("top 12 of"))
    let rows = lines[(head + 1)...].prefix { $0.hasPrefix("    ") }
    #expect(rows.count == 12)
    let values = rows.map { UInt64($0.split(separator: " ").last!)! }
    #expect(values == values.sorted(by: >))
    let report = try Tool.report(at: out)
    let counters = report["counters"] as! [String: Int]
    #expect(Int(values[0]) == counters.values.max())
    let all = try Tool.run(["run", "profiles/smoke.json5", "--duration", "60s", "--counters", "all", "--out", out.path])
    let nonZero = counters.values.filter { $0 > 0 }.count
    #expect(all.stdout.split(separator: "\n").filter { $0.hasPrefix("    ") }.count == nonZero)
    let bad = try Tool.run(["run", "profiles/smoke.json5", "--counters", "some"])
    #expect(bad.status == 2 && bad.stderr.contains("--counters: expected a whole number"))
  }

  @Test func aBadOutIsRefusedBeforeTheRunWithAPlainMessage() throws {
    let file = Tool.temporaryFolder().appendingPathComponent("a-file")
    try Data().write(to: file)
    let started = Date()
    // A two-hour evening would take a while: the refusal comes first.
    let r = try Tool.run(["run", "profiles/seat-rush.json5", "--out", file.appendingPathComponent("sub").path])
    #expect(r.status == 2)
    #expect(r.stderr.contains("--out: cannot make the folder") && r.stderr.contains("is a file"))
    #expect(!r.stderr.contains("NSCocoaErrorDomain"))
    #expect(Date().timeIntervalSince(started) < 30)
    let sweep = try Tool.run(["sweep", "profiles/smoke.json5", "--seeds", "1..2", "--out", file.path])
    #expect(sweep.status == 2 && sweep.stderr.contains("is a file, not a folder"))
  }

  @Test func sweepLinesComeInSeedOrder() throws {
    let out = Tool.temporaryFolder().appendingPathComponent("s")
    let r = try Tool.run(["sweep", "profiles/smoke.json5", "--seeds", "1..8", "--jobs", "2", "--out", out.path])
    #expect(r.status == 0, "\(r.stderr)")
    let seeds = r.stdout.split(separator: "\n").compactMap { line -> UInt64? in
      guard line.hasPrefix("seed ") else { return nil }
      return UInt64(line.dropFirst(5).prefix { $0.isNumber })
    }
    #expect(seeds == Array(1...8))
  }

  @Test func helpForAnUnknownCommandAndNoCommandAtAllExitTwo() throws {
    let unknown = try Tool.run(["help", "frobnicate"])
    #expect(unknown.status == 2 && unknown.stderr.contains("no help for 'frobnicate'"))
    #expect(try Tool.run([]).status == 2)
    let known = try Tool.run(["help", "sweep"])
    #expect(known.status == 0 && known.stdout.contains("stampede sweep PROFILE"))
  }

  @Test func doubleDashEndsTheOptions() throws {
    // After `--`, a word that starts with dashes is the profile, not an option.
    let r = try Tool.run(["run", "--", "--not-an-option.json5"])
    #expect(r.status == 2)
    #expect(!r.stderr.contains("unknown option"))
    #expect(r.stderr.contains("--not-an-option.json5"))
  }

  @Test(arguments: ["bash", "zsh", "fish"])
  func completionScriptsNameEveryCommandAndTheirOptions(shell: String) throws {
    let r = try Tool.run(["completion", shell])
    #expect(r.status == 0)
    // fish names a long option without its dashes (`-l seeds`).
    let option = shell == "fish" ? "-l " : "--"
    for word in ["run", "sweep", "shrink"] + ["seeds", "shard", "counters", "json"].map({ option + $0 }) {
      #expect(r.stdout.contains(word), "\(shell) script lacks \(word)")
    }
    #expect(try Tool.run(["completion", "tcsh"]).status == 2)
  }

  @Test func theBashScriptParsesAndCompletesACommandsOptions() throws {
    let script = try Tool.run(["completion", "bash"]).stdout
    let file = Tool.temporaryFolder().appendingPathComponent("complete.bash")
    try Data(script.utf8).write(to: file)
    // Complete `stampede sweep --sh` as bash would.
    let probe = """
      source '\(file.path)'
      COMP_WORDS=(stampede sweep --sh); COMP_CWORD=2; _stampede; printf '%s\\n' "${COMPREPLY[@]}"
      """
    let bash = Process()
    bash.executableURL = URL(fileURLWithPath: "/bin/bash")
    bash.arguments = ["-c", probe]
    let pipe = Pipe()
    bash.standardOutput = pipe
    try bash.run()
    bash.waitUntilExit()
    let words = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    #expect(bash.terminationStatus == 0)
    #expect(words.split(separator: "\n").sorted() == ["--shard", "--shards"])
  }

  /// Every option a completion script offers is one its command accepts.
  @Test func completionOffersOnlyOptionsTheCommandsAccept() throws {
    let script = try Tool.run(["completion", "fish"]).stdout
    var checked = 0
    for line in script.split(separator: "\n") where line.contains(" -l ") {
      let parts = line.split(separator: " ").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "'")) }
      guard let command = parts.firstIndex(of: "__fish_seen_subcommand_from").map({ parts[$0 + 1] }),
        let l = parts.firstIndex(of: "-l")
      else { continue }
      let option = "--" + parts[l + 1]
      let takesValue = parts.contains("-r")
      // The command is made to fail on its arguments, never to run: an option it does not know
      // would be refused as unknown first.
      var args = [command, option]
      if takesValue { args.append("x") }
      args += ["--definitely-unknown-option"]
      let r = try Tool.run(args)
      #expect(r.stderr.contains("unknown option '--definitely-unknown-option'"), "\(command) \(option): \(r.stderr)")
      checked += 1
    }
    #expect(checked > 50)
  }

  @Test func shardsCountFromOneAndTheirMergeIsTheUnshardedSweep() throws {
    let folder = Tool.temporaryFolder()
    let zero = try Tool.run(["sweep", "profiles/smoke.json5", "--seeds", "1..4", "--shard", "0/2"])
    #expect(zero.status == 2 && zero.stderr.contains("did you mean 1/2?"))
    let beyond = try Tool.run(["sweep", "profiles/smoke.json5", "--seeds", "1..4", "--shard", "3/2"])
    #expect(beyond.status == 2 && beyond.stderr.contains("did you mean 2/2?"))
    var parts: [String] = []
    for k in 1...2 {
      let out = folder.appendingPathComponent("shard\(k)").path
      let r = try Tool.run(["sweep", "profiles/smoke.json5", "--seeds", "1..4", "--shard", "\(k)/2", "--out", out])
      #expect(r.status == 0, "\(r.stderr)")
      #expect(r.stderr.contains("shard \(k)/2 (--shard): seeds \(2 * k - 1)..\(2 * k) of 1..4"), "\(r.stderr)")
      parts.append(out + "/summary.json")
    }
    let merged = folder.appendingPathComponent("merged/summary.json").path
    #expect(try Tool.run(["merge", parts[1], parts[0], "--out", merged]).status == 0)
    let whole = folder.appendingPathComponent("whole").path
    #expect(try Tool.run(["sweep", "profiles/smoke.json5", "--seeds", "1..4", "--out", whole]).status == 0)
    func canonical(_ path: String) throws -> Data {
      var json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as! [String: Any]
      json.removeValue(forKey: "meta")
      // Growth needs each seed's own coverage: a sweep has it, a merge of shards does not.
      json.removeValue(forKey: "coverageGrowth")
      return try JSONSerialization.data(withJSONObject: json, options: [.sortedKeys])
    }
    #expect(try canonical(merged) == canonical(whole + "/summary.json"))
  }

  @Test(.long) func aSweepOffATerminalPrintsAPlainProgressLineEveryInterval() throws {
    let out = Tool.temporaryFolder().appendingPathComponent("p")
    let r = try Tool.run([
      "sweep", "profiles/smoke.json5", "--seeds", "1..12", "--jobs", "1", "--progress-every", "200ms",
      "--out", out.path,
    ])
    #expect(r.status == 0, "\(r.stderr)")
    let lines = r.stderr.split(separator: "\n").filter { $0.hasPrefix("progress: ") }
    #expect(!lines.isEmpty, "\(r.stderr)")
    // One unit: seeds done of the seeds to run.
    #expect(lines.allSatisfy { $0.contains("/12 seeds") && $0.contains("failed") })
    // --quiet asks for the verdict alone: no progress unless --progress asks for it.
    let quiet = try Tool.run([
      "sweep", "profiles/smoke.json5", "--seeds", "1..12", "--jobs", "1", "--quiet", "--progress-every", "200ms",
      "--out", out.path,
    ])
    #expect(!quiet.stderr.contains("progress: ") && quiet.stdout.split(separator: "\n").count <= 3, "\(quiet.stdout)")
    let asked = try Tool.run([
      "sweep", "profiles/smoke.json5", "--seeds", "1..12", "--jobs", "1", "--quiet", "--progress", "plain",
      "--progress-every", "200ms", "--out", out.path,
    ])
    #expect(asked.stderr.contains("progress: "))
  }

  @Test func setOverridesAProfileKeyIsRecordedAndReplays() throws {
    let folder = Tool.temporaryFolder()
    let plain = folder.appendingPathComponent("plain")
    let set = folder.appendingPathComponent("set")
    #expect(
      try Tool.run(["run", "profiles/smoke.json5", "--duration", "60s", "--quiet", "--out", plain.path]).status == 0)
    let r = try Tool.run([
      "run", "profiles/smoke.json5", "--duration", "60s", "--set", "seats.packageLimit=1", "--set",
      "audience.applyAfter=exponential(5s)", "--out", set.path,
    ])
    #expect(r.status == 0, "\(r.stderr)")
    let a = try Tool.report(at: plain)
    let b = try Tool.report(at: set)
    let profile = b["profile"] as! [String: Any]
    #expect(profile["overrides"] as? [String] == ["seats.packageLimit=1", "audience.applyAfter=exponential(5s)"])
    #expect((a["profile"] as! [String: Any])["overrides"] == nil)
    // The fingerprint covers the overrides; the run is another one.
    #expect((a["profile"] as! [String: Any])["sha256"] as? String != profile["sha256"] as? String)
    #expect(a["traceHash"] as? String != b["traceHash"] as? String)
    #expect(
      (b["repro"] as! String).hasSuffix("--set seats.packageLimit=1 --set 'audience.applyAfter=exponential(5s)'"))
    let replay = try Tool.run(["replay", set.appendingPathComponent("report.json").path, "--quiet"])
    #expect(replay.status == 0, "\(replay.stderr)")
    #expect(replay.stderr.contains("replay reached the report's trace hash \(b["traceHash"] as! String)"))
  }

  @Test func setIsValidatedLikeTheFileWithItsKeyPath() throws {
    let wrongKey = try Tool.run(["run", "profiles/smoke.json5", "--set", "seats.packageLimt=1"])
    #expect(wrongKey.status == 2 && wrongKey.stderr.contains("seats.packageLimt: unknown key; did you mean"))
    let wrongValue = try Tool.run(["run", "profiles/smoke.json5", "--set", "seats.packageLimit=99"])
    #expect(wrongValue.status == 2 && wrongValue.stderr.contains("seats.packageLimit: must not exceed maxSeatCount"))
    let noValue = try Tool.run(["sweep", "profiles/smoke.json5", "--seeds", "1..2", "--set", "seats"])
    #expect(noValue.status == 2 && noValue.stderr.contains("--set: expected key.path=value"))
  }

  @Test func aSweepWithSetRecordsItInTheSummaryAndEverySeedsRepro() throws {
    let out = Tool.temporaryFolder().appendingPathComponent("s")
    let r = try Tool.run([
      "sweep", "profiles/smoke.json5", "--seeds", "1..2", "--set", "duration=30s", "--out", out.path,
    ])
    #expect(r.status == 0, "\(r.stderr)")
    let summary =
      try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("summary.json")))
      as! [String: Any]
    #expect((summary["profile"] as! [String: Any])["overrides"] as? [String] == ["duration=30s"])
    for row in summary["runs"] as! [[String: Any]] {
      #expect((row["repro"] as! String).hasSuffix("--set duration=30s"))
      #expect(row["simulatedSeconds"] as? Int == 30)
    }
  }
}
