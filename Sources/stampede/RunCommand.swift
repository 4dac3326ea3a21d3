import Foundation
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
  static func main(_ args: [String]) throws -> ExitCode {
    let options = try Options(args, valued: ["--seed", "--out", "--duration", "--progress"], flags: [])
    guard options.positional.count == 1, let path = options.positional.first else {
      throw UsageError("run takes exactly one PROFILE")
    }
    let loaded: (profile: Profile, data: Data)
    do {
      loaded = try Profile.load(path: path)
    } catch {
      printError(error.description)
      return .usage
    }
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
    let mode = try ProgressPrinter.Mode.parse(options.values["--progress"] ?? "auto")
    let out = options.values["--out"] ?? "reports/\(profile.name)/seed-\(seed)"
    guard Jemalloc.isProcessAllocator else {
      printError(
        "stampede: jemalloc is not the process allocator; memory figures would be wrong. Rebuild with libjemalloc-dev installed."
      )
      return .usage
    }

    let run = SimulationRun(
      profile: profile, profilePath: path, profileData: loaded.data, seed: seed, duration: duration)
    signal(SIGINT) { _ in interruptRequested = 1 }
    signal(SIGTERM) { _ in interruptRequested = 1 }
    let printer = ProgressPrinter(mode: mode)
    let startedAt = Date()
    let result = run.execute(progress: { printer.update($0) }, shouldStop: { interruptRequested != 0 })
    printer.finish()
    let report = run.report(result, startedAt: startedAt)
    let reportPath = out + "/report.json"
    do {
      try ReportFiles.write(report, to: out)
    } catch {
      printError("stampede: cannot write the report to \(out): \(error)")
      return .usage
    }
    Summary.print(report, reportPath: reportPath)
    if result.interrupted {
      printError("stampede: interrupted; the report is marked incomplete.")
      return .interrupted
    }
    switch report.exitStatus {
    case 1: return .invariantViolated
    case 3: return .thresholdFailed
    default: return .pass
    }
  }
}

/// The human summary printed after a run.
enum Summary {
  static func print(_ r: RunReport, reportPath: String) {
    func n(_ v: Double) -> String { String(format: "%.1f", v) }
    var lines: [String] = []
    lines.append("\(r.profile.name) seed \(r.seedHex): \(r.verdict.uppercased())\(r.complete ? "" : " (incomplete)")")
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
    let top = r.counters.filter { $0.value > 0 }.sorted { $0.key < $1.key }
    lines.append("  counters: " + top.map { "\($0.key)=\($0.value)" }.joined(separator: " "))
    for inv in r.invariants where inv.violations > 0 {
      var line = "  VIOLATED \(inv.id): \(inv.violations)x"
      if let f = inv.first { line += ", first at \(n(f.atMs))ms: \(f.message)" }
      lines.append(line)
    }
    for t in r.thresholds where !t.passed {
      lines.append("  THRESHOLD FAILED \(t.expression): measured \(Spell.value(t))")
    }
    lines.append("  report: \(reportPath) (also report.md, report.html, junit.xml)")
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
    self.mode = mode == .auto ? (isatty(STDERR_FILENO) == 1 ? .bar : .plain) : mode
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
      printError("stampede: validate takes one or more PROFILE files")
      return .usage
    }
    var failed = false
    for path in args {
      do {
        let p = try Profile.load(path: path).profile
        print("\(path): ok (\(p.name), \(p.population.rooms) rooms, \(p.duration))")
      } catch {
        printError(error.description)
        failed = true
      }
    }
    return failed ? .usage : .pass
  }
}

/// Spellings for the summary.
enum Spell {
  /// A threshold's measured value.
  static func value(_ t: RunReport.ThresholdResult) -> String {
    guard let v = t.value else { return "no samples" }
    if t.unit == "ms" { return String(format: "%.1fms", v) }
    return v == v.rounded() ? String(Int64(v)) : String(v)
  }
}
