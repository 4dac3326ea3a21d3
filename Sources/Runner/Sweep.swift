import Clients
import Dispatch
import Foundation
import Profiles
import Reports
import Scenario
import SimKernel

/// Runs many seeds of one profile, in parallel across seeds only: each seed is one
/// single-threaded, deterministic run, so a seed's result never depends on `jobs`.
public struct Sweep: Sendable {
  /// The validated profile.
  public let profile: Profile
  /// The profile file's path, as given (used in repro lines).
  public let profilePath: String
  /// The profile file's bytes (hashed into every report).
  public let profileData: Data
  /// The whole seed range.
  public let seeds: SweepSummary.SeedSpan
  /// The shard to run, if any.
  public let shard: Sharding.Shard?
  /// Parallel runs.
  public let jobs: Int
  /// Client mistakes selected on the command line (in every seed's repro line).
  public var mistakes: Set<ClientMistake> = []
  /// SDK quirks selected on the command line (in every seed's repro line).
  public var quirks: Set<SDKQuirk> = []
  /// The registered app run instead of the built-in clients, if any.
  public var app: ClientApp?
  /// The program repro lines name.
  public var program = "stampede"
  /// The `--set` overrides the profile was loaded with (in every seed's repro line).
  public var overrides: [String] = []
  /// Steered chaos (`--explore`): seeds run in rounds of ``Explore/round``, and each seed after
  /// the first round steers toward the outcomes the rounds before it reached least (see
  /// ``Explore``), through an `explore` override in its repro line.
  public var explore = false
  /// The steering each seed ran with, by seed (filled by ``execute(finished:lost:shouldStop:)``,
  /// read by ``recheck(_:share:plant:)``).
  let steered = Locked<[UInt64: Explore.Steering]>([:])
  /// Runs a seed elsewhere than in this process (a worker process, which follows crashes of app
  /// code; see ``SeedJob``), from up to ``jobs`` threads at once; `nil`: each seed runs here.
  public var runner: (@Sendable (SeedJob) -> SeedOutcome)?
  /// The crashes of app code each seed's run carried out, by seed (from ``runner``), for a
  /// recheck to run the seed alike.
  let crashes = Locked<[UInt64: [AppCrash]]>([:])

  /// Prepares a sweep.
  public init(
    profile: Profile, profilePath: String, profileData: Data, seeds: SweepSummary.SeedSpan, shard: Sharding.Shard?,
    jobs: Int
  ) {
    precondition(jobs >= 1, "at least one job")
    self.profile = profile
    self.profilePath = profilePath
    self.profileData = profileData
    self.seeds = seeds
    self.shard = shard
    self.jobs = jobs
  }

  /// The seeds this sweep runs: the range, or the shard's slice of it (possibly empty).
  public var span: SweepSummary.SeedSpan? {
    guard let shard else { return seeds }
    return Sharding.slice(seeds, index: shard.index, count: shard.count)
  }

