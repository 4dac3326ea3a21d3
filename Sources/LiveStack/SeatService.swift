import SimKernel

/// How guests get onto seats in a room.
public enum SeatMode: String, Sendable, Codable, CaseIterable {
  /// Anyone in the room may take a free seat directly.
  case free
  /// Taking a seat needs a host's approval of an application.
  case apply
}

/// The fixed settings of one room.
public struct RoomSettings: Hashable, Sendable {
  /// How many seats the room has (the owner's seat excluded).
  public var maxSeatCount: Int
  /// How many co-guests may be connected at once under the plan.
  public var packageLimit: Int
  /// Free or apply mode.
  public var seatMode: SeatMode

  /// Creates room settings.
  public init(maxSeatCount: Int, packageLimit: Int, seatMode: SeatMode) {
    precondition(maxSeatCount >= 0 && packageLimit >= 0, "seat counts must not be negative")
    self.maxSeatCount = maxSeatCount
    self.packageLimit = packageLimit
    self.seatMode = seatMode
  }
}

/// Where a co-guest request is in its life. Every request ends in exactly one terminal state.
public enum RequestState: UInt8, Sendable, Codable, CaseIterable {
  /// Waiting for an answer.
  case pending
  /// Accepted: the guest was given a seat.
  case accepted
  /// Rejected by a host.
  case rejected
  /// Cancelled by the applicant (or because the applicant left).
  case cancelled
  /// Nobody answered within the timeout.
  case timedOut
  /// Ended by an error (the applicant left the room before the answer, for example).
  case failed

  /// Whether the request has ended.
  public var isTerminal: Bool { self != .pending }
}

/// One co-guest application.
public struct SeatRequest: Sendable {
  /// The room it was filed in.
  public var room: UInt32
  /// The applicant.
  public var user: UInt32
  /// The seat asked for, or -1 for any.
  public var seatIndex: Int16
  /// Its state.
  public var state: RequestState
  /// When the server registered it.
  public var createdAt: SimInstant
  /// When it ended (meaningful once terminal).
  public var endedAt: SimInstant
  /// The host that accepted or rejected it, if any.
  public var processedBy: UInt32?
}

/// The server side of live seats: rooms, seats, locks and co-guest applications.
///
/// All state lives in arrays indexed by dense IDs (users, rooms, requests, seats), so a million
/// users cost a few dozen bytes each and nothing depends on hash order.
public struct SeatService: Sendable {
  /// Per-room settings.
  public private(set) var settings: [RoomSettings]
  /// Index of each room's first seat in the flat seat arrays.
  var seatBase: [Int]
  /// Seat occupant as user ID + 1 (0 = empty), flat across rooms.
  var seatOccupant: [UInt32]
  /// Whether each seat is locked, flat across rooms.
  var seatLocked: [Bool]
  /// Connected co-guests per room.
  public private(set) var connectedCount: [Int32]
  /// The room each user is in, as room ID + 1 (0 = none).
  var userRoom: [UInt32]
  /// The seat index each user sits on, or -1.
  var userSeat: [Int16]
  /// Each user's pending request as request ID + 1 (0 = none).
  var userPending: [UInt32]
  /// Every request ever filed, by ID.
  public private(set) var requests: [SeatRequest] = []

  /// Creates the service for `rooms` rooms and `userCount` users, all outside any room.
  public init(rooms: [RoomSettings], userCount: Int) {
    settings = rooms
    var base: [Int] = []
    var total = 0
    for room in rooms {
      base.append(total)
      total += room.maxSeatCount
    }
    seatBase = base
    seatOccupant = [UInt32](repeating: 0, count: total)
    seatLocked = [Bool](repeating: false, count: total)
    connectedCount = [Int32](repeating: 0, count: rooms.count)
    userRoom = [UInt32](repeating: 0, count: userCount)
    userSeat = [Int16](repeating: -1, count: userCount)
    userPending = [UInt32](repeating: 0, count: userCount)
  }

  // MARK: - Queries

  /// The room `user` is in, if any.
  public func room(of user: UInt32) -> UInt32? {
    let r = userRoom[Int(user)]
    return r == 0 ? nil : r - 1
  }

