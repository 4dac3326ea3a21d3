import Clients
import Foundation
import LiveStack
import Metrics
import Profiles
import Reports
import Runner
import Scenario
import SimKernel

/// `stampede bench`.
enum BenchCommand {
  static func main(_ args: [String]) throws -> ExitCode {
    let options = try Options(
      args,
      valued: [
        "--pending", "--holds", "--repeat", "--reference", "--profile", "--rooms", "--audience", "--duration",
        "--callers", "--calls-profile", "--chaos-profile", "--seeds", "--app", "--seed", "--jobs",
        "--mistakes-profile", "--threads",
      ],
      flags: ["--json", "--no-reference", "--no-checking-cost", "--instructions"])
    let what = options.positional.first ?? "kernel"
    guard options.positional.count <= 1,
      ["kernel", "stack", "sweep", "faults", "apps", "seats", "catch", "all"].contains(what)
    else {
      throw UsageError(
        "bench: unknown benchmark '\(what)' (available: kernel, stack, sweep, faults, apps, seats, catch, all)")
    }
    if what == "apps" { return try apps(options, repeats: Int(options.values["--repeat"] ?? "3") ?? 3) }
    if what == "catch" { return try catchRates(options) }
    if what == "seats" { return try seats(options) }
    var explicitRepeats: Int?
    if let text = options.values["--repeat"] {
      guard let r = Int(text), (1...50).contains(r) else {
        throw UsageError("--repeat: expected a whole number from 1 to 50")
      }
      explicitRepeats = r
    }
    // The stack run is short and the ratio noisy: it gets more repeats by default.
    let repeats = explicitRepeats ?? 3
    let json = options.flags.contains("--json")
    var kernelRows: [KernelBenchRow]?
    var stack: StackBenchResult?
    var calls: StackBenchResult?
    var sweep: SweepBenchResult?
    // The C++ binary heap, built once (when first needed, after the options are checked) for the
    // kernel rows and the stack's comparisons.
    let reference = ReferenceBinary(options)
    defer { reference.remove() }
    if what == "kernel" || what == "all" {
      kernelRows = try kernel(options, repeats: repeats, json: json, reference: reference)
    }
    if what == "stack" || what == "all" {
      stack = try self.stack(options, repeats: explicitRepeats ?? 5, json: json, reference: reference)
      if options.values["--callers"] != "0" {
        calls = try self.calls(options, repeats: explicitRepeats ?? 3, json: json, reference: reference)
      }
    }
    if what == "sweep" || what == "all" { sweep = try self.sweep(options, repeats: repeats, json: json) }
    var faultsResult: FaultBenchResult?
    if what == "faults" || what == "all" { faultsResult = try self.faults(options, repeats: repeats, json: json) }
    if json {
      struct Output: Codable {
        var kernel: [KernelBenchRow]?
        var stack: StackBenchResult?
        var calls: StackBenchResult?
        var sweep: SweepBenchResult?
        var faults: FaultBenchResult?
      }
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.sortedKeys]
      print(
        String(
          decoding: try encoder.encode(
            Output(kernel: kernelRows, stack: stack, calls: calls, sweep: sweep, faults: faultsResult)),
          as: UTF8.self))
    }
    return .pass
  }

  /// The target of `bench stack`'s seat-rush run: stack events/s at least this share of kernel
  /// holds/s at the same queue size.
  static let stackTargetRatio = 0.5
  /// The same target for its call-storm run.
  static let callTargetRatio = 0.3

  /// The profile a benchmark runs: `option`'s value, else `file` found from the repository.
  static func benchProfile(_ options: Options, option: String, file: String, bench: String) throws
    -> (path: String, profile: Profile, data: Data)
  {
    guard let path = options.values[option] ?? KernelBench.locate(file) else {
      throw UsageError("bench \(bench): cannot find \(file); run from the repository or pass \(option) FILE")
    }
    do {
      let loaded = try Profile.load(path: path)
      return (path, loaded.profile, loaded.data)
    } catch {
      throw UsageError(error.description)
    }
  }

  /// `--duration` (default one hour).
  static func benchDuration(_ options: Options) throws -> SimDuration {
    let text = options.values["--duration"] ?? "1h"
    guard let duration = DurationFormat.parse(text), duration > .zero else {
      throw UsageError("--duration: expected a duration such as 1h or 30m, got '\(text)'")
    }
    return duration
  }

  /// The kernel comparison `bench stack` prints for both variants.
  static func printKernel(_ r: StackBenchResult, target: Double) {
    print(
      String(
        format: "       kernel hold at queue %d: %.2fM ops/s; ratio %.3fx (target >= %.1fx: %@)", r.meanPending,
        r.kernelOpsPerSecond / 1e6, r.ratio, target, r.ratio >= target ? "met" : "MISSED"))
  }

  /// The binary-heap comparison, when the reference ran.
  static func printHeap(_ r: StackBenchResult) {
    guard let ops = r.referenceOpsPerSecond, let ratio = r.referenceRatio else { return }
    print(
      String(
        format:
          "       binary heap (C++ std::priority_queue) hold at the same queue: %.2fM ops/s; stack/heap ratio %.3fx",
        ops / 1e6, ratio))
  }

  /// What checking costs, when it was measured.
  static func printChecking(_ r: StackBenchResult) {
    if r.uncheckedEventsPerSecond > 0 {
      print(
        String(
          format: "       checkers off: %.2fM events/s; the full catalogue costs %.1f%% (target <= 25%%: %@)",
          r.uncheckedEventsPerSecond / 1e6, r.checkingCost * 100, r.checkingCost <= 0.25 ? "met" : "MISSED"))
    }
  }

  static func stack(_ options: Options, repeats: Int, json: Bool, reference: ReferenceBinary) throws
    -> StackBenchResult
  {
    let profile = try benchProfile(options, option: "--profile", file: "profiles/seat-rush.json5", bench: "stack")
      .profile
    guard let rooms = Int(options.values["--rooms"] ?? "1000"), (1...1_000_000).contains(rooms) else {
      throw UsageError("--rooms: expected a whole number from 1 to 1000000")
    }
    guard let audience = Int(options.values["--audience"] ?? "100"), (0...10_000_000).contains(audience) else {
      throw UsageError("--audience: expected viewers per room, a whole number from 0 to 10000000")
    }
    let duration = try benchDuration(options)
    let scaled = StackBench.scaled(profile, rooms: rooms, audiencePerRoom: audience, duration: duration)
    let r = try StackBench.measure(
      profile: scaled, seed: profile.defaultSeed, repeats: repeats,
      checkingCost: !options.flags.contains("--no-checking-cost"), reference: try reference.path())
    if !json {
      print(
        String(
          format: "stack  %@ x%d rooms x%d viewers, %@: %.2fM events/s (%lld events, mean queue %d)",
          profile.name, rooms, audience, duration.description, r.eventsPerSecond / 1e6, r.events, r.meanPending))
      printKernel(r, target: stackTargetRatio)
      printHeap(r)
      print(
        String(
          format:
            "       peak memory %.1f MiB, %.0f B per audience member (target <= 2048: %@); violations %d; hash %@",
          Double(r.peakMemoryBytes) / 1_048_576, r.bytesPerAudienceMember,
          r.bytesPerAudienceMember <= 2048 ? "met" : "MISSED", r.violations, r.traceHash))
      print(
        String(
          format:
            "       %llu seat changes: %.1f events per change; room messaging counted %.1f downlink messages per change (not simulated one by one)",
          r.seatChanges, r.eventsPerSeatChange, r.downlinkPerSeatChange))
      printChecking(r)
    }
    return r
  }

  /// The target of the call-heavy variant: peak heap bytes per phone user.
  static let bytesPerCallerTarget = 1024.0

  /// The call-heavy variant of `bench stack`: call-storm with `--callers` phones (default 100,000)
  /// for `--duration`, against the kernel at the same mean queue.
  static func calls(_ options: Options, repeats: Int, json: Bool, reference: ReferenceBinary) throws
    -> StackBenchResult
  {
    let (path, profile, _) = try benchProfile(
      options, option: "--calls-profile", file: "profiles/call-storm.json5", bench: "stack")
    guard profile.calls != nil else { throw UsageError("--calls-profile: \(path) has no calls block") }
    guard let callers = Int(options.values["--callers"] ?? "100000"), (2...10_000_000).contains(callers) else {
      throw UsageError("--callers: expected a whole number from 2 to 10000000")
    }
    let duration = try benchDuration(options)
    let scaled = StackBench.scaledCalls(profile, callers: callers, duration: duration)
    let r = try StackBench.measure(
      profile: scaled, seed: profile.defaultSeed, repeats: repeats,
      checkingCost: !options.flags.contains("--no-checking-cost"), reference: try reference.path())
    if !json {
      print(
        String(
          format: "calls  %@ x%d phones, %@: %.2fM events/s (%lld events, mean queue %d)", profile.name, callers,
          duration.description, r.eventsPerSecond / 1e6, r.events, r.meanPending))
      printKernel(r, target: callTargetRatio)
      printHeap(r)
      print(
        String(
          format:
            "       %.0f B per idle phone user (target <= %.0f: %@); peak memory %.1f MiB, %.0f B per phone user with every call's history; violations %d; hash %@",
          r.idleBytesPerUser, bytesPerCallerTarget, r.idleBytesPerUser <= bytesPerCallerTarget ? "met" : "MISSED",
          Double(r.peakMemoryBytes) / 1_048_576, r.bytesPerUser, r.violations, r.traceHash))
      printChecking(r)
    }
    return r
  }

  /// The target of `bench faults`: events/s with faults on at least this share of faults off.
  static let faultsTargetRatio = 0.8

  /// `bench faults`: nightly-chaos with its faults on and off.
  static func faults(_ options: Options, repeats: Int, json: Bool) throws -> FaultBenchResult {
    let loaded = try benchProfile(
      options, option: "--chaos-profile", file: "profiles/nightly-chaos.json5", bench: "faults")
    guard let seeds = Int(options.values["--seeds"] ?? "16"), (1...100_000).contains(seeds) else {
      throw UsageError("--seeds: expected a whole number from 1 to 100000")
    }
    let r = FaultBenchResult.measure(
      profile: loaded.profile, seed: loaded.profile.defaultSeed, seeds: seeds, repeats: repeats)
    if !json {
      print(
        String(
          format:
            "faults %@: %.2fM events/s with faults on, %.2fM off; ratio %.3fx (target >= %.1fx: %@); %d kinds fired; violations %d",
          loaded.profile.name, r.faultsOnEventsPerSecond / 1e6, r.faultsOffEventsPerSecond / 1e6, r.ratio,
          faultsTargetRatio, r.ratio >= faultsTargetRatio ? "met" : "MISSED", r.kindsFired, r.violations))
    }
    return r
  }

  /// The result of `bench sweep`.
  struct SweepBenchResult: Codable {
    var seeds: Int
    var jobs: Int
    var oneJobEventsPerSecond: Double
    var manyJobsEventsPerSecond: Double
    var speedup: Double
  }

  /// Seeds 1..16 of seat-rush with one job and with `--jobs J` (default: all cores), alternating.
  static func sweep(_ options: Options, repeats: Int, json: Bool) throws -> SweepBenchResult {
    let (path, profile, data) = try benchProfile(
      options, option: "--profile", file: "profiles/seat-rush.json5", bench: "sweep")
    let loaded = (profile: profile, data: data)
    let jobs = try options.jobs(minimum: 2)
    let seeds = SweepSummary.SeedSpan(from: 1, to: 16)
    func rate(_ j: Int) -> Double {
      let s = Sweep(
        profile: loaded.profile, profilePath: path, profileData: loaded.data, seeds: seeds, shard: nil, jobs: j
      ).execute(finished: { _ in })
      return Double(s.events) / max(s.meta.wallSeconds, 1e-9)
    }
    var one = 0.0
    var many = 0.0
    for _ in 0..<repeats {
      one = max(one, rate(1))
      many = max(many, rate(jobs))
    }
    let r = SweepBenchResult(
      seeds: 16, jobs: jobs, oneJobEventsPerSecond: one.rounded(), manyJobsEventsPerSecond: many.rounded(),
      speedup: (many / one * 1000).rounded() / 1000)
    if !json {
      print(
        String(
          format:
            "sweep  %@ seeds 1..16: 1 job %.2fM events/s, %d jobs %.2fM events/s: %.2fx (target >= 1.6x at 2 jobs: %@)",
          loaded.profile.name, one / 1e6, jobs, many / 1e6, r.speedup, r.speedup >= 1.6 ? "met" : "MISSED"))
    }
    return r
  }

  static func kernel(_ options: Options, repeats: Int, json: Bool, reference binary: ReferenceBinary) throws
    -> [KernelBenchRow]
  {
    let pendings = try (options.values["--pending"] ?? "1000,100000,1000000").split(separator: ",").map {
      guard let n = Int($0), n >= 1, n <= 50_000_000 else {
        throw UsageError("--pending: expected whole numbers from 1 to 50000000, got '\($0)'")
      }
      return n
    }
    guard let holds = Int(options.values["--holds"] ?? "10000000"), holds >= 1 else {
      throw UsageError("--holds: expected a whole number ≥ 1")
    }
    let reference = try binary.path()
    var rows: [KernelBenchRow] = []
    for pending in pendings {
      var best = 0.0
      var bestReference = 0.0
      var hash = ""
      for _ in 0..<repeats {
        let ours = KernelBench.measure(pending: pending, holds: holds, seed: 1)
        best = max(best, ours.opsPerSecond)
        hash = ours.hash
        if let reference {
          let theirs = try KernelBench.measureReference(binary: reference, pending: pending, holds: holds, seed: 1)
          guard theirs.hash == ours.hash else {
            throw BenchError("the reference ran a different loop (hash \(theirs.hash), ours \(ours.hash))")
          }
          bestReference = max(bestReference, theirs.opsPerSecond)
        }
      }
      let row = KernelBenchRow(
        pending: pending, holds: holds, opsPerSecond: best.rounded(),
        referenceOpsPerSecond: reference == nil ? nil : bestReference.rounded(),
        ratio: reference == nil ? nil : (best / bestReference * 1000).rounded() / 1000, traceHash: hash)
      rows.append(row)
      if !json {
        var line = String(format: "kernel hold  pending %9d  %6.2fM ops/s", pending, best / 1e6)
        if let r = row.ratio {
          line += String(format: "  reference %6.2fM ops/s  ratio %.3fx", bestReference / 1e6, r)
        }
        print(line + "  hash \(hash)")
      }
    }
    return rows
  }
}

