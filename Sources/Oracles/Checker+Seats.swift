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
