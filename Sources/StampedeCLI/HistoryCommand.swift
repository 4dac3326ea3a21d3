import Foundation
import History
import Metrics
import Reports
import Runner
import SimKernel

/// Where runs, sweeps and capacity studies are recorded, and the recording itself.
enum HistoryRecording {
  /// The history file a command records into: `--history PATH` (or `off`), else the
  /// `STAMPEDE_HISTORY` environment variable (a path or `off`), else `fallback`
  /// (`reports/history.sqlite`; a shard's own folder for a shard, which merge gathers).
  static func path(_ options: Options, fallback: String = HistoryStore.defaultPath) -> String? {
    let chosen =
      options.values["--history"] ?? ProcessInfo.processInfo.environment["STAMPEDE_HISTORY"] ?? fallback
    return chosen == "off" || chosen.isEmpty ? nil : chosen
  }

  /// The history `options` choose, as `history` and `compare` read it: it must exist. Prints why
  /// not and returns `nil` (exit 2) otherwise.
  static func existing(_ options: Options) throws -> HistoryStore? {
    guard let path = path(options) else {
      throw UsageError("--history: history is off (STAMPEDE_HISTORY=off); name a file")
    }
    do {
      return try HistoryStore(path: path, create: false)
    } catch {
      printError("\(AppRegistry.program): \(error)")
      return nil
    }
  }

