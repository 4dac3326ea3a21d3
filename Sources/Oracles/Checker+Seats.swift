import Clients
import LiveStack
import SimKernel

/// Seats: occupancy, locks, capacity and grants, checked the moment a seat changes.
extension Checker {
  /// A seat was locked or unlocked: remember who was on it.
  public mutating func observeLock(room: UInt32, seat: Int, seats: SeatService) {
    let slot = seatBase[Int(room)] + seat
    lockedOccupant[slot] =
      seats.isLocked(room: room, seat: seat) ? (seats.occupant(room: room, seat: seat).map { $0 + 1 } ?? 0) : 0
  }

  /// `user` (a host or admin) locked or unlocked seat `seat` of `room`, and the server agreed.
  public mutating func observeStaffLock(room: UInt32, seat: Int, locked: Bool, by user: UInt32, at now: SimInstant) {
    let slot = seatBase[Int(room)] + seat
    let i = Int(staffLockPlace[slot])
    if i >= 0 {
      if !locked { removeStaffLock(at: i) }
    } else if locked {
      staffLockPlace[slot] = Int32(staffLocks.count)
      staffLocks.append((slot, room, seat, user, now.nanoseconds, 0, false))
    }
  }

  /// Leaves a gap at `i`; when gaps are half the list, closes them, keeping the order.
  mutating func removeStaffLock(at i: Int) {
    staffLockPlace[staffLocks[i].slot] = -1
    staffLocks[i].slot = -1
    staffLockGaps += 1
    guard staffLockGaps >= 32 && staffLockGaps * 2 >= staffLocks.count else { return }
    staffLocks.removeAll { $0.slot < 0 }
    staffLockGaps = 0
    for (k, l) in staffLocks.enumerated() { staffLockPlace[l.slot] = Int32(k) }
  }

  /// A host's or admin's app sent `unlockSeat` for `seat` of `room` (`sent`), or saw it fail
  /// (`sent` false). While an unlock is on its way (held in the network, queued at the server),
  /// the app has done its part; after a failure it has `seats.lockLimit` again to send another.
  public mutating func observeUnlock(room: UInt32, seat: Int, sent: Bool, at now: SimInstant) {
    let i = Int(staffLockPlace[seatBase[Int(room)] + seat])
    guard i >= 0 else { return }
    staffLocks[i].unlocking = max(0, staffLocks[i].unlocking + (sent ? 1 : -1))
    if !sent { staffLocks[i].sinceNs = now.nanoseconds }
  }

  /// `seat.lock-released`: every guest seat a host or admin has kept locked with nobody on it for
  /// longer than `seats.lockLimit` is reported once, with the lock's age. A locker whose SDK is
  /// logged out or out of its room cannot unlock: its clock starts again when it is back.
  public mutating func checkLocks(seats: SeatService, runtime: ClientRuntime, at now: SimInstant) {
    guard let limit = lockLimitNs, staffLocks.count > staffLockGaps else { return }
    for i in staffLocks.indices where staffLocks[i].slot >= 0 && !staffLocks[i].reported && staffLocks[i].unlocking == 0
    {
      let l = staffLocks[i]
      let locker = runtime.clients[Int(l.by)]
      if !locker.loggedIn || locker.joinedRoom == 0 {
        staffLocks[i].sinceNs = now.nanoseconds
        continue
      }
      let age = now.nanoseconds - l.sinceNs
      guard age > limit, seats.isLocked(room: l.room, seat: l.seat), seats.occupant(room: l.room, seat: l.seat) == nil
      else { continue }
      staffLocks[i].reported = true
      log.record(
        .lockReleased, at: now, entities: ["room:\(l.room)", "user:\(l.by)"],
        "seat \(l.seat) of room \(l.room) has stayed locked with nobody on it for \(Checker.spell(ns: age)) since user "
          + "\(l.by) locked it (or last saw an unlock fail), and no unlock is on its way (seats.lockLimit \(Checker.spell(ns: limit)))"
      )
    }
  }

  /// A seat changed: check the grant, then the whole room.
  public mutating func observe(_ change: SeatChange, seats: SeatService, at now: SimInstant) {
    if change.seated && change.grant == nil {
      log.record(
        .requiresGrant, at: now, entities: ["room:\(change.room)", "user:\(change.user)"],
        "user \(change.user) was seated on seat \(change.seat) of room \(change.room) without an accept, an accepted invitation, a free take or a move"
      )
    }
    observeRoom(change.room, seats: seats, at: now)
  }

  /// Checks occupancy, capacity and locks of `room`. O(seats of the room).
  public mutating func observeRoom(_ room: UInt32, seats: SeatService, at now: SimInstant) {
    let s = seats.settings[Int(room)]
    var occupied = 0
    for i in 0..<s.seatCount {
      guard let user = seats.occupant(room: room, seat: i) else { continue }
      if i < s.firstGuestSeat {
        // The owner's seat: nobody else sits there.
        if seats.role(of: user) != .owner {
          log.record(
            .singleOccupancy, at: now, entities: ["room:\(room)", "user:\(user)"],
            "user \(user) occupies seat \(i) of room \(room), the owner's seat")
        }
      } else {
        occupied += 1
      }
      if seats.seat(of: user) != i || seats.room(of: user) != room {
        log.record(
          .singleOccupancy, at: now, entities: ["room:\(room)", "user:\(user)"],
          "user \(user) occupies seat \(i) of room \(room) but its own seat is \(seats.seat(of: user).map(String.init) ?? "none")"
        )
      }
      let slot = seatBase[Int(room)] + i
      if seats.isLocked(room: room, seat: i) && lockedOccupant[slot] != user + 1 {
        log.record(
          .lockedNoNewcomer, at: now, entities: ["room:\(room)", "user:\(user)"],
          "user \(user) sits on locked seat \(i) of room \(room)")
      }
    }
    let connected = Int(seats.connectedCount[Int(room)])
    if occupied > seats.usableSeats(room: room) || connected > s.packageLimit || connected != occupied {
      log.record(
        .capacity, at: now, entities: ["room:\(room)"],
        "room \(room) has \(occupied) occupied seats (\(seats.usableSeats(room: room)) usable, package limit \(s.packageLimit), \(seats.connectedCount[Int(room)]) counted connected)"
      )
    }
  }
}

extension Checker {
  /// A duration as messages print it: `45.0 s`, `5 min 12 s`, `1 h 3 min`.
  static func spell(ns: Int64) -> String {
    if ns < 60_000_000_000 {
      let tenths = (ns + 50_000_000) / 100_000_000
      return "\(tenths / 10).\(tenths % 10) s"
    }
    let total = Int(ns / 1_000_000_000)
    if total < 3600 { return "\(total / 60) min \(total % 60) s" }
    return "\(total / 3600) h \(total % 3600 / 60) min"
  }
}
