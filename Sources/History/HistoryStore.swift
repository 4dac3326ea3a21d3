import Foundation
import Metrics
import Reports

/// One recorded run, sweep or capacity study.
public struct HistoryEntry: Sendable, Equatable {
  /// Row ID, shown as `#ID` and accepted by `compare` as `history:ID`.
  public var id: Int64
  /// `run`, `sweep`, `shard` (one shard of a sweep) or `capacity`.
  public var kind: String
  /// ISO-8601 wall-clock time it was recorded.
  public var recordedAt: String
  /// The profile's name.
  public var profileName: String
  /// SHA-256 of the resolved profile.
  public var profileSha256: String
  /// What else decided the run besides the profile and the seed: mistakes, quirks, app,
  /// duration (empty when none).
  public var variant: String
  /// The seed of a run.
  public var seed: UInt64?
  /// The seed range of a sweep or capacity study.
  public var seedsFrom: UInt64?
  /// Last seed of the range.
  public var seedsTo: UInt64?
  /// The tool version that made it.
  public var toolVersion: String
  /// The git commit of the working tree it ran in, when known.
  public var gitCommit: String?
  /// `pass`, `fail` or `incomplete`.
  public var verdict: String
  /// A run's trace hash.
  public var traceHash: String?
  /// Events executed.
  public var events: Int64
  /// Simulated seconds (summed over seeds).
  public var simulatedSeconds: Double
  /// Wall seconds.
  public var wallSeconds: Double
  /// Where its report was written.
  public var reportPath: String?
  /// A line of detail: a sweep's pass count, a capacity study's knee.
  public var detail: String?
  /// The executable's build ID, when recorded.
  public var buildID: String? = nil

  /// The seeds, or the seed, it covered.
  public var seedText: String {
    if let seed { return String(seed) }
    if let seedsFrom, let seedsTo { return "\(seedsFrom)..\(seedsTo)" }
    return ""
  }
}

/// The run history: an SQLite file every run, sweep and capacity study is recorded in, by default
/// `reports/history.sqlite`. Each record is one transaction, so concurrent sweeps writing the same
/// file queue up (SQLite's lock, with a wait of up to a minute) and readers never see half a record.
public final class HistoryStore {
  let db: SQLiteDatabase
  /// The file.
  public let path: String

  /// The default file, relative to the working directory.
  public static let defaultPath = "reports/history.sqlite"

