import Foundation
import History
import Profiles
import Reports
import Runner
import Scenario
import SimKernel

#if canImport(Glibc)
  import Glibc
#endif

/// `stampede sweep`.
enum SweepCommand {
  static func main(_ args: [String]) throws -> ExitCode {
    // A worker process of an app sweep (see ``WorkerPool``): `sweep PROFILE --worker BYTES`.
    if args.count == 3, args[1] == "--worker", let limit = UInt64(args[2]) {
      return SweepWorker.main(profilePath: args[0], memoryLimit: limit)
    }
    let options = try Options(
      args,
      valued: [
        "--seeds", "--jobs", "--shard", "--shards", "--out", "--corpus-file", "--mistake", "--quirk", "--app",
        "--recheck", "--progress", "--progress-every", "--set", "--history", "--pct", "--worker-memory",
      ],
      flags: ["--quiet", "--corpus", "--explore", "--in-process"])
    guard options.positional.count == 1, let path = options.positional.first else {
      throw UsageError("sweep takes exactly one PROFILE")
    }
    let explore = options.flags.contains("--explore")
    guard let rangeText = options.values["--seeds"] else { throw UsageError("sweep needs --seeds A..B") }
    guard let seeds = Sharding.parseRange(rangeText) else {
      throw UsageError(
        "--seeds: expected A..B with A ≤ B (decimal or 0x-hex, at most 100,000,000 seeds), got '\(rangeText)'")
    }
    let jobs = try options.jobs()
    var shardCount: Int?
    if let text = options.values["--shards"] {
      guard let n = Int(text), n >= 1 else { throw UsageError("--shards: expected a whole number ≥ 1") }
      shardCount = n
    }
    var shard: Sharding.Shard?
    if let text = options.values["--shard"] {
      // A seed's steering follows every seed before it; a shard sees only its own.
      if explore { throw UsageError("--explore cannot be sharded: each round steers by every seed before it") }
      do {
        shard = try Sharding.shard(text, shards: shardCount, environment: ProcessInfo.processInfo.environment)
      } catch {
        throw UsageError(error.description)
      }
    }
    let sets = try RunCommand.sets(options)
    guard let loaded = loadProfile(path, sets: sets) else { return .usage }
    // A steered sweep of the same seeds is another sweep: its reports go beside the plain one's.
    var out =
      options.values["--out"]
      ?? "reports/\(loaded.profile.name)/sweep-\(seeds.from)-\(seeds.to)\(explore ? "-explore" : "")"
    if options.values["--out"] == nil, let shard { out += "/shard-\(shard.index + 1)-of-\(shard.count)" }
    try ReportFolder.check(out, writes: SweepReports.names)
    guard Jemalloc.isProcessAllocator else {
      printError(
        "\(AppRegistry.program): jemalloc is not the process allocator; rebuild with libjemalloc-dev installed.")
      return .usage
    }
    var recheckShare: Double?
    if let text = options.values["--recheck"] {
      let number = text.hasSuffix("%") ? String(text.dropLast()) : text
      guard let share = Double(number), share > 0, share <= 100 else {
        throw UsageError("--recheck: expected a share of the seeds above 0 and at most 100%, such as 5%, got '\(text)'")
      }
      recheckShare = share
    }
    var sweep = Sweep(
      profile: loaded.profile, profilePath: path, profileData: loaded.data, seeds: seeds, shard: shard, jobs: jobs)
    sweep.mistakes = try RunCommand.mistakes(options.values["--mistake"])
    sweep.quirks = try RunCommand.quirks(options.values["--quirk"])
    sweep.app = try AppRegistry.app(options.values["--app"])
    try AppRegistry.checkSetup(options.values["--app"], profile: loaded.profile)
    sweep.program = AppRegistry.program
    sweep.overrides = sets
    sweep.explore = explore
    // App code runs in worker processes, unless asked otherwise.
    var pool: WorkerPool?
    if sweep.app != nil && !options.flags.contains("--in-process") {
      let text = options.values["--worker-memory"] ?? "1g"
      guard let limit = WorkerPool.parseMemory(text) else {
        throw UsageError("--worker-memory: expected a size such as 512m or 2g, got '\(text)'")
      }
      pool = WorkerPool(profilePath: path, memoryLimit: limit)
      sweep.runner = { [pool] job in pool!.run(job) }
    } else if options.values["--worker-memory"] != nil {
      throw UsageError("--worker-memory: only a sweep of app code (--app NAME) runs in worker processes")
    }
    if let shard {
      let span = sweep.span.map { "seeds \($0.from)..\($0.to)" } ?? "no seeds"
      printError("\(AppRegistry.program): shard \(shard): \(span) of \(seeds.from)..\(seeds.to)")
    }
    signal(SIGINT) { _ in interruptRequested = 1 }
    unblockStops()
    signal(SIGTERM) { _ in interruptRequested = 1 }
    let corpus = options.values["--corpus-file"].map(FailingSeedCorpus.init(path:)) ?? .inFolder(out)
    let sha = SHA256.profile(loaded.data, sets: sets)
    var corpusStillFailing = 0
    var corpusViolations = false
    if options.flags.contains("--corpus") {
      let remembered = corpus.rows(forProfile: sha)
      print("corpus: \(remembered.count) remembered failing seed(s) of this profile first (\(corpus.path))")
      for row in remembered where interruptRequested == 0 {
        // Each with what it failed under: its mistakes, quirks and app, not this sweep's.
        var run = SimulationRun(
          profile: loaded.profile, profilePath: path, profileData: loaded.data, seed: row.seed,
          quirks: try RunCommand.quirks(row.quirks?.joined(separator: ",")),
          mistakes: try RunCommand.mistakes(row.mistakes?.joined(separator: ",")), overrides: sets)
        run.program = sweep.program
        run.app = try AppRegistry.app(row.app)
        let verdict: String
        let exitStatus: Int32
        if let pool, row.app != nil {
          // App code, in a worker process (it may crash).
          let job = SeedJob(
            seed: row.seed, overrides: sets, mistakes: row.mistakes ?? [], quirks: row.quirks ?? [], app: row.app,
            crashes: [])
          switch pool.run(job) {
          case .report(let report, _):
            print("corpus " + SweepCommand.line(report))
            (verdict, exitStatus) = (report.verdict, report.exitStatus)
          case .lost(let reason):
            print("corpus seed \(row.seed) FAIL  \(reason)")
            (verdict, exitStatus) = ("fail", ExitCode.invariantViolated.rawValue)
          }
        } else {
          let report = run.report(run.execute(), startedAt: Date())
          print("corpus " + SweepCommand.line(report))
          (verdict, exitStatus) = (report.verdict, report.exitStatus)
        }
        if verdict != "pass" {
          corpusStillFailing += 1
          corpusViolations = corpusViolations || exitStatus == 1
        }
      }
    }
    let quiet = options.flags.contains("--quiet")
    let folder = out
    // Seeds finish in any order on several cores; their lines come out in seed order.
    let lines = SeedOrderedLines(first: sweep.span?.from ?? 0)
    var every = 30.0
    if let text = options.values["--progress-every"] {
      guard let d = DurationFormat.parse(text), d > .zero else {
        throw UsageError("--progress-every: expected a duration such as 30s, got '\(text)'")
      }
      every = Double(d.nanoseconds) / 1e9
    }
    let progress = SweepProgress(
      // --quiet asks for the verdict alone: no progress either, unless --progress asks for it.
      mode: try ProgressPrinter.Mode.parse(options.values["--progress"] ?? (quiet ? "none" : "auto")),
      total: Int(sweep.span?.count ?? 0),
      plainEvery: every)
    var variant = HistoryRecording.variant(
      mistakes: sweep.mistakes.map(\.rawValue), quirks: sweep.quirks.map(\.rawValue), app: sweep.app?.name,
      duration: nil)
    if explore { variant += (variant.isEmpty ? "" : " ") + "explore" }
    let leaks =
      sweep.app == nil || pool != nil
      ? nil : LeakWatch(total: Int(sweep.span?.count ?? 0), program: AppRegistry.program)
    var summary = sweep.execute(
      finished: { report in
        progress.seedFinished(passed: report.verdict == "pass")
        if let warning = leaks?.seedFinished() { printError(warning) }
        if !quiet { lines.add(report.seed, SweepCommand.line(report)) }
        if report.verdict != "pass" {
          let dir = (folder as NSString).appendingPathComponent("seeds/seed-\(report.seed)")
          _ = try? ReportFiles.write(report, to: dir)
        }
      },
      lost: { row in
        progress.seedFinished(passed: false)
        if !quiet { lines.add(row.seed, "seed \(row.seed) FAIL  \(row.firstViolation ?? "no report")") }
      }, shouldStop: { interruptRequested != 0 })
    pool?.shutdown()
    progress.finish()
    lines.flush()
    if !variant.isEmpty { summary.variant = variant }
    do {
      try SweepReports.write(summary, to: out)
    } catch {
      printError("\(AppRegistry.program): cannot write the summary to \(out): \(error)")
      return .usage
    }
    print(SweepCommand.footer(summary, folder: out))
    if interruptRequested == 0 {
      // A shard records beside its summary, where merge finds it; a whole sweep in the history.
      HistoryRecording.record(
        options, variant: variant, reportPath: out + "/summary.json",
        fallback: shard == nil ? HistoryStore.defaultPath : (out as NSString).appendingPathComponent("history.sqlite")
      ) { try $0.record(summary, $1) }
    }
    let added = try? corpus.add(
      summary.failing.map {
        FailingSeedCorpus.Row(
          profileSha256: sha, profile: path, seed: $0.seed, failure: $0.reason, repro: $0.repro,
          mistakes: sweep.mistakes.map(\.rawValue), quirks: sweep.quirks.map(\.rawValue), app: sweep.app?.name)
      })
    if let added, added > 0 { print("  corpus: remembered \(added) new failing seed(s) in \(corpus.path)") }
    if corpusStillFailing > 0 { print("  corpus: \(corpusStillFailing) remembered seed(s) still fail") }
    if interruptRequested != 0 {
      printError("\(AppRegistry.program): interrupted; the summary lists the seeds that did not run.")
      return .interrupted
    }
    if let share = recheckShare {
      let check = sweep.recheck(summary, share: share)
      if let d = check.divergence {
        printError(
          "\(AppRegistry.program): NONDETERMINISM: seed \(d.seed) ran again with trace hash \(d.hashes.second), the sweep had \(d.hashes.first)"
            + (d.detail.map { ": \($0)" } ?? ""))
        return .nondeterminism
      }
      print("  recheck: \(check.seeds.count) seed(s) ran again with the same trace hash")
    }
    let code = exitCode(summary)
    if code == .pass && corpusStillFailing > 0 { return corpusViolations ? .invariantViolated : .thresholdFailed }
    if code == .thresholdFailed && corpusViolations { return .invariantViolated }
    return code
  }

