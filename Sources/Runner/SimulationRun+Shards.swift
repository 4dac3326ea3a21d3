import Chaos
import Dispatch
import Foundation
import LiveStack
import Metrics
import Oracles
import Profiles
import Scenario
import SimKernel

/// What a run's report is built from: one world's figures, or the exact merge of its room
/// shards' (``SimulationRun/threads``).
public struct RunOutputs {
  /// Who is who, over every room of the run.
  public var layout: Layout
  /// Counters, latencies and outcome coverage, the fault injections included.
  public var metrics: LiveMetrics
  /// The invariant findings.
  public var log: ViolationLog
  /// Sampled gauges.
  public var series: TimeSeries
  /// Latency percentiles and counter rates per sampling interval.
  public var intervals: IntervalSeries
  /// Each configured fault kind with its injections.
  public var faultCoverage: [(kind: FaultKind, injected: UInt64)]
  /// The resources as a capacity planner reads them.
  public var resources: [ResourceUsage]

  /// The figures of one world's run, which ended at `end`.
  public init(world: LiveWorld, end: SimInstant) {
    layout = world.layout
    metrics = world.metrics
    // Only in a run that followed a crash in a dead process's deinit (see ``AppCrash/atDeath``).
    if world.runtime.appCrashes.keptAtDeath > 0 {
      let kept = metrics.counters.register("app.dead_objects_kept")
      metrics.counters.add(kept, UInt64(world.runtime.appCrashes.keptAtDeath))
    }
    log = world.checker.log
    series = world.series
    intervals = world.intervals
    faultCoverage = world.faultCoverage
    resources = world.resources(end: end)
  }

  /// The figures of a run made of `shards` (in shard order, each keeping what merges: see
  /// ``LiveWorld/keepForMerging()``) over `layout`, which ended at `end`. Rooms of different
  /// shards never meet, so counters, histograms, findings and gauges add up to what one world
  /// over every room measures.
  public init(shards: [LiveWorld], layout: Layout, end: SimInstant) {
    let lead = shards[0]
    self.layout = layout
    metrics = lead.metrics
    var checker = lead.checker
    // A run cut short (interrupted, or by the event budget) left its shards at different
    // instants: the series go as far as every shard sampled.
    let samples = shards.map(\.series.count).min()!
    series = lead.series.prefix(samples)
    for shard in shards.dropFirst() {
      metrics.merge(shard.metrics)
      checker.mergeLog(shard.checker.log)
      series.add(shard.series.prefix(samples))
    }
    log = checker.log
    intervals = IntervalSeries.merged(shards.map { $0.intervals.prefix(samples) })
    var injected = lead.faultCoverage
    for shard in shards.dropFirst() {
      for (i, f) in shard.faultCoverage.enumerated() { injected[i].injected &+= f.injected }
    }
    faultCoverage = injected
    let profile = lead.profile
    // A shard's services have no capacity and its room messaging no workers (`RoomShards.refusal`),
    // so beside the reviewers and the seats no resource is listed.
    resources = ResourceUsage.ofRun(
      endNs: end.nanoseconds, measured: metrics,
      reviews: ReviewBook.merged(shards.map(\.observers.reviews), layout: layout),
      seated: LevelGauge.sum(shards.map(\.observers.seated)), rooms: layout.rooms,
      seatsPerRoom: min(profile.seats.maxSeatCount, profile.seats.packageLimit), desk: lead.desk,
      serviceNames: profile.server.named.map(\.name), feed: lead.server.feed)
  }
}

/// One room shard of a run while it runs: its world and kernel, and where it got to.
final class ShardRunner: @unchecked Sendable {
  let rooms: Range<Int>
  var world: LiveWorld
  var sim: Simulation
  var reason = StopReason.eventBudget
  var interrupted = false
  /// Whether its thread is done with it (read by the progress reporter).
  var done: Bool { lock.withLock { finished } }
  private let lock = NSLock()
  private var finished = false
  /// Events executed so far (read by the progress reporter while the shard runs).
  let progress = Locked((events: Int64(0), violations: 0, now: SimInstant.zero))

  init(rooms: Range<Int>, world: LiveWorld) {
    self.rooms = rooms
    self.world = world
    sim = Simulation(expectedPending: max(1024, world.layout.totalUsers * 2))
    self.world.start(&sim.scheduler)
  }

