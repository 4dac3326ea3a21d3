import Foundation
import History
import Metrics
import Reports
import Runner

/// `stampede compare`.
enum CompareCommand {
  static func main(_ args: [String]) throws -> ExitCode {
    let options = try Options(
      args, valued: ["--fail-on", "--alpha", "--out", "--history"],
      flags: ["--markdown", "--no-replay", "--allow-verdict-changes"])
    guard options.positional.count == 2 else {
      throw UsageError(
        "compare takes two things to compare, A (the baseline) and B: reports, sweep summaries or history:ID")
    }
    var alpha = 0.01
    if let text = options.values["--alpha"] {
      guard let a = Double(text), a > 0, a < 1 else {
        throw UsageError("--alpha: expected a significance level between 0 and 1 such as 0.01, got '\(text)'")
      }
      alpha = a
    }
    let out = options.values["--out"] ?? "reports/compare"
    try ReportFolder.check(out, writes: ["compare.md", "compare.html"])
    var reports: [RunReport?] = []
    var sides: [ComparedSide] = []
    for spec in options.positional {
      guard let loaded = try load(spec, options: options) else { return .usage }
      sides.append(loaded.side)
      reports.append(loaded.report)
    }
    if sides[0].kind != sides[1].kind {
      throw UsageError(
        "compare needs two of a kind: \(options.positional[0]) is a \(sides[0].kind), \(options.positional[1]) a \(sides[1].kind)"
      )
    }
    let vocabulary = Comparison.vocabulary(sides[0], sides[1])
    var rules: [RegressionRule] = []
    for text in options.all["--fail-on"] ?? [] {
      do {
        rules.append(try RegressionRule.parse(text, vocabulary: vocabulary))
      } catch {
        throw UsageError("--fail-on '\(text)': \(error.message)")
      }
    }
    var comparison = Comparison(
      sides[0], sides[1], rules: rules, alpha: alpha,
      allowVerdictChanges: options.flags.contains("--allow-verdict-changes"))
    if let a = reports[0], let b = reports[1], !options.flags.contains("--no-replay") {
      comparison.divergence = divergence(a, b, paths: options.positional)
    }
    let markdown = ComparisonReports.markdown(comparison)
    if options.flags.contains("--markdown") {
      print(markdown)
    } else {
      print(summary(comparison))
    }
    do {
      try ComparisonReports.write(comparison, to: out)
      printError("\(AppRegistry.program): wrote \(out)/compare.md and \(out)/compare.html")
    } catch {
      printError("\(AppRegistry.program): cannot write to \(out): \(error)")
      return .usage
    }
    return comparison.failed ? .thresholdFailed : .pass
  }

