import Chaos
import Clients
import Foundation
import Metrics
import Reports
import Testing

@testable import LiveStack
@testable import Oracles
@testable import Profiles
@testable import Runner
@testable import Scenario
@testable import SimKernel

/// `run --threads N`: room shards fixed by the profile, one trace hash for every N, and results
/// equal to those of one world over every room (docs/DESIGN.md, "One run on every core").
@Suite struct RoomShardTests {
  /// A chaos evening without calls: faults of the network, the server, seats, logins and devices,
  /// windows on rooms and users by number, co-hosting pairs, viewers leaving the app.
  static let chaos = """
    {
      name: "shard-chaos", duration: "40m",
      population: { rooms: 10, audiencePerRoom: "lognormal(450, 0.5)", adminsPerRoom: 1 },
      arrival: { pattern: "poisson", over: "2m" },
      seats: { maxSeatCount: 8, packageLimit: 6, applyTimeout: "20s", lockLimit: "5m" },
      audience: {
        stay: "lognormal(20m, 0.3)", applyProbability: 0.5, applyAfter: "exponential(2m)", patience: "lognormal(30s, 0.4)",
        seatTime: "lognormal(90s, 0.5)", maxApplies: 4, invitationThink: "lognormal(3s, 0.5)", acceptInvitation: 0.6,
        background: { every: "exponential(5m)", for: "exponential(30s)" },
      },
      host: {
        thinkTime: "lognormal(3s, 0.6)", acceptProbability: 0.8, inviteEvery: "exponential(90s)", kickEvery: "exponential(4m)",
        lockEvery: "exponential(6m)", lockFor: "30s", moveEvery: "exponential(3m)", endLiveAfter: "normal(12m, 1m)",
      },
      network: { clientServer: "lognormal(40ms, 0.4)" },
      workload: { coHosting: { fraction: "60%", after: "uniform(1m, 5m)", duration: "lognormal(3m, 0.4)" } },
      faults: {
        heal: "3m",
        plan: [
          { kind: "network.delay", target: "users[300..1400]", extra: "1500ms" },
          { kind: "network.loss", rate: "1%" },
          { kind: "network.reorder", rate: "3%", extra: "800ms" },
          { kind: "network.partition", target: "rooms[2..5]", at: "4m", for: "90s" },
          { kind: "server.slowdown", service: "seats", at: "3m", for: "2m", extra: "2s" },
          { kind: "server.outage", service: "seats", mode: "vanish", at: "8m", for: "40s" },
          { kind: "seat.response_lost", rate: "5%" }, { kind: "seat.accept_race", rate: "10%" },
          { kind: "seat.limit_hit", rate: "3%" }, { kind: "host.reenter", rate: "30%" },
          { kind: "audience.rejoin", rate: "10%" }, { kind: "network.duplicate", rate: "5%" },
          { kind: "login.kicked_offline", rate: "1%" }, { kind: "device.mic_denied", rate: "2%" },
        ],
      },
    }
    """

  /// Rooms that go quiet at different times (short stays, hosts that only answer): the run ends
  /// when the last room does, and the shards that went quiet first sample and check on till then.
  static let quiet = """
    {
      name: "shard-quiet", duration: "1h",
      population: { rooms: 10, audiencePerRoom: "lognormal(450, 0.5)", adminsPerRoom: 0 },
      arrival: { pattern: "poisson", over: "3m" },
      seats: { maxSeatCount: 8, packageLimit: 6, applyTimeout: "20s" },
      audience: {
        stay: "lognormal(3m, 0.6)", applyProbability: 0.5, applyAfter: "exponential(1m)", seatTime: "lognormal(60s, 0.5)",
      },
      host: { thinkTime: "lognormal(3s, 0.6)", acceptProbability: 0.8 },
      network: { clientServer: "lognormal(40ms, 0.4)" },
    }
    """

