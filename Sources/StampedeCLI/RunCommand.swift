import Clients
import Foundation
import Profiles
import Reports
import Runner
import Scenario
import SimKernel

#if canImport(Glibc)
  import Glibc
#endif

/// Set from a signal handler; polled between slices of the run.
nonisolated(unsafe) var interruptRequested: sig_atomic_t = 0

/// `stampede run`.
enum RunCommand {
  static let valued: Set<String> = [
    "--seed", "--out", "--duration", "--progress", "--trace", "--perfetto", "--only", "--quirk", "--mistake", "--app",
    "--counters", "--set", "--history", "--pct", "--threads",
  ]

  /// Reads the `--threads` count `text` and checks that `profile` can be split into room shards
  /// (`app`: whether app code runs).
  static func shardThreads(_ text: String, profile: Profile, app: Bool) throws -> Int {
    guard let n = Int(text), (1...64).contains(n) else {
      throw UsageError("--threads: expected a whole number of threads from 1 to 64, got '\(text)'")
    }
    if let why = RoomShards.refusal(profile, app: app) {
      throw UsageError("--threads: \(profile.name) cannot run as room shards: \(why)")
    }
    return n
  }

  /// Reads `--threads N` and checks that `run` can be split into room shards.
  static func threads(_ options: Options, _ run: SimulationRun) throws -> Int? {
    guard let text = options.values["--threads"] else { return nil }
    let n = try shardThreads(text, profile: run.profile, app: run.clients != nil)
    for option in ["--trace", "--perfetto", "--only"] where options.values[option] != nil {
      throw UsageError("--threads: \(option) follows one world's order of events; run without --threads to trace")
    }
    return n
  }
  /// The `--set` overrides, with `--pct D` as `network.pct=D` (so the repro line carries it).
  static func sets(_ options: Options) throws -> [String] {
    var sets = options.all["--set"] ?? []
    if let text = options.values["--pct"] {
      if text == "drawn" { return sets + ["network.pct=drawn"] }
      guard let d = Int(text), (0...64).contains(d) else {
        throw UsageError(
          "--pct: expected a whole number of change points from 0 to 64, or drawn (the seed picks), got '\(text)'")
      }
      sets.append("network.pct=\(d)")
    }
    return sets
  }

  /// The flags `run` and `replay` take.
  static let flags: Set<String> = ["--check-determinism", "--json", "--quiet"]

  /// Reads `--mistake a,b`.
  static func mistakes(_ text: String?) throws -> Set<ClientMistake> {
    guard let text else { return [] }
    var out = Set<ClientMistake>()
    for name in text.split(separator: ",") {
      guard let m = ClientMistake(rawValue: String(name)) else {
        throw UsageError(
          "--mistake: unknown mistake '\(name)' (known: \(ClientMistake.allCases.map(\.rawValue).joined(separator: ", ")))"
        )
      }
      out.insert(m)
    }
    return out
  }

  /// Reads `--quirk a,b`.
  static func quirks(_ text: String?) throws -> Set<SDKQuirk> {
    guard let text else { return [] }
    var out = Set<SDKQuirk>()
    for name in text.split(separator: ",") {
      guard let q = SDKQuirk(rawValue: String(name)) else {
        throw UsageError(
          "--quirk: unknown quirk '\(name)' (known: \(SDKQuirk.allCases.map(\.rawValue).joined(separator: ", ")))")
      }
      out.insert(q)
    }
    return out
  }

