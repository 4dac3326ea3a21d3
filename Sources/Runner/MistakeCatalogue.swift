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
    final class Results: @unchecked Sendable {
      let lock = NSLock()
      var items: [MistakeCheck?]
      init(_ n: Int) { items = [MistakeCheck?](repeating: nil, count: n) }
      func set(_ i: Int, _ c: MistakeCheck) { lock.withLock { items[i] = c } }
    }
    let results = Results(mistakes.count)
    let next = Counter()
    DispatchQueue.concurrentPerform(iterations: max(1, min(jobs, mistakes.count))) { _ in
      while let i = next.take(below: mistakes.count) {
        results.set(
          i,
          check(mistakes[i], profile: profile, profilePath: profilePath, profileData: profileData, seeds: seeds))
      }
    }
    return results.items.map { $0! }
  }

  final class Counter: @unchecked Sendable {
    let lock = NSLock()
    var value = 0
    func take(below n: Int) -> Int? {
      lock.withLock {
        guard value < n else { return nil }
        value += 1
        return value - 1
      }
    }
  }
}