/// `bench apps`: app code as virtual users against the built-in clients, on one profile.
struct AppBenchResult: Codable {
  struct Side: Codable {
    var events: Int64
    var wallSeconds: Double
    var eventsPerSecond: Double
    var peakBytes: UInt64
    var bytesPerUser: Double
  }
  var profile: String
  var app: String
  var seed: UInt64
  var users: Int
  var builtIn: Side
  var appRun: Side
  /// The app run's events per second over the built-in clients'.
  var ratio: Double
  var targetRatio: Double
  var targetBytesPerUser: Double
  var meetsTargets: Bool
}

extension BenchCommand {
  /// The floor on the app run's events per second, as a share of the built-in clients'.
  static let appTargetRatio = 0.2
  /// The ceiling on memory per virtual user of an app run.
  static let appTargetBytesPerUser = 16_384.0

  /// `stampede bench catch`: seeds to the first catch and the share of seeds caught, plain and
  /// with `--explore`, for every registered app suite with a planted mistake (its summary starts
  /// with "wrong:") and every mistake of the built-in clients' catalogue.
  static func catchRates(_ options: Options) throws -> ExitCode {
    let rangeText = options.values["--seeds"] ?? "1..20"
    guard let seeds = Sharding.parseRange(rangeText) else {
      throw UsageError("--seeds: expected A..B with A ≤ B (decimal or 0x-hex), got '\(rangeText)'")
    }
    let jobs = try options.jobs()
    let apps = try benchProfile(options, option: "--profile", file: "profiles/smoke.json5", bench: "catch")
    let catalogue = try benchProfile(
      options, option: "--mistakes-profile", file: "profiles/mistakes.json5", bench: "catch")
    var subjects: [CatchBench.Subject] = []
    var ownProfiles: [String] = []
    for suite in AppRegistry.apps where suite.summary.hasPrefix("wrong:") {
      var on = apps
      if let name = suite.catchProfile {
        // The suite's mistake needs behaviours the apps' profile lacks.
        on = try benchProfile(
          try Options([], valued: [], flags: []), option: "--profile", file: "profiles/\(name).json5", bench: "catch")
        ownProfiles.append("\(suite.name) on \(on.path)")
      }
      subjects.append(
        CatchBench.Subject(
          name: "app \(suite.name)", app: suite.clientApp, profile: on.profile, profilePath: on.path,
          profileData: on.data))
    }
    var mistakesProfile = catalogue.profile
    mistakesProfile.mistakes = []
    subjects += ClientMistake.allCases.map {
      CatchBench.Subject(
        name: "mistake \($0.rawValue)", mistake: $0, profile: mistakesProfile, profilePath: catalogue.path,
        profileData: catalogue.data)
    }
    let json = options.flags.contains("--json")
    if !json {
      print(
        "bench catch: \(subjects.count) subjects, seeds \(seeds.from)..\(seeds.to), plain and --explore "
          + "(apps on \(apps.path)\(ownProfiles.map { ", " + $0 }.joined()), the catalogue on \(catalogue.path))")
    }
    // A hung app is told in 2 s here (the workers inherit it), not the default: the hanging
    // variant hangs a dozen hosts a seed, and nothing legitimate runs that long in one callback.
    setenv(CrashFollowing.hangVariable, "2", 0)
    var rows: [CatchBench.Row] = []
    for subject in subjects {
      // App code runs in worker processes, as a sweep runs it: a crash is followed, not the end.
      let pool: WorkerPool? =
        subject.app == nil ? nil : WorkerPool(profilePath: subject.profilePath, memoryLimit: 1 << 30)
      var runner: (@Sendable (SeedJob) -> SeedOutcome)?
      if let pool { runner = { job in pool.run(job) } }
      let row = CatchBench.measure(subject, seeds: seeds, jobs: jobs, runner: runner)
      pool?.shutdown()
      rows.append(row)
      if !json { printError("  \(subject.name): plain \(row.plain.caught), explore \(row.explore.caught)") }
    }
    if json {
      struct Output: Codable { var seeds: String, rows: [CatchBench.Row] }
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.sortedKeys]
      print(String(decoding: try encoder.encode(Output(seeds: rangeText, rows: rows)), as: UTF8.self))
    } else {
      print(CatchBench.table(rows), terminator: "")
    }
    return .pass
  }

  static func apps(_ options: Options, repeats: Int) throws -> ExitCode {
    guard let name = options.values["--app"] else {
      throw UsageError(
        "bench apps needs --app NAME (the apps of \(AppRegistry.program): \(AppRegistry.apps.map(\.name).joined(separator: ", ")))"
      )
    }
    let app = try AppRegistry.app(name)!
    let bench = try benchProfile(options, option: "--profile", file: "profiles/seat-rush.json5", bench: "apps")
    guard let seed = SeedFormat.parse(options.values["--seed"] ?? "1") else {
      throw UsageError("--seed: expected a whole number or 0x-hex")
    }
    guard (1...50).contains(repeats) else { throw UsageError("--repeat: expected a whole number from 1 to 50") }
    func measure(_ app: ClientApp?) -> AppBenchResult.Side {
      var best: AppBenchResult.Side?
      for _ in 0..<repeats {
        var run = SimulationRun(profile: bench.profile, profilePath: bench.path, profileData: bench.data, seed: seed)
        run.app = app
        let r = run.execute()
        let users = Double(max(1, r.world.layout.totalUsers))
        let side = AppBenchResult.Side(
          events: r.events, wallSeconds: r.wallSeconds,
          eventsPerSecond: (Double(r.events) / max(r.wallSeconds, 1e-9)).rounded(),
          peakBytes: r.peakMemoryBytes, bytesPerUser: (Double(r.peakMemoryBytes) / users).rounded())
        if best == nil || side.eventsPerSecond > best!.eventsPerSecond { best = side }
      }
      return best!
    }
    let builtIn = measure(nil)
    let appSide = measure(app)
    let users = Layout(profile: bench.profile, streams: RandomStreams(rootSeed: seed)).totalUsers
    let ratio = (appSide.eventsPerSecond / max(builtIn.eventsPerSecond, 1) * 1000).rounded() / 1000
    let result = AppBenchResult(
      profile: bench.profile.name, app: name, seed: seed, users: users, builtIn: builtIn, appRun: appSide, ratio: ratio,
      targetRatio: appTargetRatio, targetBytesPerUser: appTargetBytesPerUser,
      meetsTargets: ratio >= appTargetRatio && appSide.bytesPerUser <= appTargetBytesPerUser)
    if options.flags.contains("--json") {
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.sortedKeys]
      print(String(decoding: try encoder.encode(result), as: UTF8.self))
    } else {
      func line(_ label: String, _ s: AppBenchResult.Side) -> String {
        String(
          format: "  %@ %9.0f events/s (%lld events in %.3f s), peak %.1f MiB, %.0f B per user", label,
          s.eventsPerSecond, s.events, s.wallSeconds, Double(s.peakBytes) / 1_048_576, s.bytesPerUser)
      }
      print(
        "bench apps: app '\(name)' against the built-in clients on \(bench.profile.name), seed \(seed), \(users) users, best of \(repeats)"
      )
      print(line("built-in", builtIn))
      print(line("app     ", appSide))
      print(
        String(
          format: "  ratio %.3f (target >= %.2f), %.0f B per app user (target <= %.0f): %@", ratio, appTargetRatio,
          appSide.bytesPerUser, appTargetBytesPerUser, result.meetsTargets ? "meets both" : "MISSES"))
    }
    return .pass
  }
}

/// The C++ binary-heap hold loop of `Benchmarks/hold_reference.cpp`, compiled on first use (so
/// that bad options are reported before the compiler runs) and removed by ``remove()``; none with
/// `--no-reference`.
final class ReferenceBinary {
  let options: Options
  var built: String?

  init(_ options: Options) { self.options = options }

  /// The binary's path, compiling it the first time; `nil` with `--no-reference`.
  func path() throws -> String? {
    if let built { return built }
    if options.flags.contains("--no-reference") { return nil }
    guard let source = options.values["--reference"] ?? KernelBench.locateReferenceSource() else {
      throw UsageError(
        "bench: cannot find Benchmarks/hold_reference.cpp; run from the repository, pass --reference FILE, or --no-reference"
      )
    }
    built = try KernelBench.buildReference(source: source)
    return built
  }

  /// Deletes the binary, if one was built.
  func remove() {
    if let built { try? FileManager.default.removeItem(atPath: built) }
  }
}