  /// Runs every seed of ``span``. `finished` is called (serialised, in completion order) with each
  /// seed's report, `lost` with the row of a seed that gave none (its worker process ended
  /// without one; see ``runner``); `shouldStop` is polled between seeds.
  public func execute(
    finished: @escaping @Sendable (RunReport) -> Void,
    lost: @escaping @Sendable (SweepSummary.SeedRow) -> Void = { _ in },
    shouldStop: @escaping @Sendable () -> Bool = { false }
  ) -> SweepSummary {
    let started = DispatchTime.now().uptimeNanoseconds
    let collector = Collector()
    if let span {
      let total = Int(span.count)
      let profile = self.profile
      let path = profilePath
      let data = profileData
      let mistakes = self.mistakes
      let quirks = self.quirks
      let app = self.app
      let program = self.program
      let overrides = self.overrides
      /// Runs the seeds at indices `range`, each steered as `steering(i)` says.
      func runSeeds(_ range: Range<Int>, steering: @escaping @Sendable (Int) -> Explore.Steering?) {
        let work = WorkList(total: range.count)
        DispatchQueue.concurrentPerform(iterations: min(jobs, range.count)) { _ in
          while !shouldStop(), let k = work.next() {
            let i = range.lowerBound + k
            let seed = span.from + UInt64(i)
            var seedProfile = profile
            var seedOverrides = overrides
            if let steer = steering(i) {
              steer.apply(to: &seedProfile, overrides: &seedOverrides)
              steered.update { $0[seed] = steer }
            }
            var run = SimulationRun(
              profile: seedProfile, profilePath: path, profileData: data, seed: seed, quirks: quirks,
              mistakes: mistakes, overrides: seedOverrides)
            run.program = program
            run.app = app
            if let runner {
              let job = SeedJob(
                seed: seed, overrides: seedOverrides, mistakes: mistakes.map(\.rawValue).sorted(),
                quirks: quirks.map(\.rawValue).sorted(), app: app?.name, crashes: [])
              switch runner(job) {
              case .report(let report, let followed):
                if !followed.isEmpty { crashes.update { $0[seed] = followed } }
                collector.add(SweepSummary.SeedResult(report)) { finished(report) }
              case .lost(let reason):
                let result = SweepSummary.SeedResult(lost: seed, reason: reason, repro: run.repro)
                collector.add(result) { lost(result.row) }
              }
              continue
            }
            let result = run.execute()
            let report = run.report(result, startedAt: Date())
            collector.add(SweepSummary.SeedResult(report)) { finished(report) }
          }
        }
      }
      if explore {
        // Round by round: what the finished rounds reached decides the next round's steering, so
        // the steering (and every seed's result) is the same for any number of jobs.
        var start = 0
        let ordering = Explore.drawsOrdering(profile)
        while start < total && !shouldStop() {
          let end = min(total, start + Explore.round)
          let frontier = Explore.frontier(collector.coverage())
          let first = start
          // (The first round has no frontier yet: the steered rounds count from the second.)
          let turn = max(0, start / Explore.round - 1)
          runSeeds(start..<end) { i in
            Explore.steering(frontier, seat: i - first, turn: turn, drawsOrdering: ordering)
          }
          start = end
        }
      } else {
        runSeeds(0..<total) { _ in nil }
      }
    }
    let wall = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
    let sha = SHA256.profile(profileData, sets: overrides)
    return SweepSummary.build(
      tool: RunReport.Tool(
        name: "stampede", version: StampedeVersion.current, program: program, build: BuildIdentity.current),
      profile: RunReport.ProfileInfo(
        name: profile.name, path: profilePath, sha256: sha, overrides: overrides.isEmpty ? nil : overrides),
      seeds: seeds,
      shard: shard.map { SweepSummary.ShardInfo(index: $0.index, count: $0.count, seeds: span) },
      results: collector.results, meta: SweepSummary.Meta(wallSeconds: (wall * 1000).rounded() / 1000, jobs: jobs))
  }
}

/// Hands out indices 0..<total to workers.
final class WorkList: @unchecked Sendable {
  let lock = NSLock()
  var nextIndex = 0
  let total: Int

  init(total: Int) { self.total = total }

  func next() -> Int? {
    lock.lock()
    defer { lock.unlock() }
    guard nextIndex < total else { return nil }
    nextIndex += 1
    return nextIndex - 1
  }
}

/// A value that one thread sets and others read (a run's stop flag, a shard's progress, the
/// threads' peak bytes, results by index, an explore sweep's steering by seed), under a lock.
final class Locked<Value>: @unchecked Sendable {
  private let lock = NSLock()
  private var value: Value
  init(_ value: Value) { self.value = value }
  /// The value now.
  var current: Value { lock.withLock { value } }
  /// Replaces the value.
  func set(_ newValue: Value) { lock.withLock { value = newValue } }
  /// Changes the value in place.
  func update(_ change: (inout Value) -> Void) { lock.withLock { change(&value) } }
}

/// Gathers seed results from workers.
final class Collector: @unchecked Sendable {
  let lock = NSLock()
  var results: [SweepSummary.SeedResult] = []

  func add(_ r: SweepSummary.SeedResult, then: () -> Void) {
    lock.lock()
    defer { lock.unlock() }
    results.append(r)
    then()
  }

  /// The outcome coverage of the results so far, merged (the same in any order of arrival).
  func coverage() -> CoverageReport? {
    lock.lock()
    defer { lock.unlock() }
    var merged: CoverageReport?
    for r in results.sorted(by: { $0.row.seed < $1.row.seed }) {
      guard let c = r.coverage else { continue }
      if merged == nil { merged = c } else { merged!.merge(c) }
    }
    return merged
  }
}

