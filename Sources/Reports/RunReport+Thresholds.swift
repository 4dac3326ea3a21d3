import Metrics
import Profiles
import Scenario

extension RunReport {
  /// The value `threshold` measures in this report: milliseconds for latency times, a fraction for
  /// ratios, a plain number otherwise (per simulated second for rates); `nil` for a latency
  /// statistic of a metric without samples and for a ratio whose denominator is 0.
  public func value(of threshold: Threshold) -> Double? { measured.value(of: threshold.subject) }

  /// Evaluates `thresholds` into ``thresholds`` and settles the verdict: `fail` if an invariant
  /// was violated, else `incomplete` if the run did not reach its end, else `fail` if a judged
  /// threshold failed, else `pass`. A `steered` run (`explore`) measures its thresholds but is
  /// judged by its invariants alone (a threshold on invariant violations is judged there too).
  public mutating func evaluate(_ thresholds: [Threshold], steered: Bool = false) {
    self.thresholds = thresholds.map { t in
      let v = value(of: t)
      var unit: String?
      switch t.subject.boundKind {
      case .time: unit = "ms"
      case .share: unit = "share"
      case .number: if case .rate = t.subject { unit = "/s" }
      }
      var result = ThresholdResult(expression: t.expression, value: v, passed: t.passes(v), unit: unit)
      var onInvariants = false
      if case .violations = t.subject { onInvariants = true }
      if steered && !onInvariants { result.judged = false }
      return result
    }
    if violationCount > 0 {
      verdict = "fail"
    } else if !reachedEnd {
      verdict = "incomplete"
    } else {
      verdict = failedThresholds.isEmpty ? "pass" : "fail"
    }
    notJudged = reachedEnd ? nil : invariants.filter { $0.kind == "liveness" && $0.off != true }.map(\.id)
  }

  /// Invariant violations of every kind.
  public var violationCount: Int { invariants.reduce(0) { $0 + $1.violations } }

  /// Judged thresholds that failed.
  public var failedThresholds: [ThresholdResult] { thresholds.filter(\.failed) }
}

extension RunReport {
  /// One failure of a run, as the reports' headlines name it.
  public struct Failure: Sendable, Equatable {
    /// `invariant`, `threshold` or `run`.
    public var kind: String
    /// The invariant ID or threshold expression (empty for the run).
    public var name: String
    /// What was measured or seen: `3 violations; first at 12.40 s: …`, `measured 4.20 s`.
    public var detail: String
  }

  /// Every reason the run did not pass, most important first: violated invariants (most
  /// violations first), failed thresholds with their measured values, then a run that did not
  /// reach its end with the checks it left unjudged.
  public var failures: [Failure] {
    var out: [Failure] = []
    for i in invariants.filter({ $0.violations > 0 }).sorted(by: { ($1.violations, $0.id) < ($0.violations, $1.id) }) {
      var detail = "\(Spell.int(i.violations)) violation\(i.violations == 1 ? "" : "s")"
      if let f = i.first { detail += "; first at \(Spell.ms(f.atMs)): \(f.message)" }
      out.append(Failure(kind: "invariant", name: i.id, detail: detail))
    }
    for t in failedThresholds {
      out.append(Failure(kind: "threshold", name: t.expression, detail: "measured \(t.measured)"))
    }
    if !complete {
      out.append(Failure(kind: "run", name: "", detail: "interrupted before its end: partial results"))
    } else if !reachedEnd {
      let unjudged = notJudged ?? []
      out.append(
        Failure(
          kind: "run", name: "",
          detail: "stopped by its event budget (limits.maxEvents) before its end"
            + (unjudged.isEmpty ? "" : "; not judged: " + unjudged.joined(separator: ", "))))
    }
    return out
  }

  /// The invariants with the violated ones first (most violations first), the rest in order.
  public var invariantsFailuresFirst: [InvariantResult] {
    invariants.filter { $0.violations > 0 }.sorted { ($1.violations, $0.id) < ($0.violations, $1.id) }
      + invariants.filter { $0.violations == 0 }
  }

  /// The thresholds with the failed ones first, each group in the profile's order.
  public var thresholdsFailuresFirst: [ThresholdResult] {
    thresholds.filter(\.failed) + thresholds.filter { !$0.failed }
  }
}

extension RunReport {
  /// The command that writes every event of `violation`'s users (its rooms, when it names no user)
  /// from the start of the run, where its excerpt shows only the last few: the repro line with
  /// `--trace trace-<invariant>.jsonl --only …`. `nil` when the violation names neither.
  public func traceCommand(for violation: FirstViolation, invariant: String) -> String? {
    let users = violation.entities.filter { $0.hasPrefix("user:") }
    let selected = users.isEmpty ? violation.entities.filter { $0.hasPrefix("room:") } : users
    guard !selected.isEmpty else { return nil }
    return "\(repro) --trace trace-\(invariant).jsonl --only \(selected.joined(separator: ","))"
  }
}