  /// One line per seed: seed, verdict, events, first violation.
  static func line(_ r: RunReport) -> String {
    var s = "seed \(r.seed) \(r.verdict.uppercased()) \(r.events) events \(r.traceHash)"
    if let first = r.invariants.compactMap({ i in i.first.map { (i.id, $0) } }).min(by: { $0.1.atMs < $1.1.atMs }) {
      s += "  \(first.0) at \(String(format: "%.1f", first.1.atMs))ms: \(first.1.message)"
    }
    let failed = r.failedThresholds.map(\.expression)
    if !failed.isEmpty { s += "  thresholds failed: " + failed.joined(separator: ", ") }
    return s
  }

  static func footer(_ s: SweepSummary, folder: String) -> String {
    var lines = [
      "\(s.profile.name) seeds \(s.seeds.from)..\(s.seeds.to): \(s.verdict.uppercased()), \(s.runs.count) run, "
        + "\(s.failing.count) failed\(s.incompleteSeeds == 0 ? "" : " (\(s.incompleteSeeds) of them incomplete)")"
        + "\(s.missingSeeds.isEmpty ? "" : ", \(s.missingSeeds.count) missing"), "
        + "\(s.events) events in \(String(format: "%.2f", s.meta.wallSeconds))s with \(s.meta.jobs) job(s)"
    ]
    let thresholdsOnly = s.failing.filter { $0.severityRank == 2 }.count
    if thresholdsOnly > 0 && thresholdsOnly < s.failing.count {
      lines.append(
        "  \(s.failing.count - thresholdsOnly) seed(s) with an invariant violated or no full run, listed first; "
          + "\(thresholdsOnly) failed thresholds only")
    }
    for f in s.failingWorstFirst.prefix(10) {
      lines.append("  failing seed \(f.seed): \(f.reason)\n    repro: \(f.repro)")
    }
    if s.failing.count > 10 { lines.append("  …and \(s.failing.count - 10) more in the summary") }
    lines.append("  summary: \(folder)/summary.json (also summary.md, summary.html, junit.xml)")
    return lines.joined(separator: "\n")
  }

