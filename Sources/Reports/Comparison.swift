import Foundation
import Metrics

/// One side of a comparison: a run, a sweep, or a history entry of either.
public struct ComparedSide: Sendable {
  /// Where it came from, as the reports name it (a path, or `history #12`).
  public var label: String
  /// `run` or `sweep`.
  public var kind: String
  /// The profile's name.
  public var profileName: String
  /// The resolved profile's SHA-256.
  public var profileSha256: String
  /// The tool version that made it.
  public var toolVersion: String
  /// `pass`, `fail` or `incomplete`.
  public var verdict: String
  /// What it measured.
  public var measured: MeasuredMetrics
  /// Events executed (over all seeds).
  public var events: Int64
  /// Each seed's outcome, in seed order (one for a run).
  public var seeds: [SeedOutcome]
  /// The reproduce command of a run.
  public var repro: String?

  /// One seed's outcome.
  public struct SeedOutcome: Sendable, Equatable {
    /// The seed.
    public var seed: UInt64
    /// `pass`, `fail` or `incomplete`.
    public var verdict: String
    /// The trace hash.
    public var traceHash: String
    /// Each latency's mean for this seed, in milliseconds.
    public var latencyMeansMs: [String: Double]
    /// Creates an outcome.
    public init(seed: UInt64, verdict: String, traceHash: String, latencyMeansMs: [String: Double]) {
      self.seed = seed
      self.verdict = verdict
      self.traceHash = traceHash
      self.latencyMeansMs = latencyMeansMs
    }
  }

  /// Creates a side from its parts.
  public init(
    label: String, kind: String, profileName: String, profileSha256: String, toolVersion: String, verdict: String,
    measured: MeasuredMetrics, events: Int64, seeds: [SeedOutcome], repro: String?
  ) {
    self.label = label
    self.kind = kind
    self.profileName = profileName
    self.profileSha256 = profileSha256
    self.toolVersion = toolVersion
    self.verdict = verdict
    self.measured = measured
    self.events = events
    self.seeds = seeds
    self.repro = repro
  }

  /// A run report as a side.
  public init(report r: RunReport, label: String) {
    let means = r.latencies.compactMapValues { l in l.count == 0 ? nil : Double(l.sumNs) / Double(l.count) / 1e6 }
    self.init(
      label: label, kind: "run", profileName: r.profile.name, profileSha256: r.profile.sha256,
      toolVersion: r.tool.version, verdict: r.verdict, measured: r.measured, events: r.events,
      seeds: [SeedOutcome(seed: r.seed, verdict: r.verdict, traceHash: r.traceHash, latencyMeansMs: means)],
      repro: r.repro)
  }

  /// A sweep summary as a side.
  public init(summary s: SweepSummary, label: String) {
    self.init(
      label: label, kind: "sweep", profileName: s.profile.name, profileSha256: s.profile.sha256,
      toolVersion: s.tool.version, verdict: s.verdict, measured: s.measured, events: s.events,
      seeds: s.runs.map {
        SeedOutcome(
          seed: $0.seed, verdict: $0.verdict, traceHash: $0.traceHash, latencyMeansMs: $0.latencyMeansMs ?? [:])
      }, repro: nil)
  }

  /// `run seat-rush seed 7` or `sweep seat-rush seeds 1..100 (100 seeds)`.
  public var headline: String {
    if kind == "run", let s = seeds.first { return "run \(profileName) seed \(s.seed)" }
    guard let first = seeds.first, let last = seeds.last else { return "sweep \(profileName) (no seeds)" }
    return "sweep \(profileName) seeds \(first.seed)..\(last.seed) (\(Spell.int(seeds.count)) seeds)"
  }
}

/// A `--fail-on` rule: a metric expression, a comparison and a bound on the change from A to B,
/// relative (`+10%`) or absolute (`+50ms`, `+3`): `seat.apply_to_response.p99 > +10%`.
public struct RegressionRule: Sendable, Equatable, CustomStringConvertible {
  /// The rule as written.
  public var expression: String
  /// What it measures.
  public var subject: Threshold.Subject
  /// How the change is compared with the bound.
  public var comparison: Threshold.Comparison
  /// The bound on the change: a fraction for relative rules, else in the metric's unit (ms for times).
  public var bound: Double
  /// Whether the bound is relative to A's value.
  public var relative: Bool

