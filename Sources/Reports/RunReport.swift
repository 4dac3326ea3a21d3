import Foundation
import Metrics

/// `report.json`: everything one run measured and decided. All fields except ``meta``,
/// ``wallSeconds`` and ``peakMemoryBytes`` are a pure function of the profile and the seed.
public struct RunReport: Codable, Sendable {
  /// The version of this layout; bumped on any incompatible change.
  public var schemaVersion = 1
  /// `false` when the run was interrupted and this report holds only what it had.
  public var complete: Bool
  /// The tool that wrote it.
  public var tool: Tool
  /// The profile that ran.
  public var profile: ProfileInfo
  /// The root seed.
  public var seed: UInt64
  /// The root seed as `0x…`.
  public var seedHex: String
  /// One command that reproduces this run exactly.
  public var repro: String
  /// The rolling hash of every executed event, 16 hex digits.
  public var traceHash: String
  /// Events executed.
  public var events: Int64
  /// Simulated time covered, in seconds.
  public var simulatedSeconds: Double
  /// Why the event loop stopped: `endTime`, `eventBudget` or `quiescent`.
  public var stopReason: String
  /// Wall time of the event loop, in seconds (a measurement, not a result).
  public var wallSeconds: Double
  /// Peak heap bytes during the run, from jemalloc (a measurement, not a result).
  public var peakMemoryBytes: UInt64
  /// Who was simulated.
  public var population: Population
  /// `pass`, `fail`, or `incomplete` for a run that stopped before its end (the event budget ran
  /// out, or it was interrupted) with no invariant violated: such a run is never `pass`.
  public var verdict: String
  /// The checks a run that stopped before its end could not judge (the liveness invariants, which
  /// are decided at the end); `nil` for a run that reached its end.
  public var notJudged: [String]?
  /// Latency summaries by metric name.
  public var latencies: [String: LatencySummary]
  /// Exact counters by name.
  public var counters: [String: UInt64]
  /// Invariants checked, with their violations.
  public var invariants: [InvariantResult]
  /// Whether `invariant` went unjudged (a liveness invariant of a run that stopped early, with no
  /// violation recorded before the stop).
  public func unjudged(_ invariant: InvariantResult) -> Bool {
    invariant.violations == 0 && notJudged?.contains(invariant.id) == true
  }

  /// Whether the run reached its end (its simulated duration, or nothing left to happen): not
  /// interrupted and not cut by the event budget.
  public var reachedEnd: Bool { complete && stopReason != "eventBudget" }

  /// Fault kinds configured, with how often each fired.
  public var faults: [FaultCount]
  /// Pass/fail thresholds and their values.
  public var thresholds: [ThresholdResult]
  /// The resources a capacity planner reads (reviewers, seats, server services): how busy each
  /// was, its queue, what it refused. Absent in reports written before it existed.
  public var resources: [ResourceUsage]?
  /// What the clients' code was tested against: the outcomes each SDK call got and those it
  /// never got, and the events each role heard. Absent in reports written before it existed.
  public var coverage: CoverageReport?
  /// Gauges sampled over the run.
  public var timeSeries: Series?
  /// When and where the run happened; differs between two runs of the same seed.
  public var meta: Meta

  /// Creates a report.
  public init(
    complete: Bool, tool: Tool, profile: ProfileInfo, seed: UInt64, seedHex: String, repro: String,
    traceHash: String, events: Int64, simulatedSeconds: Double, stopReason: String, wallSeconds: Double,
    peakMemoryBytes: UInt64, population: Population, verdict: String, latencies: [String: LatencySummary],
    counters: [String: UInt64], invariants: [InvariantResult], faults: [FaultCount],
    thresholds: [ThresholdResult], timeSeries: Series? = nil, meta: Meta
  ) {
    self.complete = complete
    self.tool = tool
    self.profile = profile
    self.seed = seed
    self.seedHex = seedHex
    self.repro = repro
    self.traceHash = traceHash
    self.events = events
    self.simulatedSeconds = simulatedSeconds
    self.stopReason = stopReason
    self.wallSeconds = wallSeconds
    self.peakMemoryBytes = peakMemoryBytes
    self.population = population
    self.verdict = verdict
    self.latencies = latencies
    self.counters = counters
    self.invariants = invariants
    self.faults = faults
    self.thresholds = thresholds
    self.timeSeries = timeSeries
    self.meta = meta
  }

  /// The tool's identity.
  public struct Tool: Codable, Sendable {
    /// Its name, `stampede`.
    public var name: String
    /// Its version.
    public var version: String
    /// The program that ran it (`stampede`, or an app team's executable with its code built in),
    /// as repro lines name it.
    public var program: String?
    /// The program's build ID (see `BuildIdentity`): it changes with any change to the code built
    /// in, an app's included. `replay` compares it before calling a different hash nondeterminism.
    public var build: String?
    /// Creates the tool block.
    public init(name: String, version: String, program: String? = nil, build: String? = nil) {
      self.name = name
      self.version = version
      self.program = program
      self.build = build
    }
  }

