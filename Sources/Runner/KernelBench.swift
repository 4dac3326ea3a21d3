import Dispatch
import Foundation
import SimKernel

/// The classic hold model: every executed event schedules one successor at now + an exponential
/// increment (mean 1 ms), so the queue size stays fixed at its pre-filled level.
public struct HoldWorld: World {
  @usableFromInline var rng: Xoshiro256
  @usableFromInline let increment = Distribution.exponential(mean: 1e6)

  /// A hold world drawing its increments from `seed`.
  public init(seed: UInt64) { rng = Xoshiro256(seed: seed) }

  /// Reschedules the event one increment later.
  @inlinable
  public mutating func handle(_ event: Event, scheduler: inout Scheduler) {
    scheduler.schedule(after: increment.sampleDuration(&rng), Event(kind: 1, a: event.a, b: event.b &+ 1))
  }

  /// Pre-fills `pending` events.
  public mutating func fill(_ scheduler: inout Scheduler, pending: Int) {
    for i in 0..<pending {
      scheduler.schedule(after: increment.sampleDuration(&rng), Event(kind: 1, a: UInt32(truncatingIfNeeded: i)))
    }
  }
}

/// One row of `stampede bench kernel`.
public struct KernelBenchRow: Codable, Sendable {
  /// Pending events held in the queue.
  public var pending: Int
  /// Holds measured.
  public var holds: Int
  /// Our kernel's holds per second (best of the repetitions).
  public var opsPerSecond: Double
  /// The C++ `std::priority_queue` reference's holds per second (best of the repetitions).
  public var referenceOpsPerSecond: Double?
  /// `opsPerSecond / referenceOpsPerSecond`.
  public var ratio: Double?
  /// Trace hash of our loop; equal to the reference's when both ran the identical loop.
  public var traceHash: String

  /// Creates a row.
  public init(
    pending: Int, holds: Int, opsPerSecond: Double, referenceOpsPerSecond: Double?, ratio: Double?, traceHash: String
  ) {
    self.pending = pending
    self.holds = holds
    self.opsPerSecond = opsPerSecond
    self.referenceOpsPerSecond = referenceOpsPerSecond
    self.ratio = ratio
    self.traceHash = traceHash
  }
}

/// Measures the kernel's hold rate against the C++ reference built in the same run.
public enum KernelBench {
  /// Runs `holds` holds at `pending` pending events; returns holds per second and the trace hash.
  public static func measure(pending: Int, holds: Int, seed: UInt64) -> (opsPerSecond: Double, hash: String) {
    var world = HoldWorld(seed: seed)
    var sim = Simulation(expectedPending: pending + 1)
    world.fill(&sim.scheduler, pending: pending)
    let start = DispatchTime.now().uptimeNanoseconds
    _ = sim.run(&world, until: .distantFuture, maxEvents: Int64(holds))
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    return (Double(holds) / seconds, sim.traceHash.description)
  }

  /// Finds `Benchmarks/hold_reference.cpp` from the working folder or the executable's location.
  public static func locateReferenceSource() -> String? { locate("Benchmarks/hold_reference.cpp") }

  /// Finds a file of the repository, by its path inside it, from the working folder or the
  /// executable's location.
  public static func locate(_ relativePath: String) -> String? {
    var candidates: [URL] = []
    var dir = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    for _ in 0..<6 {
      candidates.append(dir)
      dir = dir.deletingLastPathComponent()
    }
    var exe = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
    for _ in 0..<6 {
      candidates.append(exe)
      exe = exe.deletingLastPathComponent()
    }
    for c in candidates {
      let path = c.appendingPathComponent(relativePath).path
      if FileManager.default.fileExists(atPath: path) { return path }
    }
    return nil
  }

  /// Compiles the reference with `g++ -O2` into a temporary folder and returns the binary's path.
  public static func buildReference(source: String) throws -> String {
    let out = FileManager.default.temporaryDirectory.appendingPathComponent("stampede-hold-reference-\(getpid())").path
    let (status, output) = try runProcess("/usr/bin/env", ["g++", "-O2", "-std=c++17", "-o", out, source])
    guard status == 0 else { throw BenchError("g++ failed to build \(source): \(output)") }
    return out
  }

  /// Runs the reference binary; returns holds per second and its trace hash.
  public static func measureReference(binary: String, pending: Int, holds: Int, seed: UInt64) throws -> (
    opsPerSecond: Double, hash: String
  ) {
    let (status, output) = try runProcess(binary, [String(pending), String(holds), String(seed)])
    let fields = output.split(whereSeparator: { $0 == " " || $0 == "\n" })
    guard status == 0, fields.count == 2, let ops = Double(fields[0]) else {
      throw BenchError("the reference failed (exit \(status)): \(output)")
    }
    return (ops, String(fields[1]))
  }

  /// Runs `path` with `arguments`; returns its exit status and what it printed (both streams).
  public static func runProcess(_ path: String, _ arguments: [String]) throws -> (Int32, String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
  }
}

/// A benchmark that could not run, with the reason.
public struct BenchError: Error, CustomStringConvertible {
  /// What went wrong.
  public let description: String
  /// Creates an error saying `description`.
  public init(_ description: String) { self.description = description }
}