  public var description: String { expression }

  /// Reads a rule; the error says what is wrong and what was expected.
  public static func parse(_ text: String, vocabulary: ThresholdVocabulary) throws(ThresholdParseError)
    -> RegressionRule
  {
    let trimmed = text.trimmingCharacters(in: .whitespaces)
    let ops: [Threshold.Comparison] = [.lessOrEqual, .greaterOrEqual, .less, .greater]
    guard let (op, range) = ops.lazy.compactMap({ op in trimmed.range(of: op.rawValue).map { (op, $0) } }).first
    else {
      throw ThresholdParseError("expected METRIC OP CHANGE with OP one of <, <=, >, >= and CHANGE such as +10%")
    }
    let left = String(trimmed[..<range.lowerBound]).trimmingCharacters(in: .whitespaces)
    let right = String(trimmed[range.upperBound...]).trimmingCharacters(in: .whitespaces)
    let subject = try Threshold.parseSubject(left, vocabulary)
    guard let sign = right.first, sign == "+" || sign == "-" else {
      throw ThresholdParseError(
        "expected a signed change such as +10%, -5% or +50ms after \(op.rawValue), got '\(right)'")
    }
    let magnitude = String(right.dropFirst())
    let factor = sign == "-" ? -1.0 : 1.0
    if magnitude.hasSuffix("%") {
      guard let n = Double(magnitude.dropLast()), n.isFinite, n >= 0 else {
        throw ThresholdParseError("expected a percentage such as +10%, got '\(right)'")
      }
      return RegressionRule(
        expression: trimmed, subject: subject, comparison: op, bound: factor * n / 100, relative: true)
    }
    let absolute: Double?
    switch subject.boundKind {
    case .time: absolute = Threshold.parseTime(magnitude)
    case .share: absolute = nil
    case .number: absolute = Double(magnitude.hasSuffix("/s") ? String(magnitude.dropLast(2)) : magnitude)
    }
    guard let absolute, absolute.isFinite else {
      let expected =
        subject.boundKind == .time
        ? "a relative change such as +10% or a time such as +50ms"
        : subject.boundKind == .share ? "a relative change such as +10%" : "a relative change such as +10% or a number"
      throw ThresholdParseError("expected \(expected), got '\(right)'")
    }
    return RegressionRule(
      expression: trimmed, subject: subject, comparison: op, bound: factor * absolute, relative: false)
  }

  /// The change from `a` to `b` this rule bounds: a fraction of `a` for relative rules (infinite
  /// when `a` is 0 and `b` is not), else the difference. `nil` when either value is missing.
  public func change(from a: Double?, to b: Double?) -> Double? {
    guard let a, let b else { return nil }
    guard relative else { return b - a }
    if a == b { return 0 }
    if a == 0 { return b > 0 ? .infinity : -.infinity }
    return (b - a) / abs(a)
  }
}

/// Two runs or sweeps compared metric by metric, each difference with a significance test suited
/// to its data, and `--fail-on` rules judged on changes that are both large and significant.
public struct Comparison: Sendable {
  /// The baseline.
  public var a: ComparedSide
  /// The candidate.
  public var b: ComparedSide
  /// A difference counts as real when its p-value is below this.
  public var alpha: Double
  /// One row per latency either side has.
  public var latencies: [LatencyRow]
  /// One row per counter either side has, as rates per simulated second.
  public var counters: [CounterRow]
  /// Seeds both sides ran.
  public var pairedSeeds: Int
  /// Seeds whose verdict differs between A and B.
  public var verdictChanges: [VerdictChange]
  /// Whether a seed going from pass to fail is allowed (`--allow-verdict-changes`); otherwise it
  /// fails the comparison.
  public var allowVerdictChanges: Bool
  /// When both sides ran the same seeds but too few for the signed-rank test to reach alpha: the
  /// seeds there are and the number it needs. Latencies are then decided by the pooled samples.
  public var underpowered: (seeds: Int, needed: Int)?
  /// Seeds both ran whose trace hashes differ (the runs executed different events).
  public var divergentSeeds: [UInt64]
  /// The rules, judged.
  public var rules: [RuleResult]
  /// The first event where the two runs differ, when it was looked for (filled in by the caller).
  public var divergence: String?