  /// The profile's identity.
  public struct ProfileInfo: Codable, Sendable {
    /// The profile's `name`.
    public var name: String
    /// The path it was read from.
    public var path: String
    /// SHA-256 of the file's bytes, followed by the `--set` overrides when there are any.
    public var sha256: String
    /// The `--set key.path=value` overrides applied to the file, in order (absent when none).
    public var overrides: [String]?
    /// Creates the profile block.
    public init(name: String, path: String, sha256: String, overrides: [String]? = nil) {
      self.name = name
      self.path = path
      self.sha256 = sha256
      self.overrides = overrides
    }
  }

  /// Simulated users by role.
  public struct Population: Codable, Sendable {
    /// Viewers.
    public var audience: Int
    /// Room owners.
    public var hosts: Int
    /// Room admins.
    public var admins: Int
    /// Callers.
    public var callers: Int
    /// Everyone.
    public var total: Int
    /// Creates the population block.
    public init(audience: Int, hosts: Int, admins: Int, callers: Int) {
      self.audience = audience
      self.hosts = hosts
      self.admins = admins
      self.callers = callers
      total = audience + hosts + admins + callers
    }
  }

  /// One invariant's result.
  public struct InvariantResult: Codable, Sendable {
    /// Stable ID, e.g. `seat.single-occupancy`.
    public var id: String
    /// `safety` or `liveness`.
    public var kind: String
    /// How many times it was violated.
    public var violations: Int
    /// One line saying what must hold.
    public var description: String
    /// The first violation, if any.
    public var first: FirstViolation?
    /// `true` when the profile switched this invariant off (it was not checked).
    public var off: Bool?

    /// Creates a result.
    public init(
      id: String, kind: String, violations: Int, description: String, first: FirstViolation?, off: Bool? = nil
    ) {
      self.id = id
      self.kind = kind
      self.violations = violations
      self.description = description
      self.first = first
      self.off = off
    }
  }

  /// Where and how an invariant first failed.
  public struct FirstViolation: Codable, Sendable {
    /// Simulated milliseconds since the start.
    public var atMs: Double
    /// Entities involved (`room:3`, `user:17`).
    public var entities: [String]
    /// What was seen.
    public var message: String
    /// The events leading up to it (filled in by trace capture; empty otherwise).
    public var excerpt: [String]

    /// Creates a record.
    public init(atMs: Double, entities: [String], message: String, excerpt: [String] = []) {
      self.atMs = atMs
      self.entities = entities
      self.message = message
      self.excerpt = excerpt
    }
  }

  /// Gauges sampled over simulated time.
  public struct Series: Codable, Sendable, Equatable {
    /// Sampling interval in simulated milliseconds.
    public var intervalMs: Double
    /// Sample times in simulated milliseconds.
    public var timesMs: [Double]
    /// One column of values per gauge name.
    public var columns: [String: [Int64]]
    /// Per latency, its median and 99th percentile over each interval ending at ``timesMs``
    /// (`null` for an interval without samples). Absent in reports written before it existed.
    public var latencies: [String: IntervalLatency]?
    /// Per counter, its rate per simulated second over each interval ending at ``timesMs``.
    public var rates: [String: [Double]]?

    /// Creates a series.
    public init(
      intervalMs: Double, timesMs: [Double], columns: [String: [Int64]], latencies: [String: IntervalLatency]? = nil,
      rates: [String: [Double]]? = nil
    ) {
      self.intervalMs = intervalMs
      self.timesMs = timesMs
      self.columns = columns
      self.latencies = latencies
      self.rates = rates
    }
  }

  /// One latency over the run: its percentiles interval by interval.
  public struct IntervalLatency: Codable, Sendable, Equatable {
    /// Medians in milliseconds.
    public var p50Ms: [Double?]
    /// 99th percentiles in milliseconds.
    public var p99Ms: [Double?]
    /// Creates the columns.
    public init(p50Ms: [Double?], p99Ms: [Double?]) {
      self.p50Ms = p50Ms
      self.p99Ms = p99Ms
    }
  }

  /// One fault kind's injection count.
  public struct FaultCount: Codable, Sendable {
    /// Stable fault kind, e.g. `push.drop`.
    public var kind: String
    /// Times injected.
    public var injected: Int

    /// Creates a count.
    public init(kind: String, injected: Int) {
      self.kind = kind
      self.injected = injected
    }
  }

  /// One threshold's evaluation.
  public struct ThresholdResult: Codable, Sendable {
    /// The expression as written.
    public var expression: String
    /// The measured value.
    public var value: Double?
    /// Whether it held.
    public var passed: Bool
    /// `false` when it was measured but does not decide the verdict: a run steered toward lost
    /// requests and answers (`explore`) stalls calls by design, so its latencies and error rates
    /// say nothing of the app; absent when it is judged.
    public var judged: Bool?
    /// `ms` when the value is a time in milliseconds, `share` for a ratio (a fraction: 0.05 is
    /// 5%), `/s` for a rate per simulated second; absent for plain numbers.
    public var unit: String?

