import Chaos
import Dispatch
import Foundation
import Metrics
import Profiles
import Scenario
import SimKernel

/// One measurement of the whole live-seat stack against the bare kernel, taken in the same process.
public struct StackBenchResult: Codable, Sendable {
  /// Simulated events per wall second of the stack run.
  public var eventsPerSecond: Double
  /// Kernel hold operations per wall second at the stack run's mean queue size.
  public var kernelOpsPerSecond: Double
  /// `eventsPerSecond / kernelOpsPerSecond`.
  public var ratio: Double
  /// Simulated users.
  public var population: Int
  /// Audience members among them.
  public var audience: Int
  /// Peak heap bytes of the stack run, from jemalloc.
  public var peakMemoryBytes: UInt64
  /// Peak heap bytes per audience member.
  public var bytesPerAudienceMember: Double
  /// Phone users (callers and callees) among them.
  public var phones: Int = 0
  /// Peak heap bytes per user of any kind.
  public var bytesPerUser: Double = 0
  /// Heap bytes per user once the world is built and started, before anyone acts: what an idle
  /// user costs (the peak adds per-call and per-request history and the event queue).
  public var idleBytesPerUser: Double = 0
  /// Events the stack run executed.
  public var events: Int64
  /// Mean number of pending events over the run (sampled between slices).
  public var meanPending: Int
  /// The stack run's trace hash (the same for every repeat).
  public var traceHash: String
  /// Invariant violations seen (zero with the built-in clients).
  public var violations: Int
  /// Events per wall second of the same run with every checker switched off.
  public var uncheckedEventsPerSecond: Double = 0
  /// The share of throughput the checkers cost: 1 - checked / unchecked.
  public var checkingCost: Double = 0
  /// Changes to the rooms' seat lists on the server.
  public var seatChanges: UInt64 = 0
  /// Events simulated per seat change (everything the run did, divided by its seat changes).
  public var eventsPerSeatChange: Double = 0
  /// Downlink messages room messaging counted per seat change (one per member of the room): what
  /// a simulator delivering each as an event would add per change.
  public var downlinkPerSeatChange: Double = 0
  /// Seat applications answered: `applyForSeat` calls that got their terminal answer (the count of
  /// `seat.apply_to_response`).
  public var applications: UInt64 = 0
  /// Applications per wall second of the event loop.
  public var applicationsPerSecond: Double = 0
  /// Events simulated per application.
  public var eventsPerApplication: Double = 0
  /// Wall seconds of the whole run: building the world and running it.
  public var wholeRunSeconds: Double = 0
  /// Holds per wall second of the C++ `std::priority_queue` reference (a binary heap) running the
  /// same hold loop at the same queue size, when it was built for this run.
  public var referenceOpsPerSecond: Double?
  /// `eventsPerSecond / referenceOpsPerSecond`: the stack against a binary-heap kernel, the
  /// comparison `ratio` made before Stampede's queue outran the heap.
  public var referenceRatio: Double?
}

/// `stampede bench stack`: the seat-rush evening scaled up, against the kernel's hold loop.
public enum StackBench {
  /// `profile` scaled to `rooms` rooms of `audiencePerRoom` viewers for `duration`.
  public static func scaled(_ profile: Profile, rooms: Int, audiencePerRoom: Int, duration: SimDuration) -> Profile {
    var p = profile
    p.population.rooms = rooms
    p.population.audiencePerRoom = .constant(Double(audiencePerRoom))
    p.duration = duration
    return p
  }

  /// `profile` (which must have `calls`) with `callers` phone users for `duration`.
  public static func scaledCalls(_ profile: Profile, callers: Int, duration: SimDuration) -> Profile {
    var p = profile
    p.calls!.users = callers
    p.duration = duration
    return p
  }

  /// Runs `profile` with `seed`, then the kernel hold loop at the stack run's mean queue size for
  /// the same number of events; repeats both, alternating so that machine noise hits both alike,
  /// and keeps each one's best. With `reference` (the binary ``KernelBench/buildReference(source:)``
  /// made), each repeat also runs the C++ binary-heap hold loop at that queue size, which must give
  /// the kernel's trace hash.
  public static func measure(
    profile: Profile, seed: UInt64, repeats: Int, checkingCost: Bool = true, reference: String? = nil
  ) throws -> StackBenchResult {
    precondition(repeats >= 1, "at least one repeat")
    var r = runStack(profile: profile, seed: seed)
    var kernel = 0.0
    var heapBest = 0.0
    var unchecked = 0.0
    for i in 0..<repeats {
      if i > 0 {
        let again = runStack(profile: profile, seed: seed)
        precondition(again.traceHash == r.traceHash, "the same seed gave two traces")
        if again.eventsPerSecond > r.eventsPerSecond { r = again }
      }
      if checkingCost {
        let off = runStack(profile: profile, seed: seed, checking: false)
        precondition(off.traceHash == r.traceHash, "switching the checkers off changed the trace")
        unchecked = max(unchecked, off.eventsPerSecond)
      }
      let k = KernelBench.measure(pending: max(1, r.meanPending), holds: Int(r.events), seed: seed)
      kernel = max(kernel, k.opsPerSecond)
      if let reference {
        let heap = try KernelBench.measureReference(
          binary: reference, pending: max(1, r.meanPending), holds: Int(r.events), seed: seed)
        guard heap.hash == k.hash else {
          throw BenchError("the reference ran a different loop (hash \(heap.hash), ours \(k.hash))")
        }
        heapBest = max(heapBest, heap.opsPerSecond)
      }
    }
    r.kernelOpsPerSecond = kernel.rounded()
    r.ratio = (r.eventsPerSecond / kernel * 1000).rounded() / 1000
    if reference != nil {
      r.referenceOpsPerSecond = heapBest.rounded()
      r.referenceRatio = (r.eventsPerSecond / heapBest * 1000).rounded() / 1000
    }
    r.uncheckedEventsPerSecond = unchecked
    r.checkingCost = checkingCost ? ((1 - r.eventsPerSecond / unchecked) * 1000).rounded() / 1000 : 0
    return r
  }

