import Chaos
import Clients
import Dispatch
import Foundation
import LiveStack
import Metrics
import Oracles
import Profiles
import Reports
import Scenario
import SimKernel

/// A snapshot handed to progress reporters between slices of a run. Reading it never changes the
/// run.
public struct RunProgress: Sendable {
  /// Simulated time reached.
  public var simulated: SimInstant
  /// Simulated time the run will end at.
  public var end: SimInstant
  /// Events executed so far.
  public var events: Int64
  /// Wall seconds since the loop started.
  public var wallSeconds: Double
  /// Invariant violations so far.
  public var violations: Int
}

/// One run of a profile with one seed: builds the world, runs the kernel in slices, and
/// assembles the report.
public struct SimulationRun {
  /// The validated profile.
  public let profile: Profile
  /// The profile file's path, as given (used in the repro line).
  public let profilePath: String
  /// SHA-256 of the profile file's bytes.
  public let profileSHA256: String
  /// The root seed.
  public let seed: UInt64
  /// Simulated time to run (the profile's, unless overridden).
  public let duration: SimDuration
  /// Whether the duration was overridden on the command line (it then appears in the repro line).
  public let durationOverridden: Bool
  /// SDK quirks switched on from the command line (they appear in the repro line).
  public let extraQuirks: [String]
  /// Client mistakes selected on the command line (they appear in the repro line).
  public let extraMistakes: [String]
  /// The `--set key.path=value` overrides the profile was loaded with, in order (they appear in
  /// the repro line and in the report, and the profile's SHA-256 covers them).
  public let overrides: [String]
  /// Makes the client behaviours of a run; `nil` parts, or no factory, mean the built-in
  /// clients. Called afresh for every execution (behaviours keep per-client state), so a run and
  /// its replays start alike. Set it through ``app`` to have it named in the repro line.
  public var clients: ClientFactory?
  /// The registered app whose clients run instead of the built-in ones (named in the repro line
  /// as `--app NAME`).
  public var app: ClientApp? {
    didSet { clients = app?.makeClients }
  }
  /// The program the repro line names (`stampede`, or the executable that registered the app).
  public var program = "stampede"
  /// Crashes of app code found by earlier runs of this seed, each carried out as a process death
  /// at its entry (see ``AppCrash``; a supervising process finds them, not this one).
  public var appCrashes: [AppCrash] = []
  /// Runs the rooms as room shards on this many threads (`--threads N`, named in the repro line),
  /// or as one world when `nil`. The shards are fixed by the profile, so the trace hash is the
  /// same for any number of threads; it is not the one world's hash, whose one order interleaves
  /// the rooms' events. Check ``RoomShards/refusal(_:app:)`` first.
  public var threads: Int?

  /// Makes the behaviours of one run.
  public typealias ClientFactory = @Sendable (_ setup: ClientSetup) -> ClientSet

  /// Events per slice between progress callbacks and interruption checks.
  public static let sliceEvents: Int64 = 1 << 18

  /// Prepares a run.
  public init(
    profile: Profile, profilePath: String, profileData: Data, seed: UInt64, duration: SimDuration? = nil,
    quirks: Set<SDKQuirk> = [], mistakes: Set<ClientMistake> = [], overrides: [String] = []
  ) {
    var profile = profile
    profile.quirks.formUnion(quirks)
    profile.mistakes.formUnion(mistakes)
    durationOverridden = duration != nil && duration != profile.duration
    // The world runs for the run's time: faults stop `faults.heal` before its end, not the
    // profile's, so that a shortened run is judged healed as well.
    if let duration { profile.duration = duration }
    self.profile = profile
    extraQuirks = quirks.map(\.rawValue).sorted()
    extraMistakes = mistakes.map(\.rawValue).sorted()
    self.profilePath = profilePath
    self.overrides = overrides
    profileSHA256 = SHA256.profile(profileData, sets: overrides)
    self.seed = seed
    self.duration = profile.duration
  }