  /// A latency's two sides.
  public struct LatencyRow: Sendable {
    /// Metric name.
    public var name: String
    /// A's summary.
    public var a: LatencySummary?
    /// B's summary.
    public var b: LatencySummary?
    /// The chi-square test over the two histograms' buckets.
    public var bucketTest: Statistics.TestResult?
    /// The signed-rank test over per-seed means, when both sweeps ran the same seeds.
    public var pairedTest: Statistics.TestResult?
    /// Whether the paired test can reach the comparison's alpha at all: with too few seeds whose
    /// means differ, even every seed moving the same way gives a p above it.
    public var pairedCanDecide = false
    /// The test that decides: the paired one when it can reach alpha (seeds are the independent
    /// samples; a run's samples are not), else the bucket test over the pooled samples.
    public var deciding: Statistics.TestResult? { pairedCanDecide ? pairedTest : bucketTest }
  }

  /// A counter's two sides.
  public struct CounterRow: Sendable {
    /// Counter name.
    public var name: String
    /// A's count.
    public var a: UInt64
    /// B's count.
    public var b: UInt64
    /// A's rate per simulated second.
    public var rateA: Double?
    /// B's rate per simulated second.
    public var rateB: Double?
    /// The Poisson rate test.
    public var test: Statistics.TestResult?
  }

  /// A seed whose verdict changed.
  public struct VerdictChange: Sendable, Equatable {
    /// The seed.
    public var seed: UInt64
    /// Its verdict in A.
    public var a: String
    /// Its verdict in B.
    public var b: String
  }

  /// A rule's judgement.
  public struct RuleResult: Sendable {
    /// The rule.
    public var rule: RegressionRule
    /// A's value.
    public var a: Double?
    /// B's value.
    public var b: Double?
    /// The change the rule bounds.
    public var change: Double?
    /// The test behind the change, if the data has one (invariant counts are exact and need none).
    public var test: Statistics.TestResult?
    /// Whether the change crossed the bound.
    public var crossed: Bool
    /// Whether the change is significant at the comparison's alpha.
    public var significant: Bool
    /// A regression: crossed and significant.
    public var regressed: Bool { crossed && significant }
  }

  /// Whether any rule found a regression.
  public var regressed: Bool { rules.contains { $0.regressed } }

  /// Seeds that passed in A and fail in B.
  public var newFailures: [VerdictChange] { verdictChanges.filter { $0.a == "pass" && $0.b == "fail" } }

  /// Seeds that failed in A and pass in B: improvements.
  public var fixed: [VerdictChange] { verdictChanges.filter { $0.a == "fail" && $0.b == "pass" } }

  /// Whether the comparison fails (exit 3): a rule found a regression, or a seed went from pass to
  /// fail and that is not allowed.
  public var failed: Bool { regressed || (!allowVerdictChanges && !newFailures.isEmpty) }

  /// The names rules may use: everything either side measured.
  public static func vocabulary(_ a: ComparedSide, _ b: ComparedSide) -> ThresholdVocabulary {
    let va = a.measured.vocabulary
    let vb = b.measured.vocabulary
    return ThresholdVocabulary(
      latencies: Array(Set(va.latencies).union(vb.latencies)).sorted(),
      counters: Array(Set(va.counters).union(vb.counters)).sorted(),
      invariants: Array(Set(va.invariants).union(vb.invariants)).sorted())
  }

