import Profiles
import Reports
import Scenario

/// Seed ranges and their deterministic division into shards.
public enum Sharding {
  /// Parses `A..B` (inclusive; decimal or 0x-hex; `A..B` with A ≤ B) into a span.
  public static func parseRange(_ text: String) -> SweepSummary.SeedSpan? {
    let parts = text.components(separatedBy: "..")
    guard parts.count == 2, let a = SeedFormat.parse(parts[0]), let b = SeedFormat.parse(parts[1]), a <= b,
      b - a < 100_000_000
    else { return nil }
    return SweepSummary.SeedSpan(from: a, to: b)
  }

  /// The seeds of shard `index` (from 0) of `count` over `span`: contiguous, disjoint, together
  /// exactly the span, and sized within one of each other. `nil` when the shard is empty (more
  /// shards than seeds).
  public static func slice(_ span: SweepSummary.SeedSpan, index: Int, count: Int) -> SweepSummary.SeedSpan? {
    precondition(count >= 1 && index >= 0 && index < count, "shard \(index)/\(count) is out of range")
    let n = span.count
    let start = n * UInt64(index) / UInt64(count)
    let end = n * UInt64(index + 1) / UInt64(count)
    guard end > start else { return nil }
    return SweepSummary.SeedSpan(from: span.from + start, to: span.from + end - 1)
  }

  /// A shard position: index from 0, and the count. People and job engines count shards from 1
  /// (`--shard 1/3` … `3/3`); ``description`` does too.
  public struct Shard: Equatable, Sendable, CustomStringConvertible {
    /// Index, from 0.
    public var index: Int
    /// Number of shards.
    public var count: Int
    /// Where it came from (`--shard`, or the engine's variables).
    public var source: String

    /// Creates a position.
    public init(index: Int, count: Int, source: String) {
      self.index = index
      self.count = count
      self.source = source
    }

    public var description: String { "\(index + 1)/\(count) (\(source))" }
  }

  /// Why a shard could not be determined.
  public struct ShardError: Error, CustomStringConvertible {
    /// One line.
    public let description: String
  }

  /// Reads `--shard K/N` (K from 1 to N, as Playwright, Jest and Vitest count), or with `auto`, the job engine's variables: Kubernetes
  /// Indexed Jobs (`JOB_COMPLETION_INDEX`, with the count from `shards`), Slurm job arrays
  /// (`SLURM_ARRAY_TASK_ID`, `SLURM_ARRAY_TASK_COUNT`, `SLURM_ARRAY_TASK_MIN`), GitLab parallel jobs
  /// (`CI_NODE_INDEX` from 1, `CI_NODE_TOTAL`) and Buildkite (`BUILDKITE_PARALLEL_JOB`,
  /// `BUILDKITE_PARALLEL_JOB_COUNT`).
  public static func shard(_ text: String, shards: Int?, environment: [String: String]) throws(ShardError) -> Shard {
    func int(_ name: String) throws(ShardError) -> Int? {
      guard let v = environment[name] else { return nil }
      guard let i = Int(v.trimmingSpaces) else { throw ShardError(description: "\(name)=\(v) is not a whole number") }
      return i
    }
    func checked(_ index: Int, _ count: Int, _ source: String) throws(ShardError) -> Shard {
      guard count >= 1, index >= 0, index < count else {
        throw ShardError(description: "\(source) gives shard \(index) of \(count); expected 0 ≤ index < count")
      }
      return Shard(index: index, count: count, source: source)
    }
    if text != "auto" {
      let parts = text.split(separator: "/", omittingEmptySubsequences: false)
      guard parts.count == 2, let k = Int(parts[0]), let n = Int(parts[1]), n >= 1 else {
        throw ShardError(description: "--shard: expected K/N (K from 1 to N, N at least 1) or auto, got '\(text)'")
      }
      if k < 1 {
        throw ShardError(
          description: "--shard \(text): shards count from 1 to \(n) (did you mean \(k == 0 ? "1/\(n)" : "K/\(n)")?)")
      }
      if k > n {
        throw ShardError(description: "--shard \(text): there are only \(n) shards (did you mean \(n)/\(n)?)")
      }
      return try checked(k - 1, n, "--shard")
    }
    if let index = try int("JOB_COMPLETION_INDEX") {
      let fromEnvironment = try int("STAMPEDE_SHARDS")
      guard let n = shards ?? fromEnvironment else {
        throw ShardError(
          description:
            "Kubernetes Indexed Job detected (JOB_COMPLETION_INDEX=\(index)); pass --shards N (the Job's completions) or set STAMPEDE_SHARDS"
        )
      }
      return try checked(index, n, "Kubernetes JOB_COMPLETION_INDEX")
    }
    if let id = try int("SLURM_ARRAY_TASK_ID"), let n = try int("SLURM_ARRAY_TASK_COUNT") {
      let first = try int("SLURM_ARRAY_TASK_MIN") ?? 0
      return try checked(id - first, n, "Slurm SLURM_ARRAY_TASK_ID")
    }
    if let i = try int("CI_NODE_INDEX"), let n = try int("CI_NODE_TOTAL") {
      return try checked(i - 1, n, "GitLab CI_NODE_INDEX")
    }
    if let i = try int("BUILDKITE_PARALLEL_JOB"), let n = try int("BUILDKITE_PARALLEL_JOB_COUNT") {
      return try checked(i, n, "Buildkite BUILDKITE_PARALLEL_JOB")
    }
    throw ShardError(
      description:
        "--shard auto: no job engine detected (looked for JOB_COMPLETION_INDEX, SLURM_ARRAY_TASK_ID, CI_NODE_INDEX, BUILDKITE_PARALLEL_JOB); on GitHub Actions pass --shard K/N from the matrix"
    )
  }
}