  /// A report, a sweep summary (a file, or a folder holding `report.json` or `summary.json`), or
  /// `history:ID`.
  static func load(_ spec: String, options: Options) throws -> (side: ComparedSide, report: RunReport?)? {
    if spec.hasPrefix("history:") || spec.hasPrefix("#") {
      let idText = spec.hasPrefix("#") ? String(spec.dropFirst()) : String(spec.dropFirst("history:".count))
      guard let id = Int64(idText) else { throw UsageError("\(spec): expected history:ID with ID a whole number") }
      guard let store = try HistoryRecording.existing(options) else { return nil }
      guard let entry = try store.entry(id: id) else {
        printError("\(AppRegistry.program): \(store.path) has no entry #\(id) (stampede history lists them)")
        return nil
      }
      guard let side = try store.side(id: id) else {
        printError("\(AppRegistry.program): history #\(id) is a \(entry.kind) study; compare takes runs and sweeps")
        return nil
      }
      return (side, nil)
    }
    var path = spec
    var isFolder: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
      printError("\(AppRegistry.program): \(spec): no such file or folder")
      return nil
    }
    if isFolder.boolValue {
      let candidates = ["report.json", "summary.json"].map { (spec as NSString).appendingPathComponent($0) }
      guard let found = candidates.first(where: { FileManager.default.fileExists(atPath: $0) }) else {
        printError("\(AppRegistry.program): \(spec) holds neither report.json nor summary.json")
        return nil
      }
      path = found
    }
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
    if object?["runs"] != nil, let s = try? JSONDecoder().decode(SweepSummary.self, from: data) {
      return (ComparedSide(summary: s, label: path), nil)
    }
    if object?["traceHash"] != nil, let r = try? JSONDecoder().decode(RunReport.self, from: data) {
      return (ComparedSide(report: r, label: path), r)
    }
    printError("\(AppRegistry.program): \(path): neither a run report nor a sweep summary")
    return nil
  }

  /// For two runs of one seed: the first event where they differ, by replaying both with this
  /// build; or why that was not done.
  static func divergence(_ a: RunReport, _ b: RunReport, paths: [String]) -> String? {
    guard a.seed == b.seed, a.profile.name == b.profile.name else { return nil }
    let limit: Int64 = 20_000_000
    guard a.events <= limit else {
      return "not looked for: the runs are longer than \(Spell.int(limit)) events (replay them with --trace instead)"
    }
    let runs: (SimulationRun, SimulationRun)
    do {
      runs = (
        try ReplayCommand.simulationRun(for: a, reportPath: paths[0]),
        try ReplayCommand.simulationRun(for: b, reportPath: paths[1])
      )
    } catch let e as ReplayCommand.ReplayError {
      return "not looked for: \(e.message)"
    } catch {
      return "not looked for: \(error)"
    }
    printError("\(AppRegistry.program): replaying both runs to find their first divergent event")
    guard let d = Divergence.between(runs.0, runs.1) else {
      var text = "none: both runs execute the same \(Spell.int(a.events)) events with this build"
      if a.traceHash != b.traceHash {
        text +=
          ", yet their recorded trace hashes differ (\(a.traceHash), \(b.traceHash)): the builds that made them "
          + "(stampede \(a.tool.version) and \(b.tool.version)) behave differently"
      }
      return text
    }
    return d.description
  }

  /// What the terminal shows: the verdict, the rules, the significant differences.
  static func summary(_ c: Comparison) -> String {
    var lines = ["compare: \(c.verdictLine)"]
    lines.append("  A: \(c.a.headline), \(c.a.verdict) (\(c.a.label))")
    lines.append("  B: \(c.b.headline), \(c.b.verdict) (\(c.b.label))")
    if let u = c.underpoweredLine { lines.append("  \(u)") }
    for r in c.rules {
      let verdict = r.regressed ? "REGRESSION" : (r.crossed ? "crossed, not significant" : "ok")
      lines.append(
        "  rule \(r.rule.expression): \(Comparison.spellChange(r)), p \(Comparison.spellP(r.test)): \(verdict)")
    }
    for r in c.significantLatencies.prefix(10) {
      lines.append(
        "  \(r.name): p50 \(Spell.ms(r.a?.p50Ms)) → \(Spell.ms(r.b?.p50Ms)), p99 \(Spell.ms(r.a?.p99Ms)) → "
          + "\(Spell.ms(r.b?.p99Ms)) (\(r.deciding?.test ?? ""), p \(Comparison.spellP(r.deciding)))")
    }
    if !c.verdictChanges.isEmpty {
      let list = c.verdictChanges.prefix(10).map { "\($0.seed) \($0.a)→\($0.b)" }.joined(separator: ", ")
      lines.append("  verdict changes: \(list)\(c.verdictChanges.count > 10 ? ", …" : "")")
      if !c.newFailures.isEmpty && !c.allowVerdictChanges {
        lines.append("  a seed going from pass to fail fails the comparison (--allow-verdict-changes to allow it)")
      }
    }
    if let d = c.divergence { lines.append("  first divergent event: \(d)") }
    return lines.joined(separator: "\n")
  }
}