  static func main(_ args: [String]) throws -> ExitCode {
    let options = try Options(args, valued: valued, flags: flags)
    guard options.positional.count == 1, let path = options.positional.first else {
      throw UsageError("run takes exactly one PROFILE")
    }
    let sets = try RunCommand.sets(options)
    guard let loaded = loadProfile(path, sets: sets) else { return .usage }
    let profile = loaded.profile
    var seed = profile.defaultSeed
    if let text = options.values["--seed"] {
      guard let s = SeedFormat.parse(text) else {
        throw UsageError("--seed: expected a whole number or 0x-hex, got '\(text)'")
      }
      seed = s
    }
    var duration: SimDuration?
    if let text = options.values["--duration"] {
      guard let d = DurationFormat.parse(text), d > .zero else {
        throw UsageError("--duration: expected a duration such as 90s, 30m or 1h, got '\(text)'")
      }
      duration = d
    }
    var run = SimulationRun(
      profile: profile, profilePath: path, profileData: loaded.data, seed: seed, duration: duration,
      quirks: try quirks(options.values["--quirk"]), mistakes: try mistakes(options.values["--mistake"]),
      overrides: sets)
    run.program = AppRegistry.program
    run.app = try AppRegistry.app(options.values["--app"])
    run.appCrashes = CrashFollowing.planned
    try AppRegistry.checkSetup(options.values["--app"], profile: profile)
    run.threads = try threads(options, run)
    let out = options.values["--out"] ?? "reports/\(profile.name)/seed-\(seed)"
    let (report, code) = try perform(run, options: options, out: out)
    // An interrupted run is no data point; one the event budget cut is (it is deterministic).
    if report.complete {
      HistoryRecording.record(
        options, variant: HistoryRecording.variant(repro: report.repro), reportPath: out + "/report.json"
      ) { try $0.record(report, $1) }
    }
    return code
  }

  /// Runs `run` with the shared options (progress, trace, Perfetto, determinism check), writes the
  /// report into `out` (if given) and returns it with the exit code.
  static func perform(_ run: SimulationRun, options: Options, out: String?) throws -> (RunReport, ExitCode) {
    let mode = try ProgressPrinter.Mode.parse(options.values["--progress"] ?? "auto")
    // A file option given a selector (`--trace user:175`) would write a file named so: a slip.
    for option in ["--trace", "--perfetto"] {
      if let value = options.values[option], TraceFilter.parse([value]) != nil {
        throw UsageError(
          "\(option) takes a file, not a selector: '\(value)'. Did you mean --only \(value) \(option) FILE?")
      }
    }
    let output = try Summary.Output(options)
    if let out { try ReportFolder.check(out, writes: ReportFiles.names) }
    var filter = TraceFilter()
    if let only = options.values["--only"] {
      guard let f = TraceFilter.parse([only]) else {
        throw UsageError("--only: expected room:ID or user:ID (comma-separated for several), got '\(only)'")
      }
      filter = f
    }
    guard Jemalloc.isProcessAllocator else {
      throw UsageError(
        "jemalloc is not the process allocator; memory figures would be wrong. Rebuild with libjemalloc-dev installed.")
    }
    var traceHandle: FileHandle?
    if let tracePath = options.values["--trace"] {
      guard FileManager.default.createFile(atPath: tracePath, contents: nil),
        let h = FileHandle(forWritingAtPath: tracePath)
      else { throw UsageError("--trace: cannot create \(tracePath)") }
      traceHandle = h
    }
    let perfettoPath = options.values["--perfetto"]
    let recorder =
      (traceHandle != nil || perfettoPath != nil)
      ? TraceRecorder(filter: filter, jsonl: traceHandle, keep: perfettoPath != nil) : nil
    signal(SIGINT) { _ in interruptRequested = 1 }
    unblockStops()
    signal(SIGTERM) { _ in interruptRequested = 1 }
    let printer = ProgressPrinter(mode: mode)
    let startedAt = Date()
    let result = run.execute(
      observer: recorder, progress: { printer.update($0) }, shouldStop: { interruptRequested != 0 })
    printer.finish()
    if let recorder {
      recorder.flush()
      try? traceHandle?.close()
      if let perfettoPath {
        let text = PerfettoTrace.render(records: recorder.records, world: result.world, filter: filter)
        try AtomicFile.write(Data(text.utf8), to: perfettoPath)
      }
      printError(
        "\(AppRegistry.program): traced \(recorder.matchedEvents) of \(result.events) events"
          + (recorder.matched > recorder.matchedEvents
            ? " (\(recorder.matched) lines: deliveries handled behind another at one instant have their own)" : ""))
    }
    let report = run.report(result, startedAt: startedAt)
    if let out {
      do {
        try ReportFiles.write(report, to: out)
      } catch {
        printError("\(AppRegistry.program): cannot write the report to \(out): \(error)")
        return (report, .usage)
      }
    }
    try Summary.print(report, reportPath: out.map { $0 + "/report.json" }, output: output)
    if result.interrupted {
      printError("\(AppRegistry.program): interrupted; the report is marked incomplete.")
      return (report, report.violationCount > 0 ? .invariantViolated : .interrupted)
    }
    if !report.reachedEnd && report.violationCount == 0 {
      printError(
        "\(AppRegistry.program): the event budget (limits.maxEvents) ended the run at \(String(format: "%.1f", report.simulatedSeconds)) s of simulated time, before its end: the verdict is incomplete and these were not judged: \((report.notJudged ?? []).joined(separator: ", "))"
      )
    }
    if options.flags.contains("--check-determinism"), run.threads != nil {
      let again = run.execute()
      guard again.traceHash == result.traceHash else {
        printError(
          "\(AppRegistry.program): NONDETERMINISM: the same profile and seed ran differently twice: trace hash \(result.traceHash), then \(again.traceHash)"
        )
        return (report, .nondeterminism)
      }
      printError(
        "\(AppRegistry.program): determinism check passed: a second run reached the same trace hash over \(again.events) events"
      )
    } else if options.flags.contains("--check-determinism") {
      let check = DeterminismCheck.check(run)
      if let d = check.divergence {
        printError("\(AppRegistry.program): NONDETERMINISM: the same profile and seed ran differently twice: \(d)")
        return (report, .nondeterminism)
      }
      printError(
        "\(AppRegistry.program): determinism check passed: a second run executed the same \(result.events) events")
    }
    return (report, exitCode(report))
  }