  /// The commit being tested: `STAMPEDE_GIT_COMMIT`, the CI's own variable (GitHub, GitLab,
  /// Buildkite), else `git rev-parse HEAD` in the working folder; `nil` outside a repository.
  static func gitCommit() -> String? {
    let env = ProcessInfo.processInfo.environment
    for key in ["STAMPEDE_GIT_COMMIT", "GITHUB_SHA", "CI_COMMIT_SHA", "BUILDKITE_COMMIT"] {
      if let v = env[key], !v.isEmpty { return v }
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["git", "rev-parse", "--verify", "-q", "HEAD"]
    let out = Pipe()
    process.standardOutput = out
    process.standardError = FileHandle.nullDevice
    do { try process.run() } catch { return nil }
    let data = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { return nil }
    let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    return text.count == 40 ? text : nil
  }

  /// What decided a run besides its profile and seed, as history keys it: `mistakes=a,b quirks=c
  /// app=x duration=30s`, empty when nothing.
  static func variant(mistakes: [String], quirks: [String], app: String?, duration: String?) -> String {
    var parts: [String] = []
    if !mistakes.isEmpty { parts.append("mistakes=" + mistakes.sorted().joined(separator: ",")) }
    if !quirks.isEmpty { parts.append("quirks=" + quirks.sorted().joined(separator: ",")) }
    if let app { parts.append("app=" + app) }
    if let duration { parts.append("duration=" + duration) }
    return parts.joined(separator: " ")
  }

  /// The variant of a run, from its repro line.
  static func variant(repro: String) -> String {
    guard let r = Repro.parse(repro) else { return "" }
    return variant(
      mistakes: r.mistakes.map(\.rawValue), quirks: r.quirks.map(\.rawValue), app: r.app,
      duration: r.duration.map { DurationFormat.format($0.nanoseconds) })
  }

  /// Records with `write` into the history `options` choose; a failure is reported, never fatal
  /// (the run's verdict does not depend on its bookkeeping).
  static func record(
    _ options: Options, variant: String, reportPath: String?, fallback: String = HistoryStore.defaultPath,
    _ write: (HistoryStore, HistoryStore.Provenance) throws -> Int64
  ) {
    guard let path = path(options, fallback: fallback) else { return }
    do {
      let store = try HistoryStore(path: path)
      let id = try write(
        store, .init(variant: variant, gitCommit: gitCommit(), reportPath: reportPath, buildID: BuildIdentity.current))
      printError("\(AppRegistry.program): recorded as #\(id) in \(path) (stampede history)")
    } catch {
      printError("\(AppRegistry.program): warning: not recorded in the history \(path): \(error)")
    }
  }
}

/// `stampede history`.
enum HistoryCommand {
  static func main(_ args: [String]) throws -> ExitCode {
    let options = try Options(
      args, valued: ["--history", "--profile", "--metric", "--kind", "--last", "--html"], flags: ["--flaky", "--json"])
    guard options.positional.isEmpty else {
      throw UsageError("history takes no positional arguments (got '\(options.positional[0])')")
    }
    if let kind = options.values["--kind"], !["run", "sweep", "shard", "capacity"].contains(kind) {
      throw UsageError("--kind: expected run, sweep, shard or capacity, got '\(kind)'")
    }
    var limit = 50
    if let text = options.values["--last"] {
      guard let n = Int(text), n >= 1 else { throw UsageError("--last: expected a whole number ≥ 1, got '\(text)'") }
      limit = n
    }
    guard let store = try HistoryRecording.existing(options) else { return .usage }
    let path = store.path
    let profile = options.values["--profile"]
    let entries = try store.entries(profile: profile, kind: options.values["--kind"], limit: limit)
    if entries.isEmpty {
      printError("\(AppRegistry.program): \(path) holds no entries\(profile.map { " of profile '\($0)'" } ?? "")")
      let names = Set(try store.entries().map(\.profileName)).sorted()
      if profile != nil && !names.isEmpty { printError("  profiles recorded: \(names.joined(separator: ", "))") }
      return .usage
    }
    // The metric, read against every name the listed entries measured.
    var subject: Threshold.Subject?
    var values: [Int64: Double] = [:]
    if let metric = options.values["--metric"] {
      var measured: [Int64: MeasuredMetrics] = [:]
      var plain: [Int64: [String: Double]] = [:]
      for e in entries {
        measured[e.id] = try store.measured(id: e.id)
        plain[e.id] = try store.values(id: e.id)
      }
      if plain.values.contains(where: { $0[metric] != nil }) {
        for (id, v) in plain { values[id] = v[metric] }
      } else {
        var latencies = Set<String>()
        var counters = Set<String>()
        var invariants = Set<String>()
        for m in measured.values {
          latencies.formUnion(m.latencies.keys)
          counters.formUnion(m.counters.keys)
          invariants.formUnion(m.violations.keys)
        }
        let vocabulary = ThresholdVocabulary(
          latencies: latencies.sorted(), counters: counters.sorted(), invariants: invariants.sorted())
        do {
          subject = try Threshold.parseSubject(metric, vocabulary)
        } catch {
          throw UsageError("--metric: \(error.message)")
        }
        for (id, m) in measured { values[id] = m.value(of: subject!) }
      }
    }
    let flaky = try store.flakySeeds(profile: profile)
    let timeValued: Bool = {
      if case .latency(_, let s)? = subject { return s.isTime }
      return false
    }()
    if options.flags.contains("--json") {
      print(try json(entries, values: options.values["--metric"] == nil ? nil : values, flaky: flaky))
    } else {
      print(table(entries, metric: options.values["--metric"], values: values, timeValued: timeValued))
      if !flaky.isEmpty || options.flags.contains("--flaky") { print(flakyText(flaky)) }
    }
    if let htmlPath = options.values["--html"] {
      let points = entries.map { e in
        TrendPage.Point(
          id: e.id, recordedAt: e.recordedAt, kind: e.kind, seeds: e.seedText, build: build(e), verdict: e.verdict,
          value: values[e.id], reportPath: e.reportPath.map { relativeLink($0, from: htmlPath) })
      }
      let title = "stampede history" + (profile.map { ": \($0)" } ?? "")
      let page = TrendPage.render(
        title: title, metric: options.values["--metric"], timeValued: timeValued, points: points,
        flaky: flaky.map(flakyLine))
      try AtomicFile.write(Data(page.utf8), to: htmlPath)
      printError("\(AppRegistry.program): wrote \(htmlPath)")
    }
    if options.flags.contains("--flaky") && flaky.contains(where: { $0.cause == .determinismBug }) {
      return .nondeterminism
    }
    return .pass
  }

  static func build(_ e: HistoryEntry) -> String {
    e.toolVersion + (e.gitCommit.map { " @" + $0.prefix(10) } ?? "") + (e.buildID.map { " #" + $0.prefix(8) } ?? "")
  }

  /// `path` as a link from the folder of `page` (reports sit beside history pages in practice).
  static func relativeLink(_ path: String, from page: String) -> String {
    let target = URL(fileURLWithPath: path).standardizedFileURL.path
    let base = URL(fileURLWithPath: page).deletingLastPathComponent().standardizedFileURL.path
    if target.hasPrefix(base + "/") { return String(target.dropFirst(base.count + 1)) }
    return "file://" + target
  }