  /// The seat `user` sits on, if any.
  public func seat(of user: UInt32) -> Int? {
    let s = userSeat[Int(user)]
    return s < 0 ? nil : Int(s)
  }

  /// The user on seat `index` of `room`, if any.
  public func occupant(room: UInt32, seat index: Int) -> UInt32? {
    let o = seatOccupant[seatBase[Int(room)] + index]
    return o == 0 ? nil : o - 1
  }

  /// Whether seat `index` of `room` is locked.
  public func isLocked(room: UInt32, seat index: Int) -> Bool { seatLocked[seatBase[Int(room)] + index] }

  /// The pending request of `user`, if any.
  public func pendingRequest(of user: UInt32) -> UInt32? {
    let r = userPending[Int(user)]
    return r == 0 ? nil : r - 1
  }

  /// How many seats of `room` are occupied.
  public func occupiedSeats(room: UInt32) -> Int {
    let base = seatBase[Int(room)]
    var n = 0
    for i in 0..<settings[Int(room)].maxSeatCount where seatOccupant[base + i] != 0 { n += 1 }
    return n
  }

  // MARK: - Room membership

  /// Puts `user` into `room`. Fails with `.refused` if the user is already in a room.
  public mutating func join(user: UInt32, room: UInt32) -> SeatError? {
    guard userRoom[Int(user)] == 0 else { return .refused }
    userRoom[Int(user)] = room + 1
    return nil
  }

  /// Takes `user` out of its room: a pending request is cancelled and a seat is vacated.
  /// Returns the cancelled request, if there was one.
  @discardableResult
  public mutating func leave(user: UInt32, now: SimInstant) -> (cancelled: UInt32?, vacatedSeat: Int?) {
    var cancelled: UInt32?
    if let r = pendingRequest(of: user) {
      end(request: r, as: .cancelled, by: nil, now: now)
      cancelled = r
    }
    let seat = self.seat(of: user)
    if seat != nil { _ = leaveSeat(user: user) }
    userRoom[Int(user)] = 0
    return (cancelled, seat)
  }

  // MARK: - Applications

  /// Files an application from `user` for seat `seatIndex` (-1: any seat).
  ///
  /// Checks, in order: in the room (-2101), not seated (100203), no pending request (100202), the
  /// seat exists (-2344), the package limit (-2340), then the seat itself: locked (100200), occupied
  /// (100201), or no free unlocked seat at all (100205).
  public mutating func apply(user: UInt32, seatIndex: Int, now: SimInstant) -> Result<UInt32, SeatError> {
    guard let room = room(of: user) else { return .failure(.notInRoom) }
    if seat(of: user) != nil { return .failure(.alreadyOnSeat) }
    if pendingRequest(of: user) != nil { return .failure(.alreadyInQueue) }
    if let error = seatAvailabilityError(room: room, seatIndex: seatIndex) { return .failure(error) }
    let id = UInt32(requests.count)
    requests.append(
      SeatRequest(
        room: room, user: user, seatIndex: Int16(seatIndex), state: .pending, createdAt: now, endedAt: now,
        processedBy: nil))
    userPending[Int(user)] = id + 1
    return .success(id)
  }

  /// Why a guest could not be seated in `room` right now, or `nil` if a seat is available.
  public func seatAvailabilityError(room: UInt32, seatIndex: Int) -> SeatError? {
    let s = settings[Int(room)]
    if seatIndex < -1 || seatIndex >= s.maxSeatCount { return .seatIndexNotExist }
    if Int(connectedCount[Int(room)]) >= s.packageLimit { return .seatLimitExceeded }
    if seatIndex >= 0 {
      if isLocked(room: room, seat: seatIndex) { return .seatLocked }
      if occupant(room: room, seat: seatIndex) != nil { return .seatOccupied }
      return nil
    }
    return freeSeat(room: room) == nil ? .allSeatsTaken : nil
  }

  /// The lowest free, unlocked seat of `room`.
  public func freeSeat(room: UInt32) -> Int? {
    let base = seatBase[Int(room)]
    for i in 0..<settings[Int(room)].maxSeatCount where seatOccupant[base + i] == 0 && !seatLocked[base + i] {
      return i
    }
    return nil
  }