  static func exitCode(_ report: RunReport) -> ExitCode {
    switch report.exitStatus {
    case 1: return .invariantViolated
    case 3: return .thresholdFailed
    case 5: return .incomplete
    case 130: return .interrupted
    default: return .pass
    }
  }
}

/// The parts of a repro line.
struct Repro {
  var profilePath: String
  var seed: UInt64
  var duration: SimDuration?
  var quirks: Set<SDKQuirk> = []
  var mistakes: Set<ClientMistake> = []
  var app: String?
  var sets: [String] = []
  var threads: Int?

  /// Reads `stampede run PATH --seed N [--duration D] [--quirk Q,…]` (PATH shell-quoted if needed).
  static func parse(_ line: String) -> Repro? {
    guard let words = ShellWords.split(line), words.count >= 5,
      words[0] == "stampede" || words[0] == AppRegistry.program, words[1] == "run"
    else {
      return nil
    }
    var repro = Repro(profilePath: words[2], seed: 0, duration: nil)
    var i = 3
    var sawSeed = false
    while i + 1 < words.count {
      switch words[i] {
      case "--seed":
        guard let s = SeedFormat.parse(words[i + 1]) else { return nil }
        repro.seed = s
        sawSeed = true
      case "--duration":
        guard let d = DurationFormat.parse(words[i + 1]) else { return nil }
        repro.duration = d
      case "--quirk":
        guard let q = try? RunCommand.quirks(words[i + 1]) else { return nil }
        repro.quirks = q
      case "--mistake":
        guard let m = try? RunCommand.mistakes(words[i + 1]) else { return nil }
        repro.mistakes = m
      case "--app":
        repro.app = words[i + 1]
      case "--set":
        repro.sets.append(words[i + 1])
      case "--threads":
        guard let n = Int(words[i + 1]), (1...64).contains(n) else { return nil }
        repro.threads = n
      default:
        return nil
      }
      i += 2
    }
    return sawSeed && i == words.count ? repro : nil
  }
}

