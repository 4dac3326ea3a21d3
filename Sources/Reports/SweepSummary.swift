import Foundation
import Metrics

/// `summary.json` of a seed sweep (or of one shard of it): one row per seed, merged counters and
/// histogram buckets, invariant totals and the failing seeds with their repro lines.
///
/// Everything outside ``meta`` is a function of the seeds' results alone, computed from rows
/// sorted by seed with exact integer sums, so merging shard summaries in any order gives the same
/// bytes as one unsharded sweep.
public struct SweepSummary: Codable, Sendable {
  /// Format version.
  public var schemaVersion = 1
  /// The tool's identity.
  public var tool: RunReport.Tool
  /// The profile swept.
  public var profile: RunReport.ProfileInfo
  /// The whole seed range asked for (shards share it).
  public var seeds: SeedSpan
  /// The shard this summary covers, if it is one (`index` from 0).
  public var shard: ShardInfo?
  /// Whether every seed of ``seeds`` (or of the shard) has a row.
  public var complete: Bool
  /// Seeds of the range without a row (a merge of incomplete shards lists them).
  public var missingSeeds: [UInt64]
  /// `pass` if every seed passed (a seed that stopped before its end did not).
  public var verdict: String
  /// Seeds that stopped before their end (event budget or interruption) with no violation.
  public var incompleteSeeds: Int { runs.filter { $0.verdict == "incomplete" }.count }
  /// One row per seed, in seed order.
  public var runs: [SeedRow]
  /// Counters summed over all seeds.
  public var counters: [String: UInt64]
  /// Latencies merged over all seeds (exact bucket sums).
  public var latencies: [String: LatencySummary]
  /// Invariants with their total violations and the seeds that broke them.
  public var invariants: [InvariantTotal]
  /// The seeds that failed, with why and how to reproduce them.
  public var failing: [FailingSeed]
  /// Events over all seeds.
  public var events: Int64
  /// Outcome coverage over all seeds: counts added up, an outcome never seen only if no seed saw
  /// it. Absent in summaries written before it existed.
  public var coverage: CoverageReport?
  /// How coverage grew over the seeds, in seed order: the outcomes and events reached
  /// (``CoverageReport/reached``) after every 100 seeds, and after the last. Absent for merged
  /// shards (each shard's own is in its summary) and in summaries written before it existed.
  public var coverageGrowth: [Int]?
  /// What every seed ran under besides the profile: client mistakes, SDK quirks, app code, as
  /// `mistakes=a,b quirks=c app=x` (absent when none, and in summaries written before it existed).
  /// Shards of one sweep share it; a merge refuses summaries that differ in it.
  public var variant: String?
  /// Measurements of the machine; not part of the result.
  public var meta: Meta

  /// An inclusive seed range.
  public struct SeedSpan: Codable, Sendable, Equatable {
    /// First seed.
    public var from: UInt64
    /// Last seed (inclusive).
    public var to: UInt64
    /// Creates a span.
    public init(from: UInt64, to: UInt64) {
      self.from = from
      self.to = to
    }
    /// Number of seeds.
    public var count: UInt64 { to - from + 1 }
  }

  /// Which slice of the range a shard ran.
  public struct ShardInfo: Codable, Sendable, Equatable {
    /// Shard index, from 0.
    public var index: Int
    /// Number of shards.
    public var count: Int
    /// The seeds of this shard.
    public var seeds: SeedSpan?
    /// Creates shard info.
    public init(index: Int, count: Int, seeds: SeedSpan?) {
      self.index = index
      self.count = count
      self.seeds = seeds
    }
  }

