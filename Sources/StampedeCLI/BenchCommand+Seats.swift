import Clients
import Foundation
import LiveStack
import Metrics
import Profiles
import Reports
import Runner
import Scenario
import SimKernel

/// `stampede bench seats`: the capacity question as a queue, in one world and as room shards.
extension BenchCommand {
  /// `stampede bench seats`: the M/M/c/c capacity question of profiles/bench-mmcc.json5, the
  /// measure a capacity planner compares across tools: applications answered per wall second.
  static func seats(_ options: Options) throws -> ExitCode {
    let loaded = try benchProfile(options, option: "--profile", file: "profiles/bench-mmcc.json5", bench: "seats")
    var repeats = 3
    if let text = options.values["--repeat"] {
      guard let r = Int(text), (1...50).contains(r) else {
        throw UsageError("--repeat: expected a whole number from 1 to 50")
      }
      repeats = r
    }
    let json = options.flags.contains("--json")
    let reference = ReferenceBinary(options)
    defer { reference.remove() }
    var r = try StackBench.measure(
      profile: loaded.profile, seed: loaded.profile.defaultSeed, repeats: repeats, checkingCost: false,
      reference: try reference.path())
    var instructions: UInt64?
    if options.flags.contains("--instructions") {
      instructions = try countInstructions(profilePath: loaded.path)
    }
    let shards = try shardedSeats(options, loaded, repeats: repeats)
    if json {
      struct Output: Codable {
        var seats: StackBenchResult
        var instructions: UInt64?
        var instructionsPerEvent: Double?
        var instructionsPerApplication: Double?
        var threads: ShardedSeats?
      }
      let perEvent = instructions.map { (Double($0) / Double(max(1, r.events)) * 10).rounded() / 10 }
      let perApplication = instructions.map { (Double($0) / Double(max(1, r.applications))).rounded() }
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.sortedKeys]
      print(
        String(
          decoding: try encoder.encode(
            Output(
              seats: r, instructions: instructions, instructionsPerEvent: perEvent,
              instructionsPerApplication: perApplication, threads: shards)), as: UTF8.self))
      return .pass
    }
    r.ratio = r.ratio.isFinite ? r.ratio : 0
    print(
      String(
        format: "seats  %@ (%@): %llu applications answered, %.1f events each",
        loaded.profile.name, loaded.profile.duration.description, r.applications, r.eventsPerApplication))
    print(
      String(
        format:
          "       %.0f applications per wall second in the event loop, %.0f for the whole run (%.2f s, world built and run)",
        r.applicationsPerSecond, Double(r.applications) / max(1e-9, r.wholeRunSeconds), r.wholeRunSeconds))
    print(
      String(
        format:
          "       %.2fM events/s (%lld events, mean queue %d); peak memory %.1f MiB, %.0f B per user; violations %d; hash %@",
        r.eventsPerSecond / 1e6, r.events, r.meanPending, Double(r.peakMemoryBytes) / 1_048_576, r.bytesPerUser,
        r.violations, r.traceHash))
    print(
      String(
        format: "       kernel hold at queue %d: %.2fM ops/s; stack/kernel ratio %.3fx", r.meanPending,
        r.kernelOpsPerSecond / 1e6, r.ratio))
    printHeap(r)
    if let t = shards {
      print(
        String(
          format:
            "       --threads %d: %.0f applications per wall second for the whole run (%.3f s, %d room shards), %.2fx the same shards on one thread (%.3f s); answers equal: %@",
          t.threads, t.applicationsPerSecond, t.seconds, t.shards, t.speedup, t.oneThreadSeconds,
          t.sameAnswers ? "yes" : "NO"))
    }
    if let instructions {
      print(
        String(
          format:
            "       instructions in the event loop (callgrind, exact): %llu; %.1f per event, %.0f per application",
          instructions, Double(instructions) / Double(max(1, r.events)),
          Double(instructions) / Double(max(1, r.applications))))
    }
    return .pass
  }

  /// `bench seats --threads N`: the whole run as room shards on N threads against the same
  /// shards on one, alternating, best of `repeats` each.
  struct ShardedSeats: Codable {
    var threads: Int
    var shards: Int
    var applications: UInt64
    var seconds: Double
    var oneThreadSeconds: Double
    var applicationsPerSecond: Double
    var speedup: Double
    /// Whether both gave the same answers (the same trace hash and applications).
    var sameAnswers: Bool
  }

  static func shardedSeats(
    _ options: Options, _ loaded: (path: String, profile: Profile, data: Data), repeats: Int
  ) throws -> ShardedSeats? {
    guard let text = options.values["--threads"] else { return nil }
    let n = try RunCommand.shardThreads(text, profile: loaded.profile, app: false)
    var run = SimulationRun(
      profile: loaded.profile, profilePath: loaded.path, profileData: loaded.data, seed: loaded.profile.defaultSeed)
    var best = (many: Double.infinity, one: Double.infinity)
    var answers: [(String, UInt64)] = []
    for _ in 0..<repeats {
      for threads in [n, 1] {
        run.threads = threads
        let started = DispatchTime.now().uptimeNanoseconds
        let result = run.execute()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        if threads == n { best.many = min(best.many, seconds) } else { best.one = min(best.one, seconds) }
        answers.append(
          (result.traceHash.description, result.outputs.metrics.latencies[LiveMetrics.applyToResponse].count))
      }
    }
    let applications = answers[0].1
    return ShardedSeats(
      threads: n, shards: run.shardRooms.count, applications: applications, seconds: best.many,
      oneThreadSeconds: best.one, applicationsPerSecond: (Double(applications) / best.many).rounded(),
      speedup: (best.one / best.many * 100).rounded() / 100,
      sameAnswers: answers.allSatisfy { $0 == answers[0] })
  }

  /// The instructions `bench seats` executes in the live world's event loop, counted by running
  /// this binary once more under callgrind (which repeats exactly for the same binary and input).
  /// Only the loop specialized for the live world counts (``stackLoopPattern``): the kernel
  /// reference that `bench seats` also runs, for its stack/kernel ratio, is the same generic
  /// `Simulation.run` specialized for another world and is left out.
  static func countInstructions(profilePath: String) throws -> UInt64 {
    guard
      let valgrind = ["/usr/bin/valgrind", "/usr/local/bin/valgrind"].first(where: {
        FileManager.default.isExecutableFile(atPath: $0)
      })
    else { throw UsageError("bench seats --instructions: valgrind is not installed (apt-get install valgrind)") }
    let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    let out = FileManager.default.temporaryDirectory.appendingPathComponent("stampede-cg-\(getpid()).out").path
    defer { try? FileManager.default.removeItem(atPath: out) }
    let (status, output) = try KernelBench.runProcess(
      valgrind,
      [
        "--tool=callgrind", "--callgrind-out-file=\(out)", "--toggle-collect=\(stackLoopPattern)", me, "bench", "seats",
        "--profile", profilePath, "--repeat", "1", "--no-reference", "--json",
      ])
    guard status == 0, let line = output.split(separator: "\n").first(where: { $0.contains("Collected :") }),
      let n = line.split(separator: " ").last.flatMap({ UInt64($0) })
    else { throw BenchError("callgrind failed (exit \(status)): \(output.suffix(500))") }
    return n
  }

  /// The callgrind symbol pattern of `Simulation.run` specialized for the live world (module
  /// `Scenario`), which names no other world's loop.
  static let stackLoopPattern = "*SimulationV3run*Scenario*"
}