/// Splits a command line as a POSIX shell would for the quoting `ShellQuote` produces.
enum ShellWords {
  static func split(_ line: String) -> [String]? {
    var words: [String] = []
    var current = ""
    var inWord = false
    var quoted = false
    var escaped = false
    for ch in line {
      if escaped {
        current.append(ch)
        escaped = false
      } else if quoted {
        if ch == "'" { quoted = false } else { current.append(ch) }
      } else if ch == "'" {
        quoted = true
        inWord = true
      } else if ch == "\\" {
        escaped = true
        inWord = true
      } else if ch == " " {
        if inWord { words.append(current) }
        current = ""
        inWord = false
      } else {
        current.append(ch)
        inWord = true
      }
    }
    if quoted || escaped { return nil }
    if inWord { words.append(current) }
    return words
  }
}

/// The human summary printed after a run.
enum Summary {
  /// What a run prints on stdout: the summary (with its top counters), the verdict line alone
  /// (`--quiet`), or report.json (`--json`).
  struct Output {
    enum Form { case summary, quiet, json }
    var form = Form.summary
    /// How many counters the summary lists (`nil`: all that are not zero).
    var counters: Int? = 12

    init() {}

    init(_ options: Options) throws {
      let json = options.flags.contains("--json")
      let quiet = options.flags.contains("--quiet")
      if json && quiet { throw UsageError("--json and --quiet cannot go together") }
      form = json ? .json : quiet ? .quiet : .summary
      if let text = options.values["--counters"] {
        if text == "all" {
          counters = nil
        } else {
          guard let n = Int(text), n >= 0 else {
            throw UsageError("--counters: expected a whole number of counters or \"all\", got '\(text)'")
          }
          counters = n
        }
      }
    }
  }

  static func verdictLine(_ r: RunReport) -> String {
    "\(r.profile.name) seed \(r.seedHex): \(r.verdict.uppercased())\(r.complete ? "" : " (incomplete)")"
  }

  /// The counters the summary lists: the largest first (ties by name), at most `limit`.
  static func topCounters(_ counters: [String: UInt64], limit: Int?) -> [(String, UInt64)] {
    let sorted = counters.filter { $0.value > 0 }.sorted {
      $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key
    }
    return limit.map { Array(sorted.prefix($0)) } ?? sorted
  }

  static func print(_ r: RunReport, reportPath: String?, output: Output = Output()) throws {
    switch output.form {
    case .json:
      FileHandle.standardOutput.write(try r.jsonData())
      FileHandle.standardOutput.write(Data("\n".utf8))
      return
    case .quiet:
      Swift.print(verdictLine(r))
      return
    case .summary:
      break
    }
    func n(_ v: Double) -> String { String(format: "%.1f", v) }
    var lines: [String] = []
    lines.append(verdictLine(r))
    lines.append(
      "  \(r.events) events, \(n(r.simulatedSeconds))s simulated in \(n(r.wallSeconds))s "
        + "(\(n(r.meta.speedup))x real time, \(Int(r.meta.eventsPerSecond)) events/s), stop: \(r.stopReason)")
    lines.append(
      "  population \(r.population.total), peak memory \(r.peakMemoryBytes / 1024) KiB "
        + "(\(Int(r.meta.bytesPerUser)) B/user)")
    lines.append("  trace hash \(r.traceHash)")
    for name in r.latencies.keys.sorted() {
      let l = r.latencies[name]!
      guard l.count > 0 else { continue }
      lines.append(
        "  \(name): n=\(l.count) p50=\(n(l.p50Ms ?? 0))ms p99=\(n(l.p99Ms ?? 0))ms max=\(n(l.maxMs ?? 0))ms")
    }
    let nonZero = r.counters.values.filter { $0 > 0 }.count
    let top = topCounters(r.counters, limit: output.counters)
    if !top.isEmpty {
      let more = nonZero - top.count
      lines.append(
        "  counters" + (more > 0 ? " (top \(top.count) of \(nonZero); --counters all lists every one):" : ":"))
      let width = top.map(\.0.count).max() ?? 0
      for (name, value) in top {
        lines.append("    " + name.padding(toLength: width, withPad: " ", startingAt: 0) + "  \(value)")
      }
    }
    for inv in r.invariants where inv.violations > 0 {
      var line = "  VIOLATED \(inv.id): \(inv.violations)x"
      if let f = inv.first { line += ", first at \(n(f.atMs))ms: \(f.message)" }
      lines.append(line)
    }
    for t in r.thresholds where !t.passed {
      lines.append(
        t.failed
          ? "  THRESHOLD FAILED \(t.expression): measured \(t.measured)"
          : "  threshold not judged (steered run) \(t.expression): measured \(t.measured)")
    }
    if let reportPath { lines.append("  report: \(reportPath) (also report.md, report.html, junit.xml)") }
    lines.append("repro: \(r.repro)")
    Swift.print(lines.joined(separator: "\n"))
  }
}