  static func run(_ text: String, seed: UInt64, duration: SimDuration? = nil, mistakes: Set<ClientMistake> = [])
    throws -> SimulationRun
  {
    let data = Data(text.utf8)
    return SimulationRun(
      profile: try Profile.parse(data), profilePath: "p", profileData: data, seed: seed, duration: duration,
      mistakes: mistakes)
  }

  /// The report without what a sharded run measures differently by design: its events (each
  /// shard samples on its own beat), trace hash, repro line and wall-clock figures.
  static func results(_ r: RunReport) throws -> String {
    var copy = r
    copy.repro = ""
    return try DownlinkBatchTests.results(copy)
  }

  /// The first violations with their excerpts, which `results` leaves out.
  static func firsts(_ r: RunReport) -> [String] {
    r.invariants.compactMap { i in
      i.first.map { "\(i.id) \($0.atMs) \($0.entities) \($0.message) \($0.excerpt)" }
    }
  }

  @Test func theShardsAreFixedByTheProfileContiguousAndKeepCoHostsTogether() throws {
    let (profile, _) = try repositoryProfile("seat-rush.json5")
    let layout = Layout(profile: profile, streams: RandomStreams(rootSeed: 1))
    let total = layout.totalUsers
    for pairs in [false, true] {
      let plan = RoomShards.plan(layout, pairs: pairs)
      #expect(plan.count == min(RoomShards.most, total / RoomShards.fewestPeople), "\(plan)")
      #expect(plan.first?.lowerBound == 0 && plan.last?.upperBound == layout.rooms)
      for (a, b) in zip(plan, plan.dropFirst()) { #expect(a.upperBound == b.lowerBound && !a.isEmpty) }
      if pairs { #expect(plan.allSatisfy { $0.lowerBound % 2 == 0 }, "\(plan)") }
      // About equal in people: none more than twice the mean.
      let people = plan.map { Int(layout.roomBase[$0.upperBound] - layout.roomBase[$0.lowerBound]) }
      #expect(people.max()! * plan.count <= 2 * total, "\(people)")
    }
    // A large population is cut into the most shards; a small one is one shard.
    var big = profile
    big.population.rooms = 600
    let bigLayout = Layout(profile: big, streams: RandomStreams(rootSeed: 1))
    #expect(RoomShards.plan(bigLayout, pairs: true).count == RoomShards.most)
    let small = Layout(viewers: [10, 20], staffPerRoom: 2, phoneCount: 0)
    #expect(RoomShards.plan(small, pairs: false) == [0..<2])
  }

  /// A shard's profile keeps its rooms' identities, and renumbers fault targets to its own.
  @Test func aShardsProfileKeepsIdentitiesAndRenumbersTargets() throws {
    let profile = try Profile.parse(Data(Self.chaos.utf8))
    let layout = Layout(profile: profile, streams: RandomStreams(rootSeed: 1))
    let shard = RoomShards.profile(profile, rooms: 3..<6, layout: layout)
    let part = Layout(profile: shard, streams: RandomStreams(rootSeed: 1))
    #expect(part.rooms == 3)
    for r in 0..<UInt32(3) {
      #expect(part.roomIdentity(r) == layout.roomIdentity(r + 3))
      #expect(part.audience(of: r).count == layout.audience(of: r + 3).count)
    }
    let first = layout.roomBase[3]
    #expect(part.identity(of: 5) == layout.identity(of: first + 5))
    let targets = shard.faults.entries.map(\.target)
    #expect(targets.contains(.rooms(0...2)))  // rooms 2..5 → this shard's 3, 4, 5
    let users = targets.compactMap { t -> ClosedRange<UInt32>? in if case .users(let r) = t { r } else { nil } }
    let held = max(300, first)...min(1400, layout.roomBase[6] - 1)
    #expect(users == [(held.lowerBound - first)...(held.upperBound - first)])
    // A target none of whose rooms the shard holds targets nobody.
    let later = RoomShards.profile(profile, rooms: 6..<9, layout: layout)
    #expect(later.faults.entries.map(\.target).contains(.rooms(UInt32.max...UInt32.max)))
  }

  @Test(arguments: [1, 2] as [UInt64])
  func everyThreadCountGivesOneHashAndTheOneWorldsResults(seed: UInt64) throws {
    let (profile, data) = try repositoryProfile("seat-rush.json5")
    var run = SimulationRun(profile: profile, profilePath: "p", profileData: data, seed: seed, duration: .minutes(25))
    let whole = run.report(run.execute(), startedAt: Date())
    var hashes: Set<String> = []
    for threads in [1, 2, 4] {
      run.threads = threads
      let result = run.execute()
      #expect(result.shards?.count == run.shardRooms.count && run.shardRooms.count >= 4)
      let sharded = run.report(result, startedAt: Date())
      hashes.insert(sharded.traceHash)
      #expect(sharded.repro.contains(" --threads \(threads)"))
      #expect(try Self.results(sharded) == Self.results(whole), "seed \(seed), \(threads) thread(s)")
    }
    #expect(hashes.count == 1)
    #expect(!hashes.contains(whole.traceHash))
    #expect(whole.counters["seat.applications"]! > 100)
  }

  @Test(arguments: [1, 2] as [UInt64])
  func chaosAndCoHostsMergeExactly(seed: UInt64) throws {
    var run = try Self.run(Self.chaos, seed: seed)
    let whole = run.report(run.execute(), startedAt: Date())
    run.threads = 2
    let result = run.execute()
    #expect((result.shards?.count ?? 0) >= 2)
    let sharded = run.report(result, startedAt: Date())
    #expect(try Self.results(sharded) == Self.results(whole), "seed \(seed)")
    #expect(whole.counters["live.co_host_sessions"]! > 0)
    #expect(whole.faults.contains { $0.kind == "network.partition" && $0.injected > 0 })
    #expect(whole.faults.contains { $0.kind == "network.delay" && $0.injected > 0 })
  }

  @Test(arguments: [1, 2] as [UInt64])
  func shardsThatWentQuietSampleOnAsTheOneWorld(seed: UInt64) throws {
    var run = try Self.run(Self.quiet, seed: seed)
    let one = run.execute()
    #expect(one.stopReason == .quiescent && one.simulated < .zero + .minutes(59))
    let whole = run.report(one, startedAt: Date())
    run.threads = 2
    let result = run.execute()
    // The shards went quiet at different instants (their own kernels stopped apart).
    #expect(Set(result.shards!.map(\.kernelEnded)).count > 1)
    #expect(result.stopReason == .quiescent && result.simulated == one.simulated)
    let sharded = run.report(result, startedAt: Date())
    #expect(try Self.results(sharded) == Self.results(whole), "seed \(seed)")
    #expect(sharded.timeSeries?.timesMs.count == whole.timeSeries?.timesMs.count)
  }

  /// More seeds of every profile the shards can run, each against the one world (`make test-long`).
  @Test(.long, arguments: ["seat-rush.json5", "flash-crowd.json5", "flash-crowd-staffing.json5", "bench-mmcc.json5"])
  func everyShippedProfileThatSplitsMergesExactly(profile name: String) throws {
    let (profile, data) = try repositoryProfile(name)
    for seed: UInt64 in 1...6 {
      var run = SimulationRun(profile: profile, profilePath: "p", profileData: data, seed: seed, duration: .minutes(20))
      let whole = run.report(run.execute(), startedAt: Date())
      run.threads = 2
      #expect(try Self.results(run.report(run.execute(), startedAt: Date())) == Self.results(whole), "\(name) \(seed)")
    }
    for text in [Self.chaos, Self.quiet] {
      for seed: UInt64 in 3...6 {
        var run = try Self.run(text, seed: seed)
        let whole = run.report(run.execute(), startedAt: Date())
        run.threads = 2
        #expect(try Self.results(run.report(run.execute(), startedAt: Date())) == Self.results(whole), "seed \(seed)")
      }
    }
  }

  /// A planted mistake is found alike: the counts, and the first violations with their entities,
  /// messages and excerpts (which a sharded run takes from one world's replay).
  @Test func findingsOfAShardedRunAreTheOneWorlds() throws {
    var run = try Self.run(Self.chaos, seed: 2, mistakes: [.statusFromCallbacks])
    let whole = run.report(run.execute(), startedAt: Date())
    run.threads = 2
    let sharded = run.report(run.execute(), startedAt: Date())
    #expect(whole.violationCount > 0)
    #expect(sharded.violationCount == whole.violationCount)
    #expect(Self.firsts(sharded) == Self.firsts(whole))
    #expect(try Self.results(sharded) == Self.results(whole))
  }

  /// A run cut short leaves its shards at different instants: the series go as far as every
  /// shard sampled, and the report says why the run ended.
  @Test func aShardedRunCutShortMergesWhatEveryShardReached() throws {
    let budget = TestProfile(Self.chaos).with("limits", json5: "{ maxEvents: 15000 }").text
    var run = try Self.run(budget, seed: 1)
    run.threads = 2
    let cut = run.execute()
    #expect(cut.stopReason == .eventBudget && !cut.interrupted)
    let lengths = cut.shards!.map(\.world.series.count)
    #expect(Set(lengths).count > 1, "\(lengths)")
    let report = run.report(cut, startedAt: Date())
    #expect(report.timeSeries?.timesMs.count == lengths.min())
    #expect(report.complete && report.stopReason == "eventBudget")
    #expect(report.events == 15_000 * Int64(cut.shards!.count))
    // Asked to stop before it starts, it runs nothing and is marked incomplete.
    let stopped = run.execute(shouldStop: { true })
    #expect(stopped.interrupted && stopped.events == 0)
    #expect(!run.report(stopped, startedAt: Date()).complete)
  }

  @Test func profilesWhoseRoomsMeetAreRefusedWithTheKey() throws {
    let base = TestProfile(Self.chaos)
    func refusal(_ p: TestProfile, app: Bool = false) throws -> String? {
      RoomShards.refusal(try Profile.parse(Data(p.text.utf8)), app: app)
    }
    #expect(try refusal(base) == nil)
    let (smoke, _) = try repositoryProfile("smoke.json5")
    #expect(RoomShards.refusal(smoke, app: false)?.contains("calls") == true)
    #expect(try refusal(base, app: true)?.contains("--app") == true)
    #expect(try refusal(base.with("server", json5: "{ seats: { workers: 4 } }"))?.contains("server.seats") == true)
    #expect(try refusal(base.with("server", json5: "{ login: { ratePerApp: 100 } }"))?.contains("server.login") == true)
    #expect(
      try refusal(base.with("server", json5: "{ messaging: { workers: 2 } }"))?.contains("server.messaging") == true)
    #expect(try refusal(base.with("network.ties", json5: "\"seeded\""))?.contains("network.ties") == true)
    #expect(try refusal(base.with("network.pct", json5: "2"))?.contains("network.pct") == true)
    #expect(try refusal(base.with("faults", json5: "\"swarm\""))?.contains("swarm") == true)
    #expect(
      try refusal(base.with("faults", json5: "[{ kind: \"network.delay\", target: \"fraction:10%\" }]"))?.contains(
        "fraction") == true)
  }
}