  /// Opens the history at `path`, creating the file and its tables when `create` is set.
  public init(path: String, create: Bool = true) throws {
    if create {
      let folder = (path as NSString).deletingLastPathComponent
      if !folder.isEmpty { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
    } else if !FileManager.default.fileExists(atPath: path) {
      throw SQLiteError(code: 14, description: "\(path): no history recorded there yet")
    }
    self.path = path
    db = try SQLiteDatabase(path: path, create: create)
    // Write-ahead logging lets readers run beside a writer; the busy wait covers the rest.
    try db.execute("PRAGMA journal_mode=WAL")
    try db.execute("PRAGMA foreign_keys=ON")
    try db.writeTransaction {
      try db.execute(Self.schema)
      // A history written before builds were recorded gains the column (empty for its entries).
      if try !db.columns(of: "entries").contains("build_id") {
        try db.execute("ALTER TABLE entries ADD COLUMN build_id TEXT")
      }
    }
  }

  static let schema = """
    CREATE TABLE IF NOT EXISTS entries(
      id INTEGER PRIMARY KEY,
      kind TEXT NOT NULL,
      recorded_at TEXT NOT NULL,
      profile_name TEXT NOT NULL,
      profile_sha256 TEXT NOT NULL,
      variant TEXT NOT NULL,
      seed INTEGER,
      seeds_from INTEGER,
      seeds_to INTEGER,
      tool_version TEXT NOT NULL,
      git_commit TEXT,
      build_id TEXT,
      verdict TEXT NOT NULL,
      trace_hash TEXT,
      events INTEGER NOT NULL,
      simulated_seconds REAL NOT NULL,
      wall_seconds REAL NOT NULL,
      report_path TEXT,
      detail TEXT
    );
    CREATE INDEX IF NOT EXISTS entries_by_profile ON entries(profile_name, id);
    CREATE TABLE IF NOT EXISTS metrics(
      entry_id INTEGER NOT NULL REFERENCES entries(id) ON DELETE CASCADE,
      name TEXT NOT NULL,
      kind TEXT NOT NULL,
      value REAL,
      count INTEGER,
      mean_ms REAL, p50_ms REAL, p90_ms REAL, p99_ms REAL, p999_ms REAL, max_ms REAL,
      summary TEXT,
      PRIMARY KEY(entry_id, name)
    );
    CREATE TABLE IF NOT EXISTS seeds(
      entry_id INTEGER NOT NULL REFERENCES entries(id) ON DELETE CASCADE,
      seed INTEGER NOT NULL,
      verdict TEXT NOT NULL,
      trace_hash TEXT NOT NULL,
      means TEXT,
      PRIMARY KEY(entry_id, seed)
    );
    CREATE INDEX IF NOT EXISTS seeds_by_seed ON seeds(seed);
    CREATE TABLE IF NOT EXISTS invariants(
      entry_id INTEGER NOT NULL REFERENCES entries(id) ON DELETE CASCADE,
      id TEXT NOT NULL,
      violations INTEGER NOT NULL,
      PRIMARY KEY(entry_id, id)
    );
    """

  // MARK: - Recording

  /// What the caller knows about where a record came from.
  public struct Provenance: Sendable {
    /// Mistakes, quirks, app and duration (empty when none).
    public var variant: String
    /// The git commit, when known.
    public var gitCommit: String?
    /// Where the report was written.
    public var reportPath: String?
    /// The executable's build ID (its GNU build-id note), when known: it changes with any change
    /// to the code linked in, app code included, committed or not.
    public var buildID: String?
    /// Creates provenance.
    public init(variant: String, gitCommit: String?, reportPath: String?, buildID: String? = nil) {
      self.variant = variant
      self.gitCommit = gitCommit
      self.reportPath = reportPath
      self.buildID = buildID
    }
  }

  /// Records a run; returns its entry ID.
  @discardableResult
  public func record(_ r: RunReport, _ p: Provenance) throws -> Int64 {
    try db.writeTransaction {
      let id = try insertEntry(
        kind: "run", profile: r.profile, variant: p.variant, seed: r.seed, seeds: nil, tool: r.tool.version,
        commit: p.gitCommit, build: p.buildID, verdict: r.verdict, traceHash: r.traceHash, events: r.events,
        simulated: r.simulatedSeconds, wall: r.wallSeconds, reportPath: p.reportPath, detail: nil,
        recordedAt: r.meta.startedAt)
      try insertMetrics(id, r.measured)
      let means = r.latencies.compactMapValues { l in l.count == 0 ? nil : Double(l.sumNs) / Double(l.count) / 1e6 }
      try insertSeed(id, seed: r.seed, verdict: r.verdict, traceHash: r.traceHash, means: means)
      return id
    }
  }

  /// Records a sweep with one row per seed; returns its entry ID.
  @discardableResult
  public func record(_ s: SweepSummary, _ p: Provenance) throws -> Int64 {
    try db.writeTransaction {
      let passed = s.runs.filter { $0.verdict == "pass" }.count
      let id = try insertEntry(
        kind: s.shard == nil ? "sweep" : "shard", profile: s.profile, variant: p.variant, seed: nil,
        seeds: (s.seeds.from, s.seeds.to),
        tool: s.tool.version, commit: p.gitCommit, build: p.buildID, verdict: s.verdict, traceHash: nil,
        events: s.events,
        simulated: s.runs.reduce(0) { $0 + $1.simulatedSeconds }, wall: s.meta.wallSeconds, reportPath: p.reportPath,
        detail: "\(passed)/\(s.runs.count) seeds pass", recordedAt: Self.now())
      try insertMetrics(id, s.measured)
      for row in s.runs {
        try insertSeed(
          id, seed: row.seed, verdict: row.verdict, traceHash: row.traceHash, means: row.latencyMeansMs ?? [:])
      }
      return id
    }
  }

  /// Records a capacity study: its knee, and each point's pass share and p99s as values.
  @discardableResult
  public func record(_ c: CapacityStudy, tool: String, _ p: Provenance) throws -> Int64 {
    try db.writeTransaction {
      let id = try insertEntry(
        kind: "capacity", profile: c.profile, variant: p.variant, seed: nil, seeds: (c.seeds.from, c.seeds.to),
        tool: tool, commit: p.gitCommit, build: p.buildID, verdict: c.knee == nil ? "fail" : "pass", traceHash: nil,
        events: 0,
        simulated: 0, wall: 0, reportPath: p.reportPath, detail: c.kneeSentence, recordedAt: Self.now())
      if let knee = c.knee, let v = Double(knee) { try insertValue(id, name: "capacity.knee", value: v) }
      for point in c.points {
        try insertValue(id, name: "\(c.key)=\(point.value).attainment", value: point.attainment.value)
        for (name, l) in point.latencies.sorted(by: { $0.key < $1.key }) {
          if let p99 = l.p99Ms { try insertValue(id, name: "\(c.key)=\(point.value).\(name).p99", value: p99) }
        }
      }
      return id
    }
  }

  /// Copies every entry of the history at `path` that this one lacks (the same kind, profile,
  /// seeds, build, verdict, trace hash, events and time), with its metrics, seeds and invariants,
  /// in one transaction. Returns how many were copied. A merge uses it to gather its shards'
  /// histories.
  @discardableResult
  public func importEntries(from path: String) throws -> Int {
    try db.run("ATTACH DATABASE ? AS other", [.text(path)])
    defer { try? db.execute("DETACH DATABASE other") }
    // A history written before builds were recorded has no build IDs: its entries have none.
    let build = try db.columns(of: "entries", in: "other").contains("build_id") ? "o.build_id" : "NULL"
    let same = """
      e.kind = o.kind AND e.recorded_at = o.recorded_at AND e.profile_sha256 = o.profile_sha256
      AND e.variant = o.variant AND e.seed IS o.seed AND e.seeds_from IS o.seeds_from AND e.seeds_to IS o.seeds_to
      AND e.tool_version = o.tool_version AND e.git_commit IS o.git_commit AND e.build_id IS \(build)
      AND e.verdict = o.verdict AND e.trace_hash IS o.trace_hash AND e.events = o.events
      """
    return try db.writeTransaction {
      let missing = try db.rows(
        "SELECT o.id FROM other.entries o WHERE NOT EXISTS (SELECT 1 FROM main.entries e WHERE \(same)) ORDER BY o.id",
        [], { $0.int(0) })
      let columns = """
        kind, recorded_at, profile_name, profile_sha256, variant, seed, seeds_from, seeds_to, tool_version,
        git_commit, verdict, trace_hash, events, simulated_seconds, wall_seconds, report_path, detail
        """
      for old in missing {
        try db.run(
          "INSERT INTO main.entries(\(columns), build_id) SELECT \(columns), \(build) FROM other.entries o WHERE id = ?",
          [.int(old)])
        let new = db.lastInsertRowID
        try db.run(
          """
          INSERT INTO main.metrics(entry_id, name, kind, value, count, mean_ms, p50_ms, p90_ms, p99_ms, p999_ms,
            max_ms, summary)
          SELECT ?, name, kind, value, count, mean_ms, p50_ms, p90_ms, p99_ms, p999_ms, max_ms, summary
          FROM other.metrics WHERE entry_id = ?
          """, [.int(new), .int(old)])
        try db.run(
          "INSERT INTO main.seeds(entry_id, seed, verdict, trace_hash, means) "
            + "SELECT ?, seed, verdict, trace_hash, means FROM other.seeds WHERE entry_id = ?", [.int(new), .int(old)])
        try db.run(
          "INSERT INTO main.invariants(entry_id, id, violations) "
            + "SELECT ?, id, violations FROM other.invariants WHERE entry_id = ?", [.int(new), .int(old)])
      }
      return missing.count
    }
  }

  static func now() -> String {
    let f = ISO8601DateFormatter()
    f.formatOptions = [.withInternetDateTime]
    return f.string(from: Date())
  }

  /// Seeds are unsigned 64-bit; SQLite integers are signed: stored by bit pattern.
  static func seedValue(_ s: UInt64) -> SQLValue { .int(Int64(bitPattern: s)) }

  func insertEntry(
    kind: String, profile: RunReport.ProfileInfo, variant: String, seed: UInt64?, seeds: (UInt64, UInt64)?,
    tool: String, commit: String?, build: String?, verdict: String, traceHash: String?, events: Int64,
    simulated: Double,
    wall: Double, reportPath: String?, detail: String?, recordedAt: String
  ) throws -> Int64 {
    func opt(_ s: String?) -> SQLValue { s.map(SQLValue.text) ?? .null }
    try db.run(
      """
      INSERT INTO entries(kind, recorded_at, profile_name, profile_sha256, variant, seed, seeds_from, seeds_to,
        tool_version, git_commit, build_id, verdict, trace_hash, events, simulated_seconds, wall_seconds, report_path,
        detail)
      VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)
      """,
      [
        .text(kind), .text(recordedAt), .text(profile.name), .text(profile.sha256), .text(variant),
        seed.map(Self.seedValue) ?? .null, seeds.map { Self.seedValue($0.0) } ?? .null,
        seeds.map { Self.seedValue($0.1) } ?? .null, .text(tool), opt(commit), opt(build), .text(verdict),
        opt(traceHash),
        .int(events), .double(simulated), .double(wall), opt(reportPath), opt(detail),
      ])
    return db.lastInsertRowID
  }

  func insertMetrics(_ id: Int64, _ m: MeasuredMetrics) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    for (name, l) in m.latencies.sorted(by: { $0.key < $1.key }) {
      let summary = String(decoding: try encoder.encode(l), as: UTF8.self)
      func d(_ v: Double?) -> SQLValue { v.map(SQLValue.double) ?? .null }
      try db.run(
        "INSERT INTO metrics(entry_id, name, kind, count, mean_ms, p50_ms, p90_ms, p99_ms, p999_ms, max_ms, summary) "
          + "VALUES(?,?,'latency',?,?,?,?,?,?,?,?)",
        [
          .int(id), .text(name), .int(Int64(l.count)), d(l.meanMs), d(l.p50Ms), d(l.p90Ms), d(l.p99Ms), d(l.p999Ms),
          d(l.maxMs), .text(summary),
        ])
    }
    for (name, v) in m.counters.sorted(by: { $0.key < $1.key }) {
      try db.run(
        "INSERT INTO metrics(entry_id, name, kind, value, count) VALUES(?,?,'counter',?,?)",
        [.int(id), .text(name), .double(Double(v)), .int(Int64(bitPattern: v))])
    }
    for (invariant, n) in m.violations.sorted(by: { $0.key < $1.key }) {
      try db.run(
        "INSERT INTO invariants(entry_id, id, violations) VALUES(?,?,?)", [.int(id), .text(invariant), .int(Int64(n))])
    }
  }