/// Progress on stderr: a live bar on a terminal, plain lines every few seconds otherwise.
final class ProgressPrinter {
  enum Mode: String {
    case auto, bar, plain, none
    static func parse(_ text: String) throws -> Mode {
      guard let m = Mode(rawValue: text) else {
        throw UsageError("--progress: expected auto, bar, plain or none, got '\(text)'")
      }
      return m
    }
  }

  let mode: Mode
  var lastPrint = -1.0
  var drewBar = false

  init(mode: Mode) {
    self.mode = mode == .auto ? (Terminal.standardErrorIsTerminal ? .bar : .plain) : mode
  }

  func update(_ p: RunProgress) {
    let interval = mode == .bar ? 0.1 : 5.0
    guard mode != .none, p.wallSeconds - lastPrint >= interval else { return }
    lastPrint = p.wallSeconds
    let fraction = min(1, Double(p.simulated.nanoseconds) / Double(max(1, p.end.nanoseconds)))
    let rate = Double(p.events) / max(p.wallSeconds, 1e-9)
    let speed = Double(p.simulated.nanoseconds) / 1e9 / max(p.wallSeconds, 1e-9)
    let eta = fraction > 0 ? p.wallSeconds * (1 - fraction) / fraction : 0
    let text = String(
      format: "%@ / %@  %3.0f%%  %.2fM events/s  %.0fx real time  ETA %.0fs  violations %d",
      SimDuration(nanoseconds: p.simulated.nanoseconds).rounded(to: .milliseconds(100)).description as NSString,
      SimDuration(nanoseconds: p.end.nanoseconds).description as NSString, fraction * 100, rate / 1e6, speed, eta,
      p.violations)
    if mode == .bar {
      let width = 24
      let filled = Int(fraction * Double(width))
      let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
      FileHandle.standardError.write(Data("\r[\(bar)] \(text)\u{1B}[K".utf8))
      drewBar = true
    } else {
      FileHandle.standardError.write(Data("progress: \(text)\n".utf8))
    }
  }

  func finish() {
    if drewBar { FileHandle.standardError.write(Data("\n".utf8)) }
  }
}

/// `stampede validate`.
enum ValidateCommand {
  static func main(_ args: [String]) -> ExitCode {
    guard !args.isEmpty else {
      printError("\(AppRegistry.program): validate takes one or more PROFILE files")
      return .usage
    }
    var failed = false
    for path in args {
      do {
        let p = try Profile.load(path: path).profile
        let rooms = p.population.rooms
        print("\(path): ok (\(p.name), \(rooms) room\(rooms == 1 ? "" : "s"), \(p.duration))")
      } catch {
        let all = error.all
        for e in all { printError(e.description) }
        if all.count >= ProfileKeys.errorLimit {
          printError("\(path): (stopped after \(ProfileKeys.errorLimit) errors)")
        } else if all.count > 1 {
          printError("\(path): \(all.count) errors")
        }
        failed = true
      }
    }
    return failed ? .usage : .pass
  }
}