    /// The measured value as the reports print it: `2.50 s`, `4.2%`, `12.5/s`, `no samples`.
    public var measured: String { Spell.thresholdValue(self) }

    /// Whether it failed a judged threshold.
    public var failed: Bool { !passed && judged != false }

    /// What the reports print in its result column: `pass`, `FAIL`, or for a threshold not
    /// judged `not judged (steered run): would fail`.
    public var resultText: String {
      judged == false ? "not judged (steered run)" + (passed ? "" : ": would fail") : passed ? "pass" : "FAIL"
    }

    /// Creates a result.
    public init(expression: String, value: Double?, passed: Bool, unit: String? = nil) {
      self.expression = expression
      self.value = value
      self.passed = passed
      self.unit = unit
    }
  }

  /// Facts about the machine and the moment; never used to decide anything.
  public struct Meta: Codable, Sendable {
    /// ISO-8601 wall-clock start.
    public var startedAt: String
    /// Simulated seconds per wall second.
    public var speedup: Double
    /// Events executed per wall second.
    public var eventsPerSecond: Double
    /// Peak heap bytes per simulated user.
    public var bytesPerUser: Double
    /// jemalloc's version and huge-page mode, or `unavailable`.
    public var allocator: String
    /// The share of the process's anonymous resident memory backed by transparent huge pages
    /// when the report was made (0 to 1, three decimals; absent where the system does not say).
    /// At millions of users it moves a run's speed by as much as most code changes do.
    public var hugePageShare: Double?
    /// Creates the meta block.
    public init(
      startedAt: String, speedup: Double, eventsPerSecond: Double, bytesPerUser: Double, allocator: String,
      hugePageShare: Double? = nil
    ) {
      self.startedAt = startedAt
      self.speedup = speedup
      self.eventsPerSecond = eventsPerSecond
      self.bytesPerUser = bytesPerUser
      self.allocator = allocator
      self.hugePageShare = hugePageShare
    }
  }

  /// Encodes the report as pretty-printed JSON with sorted keys.
  public func jsonData() throws -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    var data = try encoder.encode(self)
    data.append(0x0A)
    return data
  }
}

/// A latency metric summarised for reports, with its buckets for later re-aggregation.
public struct LatencySummary: Codable, Sendable, Equatable {
  /// Number of samples.
  public var count: UInt64
  /// Mean, in milliseconds.
  public var meanMs: Double?
  /// Quantiles, in milliseconds (bucket midpoints, ≤ 0.8% off).
  public var p50Ms: Double?
  /// 90th percentile.
  public var p90Ms: Double?
  /// 99th percentile.
  public var p99Ms: Double?
  /// 99.9th percentile.
  public var p999Ms: Double?
  /// Exact minimum.
  public var minMs: Double?
  /// Exact maximum.
  public var maxMs: Double?
  /// Exact sum of all samples, in nanoseconds.
  public var sumNs: UInt64
  /// Exact minimum, in nanoseconds (0 when empty).
  public var minNs: UInt64
  /// Exact maximum, in nanoseconds.
  public var maxNs: UInt64
  /// Non-empty buckets as `[index, count]`; see ``Histogram/scheme``.
  public var buckets: [[UInt64]]

  /// Summarises `h`.
  public init(_ h: Histogram) {
    func ms(_ v: UInt64?) -> Double? { v.map(LatencySummary.ms) }
    count = h.count
    meanMs = h.mean.map { ($0 / 1e6 * 1000).rounded() / 1000 }
    p50Ms = ms(h.quantile(parts: 50, per: 100))
    p90Ms = ms(h.quantile(parts: 90, per: 100))
    p99Ms = ms(h.quantile(parts: 99, per: 100))
    p999Ms = ms(h.quantile(parts: 999, per: 1000))
    minMs = h.count == 0 ? nil : ms(h.min)
    maxMs = h.count == 0 ? nil : ms(h.max)
    sumNs = h.sum
    minNs = h.count == 0 ? 0 : h.min
    maxNs = h.max
    buckets = h.nonEmptyBuckets.map { [UInt64($0.index), $0.count] }
  }

  /// Nanoseconds as milliseconds rounded to the microsecond, as reports print them.
  public static func ms(_ nanoseconds: UInt64) -> Double { (Double(nanoseconds) / 1e6 * 1000).rounded() / 1000 }

  /// The histogram these buckets describe.
  public var histogram: Histogram? {
    let pairs = buckets.compactMap { b -> (index: Int, count: UInt64)? in
      b.count == 2 ? (Int(b[0]), b[1]) : nil
    }
    guard pairs.count == buckets.count else { return nil }
    return Histogram(buckets: pairs, sum: sumNs, min: minNs, max: maxNs)
  }
}
