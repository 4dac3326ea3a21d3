import SimKernel

/// The server side of live seats: rooms, seats, locks, co-hosting, applications and invitations.
///
/// All state lives in arrays indexed by dense IDs (users, rooms, requests, seats), so a million
/// users cost a few dozen bytes each and nothing depends on hash order. Every mutation of a seat
/// is appended to ``changes`` and every request that ends to ``ended``; the owner of the service
/// drains both after each operation to notify observers.
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
  /// Whether each room's live is on (it ends with `endLive`).
  public private(set) var roomOpen: [Bool]
  /// Each room's co-hosting partner as room ID + 1 (0 = none).
  var coHostPartner: [UInt32]
  /// The room each user is in, as room ID + 1 (0 = none).
  @usableFromInline var userRoom: [UInt32]
  /// How many users (staff and audience) are in each room: the recipients of its broadcasts.
  public private(set) var memberCount: [Int32]
  /// Each user's role in its room.
  @usableFromInline var userRole: [RoomRole]
  /// The seat index each user sits on, or -1.
  @usableFromInline var userSeat: [Int16]
  /// Each user's pending application as request ID + 1 (0 = none).
  @usableFromInline var userApplication: [UInt32]
  /// Each user's pending invitation as request ID + 1 (0 = none).
  var userInvitation: [UInt32]
  /// Every request ever filed, by ID.
  public private(set) var requests: [SeatRequest] = []
  /// Pending applications and invitations right now.
  public private(set) var pendingCount = 0
  /// Occupied seats across all rooms right now.
  public private(set) var occupiedTotal = 0
  /// Seat changes since the last ``drain()``.
  public private(set) var changes: ScratchList<SeatChange> = []
  /// Requests that ended since the last ``drain()``.
  public private(set) var ended: ScratchList<UInt32> = []

  /// Creates the service for `rooms` rooms, all live, and `userCount` users, all outside any room.
  public init(rooms: [RoomSettings], userCount: Int) {
    settings = rooms
    let (base, total) = flatSeats(rooms.map(\.seatCount))
    seatBase = base
    seatOccupant = [UInt32](repeating: 0, count: total)
    seatLocked = [Bool](repeating: false, count: total)
    connectedCount = [Int32](repeating: 0, count: rooms.count)
    roomOpen = [Bool](repeating: true, count: rooms.count)
    coHostPartner = [UInt32](repeating: 0, count: rooms.count)
    userRoom = [UInt32](table: 0, count: userCount)
    memberCount = [Int32](repeating: 0, count: rooms.count)
    userRole = [RoomRole](table: .audience, count: userCount)
    userSeat = [Int16](table: -1, count: userCount)
    userApplication = [UInt32](table: 0, count: userCount)
    userInvitation = [UInt32](table: 0, count: userCount)
  }

  /// Empties ``changes`` and ``ended`` (keeping their capacity).
  public mutating func drain() {
    changes.removeAll()
    ended.removeAll()
  }

  // MARK: - Queries

  /// Number of rooms.
  public var roomCount: Int { settings.count }

  /// The room `user` is in, if any.
  public func room(of user: UInt32) -> UInt32? {
    let r = userRoom[Int(user)]
    return r == 0 ? nil : r - 1
  }

  /// Whether `user` is in `room` (the room's messages reach it).
  public func isMember(_ user: UInt32, of room: UInt32) -> Bool { userRoom[Int(user)] == room &+ 1 }

  /// The role of `user` in its room (audience when outside any room).
  public func role(of user: UInt32) -> RoomRole { userRole[Int(user)] }

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
  /// Hints that `user`'s seat and pending application are about to be read.
  @inlinable @inline(__always)
  public func prefetchSeatState(of user: UInt32) {
    userSeat.prefetch(Int(user))
    userApplication.prefetch(Int(user))
  }

  /// The pending application of `user`, if any.
  public func pendingApplication(of user: UInt32) -> UInt32? {
    let r = userApplication[Int(user)]
    return r == 0 ? nil : r - 1
  }

  /// The pending invitation to `user`, if any.
  public func pendingInvitation(of user: UInt32) -> UInt32? {
    let r = userInvitation[Int(user)]
    return r == 0 ? nil : r - 1
  }

  /// How many guest seats of `room` are occupied (the owner's seat not counted).
  public func occupiedSeats(room: UInt32) -> Int {
    let base = seatBase[Int(room)]
    let s = settings[Int(room)]
    var n = 0
    for i in s.firstGuestSeat..<s.seatCount where seatOccupant[base + i] != 0 { n += 1 }
    return n
  }

  /// The room `room` co-hosts with, if any.
  public func coHostPartner(of room: UInt32) -> UInt32? {
    let p = coHostPartner[Int(room)]
    return p == 0 ? nil : p - 1
  }

  /// Guest seats of `room` that can be used now: all of them, or the co-host limit while co-hosting.
  public func usableSeats(room: UInt32) -> Int {
    let s = settings[Int(room)]
    return coHostPartner[Int(room)] == 0 ? s.maxSeatCount : min(s.maxSeatCount, s.coHostSeatLimit)
  }

  /// One past the last seat index of `room` usable now (the owner's seat and the usable guest seats).
  public func usableSeatEnd(room: UInt32) -> Int { settings[Int(room)].firstGuestSeat + usableSeats(room: room) }

  // MARK: - Room membership

  /// Puts `user` into `room` with `role`. Fails with -2100 if the live ended, -3 if the user is in
  /// another room. Joining the room one is already in (a rejoin, say after the app restarted
  /// without leaving) succeeds and keeps the seat and any pending request.
  public mutating func join(user: UInt32, room: UInt32, role: RoomRole = .audience) -> SeatError? {
    guard roomOpen[Int(room)] else { return .roomNotExist }
    if userRoom[Int(user)] == room + 1 {
      if userRole[Int(user)] == .owner { takeOwnSeat(owner: user, room: room) }
      return nil
    }
    guard userRoom[Int(user)] == 0 else { return .refused }
    userRoom[Int(user)] = room + 1
    userRole[Int(user)] = role
    memberCount[Int(room)] += 1
    if role == .owner { takeOwnSeat(owner: user, room: room) }
    return nil
  }

  /// The owner, entering its live, takes its own seat (seat 0) if the room has one for it and it is
  /// free and unlocked, as the SDK's host does when the live starts.
  mutating func takeOwnSeat(owner: UInt32, room: UInt32) {
    guard settings[Int(room)].ownerSeat, seat(of: owner) == nil, occupant(room: room, seat: 0) == nil,
      !isLocked(room: room, seat: 0)
    else { return }
    place(user: owner, room: room, seat: 0, grant: .owner)
  }

  /// Takes `user` out of its room: its pending application and an invitation to it fail (`left`),
  /// and its seat is vacated. (Invitations it sent as staff stay pending: they end when answered,
  /// cancelled or timed out.) Fails with -2101 if the user is in no room.
  public mutating func leave(user: UInt32, now: SimInstant) -> SeatError? {
    guard room(of: user) != nil else { return .notInRoom }
    if let r = pendingApplication(of: user) { end(request: r, as: .failed, failure: .left, by: nil, now: now) }
    if let r = pendingInvitation(of: user) { end(request: r, as: .failed, failure: .left, by: nil, now: now) }
    if let s = seat(of: user) { vacate(room: room(of: user)!, seat: s, removedBy: nil) }
    memberCount[Int(userRoom[Int(user)] - 1)] -= 1
    userRoom[Int(user)] = 0
    userRole[Int(user)] = .audience
    return nil
  }

  /// Ends the live of `room` (owner only): every guest is removed, every pending request fails,
  /// and later joins get -2100. Fails with -3 unless `user` owns the room.
  public mutating func endLive(user: UInt32, now: SimInstant) -> SeatError? {
    guard let room = room(of: user) else { return .notInRoom }
    guard userRole[Int(user)] == .owner else { return .refused }
    roomOpen[Int(room)] = false
    if coHostPartner[Int(room)] != 0 { disconnectCoHost(room: room) }
    for i in 0..<settings[Int(room)].seatCount where occupant(room: room, seat: i) != nil {
      vacate(room: room, seat: i, removedBy: .max)
    }
    // Pending requests of this room: scan from the newest; only pending ones matter.
    for id in requests.indices.reversed() where requests[id].room == room && requests[id].state == .pending {
      end(request: UInt32(id), as: .failed, failure: .liveEnded, by: nil, now: now)
    }
    return nil
  }

  // MARK: - Applications

  /// Files an application from `user` for seat `seatIndex` (-1: any seat).
  ///
  /// Checks, in order: logged-in room membership (-2101), the room's live (-2100), co-hosting
  /// (-3), not seated (100203), no pending application (100202), then seat availability.
  public mutating func apply(user: UInt32, seatIndex: Int, now: SimInstant) -> Result<UInt32, SeatError> {
    guard let room = room(of: user) else { return .failure(.notInRoom) }
    guard roomOpen[Int(room)] else { return .failure(.roomNotExist) }
    if coHostPartner[Int(room)] != 0 { return .failure(.refused) }
    if seat(of: user) != nil { return .failure(.alreadyOnSeat) }
    if pendingApplication(of: user) != nil { return .failure(.alreadyInQueue) }
    if let error = seatAvailabilityError(room: room, seatIndex: seatIndex) { return .failure(error) }
    let id = file(.application, room: room, guest: user, host: .max, seatIndex: seatIndex, now: now)
    userApplication[Int(user)] = id + 1
    return .success(id)
  }

  /// Why a guest could not be seated in `room` right now, or `nil` if a seat is available.
  ///
  /// Checks, in order: the seat exists (-2344), the package limit (-2340), then the seat itself:
  /// the owner's (100201, whether or not the owner sits on it), locked (100200), occupied
  /// (100201), or no free unlocked seat at all (100205).
  public func seatAvailabilityError(room: UInt32, seatIndex: Int) -> SeatError? {
    let s = settings[Int(room)]
    if seatIndex < -1 || seatIndex >= usableSeatEnd(room: room) { return .seatIndexNotExist }
    if Int(connectedCount[Int(room)]) >= s.packageLimit { return .seatLimitExceeded }
    if seatIndex >= 0 && seatIndex < s.firstGuestSeat { return .seatOccupied }
    if seatIndex >= 0 {
      if isLocked(room: room, seat: seatIndex) { return .seatLocked }
      if occupant(room: room, seat: seatIndex) != nil { return .seatOccupied }
      return nil
    }
    return freeSeat(room: room) == nil ? .allSeatsTaken : nil
  }

  /// The lowest free, unlocked, usable guest seat of `room`.
  public func freeSeat(room: UInt32) -> Int? {
    let base = seatBase[Int(room)]
    for i in settings[Int(room)].firstGuestSeat..<usableSeatEnd(room: room)
    where seatOccupant[base + i] == 0 && !seatLocked[base + i] {
      return i
    }
    return nil
  }

  /// Host or admin `host` accepts `guest`'s pending application: the guest takes the asked-for seat
  /// (or the lowest free one), and any invitation to the guest fails as `alreadySeated`.
  ///
  /// Fails with -3 unless `host` is staff of the guest's room, -2311 if the guest has no pending
  /// application there (another host processed it, or it ended), or a seat error if no seat can be
  /// given now (the application then stays pending).
  public mutating func acceptApplication(guest: UInt32, by host: UInt32, now: SimInstant) -> Result<Int, SeatError> {
    guard let room = room(of: host), userRole[Int(host)].isStaff else { return .failure(.refused) }
    guard let id = pendingApplication(of: guest), requests[Int(id)].room == room else {
      return .failure(.alreadyProcessed)
    }
    let r = requests[Int(id)]
    if let error = seatAvailabilityError(room: room, seatIndex: Int(r.seatIndex)) { return .failure(error) }
    let seat = r.seatIndex >= 0 ? Int(r.seatIndex) : freeSeat(room: room)!
    end(request: id, as: .accepted, failure: .none, by: host, now: now)
    seatGranted(guest: guest, room: room, seat: seat, grant: .acceptedApplication, now: now)
    return .success(seat)
  }

  /// Host or admin `host` rejects `guest`'s pending application. Fails with -3 unless staff, -2311 if
  /// there is none.
  public mutating func rejectApplication(guest: UInt32, by host: UInt32, now: SimInstant) -> SeatError? {
    guard let room = room(of: host), userRole[Int(host)].isStaff else { return .refused }
    guard let id = pendingApplication(of: guest), requests[Int(id)].room == room else { return .alreadyProcessed }
    end(request: id, as: .rejected, failure: .none, by: host, now: now)
    return nil
  }

  /// `user` withdraws its application. Fails with -2311 if it has none (an accept may have won).
  public mutating func cancelApplication(user: UInt32, now: SimInstant) -> SeatError? {
    guard let id = pendingApplication(of: user) else { return .alreadyProcessed }
    end(request: id, as: .cancelled, failure: .none, by: nil, now: now)
    return nil
  }

  // MARK: - Invitations

  /// Host or admin `host` invites `guest` to seat `seatIndex` (-1: any seat).
  ///
  /// Checks, in order: staff of a room (-3), the live (-2100), the guest in the same room (-2101),
  /// the guest not seated (100203), no pending invitation to the guest (100202), seat availability.
  public mutating func invite(guest: UInt32, by host: UInt32, seatIndex: Int, now: SimInstant) -> Result<
    UInt32, SeatError
  > {
    guard let room = room(of: host), userRole[Int(host)].isStaff else { return .failure(.refused) }
    guard roomOpen[Int(room)] else { return .failure(.roomNotExist) }
    guard self.room(of: guest) == room, !userRole[Int(guest)].isStaff else { return .failure(.notInRoom) }
    if seat(of: guest) != nil { return .failure(.alreadyOnSeat) }
    if pendingInvitation(of: guest) != nil { return .failure(.alreadyInQueue) }
    if let error = seatAvailabilityError(room: room, seatIndex: seatIndex) { return .failure(error) }
    let id = file(.invitation, room: room, guest: guest, host: host, seatIndex: seatIndex, now: now)
    userInvitation[Int(guest)] = id + 1
    return .success(id)
  }

  /// `host` withdraws its invitation to `guest`. Fails with -2311 if there is no pending invitation
  /// from `host` to `guest`.
  public mutating func cancelInvitation(guest: UInt32, by host: UInt32, now: SimInstant) -> SeatError? {
    guard let id = pendingInvitation(of: guest), requests[Int(id)].host == host else { return .alreadyProcessed }
    end(request: id, as: .cancelled, failure: .none, by: nil, now: now)
    return nil
  }

  /// `user` accepts the invitation from `inviter`: it takes the seat, and a pending application of
  /// its own fails as `alreadySeated`. Fails with -2311 if no pending invitation from `inviter`
  /// exists, or with a seat error (the invitation then stays pending).
  public mutating func acceptInvitation(user: UInt32, inviter: UInt32, now: SimInstant) -> Result<Int, SeatError> {
    guard let id = pendingInvitation(of: user), requests[Int(id)].host == inviter else {
      return .failure(.alreadyProcessed)
    }
    let r = requests[Int(id)]
    if seat(of: user) != nil { return .failure(.alreadyOnSeat) }
    if let error = seatAvailabilityError(room: r.room, seatIndex: Int(r.seatIndex)) { return .failure(error) }
    let seat = r.seatIndex >= 0 ? Int(r.seatIndex) : freeSeat(room: r.room)!
    end(request: id, as: .accepted, failure: .none, by: nil, now: now)
    seatGranted(guest: user, room: r.room, seat: seat, grant: .acceptedInvitation, now: now)
    return .success(seat)
  }

  /// `user` declines the invitation from `inviter`. Fails with -2311 if there is none.
  public mutating func rejectInvitation(user: UInt32, inviter: UInt32, now: SimInstant) -> SeatError? {
    guard let id = pendingInvitation(of: user), requests[Int(id)].host == inviter else { return .alreadyProcessed }
    end(request: id, as: .rejected, failure: .none, by: nil, now: now)
    return nil
  }

  /// The timeout of request `id` fired. Returns whether it was still pending (and is now timed out).
  public mutating func timeOut(request id: UInt32, now: SimInstant) -> Bool {
    guard requests[Int(id)].state == .pending else { return false }
    end(request: id, as: .timedOut, failure: .none, by: nil, now: now)
    return true
  }

  mutating func file(
    _ kind: RequestKind, room: UInt32, guest: UInt32, host: UInt32, seatIndex: Int, now: SimInstant
  ) -> UInt32 {
    precondition(requests.count < Int(UInt32.max - 1), "request IDs exhausted")
    let id = UInt32(requests.count)
    requests.append(
      SeatRequest(
        kind: kind, room: room, guest: guest, host: host, seatIndex: Int16(seatIndex), state: .pending,
        failure: .none, createdAt: now, endedAt: now))
    pendingCount += 1
    return id
  }

  mutating func end(
    request id: UInt32, as state: RequestState, failure: RequestFailure, by host: UInt32?, now: SimInstant
  ) {
    precondition(state.isTerminal, "a request can only end in a terminal state")
    precondition(requests[Int(id)].state == .pending, "request \(id) already ended")
    requests[Int(id)].state = state
    requests[Int(id)].failure = failure
    requests[Int(id)].endedAt = now
    if let host, requests[Int(id)].kind == .application { requests[Int(id)].host = host }
    let guest = Int(requests[Int(id)].guest)
    if userApplication[guest] == id + 1 { userApplication[guest] = 0 }
    if userInvitation[guest] == id + 1 { userInvitation[guest] = 0 }
    pendingCount -= 1
    ended.append(id)
  }

  // MARK: - Seats

  /// Seats `guest` after a grant and fails its other pending request as `alreadySeated`.
  mutating func seatGranted(guest: UInt32, room: UInt32, seat: Int, grant: SeatGrant, now: SimInstant) {
    place(user: guest, room: room, seat: seat, grant: grant)
    if let other = pendingApplication(of: guest) {
      end(request: other, as: .failed, failure: .alreadySeated, by: nil, now: now)
    }
    if let other = pendingInvitation(of: guest) {
      end(request: other, as: .failed, failure: .alreadySeated, by: nil, now: now)
    }
  }

  mutating func place(user: UInt32, room: UInt32, seat: Int, grant: SeatGrant) {
    let slot = seatBase[Int(room)] + seat
    precondition(seatOccupant[slot] == 0, "seat \(seat) of room \(room) is occupied")
    precondition(userSeat[Int(user)] < 0, "user \(user) is already seated")
    seatOccupant[slot] = user + 1
    userSeat[Int(user)] = Int16(seat)
    if seat >= settings[Int(room)].firstGuestSeat {
      connectedCount[Int(room)] += 1
      occupiedTotal += 1
    }
    changes.append(SeatChange(room: room, seat: Int16(seat), user: user, seated: true, grant: grant))
  }

  mutating func vacate(room: UInt32, seat: Int, removedBy: UInt32?) {
    let slot = seatBase[Int(room)] + seat
    precondition(seatOccupant[slot] != 0, "seat \(seat) of room \(room) is empty")
    let user = seatOccupant[slot] - 1
    seatOccupant[slot] = 0
    userSeat[Int(user)] = -1
    if seat >= settings[Int(room)].firstGuestSeat {
      connectedCount[Int(room)] -= 1
      occupiedTotal -= 1
    }
    changes.append(SeatChange(room: room, seat: Int16(seat), user: user, seated: false, removedBy: removedBy))
  }

  /// Takes a seat directly. Audience members may do so only in free mode (-3 otherwise); then the
  /// same checks as an application apply, and a pending application fails as `alreadySeated`. An
  /// owner whose room keeps seat 0 for it takes that seat back (-1 or 0; another index: -3).
  public mutating func takeSeat(user: UInt32, seatIndex: Int, now: SimInstant) -> Result<Int, SeatError> {
    guard let room = room(of: user) else { return .failure(.notInRoom) }
    guard roomOpen[Int(room)] else { return .failure(.roomNotExist) }
    if settings[Int(room)].seatMode == .apply && !userRole[Int(user)].isStaff { return .failure(.refused) }
    if seat(of: user) != nil { return .failure(.alreadyOnSeat) }
    if userRole[Int(user)] == .owner && settings[Int(room)].ownerSeat {
      guard seatIndex <= 0 else { return .failure(.refused) }
      if isLocked(room: room, seat: 0) { return .failure(.seatLocked) }
      if occupant(room: room, seat: 0) != nil { return .failure(.seatOccupied) }
      place(user: user, room: room, seat: 0, grant: .owner)
      return .success(0)
    }
    if let error = seatAvailabilityError(room: room, seatIndex: seatIndex) { return .failure(error) }
    let seat = seatIndex >= 0 ? seatIndex : freeSeat(room: room)!
    seatGranted(guest: user, room: room, seat: seat, grant: .freeTake, now: now)
    return .success(seat)
  }

  /// `user` leaves its own seat (`leaveSeat`, and `CoGuestStore.disConnect`). Fails with 100206 if
  /// not seated.
  public mutating func leaveSeat(user: UInt32) -> Result<Int, SeatError> {
    guard let seat = seat(of: user), let room = room(of: user) else { return .failure(.notOnSeat) }
    vacate(room: room, seat: seat, removedBy: nil)
    return .success(seat)
  }

  /// Host or admin `host` removes `guest` from its seat (`kickUserOutOfSeat`). Fails with -3 unless
  /// staff of the guest's room or if the "guest" is the owner, 100206 if the guest is not seated.
  public mutating func kick(guest: UInt32, by host: UInt32) -> Result<Int, SeatError> {
    guard let room = room(of: host), userRole[Int(host)].isStaff else { return .failure(.refused) }
    if userRole[Int(guest)] == .owner && self.room(of: guest) == room { return .failure(.refused) }
    guard self.room(of: guest) == room, let seat = seat(of: guest) else { return .failure(.notOnSeat) }
    vacate(room: room, seat: seat, removedBy: host)
    return .success(seat)
  }

  /// Moves seated `user` to seat `target` (`moveUserToSeat`). Staff may move anyone in their room;
  /// others only themselves (-3).
  ///
  /// Checks: not the owner on its own seat (-3), seated (100206), target exists (-2344), not the
  /// owner's seat (100201, whatever the policy), target locked (100200); an occupied target is
  /// handled by `policy`: fail with 100201, remove the occupant, or swap the two. Moving to one's own
  /// seat changes nothing and succeeds. A swap off a locked seat fails with 100200, since the other
  /// user would land on the locked seat.
  public mutating func move(user: UInt32, to target: Int, policy: MovePolicy, by actor: UInt32) -> Result<
    Int, SeatError
  > {
    guard let room = room(of: actor) else { return .failure(.notInRoom) }
    if actor != user && !userRole[Int(actor)].isStaff { return .failure(.refused) }
    guard self.room(of: user) == room, let from = seat(of: user) else { return .failure(.notOnSeat) }
    let firstGuest = settings[Int(room)].firstGuestSeat
    if from < firstGuest { return .failure(.refused) }
    guard target >= 0, target < usableSeatEnd(room: room) else { return .failure(.seatIndexNotExist) }
    if target < firstGuest { return .failure(.seatOccupied) }
    if target == from { return .success(target) }
    if isLocked(room: room, seat: target) { return .failure(.seatLocked) }
    if let other = occupant(room: room, seat: target) {
      switch policy {
      case .abortWhenOccupied:
        return .failure(.seatOccupied)
      case .forceReplace:
        vacate(room: room, seat: target, removedBy: actor)
        vacate(room: room, seat: from, removedBy: nil)
        place(user: user, room: room, seat: target, grant: .move)
      case .swapPosition:
        // The occupant would land on the user's seat: not if that seat is locked.
        if isLocked(room: room, seat: from) { return .failure(.seatLocked) }
        vacate(room: room, seat: target, removedBy: nil)
        vacate(room: room, seat: from, removedBy: nil)
        place(user: user, room: room, seat: target, grant: .move)
        place(user: other, room: room, seat: from, grant: .move)
      }
    } else {
      vacate(room: room, seat: from, removedBy: nil)
      place(user: user, room: room, seat: target, grant: .move)
    }
    return .success(target)
  }

  /// Locks or unlocks seat `index` of the room of staff member `host`. A locked seat keeps its
  /// occupant but takes no one new. Fails with -3 unless staff, -2344 for a bad index.
  public mutating func setLocked(seat index: Int, _ locked: Bool, by host: UInt32) -> SeatError? {
    guard let room = room(of: host), userRole[Int(host)].isStaff else { return .refused }
    return setLocked(room: room, seat: index, locked)
  }

  /// Locks or unlocks seat `index` of `room` directly (workloads that open seats use this).
  public mutating func setLocked(room: UInt32, seat index: Int, _ locked: Bool) -> SeatError? {
    guard index >= 0, index < settings[Int(room)].seatCount else { return .seatIndexNotExist }
    seatLocked[seatBase[Int(room)] + index] = locked
    return nil
  }

  // MARK: - Co-hosting

  /// Connects rooms `a` and `b` into one co-hosting session: each keeps only its first
  /// `coHostSeatLimit` seats, and guests beyond them are removed by the server. Fails with -3 if
  /// either room already co-hosts, is the same room or has ended.
  public mutating func connectCoHost(_ a: UInt32, _ b: UInt32) -> SeatError? {
    guard a != b, coHostPartner[Int(a)] == 0, coHostPartner[Int(b)] == 0, roomOpen[Int(a)], roomOpen[Int(b)] else {
      return .refused
    }
    coHostPartner[Int(a)] = b + 1
    coHostPartner[Int(b)] = a + 1
    for room in [a, b] {
      for i in usableSeatEnd(room: room)..<settings[Int(room)].seatCount where occupant(room: room, seat: i) != nil {
        vacate(room: room, seat: i, removedBy: .max)
      }
    }
    return nil
  }

  /// Ends the co-hosting session `room` is in (no-op if none).
  public mutating func disconnectCoHost(room: UInt32) {
    guard let partner = coHostPartner(of: room) else { return }
    coHostPartner[Int(room)] = 0
    coHostPartner[Int(partner)] = 0
  }
}

extension SeatService {
  /// Places `user` on seat `index` of `room` without any check or grant record: a deliberately
  /// broken server, for tests that plant a violation the checkers must catch.
  public mutating func _forcePlace(user: UInt32, room: UInt32, seat index: Int) {
    let slot = seatBase[Int(room)] + index
    seatOccupant[slot] = user + 1
    userSeat[Int(user)] = Int16(index)
    if index >= settings[Int(room)].firstGuestSeat {
      connectedCount[Int(room)] += 1
      occupiedTotal += 1
    }
    changes.append(SeatChange(room: room, seat: Int16(index), user: user, seated: true, grant: nil))
  }
}