  /// A host accepts request `id`: the applicant takes the asked-for seat (or the lowest free one).
  ///
  /// Fails with -2311 if the request already ended; with the seat errors if no seat can be given
  /// now, in which case the request stays pending.
  public mutating func accept(request id: UInt32, by host: UInt32, now: SimInstant) -> Result<Int, SeatError> {
    let r = requests[Int(id)]
    guard r.state == .pending else { return .failure(.alreadyProcessed) }
    if let error = seatAvailabilityError(room: r.room, seatIndex: Int(r.seatIndex)) { return .failure(error) }
    let seat = r.seatIndex >= 0 ? Int(r.seatIndex) : freeSeat(room: r.room)!
    end(request: id, as: .accepted, by: host, now: now)
    place(user: r.user, room: r.room, seat: seat)
    return .success(seat)
  }

  /// A host rejects request `id`. Fails with -2311 if it already ended.
  public mutating func reject(request id: UInt32, by host: UInt32, now: SimInstant) -> SeatError? {
    guard requests[Int(id)].state == .pending else { return .alreadyProcessed }
    end(request: id, as: .rejected, by: host, now: now)
    return nil
  }

  /// The applicant cancels request `id`. Fails with -2311 if it already ended (an accept won).
  public mutating func cancel(request id: UInt32, now: SimInstant) -> SeatError? {
    guard requests[Int(id)].state == .pending else { return .alreadyProcessed }
    end(request: id, as: .cancelled, by: nil, now: now)
    return nil
  }

  /// The request's timeout fired. Returns whether it was still pending (and is now timed out).
  public mutating func timeOut(request id: UInt32, now: SimInstant) -> Bool {
    guard requests[Int(id)].state == .pending else { return false }
    end(request: id, as: .timedOut, by: nil, now: now)
    return true
  }

  mutating func end(request id: UInt32, as state: RequestState, by host: UInt32?, now: SimInstant) {
    precondition(state.isTerminal, "a request can only end in a terminal state")
    precondition(requests[Int(id)].state == .pending, "request \(id) already ended")
    requests[Int(id)].state = state
    requests[Int(id)].endedAt = now
    requests[Int(id)].processedBy = host
    let user = requests[Int(id)].user
    if userPending[Int(user)] == id + 1 { userPending[Int(user)] = 0 }
  }

  // MARK: - Seats

  mutating func place(user: UInt32, room: UInt32, seat: Int) {
    let slot = seatBase[Int(room)] + seat
    precondition(seatOccupant[slot] == 0, "seat \(seat) of room \(room) is occupied")
    precondition(userSeat[Int(user)] < 0, "user \(user) is already seated")
    seatOccupant[slot] = user + 1
    userSeat[Int(user)] = Int16(seat)
    connectedCount[Int(room)] += 1
  }

  /// Takes a seat directly (free mode). Same checks as an application, then the seat is taken.
  public mutating func takeSeat(user: UInt32, seatIndex: Int) -> Result<Int, SeatError> {
    guard let room = room(of: user) else { return .failure(.notInRoom) }
    if seat(of: user) != nil { return .failure(.alreadyOnSeat) }
    if let error = seatAvailabilityError(room: room, seatIndex: seatIndex) { return .failure(error) }
    let seat = seatIndex >= 0 ? seatIndex : freeSeat(room: room)!
    place(user: user, room: room, seat: seat)
    return .success(seat)
  }

  /// `user` leaves its seat. Fails with 100206 if not seated.
  public mutating func leaveSeat(user: UInt32) -> Result<Int, SeatError> {
    guard let seat = seat(of: user), let room = room(of: user) else { return .failure(.notOnSeat) }
    seatOccupant[seatBase[Int(room)] + seat] = 0
    userSeat[Int(user)] = -1
    connectedCount[Int(room)] -= 1
    return .success(seat)
  }

  /// Locks or unlocks seat `index` of `room`. A locked seat keeps its occupant but takes no one new.
  public mutating func setLocked(room: UInt32, seat index: Int, _ locked: Bool) -> SeatError? {
    guard index >= 0, index < settings[Int(room)].maxSeatCount else { return .seatIndexNotExist }
    seatLocked[seatBase[Int(room)] + index] = locked
    return nil
  }
}