  /// The command that reproduces this run.
  public var repro: String {
    var parts = [program, "run", ShellQuote.quote(profilePath), "--seed", SeedFormat.format(seed)]
    if let app { parts += ["--app", app.name] }
    if let threads { parts += ["--threads", String(threads)] }
    if durationOverridden { parts += ["--duration", duration.description] }
    if !extraQuirks.isEmpty { parts += ["--quirk", extraQuirks.joined(separator: ",")] }
    if !extraMistakes.isEmpty { parts += ["--mistake", extraMistakes.joined(separator: ",")] }
    for o in overrides { parts += ["--set", ShellQuote.quote(o)] }
    return parts.joined(separator: " ")
  }

  /// The simulation's final state, before it is turned into a report.
  public struct Result {
    /// The world at the end.
    public var world: LiveWorld
    /// Events executed.
    public var events: Int64
    /// The trace hash.
    public var traceHash: TraceHash
    /// Simulated time reached.
    public var simulated: SimInstant
    /// Why the loop stopped.
    public var stopReason: StopReason
    /// Whether the run stopped early because it was asked to.
    public var interrupted: Bool
    /// Wall seconds of the event loop.
    public var wallSeconds: Double
    /// Peak heap bytes, from jemalloc.
    public var peakMemoryBytes: UInt64
    /// The room shards of a sharded run (``SimulationRun/threads``), in shard order; `world` is
    /// the first one's.
    public var shards: [Shard]? = nil
    /// What a sharded run measured, merged over its shards.
    public var merged: RunOutputs? = nil

    /// One room shard: its rooms (indices into the profile's), its world at the end, and when
    /// its own kernel stopped (a shard that went quiet early samples on without it).
    public struct Shard {
      /// Its rooms, as indices into the profile's.
      public var rooms: Range<Int>
      /// Its world at the end of the run.
      public var world: LiveWorld
      /// When its own kernel stopped.
      public var kernelEnded: SimInstant
    }

    /// What the report is built from.
    public var outputs: RunOutputs { merged ?? RunOutputs(world: world, end: simulated) }
  }

  /// Runs the simulation. `progress` is called between slices; `shouldStop` is polled there too,
  /// and a `true` ends the run early (the result is then marked interrupted).
  public func execute(
    observer: (any EventObserver)? = nil, progress: ((RunProgress) -> Void)? = nil, shouldStop: () -> Bool = { false },
    plantNondeterminism: Bool = false
  ) -> Result {
    if let threads, observer == nil, !plantNondeterminism {
      return executeSharded(threads: threads, progress: progress, shouldStop: shouldStop)
    }
    let memory = PeakMemory()
    var world = makeWorld()
    world._plantNondeterminism = plantNondeterminism
    var sim = Simulation(expectedPending: max(1024, world.layout.totalUsers * 2))
    world.start(&sim.scheduler)
    let end = SimInstant.zero + duration
    let started = DispatchTime.now().uptimeNanoseconds
    func elapsed() -> Double { Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9 }
    var reason = StopReason.eventBudget
    var interrupted = false
    // The observed variant wraps the world; the plain one runs it directly (no per-event cost).
    var observed = observer.map { ObservedWorld(live: world, observer: $0) }
    while true {
      let budget = min(SimulationRun.sliceEvents, profile.maxEvents - sim.executedCount)
      if budget <= 0 {
        reason = .eventBudget
        break
      }
      if observed != nil {
        reason = sim.run(&observed!, until: end, maxEvents: budget)
      } else {
        reason = sim.run(&world, until: end, maxEvents: budget)
      }
      progress?(
        RunProgress(
          simulated: sim.now, end: end, events: sim.executedCount, wallSeconds: elapsed(),
          violations: observed?.live.checker.log.total ?? world.checker.log.total))
      if reason != .eventBudget { break }
      if shouldStop() || observed?.stopRequested == true {
        interrupted = true
        break
      }
    }
    if let observed { world = observed.live }
    // Liveness is judged only on runs that reached their end.
    if !interrupted && reason != .eventBudget { world.judgeLiveness(now: sim.now, slack: profile.livenessSlack) }
    return Result(
      world: world, events: sim.executedCount, traceHash: sim.traceHash, simulated: sim.now, stopReason: reason,
      interrupted: interrupted, wallSeconds: elapsed(), peakMemoryBytes: memory.peakBytes)
  }