  /// One seed's outcome.
  public struct SeedRow: Codable, Sendable, Equatable {
    /// The seed.
    public var seed: UInt64
    /// `pass`, `fail` or `incomplete`.
    public var verdict: String
    /// The exit status a single run of this seed gives (0, 1, 3, 5 or 130).
    public var exitStatus: Int32
    /// Events executed.
    public var events: Int64
    /// The run's trace hash.
    public var traceHash: String
    /// Simulated seconds reached.
    public var simulatedSeconds: Double
    /// The earliest first violation of any invariant, if any.
    public var firstViolation: String?
    /// Expressions of failed thresholds.
    public var failedThresholds: [String]
    /// The command that reproduces this seed.
    public var repro: String
    /// Each latency's mean in milliseconds for this seed (metrics with samples only), so that
    /// `compare` can pair two sweeps seed by seed. Absent in summaries written before it existed.
    public var latencyMeansMs: [String: Double]?
    /// Creates a row.
    public init(
      seed: UInt64, verdict: String, exitStatus: Int32, events: Int64, traceHash: String, simulatedSeconds: Double,
      firstViolation: String?, failedThresholds: [String], repro: String, latencyMeansMs: [String: Double]? = nil
    ) {
      self.latencyMeansMs = latencyMeansMs
      self.seed = seed
      self.verdict = verdict
      self.exitStatus = exitStatus
      self.events = events
      self.traceHash = traceHash
      self.simulatedSeconds = simulatedSeconds
      self.firstViolation = firstViolation
      self.failedThresholds = failedThresholds
      self.repro = repro
    }
  }

  /// An invariant's total over the sweep.
  public struct InvariantTotal: Codable, Sendable, Equatable {
    /// Stable ID.
    public var id: String
    /// `safety` or `liveness`.
    public var kind: String
    /// Violations summed over seeds.
    public var violations: Int
    /// Seeds with at least one violation.
    public var seeds: [UInt64]
  }

  /// A failing seed.
  public struct FailingSeed: Codable, Sendable, Equatable {
    /// The seed.
    public var seed: UInt64
    /// Why it failed.
    public var reason: String
    /// The command that reproduces it.
    public var repro: String

    /// How a reason begins for a run that failed its thresholds alone, and for one stopped before
    /// its end (``reason`` is what the summary's readers see, so the kind is read from it).
    static let thresholdsOnly = "threshold failed: "
    static let incomplete = "incomplete: "

    /// 0: an invariant violated (or no report came), 1: stopped before its end, 2: thresholds
    /// failed alone; lists cut short put the lower first.
    public var severityRank: Int {
      if reason.hasPrefix(FailingSeed.thresholdsOnly) { return 2 }
      return reason.hasPrefix(FailingSeed.incomplete) ? 1 : 0
    }
  }

  /// Measurements of the machine (wall time, parallelism); they differ between executions.
  public struct Meta: Codable, Sendable {
    /// Wall seconds of the sweep (for a merge, summed over shards).
    public var wallSeconds: Double
    /// Parallel jobs (for a merge, the largest).
    public var jobs: Int
    /// Creates the block.
    public init(wallSeconds: Double, jobs: Int) {
      self.wallSeconds = wallSeconds
      self.jobs = jobs
    }
  }
}

extension SweepSummary {
  /// One seed's contribution: its row plus the data merged across seeds.
  public struct SeedResult: Sendable {
    /// The row.
    public var row: SeedRow
    /// Its counters.
    public var counters: [String: UInt64]
    /// Its latencies.
    public var latencies: [String: LatencySummary]
    /// Its invariant results.
    public var invariants: [RunReport.InvariantResult]
    /// Its outcome coverage.
    public var coverage: CoverageReport?

    /// The trace hash of a seed that gave no report.
    public static let lostHash = "-"

    /// A seed that gave no report (`reason` says why): a failure with no events, counters or
    /// coverage.
    public init(lost seed: UInt64, reason: String, repro: String) {
      row = SeedRow(
        seed: seed, verdict: "fail", exitStatus: 1, events: 0, traceHash: SeedResult.lostHash, simulatedSeconds: 0,
        firstViolation: reason, failedThresholds: [], repro: repro)
      counters = [:]
      latencies = [:]
      invariants = []
      coverage = nil
    }

