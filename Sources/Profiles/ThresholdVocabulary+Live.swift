import LiveStack
import Metrics
import Oracles

extension ThresholdVocabulary {
  /// What a live run reports: its latencies, its counters (and one per SDK error) and the
  /// invariant catalogue.
  public static let live = ThresholdVocabulary(
    latencies: LiveMetrics.latencyNames,
    counters: LiveMetrics().counters.names + SeatError.allCases.map { "errors." + $0.name },
    invariants: Checker.catalogue.map(\.id))
}

extension Threshold {
  /// Parses `text` against the names a live run reports.
  public static func parse(_ text: String) throws(ThresholdParseError) -> Threshold {
    try parse(text, vocabulary: .live)
  }
}
