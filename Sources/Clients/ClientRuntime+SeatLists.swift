import LiveStack
import SimKernel

/// The seat lists the SDKs show.
extension ClientRuntime {
  /// The seat list (occupant + 1 per seat, 0 = empty) of the room `user`'s SDK is in, as that SDK
  /// shows it now: a host or admin's from its own deltas; an audience member's from room messaging,
  /// as it reached it, with its own seat as its own deltas say. Empty outside any room. `time`:
  /// when (by default, the event being handled).
  public func seatList(of user: UInt32, at time: SimInstant? = nil) -> [UInt32] {
    let c = clients[Int(user)]
    if c.staffSlot >= 0 { return seatView[Int(c.staffSlot)] }
    guard c.joinedRoom != 0 else { return [] }
    let room = c.joinedRoom - 1
    var list =
      feed?.view(room: room, viewer: user, now: time ?? now)
      ?? [UInt32](repeating: 0, count: rooms[Int(room)].seatCount)
    list.withUnsafeMutableBufferPointer { placeOwnSeat(of: user, seenSeat: c.seenSeat, in: $0) }
    return list
  }

  /// Which seats of the room `user`'s SDK is in it shows locked now (`SeatInfo.isLocked`): the
  /// room's locks as room messaging brought them to it, staff included. Empty outside any room,
  /// and when no seat of the room can show locked (the common case, which allocates nothing).
  public func seatLocks(of user: UInt32) -> [Bool] {
    let c = clients[Int(user)]
    guard c.joinedRoom != 0, let feed, feed.mayShowLocks(room: c.joinedRoom - 1) else { return [] }
    return feed.locks(room: c.joinedRoom - 1, viewer: user, now: now)
  }

  /// Puts `user` in `list` where its own messages put it (`seenSeat`), and nowhere else.
  func placeOwnSeat(of user: UInt32, seenSeat: Int16, in list: UnsafeMutableBufferPointer<UInt32>) {
    let me = user + 1
    for i in list.indices where list[i] == me && i != Int(seenSeat) { list[i] = 0 }
    if seenSeat >= 0 && Int(seenSeat) < list.count { list[Int(seenSeat)] = me }
  }

  /// Brings `list` in line with ``seatList(of:at:)`` now, in its own storage where it can (an SDK
  /// refreshing its state after every delivery allocates nothing); returns whether it changed.
  public func updateSeatList(of user: UInt32, _ list: inout [UInt32]) -> Bool {
    let c = clients[Int(user)]
    guard c.staffSlot < 0, c.joinedRoom != 0, let feed else {
      let new = seatList(of: user)
      if new == list { return false }
      list = new
      return true
    }
    let room = c.joinedRoom - 1
    let n = feed.seats(of: room)
    if seatScratch.count < n {
      seatScratch.deallocate()
      seatScratch = .allocate(capacity: n)
    }
    let view = UnsafeMutableBufferPointer(rebasing: seatScratch[0..<n])
    feed.view(room: room, viewer: user, now: now, into: view)
    placeOwnSeat(of: user, seenSeat: c.seenSeat, in: view)
    if list.count == n {
      let same = list.withUnsafeBufferPointer { old in
        for i in 0..<n where old[i] != view[i] { return false }
        return true
      }
      if same { return false }
      list.withUnsafeMutableBufferPointer { old in
        for i in 0..<n { old[i] = view[i] }
      }
    } else {
      list = Array(view)
    }
    return true
  }
}