  func insertValue(_ id: Int64, name: String, value: Double) throws {
    try db.run(
      "INSERT OR REPLACE INTO metrics(entry_id, name, kind, value) VALUES(?,?,'value',?)",
      [.int(id), .text(name), .double(value)])
  }

  func insertSeed(_ id: Int64, seed: UInt64, verdict: String, traceHash: String, means: [String: Double]) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    try db.run(
      "INSERT INTO seeds(entry_id, seed, verdict, trace_hash, means) VALUES(?,?,?,?,?)",
      [
        .int(id), Self.seedValue(seed), .text(verdict), .text(traceHash),
        .text(String(decoding: try encoder.encode(means), as: UTF8.self)),
      ])
  }

  // MARK: - Reading

  static let entryColumns = """
    id, kind, recorded_at, profile_name, profile_sha256, variant, seed, seeds_from, seeds_to, tool_version, git_commit,
    verdict, trace_hash, events, simulated_seconds, wall_seconds, report_path, detail, build_id
    """

  static func entry(_ s: SQLiteStatement) -> HistoryEntry {
    func seed(_ c: Int32) -> UInt64? { s.isNull(c) ? nil : UInt64(bitPattern: s.int(c)) }
    return HistoryEntry(
      id: s.int(0), kind: s.text(1), recordedAt: s.text(2), profileName: s.text(3), profileSha256: s.text(4),
      variant: s.text(5), seed: seed(6), seedsFrom: seed(7), seedsTo: seed(8), toolVersion: s.text(9),
      gitCommit: s.optionalText(10), verdict: s.text(11), traceHash: s.optionalText(12), events: s.int(13),
      simulatedSeconds: s.double(14), wallSeconds: s.double(15), reportPath: s.optionalText(16),
      detail: s.optionalText(17), buildID: s.optionalText(18))
  }

  /// Entries, oldest first, optionally of one profile and one kind; the last `limit` of them.
  public func entries(profile: String? = nil, kind: String? = nil, limit: Int = 1_000_000) throws -> [HistoryEntry] {
    var conditions: [String] = []
    var values: [SQLValue] = []
    if let profile {
      conditions.append("profile_name = ?")
      values.append(.text(profile))
    }
    if let kind {
      conditions.append("kind = ?")
      values.append(.text(kind))
    }
    let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
    let newest = try db.rows(
      "SELECT \(Self.entryColumns) FROM entries \(filter) ORDER BY id DESC LIMIT ?", values + [.int(Int64(limit))],
      Self.entry)
    return newest.reversed()
  }

  /// The entry with `id`, if any.
  public func entry(id: Int64) throws -> HistoryEntry? {
    try db.rows("SELECT \(Self.entryColumns) FROM entries WHERE id = ?", [.int(id)], Self.entry).first
  }

  /// What entry `id` measured.
  public func measured(id: Int64) throws -> MeasuredMetrics {
    let decoder = JSONDecoder()
    var latencies: [String: LatencySummary] = [:]
    var counters: [String: UInt64] = [:]
    for (name, kind, count, summary) in try db.rows(
      "SELECT name, kind, count, summary FROM metrics WHERE entry_id = ? AND kind != 'value'", [.int(id)],
      { ($0.text(0), $0.text(1), $0.int(2), $0.optionalText(3)) })
    {
      if kind == "counter" {
        counters[name] = UInt64(bitPattern: count)
      } else if let summary, let l = try? decoder.decode(LatencySummary.self, from: Data(summary.utf8)) {
        latencies[name] = l
      }
    }
    var violations: [String: Int] = [:]
    for (invariant, n) in try db.rows(
      "SELECT id, violations FROM invariants WHERE entry_id = ?", [.int(id)], { ($0.text(0), Int($0.int(1))) })
    {
      violations[invariant] = n
    }
    let simulated = try db.rows("SELECT simulated_seconds FROM entries WHERE id = ?", [.int(id)], { $0.double(0) })
    return MeasuredMetrics(
      latencies: latencies, counters: counters, simulatedSeconds: simulated.first ?? 0, violations: violations)
  }

  /// Plain values (a capacity study's) recorded with entry `id`.
  public func values(id: Int64) throws -> [String: Double] {
    var out: [String: Double] = [:]
    for (name, v) in try db.rows(
      "SELECT name, value FROM metrics WHERE entry_id = ? AND kind = 'value'", [.int(id)],
      { ($0.text(0), $0.double(1)) })
    {
      out[name] = v
    }
    return out
  }

  /// Entry `id` as one side of a comparison.
  public func side(id: Int64) throws -> ComparedSide? {
    guard let e = try entry(id: id), e.kind != "capacity" else { return nil }
    let decoder = JSONDecoder()
    let seeds = try db.rows(
      "SELECT seed, verdict, trace_hash, means FROM seeds WHERE entry_id = ? ORDER BY seed", [.int(id)]
    ) { s in
      ComparedSide.SeedOutcome(
        seed: UInt64(bitPattern: s.int(0)), verdict: s.text(1), traceHash: s.text(2),
        latencyMeansMs: (try? decoder.decode([String: Double].self, from: Data(s.text(3).utf8))) ?? [:])
    }
    return ComparedSide(
      label: "history #\(id)", kind: e.kind == "shard" ? "sweep" : e.kind, profileName: e.profileName,
      profileSha256: e.profileSha256,
      toolVersion: e.toolVersion, verdict: e.verdict, measured: try measured(id: id), events: e.events,
      seeds: seeds.sorted { $0.seed < $1.seed }, repro: nil)
  }
}