  /// Whether the world saves events where nothing can happen between them (the default): messages
  /// that reach one client at one instant as one event, request timeouts as one timer per
  /// timeout length, an arriving viewer's app started in its arrival's event. Tests switch it off to show that this changes no result, only the number of
  /// events.
  public var coalescesEvents = true

  /// A fresh world for this run, with the factory's behaviours.
  func makeWorld(profile: Profile? = nil) -> LiveWorld {
    var world = makeWorldWithDefaults(profile: profile ?? self.profile)
    world.coalescesEvents = coalescesEvents
    if !appCrashes.isEmpty { world.runtime.appCrashes.plan(appCrashes) }
    return world
  }

  func makeWorldWithDefaults(profile: Profile) -> LiveWorld {
    let streams = RandomStreams(rootSeed: seed)
    guard let clients else { return LiveWorld(profile: profile, streams: streams) }
    let layout = Layout(profile: profile, streams: streams)
    let b = clients(
      ClientSetup(
        layout: layout, audience: profile.audience, host: profile.host, admin: profile.admin,
        phone: profile.calls?.phone,
        random: streams.stream("apps")))
    return LiveWorld(
      profile: profile, streams: streams, audience: b.audience, host: b.host, admin: b.admin, phone: b.phone)
  }

  /// Events leading up to each first violation: the same run replayed (it is deterministic) with
  /// an observer keeping the events that touch the violation's entities, the last `limit` before
  /// it. Keyed by invariant index. A sharded run's replay is one world over every room, whose
  /// first violations (returned too) are the shards' with the run's own user, room and request
  /// numbers.
  public func excerpts(for result: Result, limit: Int = 12) -> (lines: [Int: [String]], firsts: [Violation?]?) {
    let log = result.outputs.log
    let firsts = log.first.enumerated().compactMap { i, v in v.map { (i, $0) } }
    guard !firsts.isEmpty else { return ([:], nil) }
    var wanted: [(index: Int, at: Int64, rooms: Set<UInt32>, users: Set<UInt32>)] = []
    let layout = result.outputs.layout
    for (i, v) in firsts {
      // The world that found it, and where its rooms and users start among the run's.
      let shard = result.shards?.first {
        $0.world.checker.log.first[i].map { $0.at == v.at && $0.message == v.message } ?? false
      }
      let world = shard?.world ?? result.world
      let roomOffset = UInt32(shard?.rooms.lowerBound ?? 0)
      let userOffset = shard.map { layout.roomBase[$0.rooms.lowerBound] } ?? 0
      var rooms = Set<UInt32>()
      var users = Set<UInt32>()
      for e in v.entities {
        let parts = e.split(separator: ":")
        guard parts.count == 2, let id = UInt32(parts[1]) else { continue }
        switch parts[0] {
        case "room": rooms.insert(id + roomOffset)
        case "user": users.insert(id + userOffset)
        case "request" where Int(id) < world.server.seats.requests.count:
          users.insert(world.server.seats.requests[Int(id)].guest + userOffset)
        default: break
        }
      }
      wanted.append((i, v.at.nanoseconds, rooms, users))
    }
    var filter = TraceFilter()
    for w in wanted {
      filter.rooms.formUnion(w.rooms)
      filter.users.formUnion(w.users)
    }
    let recorder = ExcerptRecorder(filter: filter, until: wanted.map(\.at).max()!)
    let replay = execute(observer: recorder)
    var out: [Int: [String]] = [:]
    for w in wanted {
      // A violation about users shows their own events; one about a room alone, the room's.
      let rooms = w.users.isEmpty ? w.rooms : []
      let matching = recorder.records.filter { r in
        r.timeNs <= w.at
          && r.description.touches(rooms: rooms, users: w.users, homeRoom: { layout.homeRoom[Int($0)] })
      }
      out[w.index] = SimulationRun.collapsed(
        matching.map { r in
          (
            key: r.description.kind + " " + r.description.users.map { "user:\($0)" }.joined(separator: " ") + ": "
              + r.description.detail,
            timeNs: r.timeNs, index: r.index
          )
        }, limit: limit)
    }
    return (out, result.shards == nil ? nil : replay.world.checker.log.first)
  }