  /// Compares `a` (the baseline) with `b`, judging `rules`.
  public init(
    _ a: ComparedSide, _ b: ComparedSide, rules: [RegressionRule] = [], alpha: Double = 0.01,
    allowVerdictChanges: Bool = false
  ) {
    self.a = a
    self.b = b
    self.alpha = alpha
    self.allowVerdictChanges = allowVerdictChanges
    let seedsA = Dictionary(a.seeds.map { ($0.seed, $0) }, uniquingKeysWith: { x, _ in x })
    let paired = b.seeds.compactMap { sb in seedsA[sb.seed].map { ($0, sb) } }
    pairedSeeds = paired.count
    verdictChanges = paired.filter { $0.0.verdict != $0.1.verdict }.map {
      VerdictChange(seed: $0.0.seed, a: $0.0.verdict, b: $0.1.verdict)
    }
    divergentSeeds = paired.filter { $0.0.traceHash != $0.1.traceHash }.map(\.0.seed)
    // Pairing needs the same seeds on both sides, each with per-seed means.
    let samePairs =
      a.kind == "sweep" && b.kind == "sweep" && paired.count == a.seeds.count && paired.count == b.seeds.count
    let needed = Statistics.signedRankPairsNeeded(alpha: alpha)
    underpowered = samePairs && paired.count < needed ? (paired.count, needed) : nil
    var rows: [LatencyRow] = []
    for name in Set(a.measured.latencies.keys).union(b.measured.latencies.keys).sorted() {
      let la = a.measured.latencies[name]
      let lb = b.measured.latencies[name]
      func counts(_ l: LatencySummary?) -> [Int: UInt64] {
        var out: [Int: UInt64] = [:]
        for pair in l?.buckets ?? [] where pair.count == 2 { out[Int(pair[0]), default: 0] += pair[1] }
        return out
      }
      var pairedTest: Statistics.TestResult?
      var pairedCanDecide = false
      if samePairs {
        let diffs = paired.compactMap { pa, pb -> Double? in
          guard let x = pa.latencyMeansMs[name], let y = pb.latencyMeansMs[name] else { return nil }
          return y - x
        }
        pairedTest = Statistics.signedRankTest(diffs)
        // Every seed equal (p 1) decides too: nothing moved.
        pairedCanDecide = pairedTest.map { $0.p == 1 || Statistics.signedRankMinimumP(pairs: $0.n) <= alpha } ?? false
      }
      rows.append(
        LatencyRow(
          name: name, a: la, b: lb, bucketTest: Statistics.bucketTest(counts(la), counts(lb)), pairedTest: pairedTest,
          pairedCanDecide: pairedCanDecide))
    }
    latencies = rows
    counters = Set(a.measured.counters.keys).union(b.measured.counters.keys).sorted().map { name in
      let ca = a.measured.counters[name] ?? 0
      let cb = b.measured.counters[name] ?? 0
      let ta = a.measured.simulatedSeconds
      let tb = b.measured.simulatedSeconds
      return CounterRow(
        name: name, a: ca, b: cb, rateA: ta > 0 ? Double(ca) / ta : nil, rateB: tb > 0 ? Double(cb) / tb : nil,
        test: Statistics.rateTest(countA: ca, exposureA: ta, countB: cb, exposureB: tb))
    }
    let latencyRows = Dictionary(rows.map { ($0.name, $0) }, uniquingKeysWith: { x, _ in x })
    let counterRows = Dictionary(counters.map { ($0.name, $0) }, uniquingKeysWith: { x, _ in x })
    self.rules = rules.map { rule in
      let va = a.measured.value(of: rule.subject)
      let vb = b.measured.value(of: rule.subject)
      let change = rule.change(from: va, to: vb)
      let crossed = change.map { rule.comparison.holds($0, rule.bound) } ?? false
      var test: Statistics.TestResult?
      switch rule.subject {
      case .latency(let name, _): test = latencyRows[name]?.deciding
      case .counter(let name), .rate(let name): test = counterRows[name]?.test
      case .ratio(let numerator, let denominator):
        test = Statistics.proportionTest(
          hitsA: a.measured.counters[numerator] ?? 0, trialsA: a.measured.counters[denominator] ?? 0,
          hitsB: b.measured.counters[numerator] ?? 0, trialsB: b.measured.counters[denominator] ?? 0)
      case .violations: test = nil
      }
      let significant: Bool
      if case .violations = rule.subject {
        significant = true
      } else {
        significant = test.map { $0.p < alpha } ?? false
      }
      return RuleResult(
        rule: rule, a: va, b: vb, change: change, test: test, crossed: crossed, significant: significant)
    }
  }

