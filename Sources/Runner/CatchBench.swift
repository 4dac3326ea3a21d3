import Clients
import Foundation
import Profiles
import Reports
import Scenario
import SimKernel

/// `bench catch`: how soon and how often Stampede catches known mistakes, the figure steered chaos
/// is meant to raise. Each subject (an app suite with a planted mistake, or a mistake of the
/// built-in clients' catalogue) runs over the same seeds twice, as a plain sweep and as
/// `sweep --explore`; a seed catches it when an invariant is violated (a failed threshold does not
/// count: steering stalls calls by design).
public enum CatchBench {
  /// What is run.
  public struct Subject: Sendable {
    /// The name shown (`app minus-one-refused`, `mistake audience.double-apply`).
    public var name: String
    /// The app suite, for an app subject.
    public var app: ClientApp?
    /// The catalogue mistake, for a built-in subject.
    public var mistake: ClientMistake?
    /// The profile it runs.
    public var profile: Profile
    /// The profile's path and bytes (for repro lines).
    public var profilePath: String
    public var profileData: Data

    /// A subject.
    public init(
      name: String, app: ClientApp? = nil, mistake: ClientMistake? = nil, profile: Profile, profilePath: String,
      profileData: Data
    ) {
      self.name = name
      self.app = app
      self.mistake = mistake
      self.profile = profile
      self.profilePath = profilePath
      self.profileData = profileData
    }
  }

  /// How one mode did on one subject.
  public struct Side: Codable, Sendable, Equatable {
    /// The first seed that caught it (nil: none did).
    public var firstSeed: UInt64?
    /// The seeds that caught it, of those run.
    public var caught: Int
    /// Seeds run.
    public var seeds: Int
    /// The invariants that caught it, over all seeds.
    public var caughtBy: [String]
  }

  /// One row of the table.
  public struct Row: Codable, Sendable, Equatable {
    /// The subject's name.
    public var subject: String
    /// As a plain sweep.
    public var plain: Side
    /// With `--explore`.
    public var explore: Side
  }

  /// Runs `subject` over `seeds`, plainly and steered, `jobs` seeds at a time, each seed through
  /// `runner` if given (see ``Sweep/runner``).
  public static func measure(
    _ subject: Subject, seeds: SweepSummary.SeedSpan, jobs: Int,
    runner: (@Sendable (SeedJob) -> SeedOutcome)? = nil
  ) -> Row {
    func side(explore: Bool) -> Side {
      var sweep = Sweep(
        profile: subject.profile, profilePath: subject.profilePath, profileData: subject.profileData, seeds: seeds,
        shard: nil, jobs: jobs)
      sweep.app = subject.app
      sweep.runner = runner
      if let m = subject.mistake { sweep.mistakes = [m] }
      sweep.explore = explore
      let summary = sweep.execute(finished: { _ in })
      let caught = summary.runs.filter { $0.exitStatus == 1 }.map(\.seed)
      return Side(
        firstSeed: caught.min(), caught: caught.count, seeds: summary.runs.count,
        caughtBy: summary.invariants.filter { $0.violations > 0 }.map(\.id).sorted())
    }
    return Row(subject: subject.name, plain: side(explore: false), explore: side(explore: true))
  }

  /// The table as text.
  public static func table(_ rows: [Row]) -> String {
    func cell(_ s: Side) -> String {
      let first = s.firstSeed.map { "seed \($0)" } ?? "never"
      return "\(first.padding(toLength: 10, withPad: " ", startingAt: 0)) \(s.caught)/\(s.seeds)"
    }
    let width = max(7, rows.map(\.subject.count).max() ?? 0)
    var out =
      "subject".padding(toLength: width, withPad: " ", startingAt: 0)
      + "  plain: first   share   explore: first  share\n"
    for r in rows {
      out +=
        r.subject.padding(toLength: width, withPad: " ", startingAt: 0) + "  "
        + cell(r.plain).padding(toLength: 18, withPad: " ", startingAt: 0) + "  " + cell(r.explore) + "\n"
    }
    let plain = rows.reduce(0) { $0 + $1.plain.caught }
    let steered = rows.reduce(0) { $0 + $1.explore.caught }
    let total = rows.reduce(0) { $0 + $1.plain.seeds }
    let plainFound = rows.filter { $0.plain.firstSeed != nil }.count
    let steeredFound = rows.filter { $0.explore.firstSeed != nil }.count
    out += "caught: plain \(plainFound)/\(rows.count) subjects on \(plain)/\(total) seeds; "
    out += "explore \(steeredFound)/\(rows.count) subjects on \(steered)/\(total) seeds\n"
    return out
  }
}