    /// Extracts what a sweep keeps of `report`.
    public init(_ report: RunReport) {
      let firsts = report.invariants.compactMap { i in i.first.map { (i.id, $0) } }.min { $0.1.atMs < $1.1.atMs }
      row = SeedRow(
        seed: report.seed, verdict: report.verdict, exitStatus: report.exitStatus, events: report.events,
        traceHash: report.traceHash, simulatedSeconds: report.simulatedSeconds,
        firstViolation: firsts.map { "\($0.0) at \(String(format: "%.1f", $0.1.atMs))ms: \($0.1.message)" },
        failedThresholds: report.failedThresholds.map(\.expression), repro: report.repro,
        latencyMeansMs: report.latencies.compactMapValues { l in
          l.count == 0 ? nil : Double(l.sumNs) / Double(l.count) / 1e6
        })
      counters = report.counters
      latencies = report.latencies
      invariants = report.invariants
      coverage = report.coverage
    }
  }

  /// Builds a summary from per-seed results, in any order.
  public static func build(
    tool: RunReport.Tool, profile: RunReport.ProfileInfo, seeds: SeedSpan, shard: ShardInfo?,
    results: [SeedResult], meta: Meta
  ) -> SweepSummary {
    let sorted = results.sorted { $0.row.seed < $1.row.seed }
    var totals = Totals()
    var growth: [Int] = []
    for (n, r) in sorted.enumerated() {
      if let c = r.coverage { totals.add(coverage: c) }
      if (n + 1) % 100 == 0 || n == sorted.count - 1 { growth.append(totals.coverage?.reached ?? 0) }
      totals.add(
        counters: r.counters, latencies: r.latencies,
        invariants: r.invariants.map {
          InvariantTotal(
            id: $0.id, kind: $0.kind, violations: $0.violations, seeds: $0.violations > 0 ? [r.row.seed] : [])
        })
    }
    var summary = assemble(
      tool: tool, profile: profile, seeds: seeds, shard: shard, rows: sorted.map(\.row), totals: totals, meta: meta)
    if totals.coverage != nil { summary.coverageGrowth = growth }
    return summary
  }

  /// Sums of counters, histogram buckets and invariant totals, in a fixed order.
  struct Totals {
    var counters: [String: UInt64] = [:]
    var histograms: [String: Histogram] = [:]
    var invariants: [String: InvariantTotal] = [:]
    var order: [String] = []
    var coverage: CoverageReport?

    mutating func add(coverage c: CoverageReport) {
      if coverage == nil { coverage = c } else { coverage!.merge(c) }
    }

    mutating func add(
      counters c: [String: UInt64], latencies: [String: LatencySummary], invariants list: [InvariantTotal]
    ) {
      for (k, v) in c { counters[k, default: 0] &+= v }
      for (k, l) in latencies {
        guard let h = l.histogram else { continue }
        histograms[k, default: Histogram()].merge(h)
      }
      for i in list {
        if invariants[i.id] == nil {
          invariants[i.id] = InvariantTotal(id: i.id, kind: i.kind, violations: 0, seeds: [])
          order.append(i.id)
        }
        invariants[i.id]!.violations += i.violations
        invariants[i.id]!.seeds += i.seeds
      }
    }

    /// The invariant totals in first-seen order, their seeds sorted.
    var invariantList: [InvariantTotal] {
      order.map { id in
        var t = invariants[id]!
        t.seeds.sort()
        return t
      }
    }
  }

  static func assemble(
    tool: RunReport.Tool, profile: RunReport.ProfileInfo, seeds: SeedSpan, shard: ShardInfo?, rows: [SeedRow],
    totals: Totals, meta: Meta
  ) -> SweepSummary {
    let expected = shard?.seeds ?? seeds
    let present = Set(rows.map(\.seed))
    var missing: [UInt64] = []
    var s = expected.from
    while true {
      if !present.contains(s) { missing.append(s) }
      if s == expected.to || missing.count >= 10_000 { break }
      s += 1
    }
    let failing = rows.filter { $0.verdict != "pass" }.map { row in
      FailingSeed(
        seed: row.seed,
        reason: row.firstViolation
          ?? (row.verdict == "incomplete"
            ? FailingSeed.incomplete + "stopped before its end (liveness not judged)"
            : FailingSeed.thresholdsOnly + row.failedThresholds.joined(separator: ", ")),
        repro: row.repro)
    }
    return SweepSummary(
      tool: tool, profile: profile, seeds: seeds, shard: shard, complete: missing.isEmpty, missingSeeds: missing,
      verdict: failing.isEmpty && missing.isEmpty ? "pass" : "fail", runs: rows, counters: totals.counters,
      latencies: totals.histograms.mapValues { LatencySummary($0) }, invariants: totals.invariantList, failing: failing,
      events: rows.reduce(0) { $0 + $1.events }, coverage: totals.coverage, meta: meta)
  }

