import Foundation

/// A seed whose recorded outcomes disagree.
public struct FlakySeed: Sendable, Equatable {
  /// Whether it is a behaviour change or a determinism bug.
  public enum Cause: String, Sendable, CaseIterable {
    /// Different tool versions or commits gave different results: the model changed.
    case behaviourChange = "behaviour change"
    /// The same version and commit gave different results: determinism is broken.
    case determinismBug = "determinism bug"
    /// Outcomes of one version disagree, but at least one was recorded without its commit, so
    /// whether the build changed is not known.
    case unknownBuild = "disagreement, build not recorded"
  }
  /// The profile's name.
  public var profileName: String
  /// The resolved profile's SHA-256.
  public var profileSha256: String
  /// Mistakes, quirks, app and duration, as recorded.
  public var variant: String
  /// The seed.
  public var seed: UInt64
  /// What the disagreement means.
  public var cause: Cause
  /// The outcomes, oldest first: entry ID, tool version, commit, verdict, trace hash.
  public var outcomes: [Outcome]

  /// One recorded outcome.
  public struct Outcome: Sendable, Equatable {
    /// The entry it belongs to.
    public var entry: Int64
    /// Tool version.
    public var toolVersion: String
    /// Git commit, when known.
    public var gitCommit: String?
    /// Verdict.
    public var verdict: String
    /// Trace hash.
    public var traceHash: String
    /// The executable's build ID, when recorded.
    public var buildID: String? = nil
  }
}

extension HistoryStore {
  /// Seeds recorded more than once (same resolved profile, same variant) whose verdicts or trace
  /// hashes disagree. Under one tool version and commit that is a determinism bug; across
  /// versions or commits, a behaviour change.
  public func flakySeeds(profile: String? = nil) throws -> [FlakySeed] {
    let filter = profile == nil ? "" : "AND e.profile_name = ?"
    let rows = try db.rows(
      """
      SELECT e.profile_name, e.profile_sha256, e.variant, s.seed, e.id, e.tool_version, e.git_commit, s.verdict,
        s.trace_hash, e.build_id
      FROM seeds s JOIN entries e ON e.id = s.entry_id
      WHERE (e.profile_sha256, e.variant, s.seed) IN (
        SELECT e2.profile_sha256, e2.variant, s2.seed FROM seeds s2 JOIN entries e2 ON e2.id = s2.entry_id
        GROUP BY e2.profile_sha256, e2.variant, s2.seed
        HAVING COUNT(DISTINCT s2.trace_hash) > 1 OR COUNT(DISTINCT s2.verdict) > 1)
      \(filter)
      ORDER BY e.profile_name, e.profile_sha256, e.variant, s.seed, e.id
      """, profile.map { [SQLValue.text($0)] } ?? []
    ) { s in
      (
        name: s.text(0), sha: s.text(1), variant: s.text(2), seed: UInt64(bitPattern: s.int(3)),
        outcome: FlakySeed.Outcome(
          entry: s.int(4), toolVersion: s.text(5), gitCommit: s.optionalText(6), verdict: s.text(7),
          traceHash: s.text(8), buildID: s.optionalText(9))
      )
    }
    var out: [FlakySeed] = []
    for row in rows {
      if let last = out.last, last.profileSha256 == row.sha, last.variant == row.variant, last.seed == row.seed {
        out[out.count - 1].outcomes.append(row.outcome)
      } else {
        out.append(
          FlakySeed(
            profileName: row.name, profileSha256: row.sha, variant: row.variant, seed: row.seed,
            cause: .behaviourChange, outcomes: [row.outcome]))
      }
    }
    // A determinism bug: two outcomes of one known build that disagree. A build is known by the
    // executable's build ID where it was recorded (it changes with any code linked in, an app's
    // uncommitted edits too), else by version and commit; outcomes recorded with neither may come
    // from any build of their version.
    func disagree(_ list: [FlakySeed.Outcome]) -> Bool {
      Set(list.map(\.traceHash)).count > 1 || Set(list.map(\.verdict)).count > 1
    }
    func build(_ o: FlakySeed.Outcome) -> String? {
      if let id = o.buildID { return "build " + id }
      return o.gitCommit.map { "\(o.toolVersion)|\($0)" }
    }
    for i in out.indices {
      let builds = Dictionary(grouping: out[i].outcomes.filter { build($0) != nil }) { build($0)! }
      if builds.values.contains(where: disagree) {
        out[i].cause = .determinismBug
        continue
      }
      let byVersion = Dictionary(grouping: out[i].outcomes, by: \.toolVersion)
      if byVersion.values.contains(where: { list in list.contains { build($0) == nil } && disagree(list) }) {
        out[i].cause = .unknownBuild
      }
    }
    return out
  }
}