  /// Runs the shard to `end` in slices, stopping early when `stop` is set.
  func run(until end: SimInstant, maxEvents: Int64, stop: Locked<Bool>) {
    defer { lock.withLock { finished = true } }
    while true {
      let budget = min(SimulationRun.sliceEvents, maxEvents - sim.executedCount)
      if budget <= 0 {
        reason = .eventBudget
        return
      }
      reason = sim.run(&world, until: end, maxEvents: budget)
      progress.set((sim.executedCount, world.checker.log.total, sim.now))
      if reason != .eventBudget { return }
      if stop.current {
        interrupted = true
        return
      }
    }
  }
}

extension SimulationRun {
  /// The room shards of this run: their room ranges (see ``RoomShards/plan(_:pairs:)``).
  public var shardRooms: [Range<Int>] {
    RoomShards.plan(
      Layout(profile: profile, streams: RandomStreams(rootSeed: seed)), pairs: profile.workload.coHosting != nil)
  }

  /// Runs the room shards on `threads` threads and merges what they measured (see ``threads``).
  func executeSharded(
    threads: Int, progress: ((RunProgress) -> Void)?, shouldStop: () -> Bool
  ) -> Result {
    let memory = PeakMemory()
    let started = DispatchTime.now().uptimeNanoseconds
    func elapsed() -> Double { Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9 }
    let layout = Layout(profile: profile, streams: RandomStreams(rootSeed: seed))
    let end = SimInstant.zero + duration
    // (The layout drawn once serves the plan and the renumbering of fault targets.)
    let plan = RoomShards.plan(layout, pairs: profile.workload.coHosting != nil)
    let shards = plan.map { rooms in
      var world = makeWorld(profile: RoomShards.profile(profile, rooms: rooms, layout: layout))
      world.keepForMerging()
      return ShardRunner(rooms: rooms, world: world)
    }
    // The largest shards are taken first, so that the threads finish together; which thread runs
    // a shard, and when, changes nothing.
    let order = shards.indices.sorted {
      (shards[$0].world.layout.totalUsers, $1) > (shards[$1].world.layout.totalUsers, $0)
    }
    let stop = Locked(false)
    let work = WorkList(total: shards.count)
    let peaks = Locked<UInt64>(0)
    let budget = profile.maxEvents
    let group = DispatchGroup()
    if shouldStop() { stop.set(true) }
    for _ in 0..<min(threads, shards.count) {
      group.enter()
      Thread.detachNewThread { [shards] in
        defer { group.leave() }
        let mine = PeakMemory()
        while !stop.current, let k = work.next() { shards[order[k]].run(until: end, maxEvents: budget, stop: stop) }
        peaks.update { $0 &+= mine.runPeakBytes }
      }
    }
    while group.wait(timeout: .now() + 0.25) == .timedOut {
      if shouldStop() { stop.set(true) }
      let now = shards.map(\.progress.current)
      // The run is as far as its least advanced shard still running.
      let running = zip(shards, now).filter { !$0.0.done }.map(\.1.now)
      progress?(
        RunProgress(
          simulated: running.min() ?? end, end: end, events: now.reduce(0) { $0 + $1.events }, wallSeconds: elapsed(),
          violations: now.reduce(0) { $0 + $1.violations }))
    }
    let interrupted = stop.current || shards.contains { $0.interrupted }
    let cut = shards.contains { $0.reason == .eventBudget && !$0.interrupted }
    // One world over every room stops at its end instant if any room was still busy, and when
    // quiet otherwise.
    let reason: StopReason = cut ? .eventBudget : shards.contains { $0.reason == .endTime } ? .endTime : .quiescent
    if !interrupted && !cut {
      // A shard that went quiet samples and checks on as long as the busiest did, as one world
      // over every room would have.
      let sampleUntil = shards.map { SimInstant(nanoseconds: $0.world.series.times.last ?? 0) }.max()!
      let checkUntil = shards.map(\.world.observers.lastCheck).max()!
      for s in shards {
        s.world.sampleOn(untilSample: sampleUntil, check: checkUntil)
      }
    }
    let reached = shards.map(\.sim.now).max()!
    if !interrupted && !cut {
      for s in shards { s.world.judgeLiveness(now: reached, slack: profile.livenessSlack) }
    }
    let worlds = shards.map(\.world)
    return Result(
      world: worlds[0], events: shards.reduce(0) { $0 + $1.sim.executedCount },
      traceHash: TraceHash(parts: shards.map(\.sim.traceHash)), simulated: reached,
      stopReason: reason,
      interrupted: interrupted, wallSeconds: elapsed(), peakMemoryBytes: memory.peakBytes &+ peaks.current,
      shards: shards.map { Result.Shard(rooms: $0.rooms, world: $0.world, kernelEnded: $0.sim.now) },
      merged: RunOutputs(shards: worlds, layout: layout, end: reached))
  }
}