  /// Why shard summaries cannot be merged.
  public struct MergeError: Error, CustomStringConvertible {
    /// One line.
    public let description: String
  }

  /// Merges shard summaries (in any order) into the summary of the whole range. Overlapping seeds
  /// are an error; missing seeds make the result incomplete and are listed.
  public static func merge(_ parts: [SweepSummary]) throws(MergeError) -> SweepSummary {
    guard let first = parts.first else { throw MergeError(description: "nothing to merge") }
    for p in parts.dropFirst() {
      guard p.profile.sha256 == first.profile.sha256 else {
        throw MergeError(
          description:
            "summaries of different profiles (sha256 \(first.profile.sha256.prefix(12))… and \(p.profile.sha256.prefix(12))…)"
        )
      }
      guard p.seeds == first.seeds else {
        throw MergeError(
          description:
            "summaries of different seed ranges (\(first.seeds.from)..\(first.seeds.to) and \(p.seeds.from)..\(p.seeds.to))"
        )
      }
      guard (p.variant ?? "") == (first.variant ?? "") else {
        throw MergeError(
          description:
            "summaries of sweeps run under different mistakes, quirks or apps ('\(first.variant ?? "")' and '\(p.variant ?? "")')"
        )
      }
      guard p.tool.version == first.tool.version else {
        throw MergeError(
          description: "summaries from different stampede versions (\(first.tool.version), \(p.tool.version))")
      }
    }
    var seen: [UInt64: Int] = [:]
    var overlaps: [UInt64] = []
    for (i, p) in parts.enumerated() {
      for row in p.runs {
        if seen[row.seed] != nil { overlaps.append(row.seed) }
        seen[row.seed] = i
      }
    }
    guard overlaps.isEmpty else {
      let list = overlaps.sorted().prefix(10).map { String($0) }.joined(separator: ", ")
      throw MergeError(
        description:
          "\(overlaps.count) seed(s) appear in more than one summary (\(list)\(overlaps.count > 10 ? ", …" : "")); refusing to count them twice"
      )
    }
    var totals = Totals()
    for p in parts {
      totals.add(counters: p.counters, latencies: p.latencies, invariants: p.invariants)
      if let c = p.coverage { totals.add(coverage: c) }
    }
    let rows = parts.flatMap(\.runs).sorted { $0.seed < $1.seed }
    let meta = Meta(wallSeconds: parts.reduce(0) { $0 + $1.meta.wallSeconds }, jobs: parts.map(\.meta.jobs).max() ?? 1)
    var merged = assemble(
      tool: first.tool, profile: first.profile, seeds: first.seeds, shard: nil, rows: rows, totals: totals, meta: meta)
    merged.variant = first.variant
    return merged
  }

  /// Pretty-printed JSON with sorted keys.
  public func jsonData() throws -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    var data = try encoder.encode(self)
    data.append(0x0A)
    return data
  }

  /// The summary without its ``meta`` block and its coverage growth, for comparing results of
  /// different executions (a merge of shards has no growth).
  public func resultData() throws -> Data {
    var copy = self
    copy.meta = Meta(wallSeconds: 0, jobs: 0)
    // Growth needs every seed's own coverage, which a merge of shards no longer has.
    copy.coverageGrowth = nil
    return try copy.jsonData()
  }
}