  static func table(_ entries: [HistoryEntry], metric: String?, values: [Int64: Double], timeValued: Bool) -> String {
    var rows: [[String]] = [["#", "recorded", "kind", "profile", "seeds", "verdict", "build", "events"]]
    if let metric { rows[0] += [metric, "change"] }
    var previous: Double?
    for e in entries {
      var row = [
        String(e.id), e.recordedAt, e.kind, e.profileName, e.seedText, e.verdict, build(e),
        e.events > 0 ? Spell.int(e.events) : "–",
      ]
      if metric != nil {
        let v = values[e.id]
        row.append(v.map { timeValued ? Spell.ms($0) : String(format: "%.6g", $0) } ?? "–")
        if let v, let p = previous, p != 0 {
          row.append(String(format: "%+.1f%%", (v - p) / abs(p) * 100))
        } else {
          row.append("")
        }
        if v != nil { previous = v }
      }
      rows.append(row)
    }
    let widths = rows[0].indices.map { c in rows.map { $0[c].count }.max() ?? 0 }
    return rows.map { row in
      row.enumerated().map { c, cell in cell.padding(toLength: widths[c], withPad: " ", startingAt: 0) }
        .joined(separator: "  ").trimmingCharacters(in: .whitespaces)
    }.joined(separator: "\n")
  }

  static func flakyLine(_ f: FlakySeed) -> String {
    let outcomes = f.outcomes.map { o in
      "#\(o.entry) \(o.verdict) \(o.traceHash.prefix(8))… (\(o.toolVersion)\(o.gitCommit.map { " @" + $0.prefix(10) } ?? "")"
        + "\(o.buildID.map { " build " + $0.prefix(10) } ?? ""))"
    }
    return "\(f.cause.rawValue): \(f.profileName) seed \(f.seed)\(f.variant.isEmpty ? "" : " [\(f.variant)]"): "
      + outcomes.joined(separator: ", ")
  }

  static func flakyText(_ flaky: [FlakySeed]) -> String {
    if flaky.isEmpty { return "\nflaky: no seed recorded twice disagrees with itself" }
    let counts = FlakySeed.Cause.allCases.compactMap { cause -> String? in
      let n = flaky.filter { $0.cause == cause }.count
      return n == 0 ? nil : "\(n) \(cause.rawValue)"
    }
    let bugs = flaky.filter { $0.cause == .determinismBug }.count
    return "\nflaky: \(flaky.count) seed(s) whose outcomes disagree (same resolved profile and variant): "
      + counts.joined(separator: ", ")
      + (bugs == 0
        ? " (no determinism bug: each disagreement is across builds, a change of code, the app's or the tool's)"
        : "")
      + "; a build is the executable, known by its build ID where recorded:\n"
      + flaky.map { "  " + flakyLine($0) }.joined(separator: "\n")
  }

  static func json(_ entries: [HistoryEntry], values: [Int64: Double]?, flaky: [FlakySeed]) throws -> String {
    var list: [[String: Any]] = []
    for e in entries {
      var d: [String: Any] = [
        "id": e.id, "kind": e.kind, "recordedAt": e.recordedAt, "profile": e.profileName,
        "profileSha256": e.profileSha256, "variant": e.variant, "toolVersion": e.toolVersion, "verdict": e.verdict,
        "events": e.events, "simulatedSeconds": e.simulatedSeconds, "wallSeconds": e.wallSeconds,
      ]
      if let s = e.seed { d["seed"] = s }
      if let a = e.seedsFrom, let b = e.seedsTo { d["seeds"] = ["from": a, "to": b] }
      if let c = e.gitCommit { d["gitCommit"] = c }
      if let t = e.traceHash { d["traceHash"] = t }
      if let p = e.reportPath { d["reportPath"] = p }
      if let x = e.detail { d["detail"] = x }
      if let values { d["value"] = values[e.id] ?? NSNull() }
      list.append(d)
    }
    let flakyList: [[String: Any]] = flaky.map { f in
      [
        "profile": f.profileName, "profileSha256": f.profileSha256, "variant": f.variant, "seed": f.seed,
        "cause": f.cause.rawValue,
        "outcomes": f.outcomes.map { o in
          [
            "entry": o.entry, "toolVersion": o.toolVersion, "gitCommit": o.gitCommit ?? NSNull(), "verdict": o.verdict,
            "traceHash": o.traceHash, "buildID": o.buildID ?? NSNull(),
          ] as [String: Any]
        },
      ]
    }
    let data = try JSONSerialization.data(
      withJSONObject: ["entries": list, "flaky": flakyList], options: [.prettyPrinted, .sortedKeys])
    return String(decoding: data, as: UTF8.self)
  }
}
