import Foundation

/// The files of one run's report folder.
public enum ReportFiles {
  /// File names, in the order they are written (`report.json` last, so a reader that waits for it
  /// finds the others complete).
  public static let names = ["report.md", "report.html", "junit.xml", "report.json"]

  /// Writes `report.md`, `report.html`, `junit.xml` and `report.json` into `folder`, each
  /// atomically. Returns their paths.
  @discardableResult
  public static func write(_ report: RunReport, to folder: String) throws -> [String] {
    let contents: [Data] = [
      Data(ReportOwnership.marked(markdown: MarkdownReport.render(report)).utf8), Data(HTMLReport.render(report).utf8),
      Data(JUnitReport.render(report).utf8), try report.jsonData(),
    ]
    return try AtomicFile.write(Array(zip(names, contents)), into: folder)
  }
}

extension RunReport {
  /// The exit status the contract gives this report: 1 if an invariant was violated (even if
  /// thresholds failed too or the run stopped early), else 130 if the run was interrupted, else 5
  /// if the event budget cut it, else 3 if a threshold failed, else 0. (Nondeterminism is decided
  /// by the caller.)
  public var exitStatus: Int32 {
    if violationCount > 0 { return 1 }
    if !complete { return 130 }
    if !reachedEnd { return 5 }
    if !failedThresholds.isEmpty { return 3 }
    return 0
  }
}

extension RunReport {
  /// "Capacity lost": the seat time guest seats stood locked with nobody on them
  /// (`seat.locked_empty_ms`), or `nil` when none did.
  public var capacityLostText: String? {
    guard let ms = counters["seat.locked_empty_ms"], ms > 0 else { return nil }
    let minutes = Double(ms) / 60_000
    let share = simulatedSeconds > 0 ? Double(ms) / 1000 / simulatedSeconds : 0
    return String(format: "%.1f seat-minutes", minutes)
      + String(format: " locked with nobody on them (%.2f seats on average over the run)", share)
      + ": seats hosts and admins locked, and seats closed until a flash crowd opens them. "
      + "seat.lock-released (with seats.lockLimit) reports a lock kept too long."
  }
}