extension Sweep {
  /// What a determinism recheck found.
  public struct Recheck: Sendable {
    /// The seeds run a second time.
    public var seeds: [UInt64]
    /// The first seed whose second run differed, with where it diverged.
    public var divergence: (seed: UInt64, hashes: (first: String, second: String), detail: Divergence?)?
  }

  /// The seeds a recheck of `share` percent (0 to 100] of `rows` runs again: every k-th seed of
  /// the sweep in seed order (k = 100 / share, rounded), the first always among them; a seed that
  /// gave no report (see ``SweepSummary/SeedResult/init(lost:reason:repro:)``) has no hash to
  /// compare and is left out.
  public static func recheckSeeds(_ rows: [SweepSummary.SeedRow], share: Double) -> [UInt64] {
    let rows = rows.filter { $0.traceHash != SweepSummary.SeedResult.lostHash }
    guard share > 0, !rows.isEmpty else { return [] }
    let step = max(1, Int((100 / min(share, 100)).rounded()))
    let sorted = rows.map(\.seed).sorted()
    return stride(from: 0, to: sorted.count, by: step).map { sorted[$0] }
  }

  /// Runs a share of the sweep's seeds a second time, in this process, and compares each trace
  /// hash with the sweep's (as FoundationDB re-runs a share of its simulations). On the first
  /// mismatch the seed runs twice more, recording every event, to name the first divergent one.
  /// `plant` makes the second runs nondeterministic on purpose (to test the check).
  public func recheck(_ summary: SweepSummary, share: Double, plant: Bool = false) -> Recheck {
    let seeds = Sweep.recheckSeeds(summary.runs, share: share)
    let hashes = Dictionary(summary.runs.map { ($0.seed, $0.traceHash) }, uniquingKeysWith: { a, _ in a })
    for seed in seeds {
      var seedProfile = profile
      var seedOverrides = overrides
      steered.current[seed]?.apply(to: &seedProfile, overrides: &seedOverrides)
      var run = SimulationRun(
        profile: seedProfile, profilePath: profilePath, profileData: profileData, seed: seed, quirks: quirks,
        mistakes: mistakes, overrides: seedOverrides)
      run.program = program
      run.app = app
      run.appCrashes = crashes.current[seed] ?? []
      let again = run.execute(plantNondeterminism: plant).traceHash.description
      if again != hashes[seed] {
        let detail = DeterminismCheck.check(run, plant: plant).divergence
        return Recheck(seeds: seeds, divergence: (seed, (hashes[seed] ?? "?", again), detail))
      }
    }
    return Recheck(seeds: seeds, divergence: nil)
  }
}

/// One seed of a sweep, as a worker process runs it: the profile's overrides (the sweep's, and a
/// steered seed's own), the mistakes, quirks and app, and the crashes of app code to carry out.
public struct SeedJob: Sendable, Codable, Equatable {
  /// The seed.
  public var seed: UInt64
  /// The `--set` overrides to load the profile with.
  public var overrides: [String]
  /// Client mistakes, by name.
  public var mistakes: [String]
  /// SDK quirks, by name.
  public var quirks: [String]
  /// The registered app, by name (`nil`: the built-in clients).
  public var app: String?
  /// Crashes found by earlier runs of the seed (see ``AppCrash``).
  public var crashes: [AppCrash]
  /// The profile document to run instead of the worker's own profile, as JSON5 (`shrink`'s
  /// candidates); `nil`: the worker's profile with ``overrides``.
  public var profile: String?

  /// A job.
  public init(
    seed: UInt64, overrides: [String], mistakes: [String], quirks: [String], app: String?, crashes: [AppCrash],
    profile: String? = nil
  ) {
    self.seed = seed
    self.overrides = overrides
    self.mistakes = mistakes
    self.quirks = quirks
    self.app = app
    self.crashes = crashes
    self.profile = profile
  }
}

/// What running a ``SeedJob`` elsewhere gave.
public enum SeedOutcome: Sendable {
  /// The seed's report, and the crashes of app code its run carried out.
  case report(RunReport, crashes: [AppCrash])
  /// No report: why (the worker process ended without one).
  case lost(String)
}