@Suite struct MergeTests {
  /// Gauges summed from their steps spend the same time at each level as one gauge that saw
  /// every step, however the steps of one instant are spread over the parts.
  @Test func summedGaugesAreTheGaugeOfEveryStep() {
    var rng = SplitMix64(seed: 7)
    var parts = (0..<3).map { _ in LevelGauge.keepingChanges() }
    var whole = LevelGauge()
    var t: Int64 = 0
    for _ in 0..<2_000 {
      t += Int64(rng.next(below: 3)) * 1_000
      let k = Int(rng.next(below: 3))
      let delta = parts[k].level > 0 && rng.next(below: 2) == 0 ? -1 : 1
      parts[k].add(delta, at: t)
      whole.add(delta, at: t)
    }
    let sum = LevelGauge.sum(parts)
    #expect(sum.level == whole.level)
    let end = t + 5_000
    #expect(sum.mean(untilNs: end) == whole.mean(untilNs: end))
    for q in [0.5, 0.9, 0.99] { #expect(sum.quantile(q, untilNs: end) == whole.quantile(q, untilNs: end)) }
    #expect(sum.utilisation(capacity: 4, untilNs: end) == whole.utilisation(capacity: 4, untilNs: end))
  }

  /// Interval percentiles merged from the shards' histogram growth are those of one series over
  /// every recorded value; rates add.
  @Test func mergedIntervalSeriesAreTheSeriesOfEveryValue() {
    var rng = SplitMix64(seed: 3)
    var parts = (0..<2).map { _ in LiveMetrics() }
    var whole = LiveMetrics()
    var series = parts.map { IntervalSeries.keepingHistograms($0) }
    var wholeSeries = IntervalSeries(whole)
    for interval in 1...6 {
      for _ in 0..<(interval * 40) {
        let k = Int(rng.next(below: 2))
        let value = SimDuration(nanoseconds: Int64(rng.next(below: 5_000_000_000)))
        parts[k].latencies[LiveMetrics.applyToResponse].record(value)
        whole.latencies[LiveMetrics.applyToResponse].record(value)
        parts[k].counters.add(parts[k].applications)
        whole.counters.add(whole.applications)
      }
      let at = Int64(interval) * 30_000_000_000
      for k in 0..<2 { series[k].sample(parts[k], atNs: at) }
      wholeSeries.sample(whole, atNs: at)
    }
    let merged = IntervalSeries.merged(series)
    #expect(merged.p50 == wholeSeries.p50)
    #expect(merged.p99 == wholeSeries.p99)
    #expect(merged.increases == wholeSeries.increases)
    #expect(merged.p50[0].allSatisfy { $0 > 0 })
  }

  /// Counts add; the first violation of each invariant is the earlier, the first log's on a tie.
  @Test func violationLogsMergeCountsAndKeepTheEarliest() {
    var a = ViolationLog(catalogue: Checker.catalogue)
    var b = ViolationLog(catalogue: Checker.catalogue)
    let id = InvariantID(rawValue: 0)!
    let other = InvariantID(rawValue: 1)!
    a.record(id, at: SimInstant(nanoseconds: 50), entities: ["user:1"], "late")
    b.record(id, at: SimInstant(nanoseconds: 20), entities: ["user:2"], "early")
    b.record(id, at: SimInstant(nanoseconds: 90), entities: ["user:2"], "again")
    a.record(other, at: SimInstant(nanoseconds: 10), entities: [], "a's")
    b.record(other, at: SimInstant(nanoseconds: 10), entities: [], "b's")
    a.merge(b)
    #expect(a.count(id) == 3 && a.count(other) == 2)
    #expect(a.first(id)?.message == "early")
    #expect(a.first(other)?.message == "a's")
  }

  /// A rate column keeps running totals, which add, and reads as the rate since the last sample.
  @Test func aRateColumnReadsRunningTotalsAsRates() {
    var s = TimeSeries(intervalNs: 2_000_000_000, names: ["level", "sent"], rates: ["sent"])
    s.append(atNs: 0, [3, 0])
    s.append(atNs: 2_000_000_000, [4, 10])
    s.append(atNs: 4_000_000_000, [5, 13])
    #expect(s.column("level") == [3, 4, 5])
    #expect(s.column("sent") == [0, 5, 2])  // 1.5 per second rounds to 2
    var twice = s
    twice.add(s)
    #expect(twice.column("sent") == [0, 10, 3])
    #expect(twice.column("level") == [6, 8, 10])
  }
}