  /// 1 if any seed violated an invariant, else 5 if any stopped before its end, else 3 if any
  /// failed a threshold, 2 if seeds are missing.
  static func exitCode(_ s: SweepSummary) -> ExitCode {
    if s.runs.contains(where: { $0.exitStatus == 1 }) { return .invariantViolated }
    if s.runs.contains(where: { $0.exitStatus == 5 || $0.exitStatus == 130 }) { return .incomplete }
    if s.runs.contains(where: { $0.exitStatus == 3 }) { return .thresholdFailed }
    if !s.missingSeeds.isEmpty { return .usage }
    return .pass
  }
}

/// `stampede merge`.
enum MergeCommand {
  static func main(_ args: [String]) throws -> ExitCode {
    let options = try Options(args, valued: ["--out", "--history"], flags: [])
    guard !options.positional.isEmpty else { throw UsageError("merge takes one or more SUMMARY.json files") }
    var parts: [SweepSummary] = []
    for path in options.positional {
      do {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        parts.append(try JSONDecoder().decode(SweepSummary.self, from: data))
      } catch {
        printError("\(AppRegistry.program): \(path): not a sweep summary (\(error.localizedDescription))")
        return .usage
      }
    }
    let merged: SweepSummary
    do {
      merged = try SweepSummary.merge(parts)
    } catch {
      printError("\(AppRegistry.program): merge: \(error.description)")
      return .usage
    }
    let out = options.values["--out"] ?? "summary.json"
    let folder = (out as NSString).deletingLastPathComponent
    if FileManager.default.fileExists(atPath: out) && !ReportOwnership.isOurs(out) {
      throw UsageError(
        "--out: \(out) is not a Stampede sweep summary, and merging would overwrite it (choose another file)")
    }
    if !ReportOwnership.isOurs(out),
      let foreign = ReportOwnership.foreign(
        ["summary.md", "summary.html", "junit.xml"], in: folder.isEmpty ? "." : folder)
    {
      throw UsageError(
        "--out: \(foreign) is not a Stampede report, and merging would overwrite it (choose another folder)")
    }
    do {
      try AtomicFile.write(try merged.jsonData(), to: out)
      for (name, text) in [
        ("summary.md", ReportOwnership.marked(markdown: SweepReports.markdown(merged))),
        ("summary.html", SweepReports.html(merged)),
        ("junit.xml", SweepReports.junit(merged)),
      ] {
        try AtomicFile.write(
          Data(text.utf8), to: ((folder.isEmpty ? "." : folder) as NSString).appendingPathComponent(name))
      }
    } catch {
      printError("\(AppRegistry.program): cannot write \(out): \(error)")
      return .usage
    }
    // Each shard's failing-seed corpus (beside its summary) joins the merged folder's, so that
    // `sweep --corpus` on the whole range replays every shard's failures.
    let shardRows = options.positional.flatMap { summary in
      FailingSeedCorpus.inFolder((summary as NSString).deletingLastPathComponent).rows()
    }
    if !shardRows.isEmpty {
      do {
        let added = try FailingSeedCorpus.inFolder(folder.isEmpty ? "." : folder).add(shardRows)
        print("  corpus: \(added) failing seed(s) from the shards added to failing-seeds.jsonl")
      } catch {
        printError("\(AppRegistry.program): cannot write the merged failing-seed corpus: \(error)")
        return .usage
      }
    }
    print(SweepCommand.footer(merged, folder: folder.isEmpty ? "." : folder))
    // The shards' histories (beside their summaries) and the merged sweep go into the history.
    if let history = HistoryRecording.path(options) {
      let shardFiles = options.positional.map {
        (($0 as NSString).deletingLastPathComponent as NSString).appendingPathComponent("history.sqlite")
      }.filter {
        FileManager.default.fileExists(atPath: $0)
          && URL(fileURLWithPath: $0).standardizedFileURL != URL(fileURLWithPath: history).standardizedFileURL
      }
      do {
        let store = try HistoryStore(path: history)
        var imported = 0
        for file in shardFiles { imported += try store.importEntries(from: file) }
        if imported > 0 {
          print("  history: \(imported) shard entr\(imported == 1 ? "y" : "ies") gathered into \(history)")
        }
      } catch {
        printError("\(AppRegistry.program): warning: the shards' histories were not gathered into \(history): \(error)")
      }
      if merged.missingSeeds.isEmpty {
        HistoryRecording.record(options, variant: merged.variant ?? "", reportPath: out) { try $0.record(merged, $1) }
      }
    }
    if !merged.missingSeeds.isEmpty {
      let list = merged.missingSeeds.prefix(10).map(String.init).joined(separator: ", ")
      printError(
        "\(AppRegistry.program): merge: \(merged.missingSeeds.count) seed(s) of \(merged.seeds.from)..\(merged.seeds.to) have no result (\(list)\(merged.missingSeeds.count > 10 ? ", …" : "")); is a shard missing?"
      )
      return .usage
    }
    return SweepCommand.exitCode(merged)
  }
}

