import Chaos
import Clients
import LiveStack
import Metrics
import Oracles
import Profiles
import SimKernel

/// Room messaging: each room's seat list fanned out to everyone in it (see ``RoomFeed``).
extension ServerSide {
  /// The server changed `room`'s seat list: the change goes out to the room (now, or through room
  /// messaging's workers).
  mutating func feedChanged(room: UInt32, _ scheduler: inout Scheduler) {
    let feed = server.feed
    let members = server.seats.memberCount[Int(room)]
    let now = scheduler.now
    if feed.immediate {
      let before = feed.broadcasts
      _ = feed.changed(room: room, members: members, now: now) { _ in 0 }
      if feed.broadcasts != before { broadcastReachesWatchers(room: room, sentAt: now, &scheduler) }
      return
    }
    let step = feed.changed(room: room, members: members, now: now, serviceNs: feed.drawServiceNs)
    schedule(step, room: room, &scheduler)
  }

  /// Schedules what room messaging asked for `room`.
  mutating func schedule(_ step: RoomFeed.Step, room: UInt32, _ scheduler: inout Scheduler) {
    switch step {
    case .none: break
    case .sendAt(let t): scheduler.schedule(at: t, event(.broadcastSent, room))
    case .releaseAt(let t): scheduler.schedule(at: t, event(.broadcastRelease, room))
    }
  }

  /// `room`'s broadcast leaves room messaging: the staff's and the viewer's own delta messages
  /// held for it go out, and the worker takes the next room.
  mutating func broadcastSent(
    room: UInt32, _ measured: inout LiveMetrics, _ observers: inout Observers, _ scheduler: inout Scheduler
  ) {
    let now = scheduler.now
    // Only the member counts are read (a copy of the seat service would retain each of its
    // tables), and the released notices wait in a list kept between broadcasts.
    let memberCount = server.seats.memberCount
    let feed = server.feed
    let start = releasedNotices.count
    let (this, next) = feed.sent(
      room: room, members: { memberCount[Int($0)] }, now: now,
      serviceNs: feed.drawServiceNs, release: { releasedNotices.append($0) })
    var i = start
    while i < releasedNotices.count {
      send(releasedNotices[i], &measured, &observers, &scheduler)
      i += 1
    }
    releasedNotices.removeLast(releasedNotices.count - start)
    broadcastReachesWatchers(room: room, sentAt: now, &scheduler)
    schedule(this, room: room, &scheduler)
    if let next { schedule(next.step, room: next.room, &scheduler) }
  }

  /// A room held back by its rate limit may broadcast again.
  mutating func broadcastRelease(room: UInt32, _ scheduler: inout Scheduler) {
    let feed = server.feed
    let step = feed.released(
      room: room, members: server.seats.memberCount[Int(room)], now: scheduler.now, serviceNs: feed.drawServiceNs)
    schedule(step, room: room, &scheduler)
  }

  /// The viewers of `room` whose code hears every change get the broadcast sent at `sentAt`, each
  /// after its own delay. A broadcast that locked or unlocked a seat also reaches the staff whose
  /// app code watches the seat list (their occupants come by their own messages; the lock only by
  /// the broadcast).
  mutating func broadcastReachesWatchers(room: UInt32, sentAt: SimInstant, _ scheduler: inout Scheduler) {
    let watchers = server.feed.watchers(of: room)
    for u in watchers where runtime.clients[Int(u)].joinedRoom == room + 1 {
      scheduler.schedule(at: sentAt + server.feed.delay(of: u), event(.broadcastSeen, u, room))
    }
    guard publishesSDKState, server.feed.locksChanged(room: room, sentAt: sentAt.nanoseconds) else { return }
    for u in layout.staff(of: room)
    where runtime.clients[Int(u)].joinedRoom == room + 1 && runtime.clients[Int(u)].subscriptions.contains(.seatList) {
      scheduler.schedule(at: sentAt + server.feed.delay(of: u), event(.broadcastSeen, u, room))
    }
  }

  /// Locks or unlocks every guest seat (the flash crowd's doors). Rooms start locked, as created;
  /// opening them goes out to each room through room messaging.
  mutating func setAllSeatsLocked(
    _ locked: Bool, _ measured: inout LiveMetrics, _ observers: inout Observers, _ scheduler: inout Scheduler
  ) {
    for r in 0..<UInt32(layout.rooms) {
      // The guests' seats: the owner keeps its own.
      let room = server.seats.settings[Int(r)]
      for i in room.firstGuestSeat..<room.seatCount {
        _ = server.seats.setLocked(room: r, seat: i, locked)
        server.feed.recordLock(room: r, seat: i, locked, logged: !locked)
        observers.checker.observeLock(room: r, seat: i, seats: server.seats)
        measured.observeLockedEmpty(room: r, seat: i, seats: server.seats, runtime.now)
      }
      if !locked { feedChanged(room: r, &scheduler) }
    }
  }
}
