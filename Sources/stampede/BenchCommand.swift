import Foundation
import Runner

/// `stampede bench`.
enum BenchCommand {
  static func main(_ args: [String]) throws -> ExitCode {
    let options = try Options(
      args, valued: ["--pending", "--holds", "--repeat", "--reference"], flags: ["--json", "--no-reference"])
    let what = options.positional.first ?? "kernel"
    guard options.positional.count <= 1, what == "kernel" || what == "all" else {
      throw UsageError("bench: unknown benchmark '\(what)' (available: kernel, all)")
    }
    let pendings = try (options.values["--pending"] ?? "1000,100000,1000000").split(separator: ",").map {
      guard let n = Int($0), n >= 1, n <= 50_000_000 else {
        throw UsageError("--pending: expected whole numbers from 1 to 50000000, got '\($0)'")
      }
      return n
    }
    guard let holds = Int(options.values["--holds"] ?? "10000000"), holds >= 1 else {
      throw UsageError("--holds: expected a whole number ≥ 1")
    }
    guard let repeats = Int(options.values["--repeat"] ?? "3"), (1...50).contains(repeats) else {
      throw UsageError("--repeat: expected a whole number from 1 to 50")
    }
    let json = options.flags.contains("--json")
    var reference: String?
    if !options.flags.contains("--no-reference") {
      guard let source = options.values["--reference"] ?? KernelBench.locateReferenceSource() else {
        throw UsageError(
          "bench: cannot find Benchmarks/hold_reference.cpp; run from the repository, pass --reference FILE, or --no-reference"
        )
      }
      reference = try KernelBench.buildReference(source: source)
    }
    defer { if let reference { try? FileManager.default.removeItem(atPath: reference) } }

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
    if json {
      struct Output: Codable { var kernel: [KernelBenchRow] }
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.sortedKeys]
      print(String(decoding: try encoder.encode(Output(kernel: rows)), as: UTF8.self))
    }
    return .pass
  }
}