  /// Latency rows whose difference is significant, largest relative p99 change first.
  public var significantLatencies: [LatencyRow] {
    latencies.filter { ($0.deciding?.p ?? 1) < alpha }.sorted {
      abs(Self.relative($0.a?.p99Ms, $0.b?.p99Ms) ?? 0) > abs(Self.relative($1.a?.p99Ms, $1.b?.p99Ms) ?? 0)
    }
  }

  /// Counter rows whose rate changed significantly.
  public var significantCounters: [CounterRow] { counters.filter { ($0.test?.p ?? 1) < alpha } }

  /// `(b - a) / a`, or `nil` when either is missing or `a` is 0.
  static func relative(_ a: Double?, _ b: Double?) -> Double? {
    guard let a, let b, a != 0 else { return nil }
    return (b - a) / abs(a)
  }

  /// One line for the terminal and the headings.
  public var verdictLine: String {
    var parts: [String] = []
    let failed = rules.filter(\.regressed)
    if !failed.isEmpty {
      parts.append(
        "REGRESSION: " + failed.map { "\($0.rule.expression) (\(Self.spellChange($0)))" }.joined(separator: "; "))
    }
    let broke = newFailures.count
    if broke > 0 && !allowVerdictChanges {
      parts.append("NEW FAILURES: \(Spell.int(broke)) seed(s) went from pass to fail")
    }
    if parts.isEmpty {
      let sig = significantLatencies.count + significantCounters.count
      parts.append(
        sig == 0 ? "no significant difference" : "\(sig) significant difference(s), none past a --fail-on rule")
      if broke > 0 { parts.append("\(Spell.int(broke)) seed(s) went from pass to fail (allowed)") }
    }
    if !fixed.isEmpty { parts.append("\(Spell.int(fixed.count)) seed(s) fixed (fail to pass)") }
    let other = verdictChanges.count - broke - fixed.count
    if other > 0 { parts.append("\(Spell.int(other)) other verdict change(s)") }
    return parts.joined(separator: "; ")
  }

  /// One line saying the seeds are too few for the paired test, or `nil`.
  public var underpoweredLine: String? {
    guard let u = underpowered else { return nil }
    let smallest = String(format: "%.4g", Statistics.signedRankMinimumP(pairs: u.seeds))
    return "\(u.seeds) paired seed(s) cannot reach alpha \(alpha) (the signed-rank test's smallest p is \(smallest); "
      + "\(u.needed) seeds can): latencies are decided by the pooled per-sample test"
  }

  /// A rule's change as people read it: `+12.5%`, `+40.0 ms`, `+3`.
  public static func spellChange(_ r: RuleResult) -> String {
    guard let c = r.change else { return "no value" }
    if r.rule.relative {
      return c.isInfinite ? (c > 0 ? "from 0 to above 0" : "to 0") : String(format: "%+.1f%%", c * 100)
    }
    if case .latency(_, let s) = r.rule.subject, s.isTime { return (c >= 0 ? "+" : "-") + Spell.ms(abs(c)) }
    return String(format: "%+.4g", c)
  }

  /// A p-value as reports print it.
  public static func spellP(_ t: Statistics.TestResult?) -> String {
    guard let t else { return "–" }
    if t.p < 1e-4 { return "<0.0001" }
    return String(format: "%.4f", t.p)
  }

  /// A relative change as reports print it.
  static func spellRelative(_ a: Double?, _ b: Double?) -> String {
    guard let a, let b else { return "–" }
    if a == b { return "0%" }
    guard let r = relative(a, b) else { return "new" }
    return String(format: "%+.1f%%", r * 100)
  }
}
