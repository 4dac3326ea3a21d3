import Clients
import Dispatch
import Foundation
import Oracles
import Profiles
import Reports
import Scenario

/// What one catalogued mistake did on a profile: the invariants that caught it on the first seed
/// that failed, or nothing if none did.
public struct MistakeCheck: Codable, Sendable, Equatable {
  /// The mistake's ID.
  public var id: String
  /// What the variant does wrong.
  public var summary: String
  /// Invariants violated on the first failing seed, in catalogue order (empty: not caught).
  public var caughtBy: [String]
  /// The first seed on which an invariant caught it.
  public var firstFailingSeed: UInt64?
  /// Seeds run until then (or in all, if none failed).
  public var seedsTried: Int
  /// Events simulated over those seeds.
  public var events: Int64
  /// The command that reproduces the first failing seed.
  public var repro: String?

  /// Whether an invariant caught it.
  public var caught: Bool { firstFailingSeed != nil }
}

/// Runs the client-mistake catalogue against the oracles: each mistake, seed after seed, until an
/// invariant catches it. A mistake no invariant catches is a gap in the oracles.
public enum MistakeCatalogue {
  /// Runs `mistake` on `profile` for the seeds of `seeds` in order, stopping at the first seed on
  /// which an invariant is violated.
  ///
  /// `caughtLog`, if given, gets the violation log of the run that caught the mistake.
  public static func check(
    _ mistake: ClientMistake, profile: Profile, profilePath: String, profileData: Data, seeds: SweepSummary.SeedSpan,
    caughtLog: ((ViolationLog) -> Void)? = nil
  ) -> MistakeCheck {
    var check = MistakeCheck(
      id: mistake.rawValue, summary: mistake.summary, caughtBy: [], firstFailingSeed: nil, seedsTried: 0, events: 0,
      repro: nil)
    var seed = seeds.from
    while true {
      let run = SimulationRun(
        profile: profile, profilePath: profilePath, profileData: profileData, seed: seed, mistakes: [mistake])
      let result = run.execute()
      check.seedsTried += 1
      check.events += result.events
      let log = result.world.checker.log
      let caught = log.catalogue.indices.filter { log.counts[$0] > 0 }.map { log.catalogue[$0].id }
      if !caught.isEmpty {
        check.caughtBy = caught
        check.firstFailingSeed = seed
        check.repro = run.repro
        caughtLog?(log)
        return check
      }
      if seed == seeds.to { return check }
      seed += 1
    }
  }

  /// Checks every mistake in `mistakes` (in catalogue order), `jobs` at a time.
  public static func checkAll(
    _ mistakes: [ClientMistake], profile: Profile, profilePath: String, profileData: Data,
    seeds: SweepSummary.SeedSpan, jobs: Int
  ) -> [MistakeCheck] {
    let results = Locked([MistakeCheck?](repeating: nil, count: mistakes.count))
    let next = WorkList(total: mistakes.count)
    DispatchQueue.concurrentPerform(iterations: max(1, min(jobs, mistakes.count))) { _ in
      while let i = next.next() {
        let c = check(mistakes[i], profile: profile, profilePath: profilePath, profileData: profileData, seeds: seeds)
        results.update { $0[i] = c }
      }
    }
    return results.current.map { $0! }
  }
}