/// Lines keyed by seed, printed in seed order as soon as every earlier seed's line is in (a seed
/// that never ran, after an interruption, is skipped by ``flush()``).
final class SeedOrderedLines: @unchecked Sendable {
  private var next: UInt64
  private var waiting: [UInt64: String] = [:]
  private let lock = NSLock()

  init(first: UInt64) { next = first }

  func add(_ seed: UInt64, _ line: String) {
    lock.lock()
    defer { lock.unlock() }
    waiting[seed] = line
    while let ready = waiting.removeValue(forKey: next) {
      print(ready)
      next += 1
    }
  }

  /// Prints what is still waiting, in seed order.
  func flush() {
    lock.lock()
    defer { lock.unlock() }
    for seed in waiting.keys.sorted() { print(waiting[seed]!) }
    waiting = [:]
  }
}

/// A sweep's progress on stderr, in one unit (seeds): a live bar on a terminal, otherwise a plain
/// line at least every `plainEvery` seconds (so CI that kills silent jobs sees one), from a timer,
/// whether or not seeds finish meanwhile.
final class SweepProgress: @unchecked Sendable {
  let mode: ProgressPrinter.Mode
  let total: Int
  let plainEvery: Double
  private let lock = NSLock()
  private var done = 0
  private var failed = 0
  private let started = Date()
  private var lastBar = -1.0
  private var drewBar = false
  private var timer: DispatchSourceTimer?

