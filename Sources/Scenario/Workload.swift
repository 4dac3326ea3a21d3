import Clients
import LiveStack
import SimKernel

/// The load a profile puts on the world beyond what each client's behaviour does: viewers arriving
/// by the arrival pattern, the flash crowd, co-hosting sessions between rooms. It decides who does
/// what and when, and schedules it.
struct Workload {
  let arrival: Profile.Arrival
  let flashCrowd: Profile.FlashCrowd?
  let coHosting: Profile.CoHosting?
  /// The `workload` stream: the flash crowd and co-hosting.
  var random: Xoshiro256
  /// Per room, its own arrival stream, so one room's size never shifts another room's arrivals.
  var arrivalRandom: [Xoshiro256] = []
  /// Per room: the running sum of unit exponentials, and their total over all its viewers (plus
  /// one), whose ratio places each arrival as a uniform order statistic.
  var arrivalSum: [Double] = []
  var arrivalTotal: [Double] = []
  /// Per room: how many viewers have arrived.
  var arrivalNext: [UInt32] = []

  init(profile: Profile, layout: Layout, streams: RandomStreams) {
    arrival = profile.arrival
    flashCrowd = profile.workload.flashCrowd
    coHosting = profile.workload.coHosting
    random = streams.stream("workload")
    let arrivals = streams.stream("arrivals")
    guard profile.arrival != .closed else { return }
    for r in 0..<layout.rooms {
      let rng = Xoshiro256(seed: arrivals.seedForRoom(r))
      var probe = rng
      var total = 0.0
      for _ in 0...layout.audience(of: UInt32(r)).count { total += Distribution.exponential(mean: 1).sample(&probe) }
      arrivalRandom.append(rng)
      arrivalTotal.append(total)
      arrivalSum.append(0)
      arrivalNext.append(0)
    }
  }

  /// The next viewer of `room` to arrive (its arrival event fired); counts it as arrived.
  mutating func arrive(room: UInt32, layout: Layout) -> UInt32 {
    let user = layout.audience(of: room).lowerBound + arrivalNext[Int(room)]
    arrivalNext[Int(room)] += 1
    return user
  }

  /// When the next viewer of `room` arrives, or nil if all have (or the room is closed).
  mutating func nextArrival(room r: UInt32, layout: Layout) -> SimInstant? {
    let i = Int(r)
    guard Int(arrivalNext[i]) < layout.audience(of: r).count else { return nil }
    arrivalSum[i] += Distribution.exponential(mean: 1).sample(&arrivalRandom[i])
    let u = min(1, arrivalSum[i] / arrivalTotal[i])
    let over: SimDuration
    let fraction: Double
    switch arrival {
    case .closed: return nil
    case .poisson(let o):
      over = o
      fraction = u
    case .ramp(let o):
      // Density growing linearly from zero: the square root of a uniform order statistic.
      over = o
      fraction = u.squareRoot()
    }
    return SimInstant(nanoseconds: Int64((Double(over.nanoseconds) * fraction).rounded(.down)))
  }

  /// The rooms that start co-hosting with the next room, and after how long.
  mutating func coHostStarts(rooms: Int) -> [(room: UInt32, after: SimDuration)] {
    guard let co = coHosting else { return [] }
    var starts: [(UInt32, SimDuration)] = []
    for r in stride(from: 0, to: rooms - 1, by: 2) where random.chance(co.fraction) {
      starts.append((UInt32(r), co.after.sampleDuration(&random)))
    }
    return starts
  }

  /// Schedules each room's arrivals: its owner and admins at time zero, then its viewers, all at
  /// once (closed) or the first by the arrival pattern.
  mutating func start(layout: Layout, _ scheduler: inout Scheduler) {
    for r in 0..<UInt32(layout.rooms) {
      for u in layout.staff(of: r) { scheduler.schedule(after: .zero, LiveEvent.clientStart.with(u)) }
      let viewers = layout.audience(of: r)
      guard !viewers.isEmpty else { continue }
      if arrival == .closed {
        for u in viewers { scheduler.schedule(after: .zero, LiveEvent.clientStart.with(u)) }
      } else if let at = nextArrival(room: r, layout: layout) {
        scheduler.schedule(at: max(at, scheduler.now), LiveEvent.arrival.with(r))
      }
    }
  }

  /// The next viewer of `room` arrives now; its successor is scheduled.
  mutating func arrival(room: UInt32, layout: Layout, _ scheduler: inout Scheduler) {
    scheduler.schedule(after: .zero, LiveEvent.clientStart.with(arrive(room: room, layout: layout)))
    if let at = nextArrival(room: room, layout: layout) {
      scheduler.schedule(at: max(at, scheduler.now), LiveEvent.arrival.with(room))
    }
  }

  /// Schedules the flash crowd and the co-hosting sessions.
  mutating func scheduleEvents(rooms: Int, _ scheduler: inout Scheduler) {
    if let flash = flashCrowd { scheduler.schedule(after: flash.at, LiveEvent.flashCrowd.with(0)) }
    for start in coHostStarts(rooms: rooms) {
      scheduler.schedule(after: start.after, LiveEvent.coHostStart.with(start.room))
    }
  }

  /// How long a co-hosting session lasts.
  mutating func coHostDuration() -> SimDuration { coHosting!.duration.sampleDuration(&random) }

  /// The seats open to the flash crowd: the viewers, idle at this moment, who tap "apply", each
  /// with its delay within the window.
  mutating func flashCrowd(layout: Layout, runtime: ClientRuntime, _ scheduler: inout Scheduler) {
    guard let flash = flashCrowd else { return }
    let window = UInt64(max(1, flash.within.nanoseconds))
    for r in 0..<UInt32(layout.rooms) {
      for u in layout.audience(of: r) where runtime.clients[Int(u)].status == .idle && random.chance(flash.fraction) {
        scheduler.schedule(
          after: SimDuration(nanoseconds: Int64(random.next(below: window))), LiveEvent.applyIntent.with(u))
      }
    }
  }
}

extension Xoshiro256 {
  /// A seed for room `room`'s own stream, derived from this stream's state without advancing it.
  func seedForRoom(_ room: Int) -> UInt64 {
    var copy = self
    var mix = SplitMix64(seed: copy.next() ^ (UInt64(room) &* 0x9E37_79B9_7F4A_7C15))
    return mix.next()
  }
}