  static func runStack(profile: Profile, seed: UInt64, checking: Bool = true) -> StackBenchResult {
    let memory = PeakMemory()
    let built = DispatchTime.now().uptimeNanoseconds
    var world = LiveWorld(profile: profile, streams: RandomStreams(rootSeed: seed))
    world.checking = checking
    var sim = Simulation(expectedPending: max(1024, world.layout.totalUsers * 2))
    world.start(&sim.scheduler)
    let idle = Double(memory.runPeakBytes) / Double(max(1, world.layout.totalUsers))
    let end = SimInstant.zero + profile.duration
    var pendingSum = 0
    var samples = 0
    let start = DispatchTime.now().uptimeNanoseconds
    while sim.run(&world, until: end, maxEvents: 1 << 16) == .eventBudget {
      pendingSum += sim.scheduler.pendingCount
      samples += 1
    }
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    let peak = memory.peakBytes
    let layout = world.layout
    var r = StackBenchResult(
      eventsPerSecond: (Double(sim.executedCount) / seconds).rounded(), kernelOpsPerSecond: 0, ratio: 0,
      population: layout.totalUsers, audience: layout.audienceCount, peakMemoryBytes: peak,
      bytesPerAudienceMember: (Double(peak) / Double(max(1, layout.audienceCount))).rounded(),
      phones: layout.phones.count, bytesPerUser: (Double(peak) / Double(max(1, layout.totalUsers))).rounded(),
      idleBytesPerUser: idle.rounded(),
      events: sim.executedCount, meanPending: samples == 0 ? sim.scheduler.pendingCount : pendingSum / samples,
      traceHash: sim.traceHash.description, violations: world.checker.log.total)
    let counters = world.metrics.counters
    r.seatChanges = counters.value("seat.changes") ?? 0
    let changes = Double(max(1, r.seatChanges))
    r.eventsPerSeatChange = (Double(sim.executedCount) / changes * 10).rounded() / 10
    r.downlinkPerSeatChange = (Double(counters.value("messaging.downlink") ?? 0) / changes * 10).rounded() / 10
    r.applications = UInt64(world.metrics.latencies[LiveMetrics.applyToResponse].count)
    r.applicationsPerSecond = (Double(r.applications) / seconds).rounded()
    r.eventsPerApplication = (Double(sim.executedCount) / Double(max(1, r.applications)) * 100).rounded() / 100
    r.wholeRunSeconds = Double(DispatchTime.now().uptimeNanoseconds - built) / 1e9
    return r
  }
}

/// The cost of injecting faults: a profile's events/s with its faults on and off, alternating.
public struct FaultBenchResult: Codable, Sendable {
  /// Events per wall second with the faults on.
  public var faultsOnEventsPerSecond: Double
  /// Events per wall second with the faults off.
  public var faultsOffEventsPerSecond: Double
  /// `on / off`.
  public var ratio: Double
  /// Fault kinds that fired with the faults on.
  public var kindsFired: Int
  /// Violations with the faults on (zero with the built-in clients).
  public var violations: Int

  /// Runs `seeds` seeds of `profile` from `seed` each way, alternating seed by seed (so that
  /// both sides see the same machine), `repeats` times; keeps each side's best total rate. One
  /// seed of a short profile runs in milliseconds, too little to time on its own.
  public static func measure(profile: Profile, seed: UInt64, seeds: Int = 16, repeats: Int) -> FaultBenchResult {
    var off = profile
    off.faults = FaultPlan()
    var best = (on: 0.0, off: 0.0)
    var fired = 0
    var violations = 0
    for _ in 0..<repeats {
      var total = (onEvents: 0.0, onSeconds: 0.0, offEvents: 0.0, offSeconds: 0.0)
      violations = 0
      for s in seed..<seed + UInt64(max(1, seeds)) {
        let a = StackBench.runStack(profile: profile, seed: s)
        total.onEvents += Double(a.events)
        total.onSeconds += Double(a.events) / a.eventsPerSecond
        violations += a.violations
        let b = StackBench.runStack(profile: off, seed: s)
        total.offEvents += Double(b.events)
        total.offSeconds += Double(b.events) / b.eventsPerSecond
      }
      best.on = max(best.on, (total.onEvents / total.onSeconds).rounded())
      best.off = max(best.off, (total.offEvents / total.offSeconds).rounded())
    }
    var world = LiveWorld(profile: profile, streams: RandomStreams(rootSeed: seed))
    var sim = Simulation()
    world.start(&sim.scheduler)
    _ = sim.run(&world, until: .zero + profile.duration)
    fired = world.faultCoverage.filter { $0.injected > 0 }.count
    return FaultBenchResult(
      faultsOnEventsPerSecond: best.on, faultsOffEventsPerSecond: best.off,
      ratio: (best.on / best.off * 1000).rounded() / 1000, kindsFired: fired, violations: violations)
  }
}