  init(mode: ProgressPrinter.Mode, total: Int, plainEvery: Double = 30) {
    self.mode = mode == .auto ? (Terminal.standardErrorIsTerminal ? .bar : .plain) : mode
    self.total = total
    self.plainEvery = plainEvery
    if self.mode == .plain {
      let t = DispatchSource.makeTimerSource(queue: DispatchQueue.global())
      t.schedule(deadline: .now() + plainEvery, repeating: plainEvery)
      t.setEventHandler { [weak self] in self?.printPlain() }
      t.resume()
      timer = t
    }
  }

  /// A seed finished.
  func seedFinished(passed: Bool) {
    lock.lock()
    defer { lock.unlock() }
    done += 1
    if !passed { failed += 1 }
    guard mode == .bar else { return }
    let elapsed = Date().timeIntervalSince(started)
    guard elapsed - lastBar >= 0.1 || done == total else { return }
    lastBar = elapsed
    let width = 24
    let filled = total > 0 ? done * width / total : width
    let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
    FileHandle.standardError.write(Data("\r[\(bar)] \(status(elapsed))\u{1B}[K".utf8))
    drewBar = true
  }

  private func status(_ elapsed: Double) -> String {
    let eta = done > 0 ? elapsed * Double(total - done) / Double(done) : 0
    return String(format: "%d/%d seeds  %d failed  %.0fs  ETA %.0fs", done, total, failed, elapsed, eta)
  }

