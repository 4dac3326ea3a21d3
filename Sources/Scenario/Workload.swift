import Clients
import LiveStack
import Profiles
import SimKernel

/// The load a profile puts on the world beyond what each client's behaviour does: viewers arriving
/// by the arrival pattern, the flash crowd, co-hosting sessions between rooms. It decides who does
/// what and when, and schedules it.
struct Workload {
  let arrival: Profile.Arrival
  let flashCrowd: Profile.FlashCrowd?
  let coHosting: Profile.CoHosting?
  /// The `flash-crowd` stream's seed: each viewer's choice and delay come from its own generator.
  let flashSeed: UInt64
  /// The `arrivals` stream's seed: each viewer's arrival time comes from its own generator.
  let arrivalSeed: UInt64
  /// Per room (pairs of rooms start at even indices): its own `co-hosting` generator.
  var coHostRandom: [SplitMix64] = []
  /// Per room: how many viewers have arrived. A room's viewers hold its audience places in order of
  /// arrival (``Layout/viewerOfPlace``), so the next to arrive is the place after the last.
  var arrivalNext: [UInt32] = []

  init(profile: Profile, layout: Layout, streams: RandomStreams) {
    arrival = profile.arrival
    flashCrowd = profile.workload.flashCrowd
    coHosting = profile.workload.coHosting
    flashSeed = RandomStreams.streamSeed(root: streams.rootSeed, name: "flash-crowd")
    arrivalSeed = RandomStreams.streamSeed(root: streams.rootSeed, name: "arrivals")
    if coHosting != nil { coHostRandom = streams.entities("co-hosting", layout.roomIdentities) }
    guard profile.arrival != .closed else { return }
    arrivalNext = [UInt32](repeating: 0, count: layout.rooms)
  }

  /// When viewer `user` of `room` arrives (``Profile/Arrival/time(of:seed:)``).
  func arrivalTime(of user: UInt32, room: UInt32, layout: Layout) -> SimInstant {
    arrival.time(of: layout.identity(of: user, inRoom: room), seed: arrivalSeed)
  }

  /// The next viewer of `room` to arrive (its arrival event fired); counts it as arrived.
  mutating func arrive(room: UInt32, layout: Layout) -> UInt32 {
    let user = layout.audience(of: room).lowerBound + arrivalNext[Int(room)]
    arrivalNext[Int(room)] += 1
    return user
  }

  /// When the next viewer of `room` arrives, or nil if all have (or the room is closed).
  func nextArrival(room r: UInt32, layout: Layout) -> SimInstant? {
    nextArrivingViewer(room: r, layout: layout)?.at
  }

  /// The next viewer of `room` to arrive and when, or nil if all have (or the room is closed).
  @inline(__always)
  func nextArrivingViewer(room r: UInt32, layout: Layout) -> (user: UInt32, at: SimInstant)? {
    let viewers = layout.audience(of: r)
    guard arrival != .closed, Int(arrivalNext[Int(r)]) < viewers.count else { return nil }
    let user = viewers.lowerBound + arrivalNext[Int(r)]
    return (user, arrivalTime(of: user, room: r, layout: layout))
  }

  /// Schedules the arrival of `room`'s next viewer, if one is still to come. The event names the
  /// room and the viewer (so that traces of that viewer show it).
  mutating func scheduleNextArrival(room r: UInt32, layout: Layout, _ scheduler: inout Scheduler) {
    if let next = nextArrivingViewer(room: r, layout: layout) {
      scheduler.schedule(at: max(next.at, scheduler.now), LiveEvent.arrival.with(r, next.user))
    }
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
      } else {
        scheduleNextArrival(room: r, layout: layout, &scheduler)
      }
    }
  }

  /// The next viewer of `room` arrives now: it is counted as arrived and its successor is
  /// scheduled. Returns the viewer, whose app the world starts in the same event (nothing can
  /// happen to a viewer between its arrival and its app's start: docs/DESIGN.md).
  mutating func arrival(room: UInt32, layout: Layout, _ scheduler: inout Scheduler) -> UInt32 {
    let user = arrive(room: room, layout: layout)
    scheduleNextArrival(room: room, layout: layout, &scheduler)
    return user
  }

  /// Schedules the flash crowd and the co-hosting sessions: rooms 2k and 2k+1 co-host by room
  /// 2k's draws, whether and after how long.
  mutating func scheduleEvents(rooms: Int, _ scheduler: inout Scheduler) {
    if let flash = flashCrowd { scheduler.schedule(after: flash.at, LiveEvent.flashCrowd.with(0)) }
    guard let co = coHosting else { return }
    for r in stride(from: 0, to: rooms - 1, by: 2) where coHostRandom[r].chance(co.fraction) {
      scheduler.schedule(after: co.after.sampleDuration(&coHostRandom[r]), LiveEvent.coHostStart.with(UInt32(r)))
    }
  }

  /// How long the co-hosting session of `room` (and the next room) lasts.
  mutating func coHostDuration(room: UInt32) -> SimDuration {
    coHosting!.duration.sampleDuration(&coHostRandom[Int(room)])
  }

  /// The seats open to the flash crowd: the viewers, idle at this moment, who tap "apply", each
  /// with its delay within the window.
  mutating func flashCrowd(layout: Layout, runtime: ClientRuntime, _ scheduler: inout Scheduler) {
    guard let flash = flashCrowd else { return }
    let window = UInt64(max(1, flash.within.nanoseconds))
    for r in 0..<UInt32(layout.rooms) {
      for u in layout.audience(of: r) where runtime.clients[Int(u)].status == .idle {
        // Each viewer's choice and delay are its own draws.
        var rng = SplitMix64(seed: RandomStreams.entitySeed(stream: flashSeed, layout.identity(of: u)))
        guard rng.chance(flash.fraction) else { continue }
        scheduler.schedule(
          after: SimDuration(nanoseconds: Int64(rng.next(below: window))), LiveEvent.applyIntent.with(u))
      }
    }
  }
}