  /// The last `limit` lines of an excerpt, each event (`key`: its kind, users and detail, at
  /// `timeNs`, event `index`) on a line, but a run of events alike (a seat-list broadcast heard
  /// again and again, one app's queued blocks) on one line that counts them: routine repeats do
  /// not push the cause out of the window.
  static func collapsed(_ events: [(key: String, timeNs: Int64, index: Int64)], limit: Int) -> [String] {
    var runs: [(first: Int, last: Int)] = []
    var i = events.count - 1
    while i >= 0 {
      if let run = runs.last, events[run.first].key == events[i].key {
        runs[runs.count - 1].first = i
      } else {
        if runs.count == limit { break }
        runs.append((i, i))
      }
      i -= 1
    }
    return runs.reversed().map { run in
      let e = events[run.first]
      let line = String(format: "%.3fms #%lld ", Double(e.timeNs) / 1e6, e.index) + e.key
      guard run.last > run.first else { return line }
      return line
        + String(
          format: " (×%d, the last at %.3fms #%lld)", run.last - run.first + 1, Double(events[run.last].timeNs) / 1e6,
          events[run.last].index)
    }
  }

  /// Builds `report.json`'s content from a result.
  public func report(_ result: Result, startedAt: Date) -> RunReport {
    let outputs = result.outputs
    let metrics = outputs.metrics
    var latencies: [String: LatencySummary] = [:]
    for (i, name) in LiveMetrics.latencyNames.enumerated() { latencies[name] = LatencySummary(metrics.latencies[i]) }
    var counters: [String: UInt64] = [:]
    for (name, value) in metrics.counters.sorted { counters[name] = value }
    let layout = outputs.layout
    let population = RunReport.Population(
      audience: layout.audienceCount, hosts: layout.rooms, admins: layout.rooms * (layout.staffPerRoom - 1),
      callers: layout.phones.count)
    let log = outputs.log
    let (excerpt, replayed) = result.interrupted ? ([:], nil) : excerpts(for: result)
    var invariants: [RunReport.InvariantResult] = []
    for (i, inv) in log.catalogue.enumerated() {
      let first = (replayed?[i] ?? log.first[i]).map {
        RunReport.FirstViolation(
          atMs: Double($0.at.nanoseconds) / 1e6, entities: $0.entities, message: $0.message, excerpt: excerpt[i] ?? [])
      }
      invariants.append(
        RunReport.InvariantResult(
          id: inv.id, kind: inv.kind.rawValue, violations: log.counts[i], description: inv.description, first: first,
          off: log.enabled[i] ? nil : true))
    }
    let ts = outputs.series
    var columns: [String: [Int64]] = [:]
    for name in ts.names { columns[name] = ts.column(name) }
    let iv = outputs.intervals
    func ms(_ ns: Int64) -> Double? { ns < 0 ? nil : LatencySummary.ms(UInt64(ns)) }
    var intervalLatencies: [String: RunReport.IntervalLatency] = [:]
    for (k, name) in IntervalSeries.latencyNames.enumerated() {
      intervalLatencies[name] = RunReport.IntervalLatency(p50Ms: iv.p50[k].map(ms), p99Ms: iv.p99[k].map(ms))
    }
    var rates: [String: [Double]] = [:]
    for (k, name) in IntervalSeries.counterNames.enumerated() {
      var previous: Int64 = 0
      rates[name] = zip(iv.times, iv.increases[k]).map { t, n in
        defer { previous = t }
        let seconds = Double(t - previous) / 1e9
        return seconds > 0 ? (Double(n) / seconds * 1000).rounded() / 1000 : 0
      }
    }
    let series = RunReport.Series(
      intervalMs: Double(ts.intervalNs) / 1e6, timesMs: ts.times.map { Double($0) / 1e6 }, columns: columns,
      latencies: intervalLatencies, rates: rates)
    let simulatedSeconds = Double(result.simulated.nanoseconds) / 1e9
    let wall = max(result.wallSeconds, 1e-9)
    let speedup: Double = (simulatedSeconds / wall * 10).rounded() / 10
    let eventsPerSecond: Double = (Double(result.events) / wall).rounded()
    let bytesPerUser: Double = (Double(result.peakMemoryBytes) / Double(max(1, population.total))).rounded()
    let allocator: String = Jemalloc.summary ?? "unavailable"
    let meta = RunReport.Meta(
      startedAt: ISO8601DateFormatter().string(from: startedAt), speedup: speedup,
      eventsPerSecond: eventsPerSecond, bytesPerUser: bytesPerUser, allocator: allocator,
      hugePageShare: Jemalloc.hugePageShare)
    let wallRounded: Double = (result.wallSeconds * 1000).rounded() / 1000
    var report = RunReport(
      complete: !result.interrupted,
      tool: RunReport.Tool(
        name: "stampede", version: StampedeVersion.current, program: program, build: BuildIdentity.current),
      profile: RunReport.ProfileInfo(
        name: profile.name, path: profilePath, sha256: profileSHA256, overrides: overrides.isEmpty ? nil : overrides),
      seed: seed, seedHex: SeedFormat.format(seed), repro: repro,
      traceHash: result.traceHash.description, events: result.events,
      simulatedSeconds: simulatedSeconds, stopReason: result.stopReason.rawValue,
      wallSeconds: wallRounded, peakMemoryBytes: result.peakMemoryBytes,
      population: population, verdict: log.total == 0 ? "pass" : "fail", latencies: latencies, counters: counters,
      invariants: invariants,
      faults: outputs.faultCoverage.map {
        RunReport.FaultCount(kind: $0.kind.rawValue, injected: Int($0.injected))
      },
      thresholds: [], timeSeries: series, meta: meta)
    report.resources = outputs.resources
    report.coverage = CoverageReport(metrics.coverage)
    report.evaluate(profile.thresholds, steered: !profile.faults.steered.isEmpty)
    return report
  }
}

/// Client code registered with the command line under a name: `--app NAME` runs it instead of the
/// built-in clients, and every repro line of such a run names it.
public struct ClientApp: Sendable {
  /// The name `--app` takes.
  public let name: String
  /// One line on what it is.
  public let summary: String
  /// Makes its behaviours for a run.
  public let makeClients: SimulationRun.ClientFactory

  /// An app.
  public init(name: String, summary: String, makeClients: @escaping SimulationRun.ClientFactory) {
    self.name = name
    self.summary = summary
    self.makeClients = makeClients
  }
}

/// Quotes a word for a POSIX shell only when it needs it.
public enum ShellQuote {
  /// `word` as the shell would need it typed.
  public static func quote(_ word: String) -> String {
    let safe = word.unicodeScalars.allSatisfy {
      CharacterSet.alphanumerics.contains($0) || "-_./:=@%+,".unicodeScalars.contains($0)
    }
    if safe && !word.isEmpty { return word }
    return "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
  }
}