  private func printPlain() {
    lock.lock()
    defer { lock.unlock() }
    FileHandle.standardError.write(Data("progress: \(status(Date().timeIntervalSince(started)))\n".utf8))
  }

  func finish() {
    timer?.cancel()
    lock.lock()
    defer { lock.unlock() }
    if drewBar { FileHandle.standardError.write(Data("\n".utf8)) }
  }
}

/// Watches a sweep of app code run in its own process (`--in-process`) for memory that grows from
/// seed to seed. A seed's world is let go of when it ends, but app objects of processes that died
/// can outlive it: a task still awaiting an answer its killed process never got, or a retain
/// cycle, keeps its view models alive (on a phone the process's end frees them). Past ten seeds,
/// growth of more than 8 MB a seed is said once on standard error, with what a long sweep would
/// need and the way around it: worker processes, the default.
final class LeakWatch: @unchecked Sendable {
  private let lock = NSLock()
  private var done = 0
  private var baseline: UInt64 = 0
  private var warned = false
  private let total: Int
  private let program: String
  private let allocated: () -> UInt64?

  init(total: Int, program: String, allocated: @escaping () -> UInt64? = { Jemalloc.allocated }) {
    self.total = total
    self.program = program
    self.allocated = allocated
  }

  /// One more seed finished; returns the warning, the one time it is due.
  func seedFinished() -> String? {
    lock.lock()
    defer { lock.unlock() }
    done += 1
    guard !warned, let now = allocated() else { return nil }
    // The first two seeds warm the process up (the code's caches, the allocator's arenas).
    if done == 2 { baseline = now }
    guard done >= 12, now > baseline else { return nil }
    let perSeed = (now - baseline) / UInt64(done - 2)
    guard perSeed > 8 << 20 else { return nil }
    warned = true
    let needGB = Double(perSeed) * Double(total) / Double(1 << 30)
    return "\(program): warning: memory held by app code grows by about \(perSeed >> 20) MB a seed (objects of "
      + "app processes that died, kept alive by tasks still awaiting or by retain cycles), about "
      + String(format: "%.1f", needGB) + " GB for \(total) seeds; without --in-process its seeds run in worker "
      + "processes, each replaced as its memory grows (--worker-memory; docs/CLIENTS.md)"
  }
}
