import Testing

@testable import LiveStack
@testable import SimKernel

/// The error of a failed result, or `nil` on success.
func failure<T>(_ result: Result<T, SeatError>) -> SeatError? {
  if case .failure(let e) = result { return e }
  return nil
}

@Suite struct SeatServiceTests {
  let t0 = SimInstant.zero

  /// One room with `seats` seats and `limit` package limit; users 0..<users, all in the room.
  func service(seats: Int = 3, limit: Int = 2, users: Int = 6) -> SeatService {
    var s = SeatService(
      rooms: [RoomSettings(maxSeatCount: seats, packageLimit: limit, seatMode: .apply)], userCount: users)
    for u in 0..<UInt32(users) { #expect(s.join(user: u, room: 0) == nil) }
    return s
  }

  @Test func anAcceptedApplicationSeatsTheGuestOnTheLowestFreeSeat() throws {
    var s = service()
    let r = try s.apply(user: 1, seatIndex: -1, now: t0).get()
    #expect(s.pendingRequest(of: 1) == r)
    #expect(try s.accept(request: r, by: 0, now: t0).get() == 0)
    #expect(s.seat(of: 1) == 0)
    #expect(s.occupant(room: 0, seat: 0) == 1)
    #expect(s.requests[Int(r)].state == .accepted)
    #expect(s.requests[Int(r)].processedBy == 0)
    #expect(s.pendingRequest(of: 1) == nil)
  }

  @Test func applicationErrorsCarryTheSDKCodes() throws {
    var s = service(seats: 3, limit: 2, users: 8)
    #expect(s.leave(user: 7, now: t0).cancelled == nil)
    #expect(failure(s.apply(user: 7, seatIndex: -1, now: t0)) == .notInRoom)
    #expect(failure(s.apply(user: 1, seatIndex: 3, now: t0)) == .seatIndexNotExist)
    let r = try s.apply(user: 1, seatIndex: -1, now: t0).get()
    #expect(failure(s.apply(user: 1, seatIndex: -1, now: t0)) == .alreadyInQueue)
    _ = try s.accept(request: r, by: 0, now: t0).get()
    #expect(failure(s.apply(user: 1, seatIndex: -1, now: t0)) == .alreadyOnSeat)
    #expect(failure(s.apply(user: 2, seatIndex: 0, now: t0)) == .seatOccupied)
    #expect(s.setLocked(room: 0, seat: 1, true) == nil)
    #expect(failure(s.apply(user: 2, seatIndex: 1, now: t0)) == .seatLocked)
    _ = try s.takeSeat(user: 3, seatIndex: 2).get()
    // Two connected = the package limit: -2340, not "all taken", although seat 1 is only locked.
    #expect(failure(s.apply(user: 2, seatIndex: -1, now: t0)) == .seatLimitExceeded)
    #expect(s.setLocked(room: 0, seat: 9, true) == .seatIndexNotExist)
  }

  @Test func allSeatsTakenIsDistinctFromThePackageLimit() throws {
    var s = service(seats: 2, limit: 2, users: 5)
    #expect(s.setLocked(room: 0, seat: 1, true) == nil)
    _ = try s.takeSeat(user: 1, seatIndex: -1).get()
    // One connected, limit two: the plan allows more, but no free unlocked seat is left.
    #expect(failure(s.apply(user: 2, seatIndex: -1, now: t0)) == .allSeatsTaken)
  }

  @Test func theSecondHostToAcceptGetsAlreadyProcessed() throws {
    var s = service()
    let r = try s.apply(user: 1, seatIndex: -1, now: t0).get()
    _ = try s.accept(request: r, by: 0, now: t0).get()
    #expect(failure(s.accept(request: r, by: 5, now: t0)) == .alreadyProcessed)
    #expect(s.reject(request: r, by: 5, now: t0) == .alreadyProcessed)
    #expect(s.connectedCount[0] == 1)
  }

  @Test func aCancelThatLosesTheRaceToAnAcceptFails() throws {
    var s = service()
    let r = try s.apply(user: 1, seatIndex: -1, now: t0).get()
    _ = try s.accept(request: r, by: 0, now: t0).get()
    #expect(s.cancel(request: r, now: t0) == .alreadyProcessed)
    #expect(s.requests[Int(r)].state == .accepted)
  }

  @Test func aSeatLockedBetweenApplyAndAcceptFailsTheAcceptAndKeepsTheRequestPending() throws {
    var s = service()
    let r = try s.apply(user: 1, seatIndex: 2, now: t0).get()
    #expect(s.setLocked(room: 0, seat: 2, true) == nil)
    #expect(failure(s.accept(request: r, by: 0, now: t0)) == .seatLocked)
    #expect(s.requests[Int(r)].state == .pending)
    let first = s.timeOut(request: r, now: SimInstant(nanoseconds: 5))
    #expect(first)
    #expect(s.requests[Int(r)].state == .timedOut)
    let second = s.timeOut(request: r, now: SimInstant(nanoseconds: 6))
    #expect(!second)
  }

  @Test func leavingTheRoomCancelsThePendingRequestAndVacatesTheSeat() throws {
    var s = service()
    let r = try s.apply(user: 1, seatIndex: -1, now: t0).get()
    #expect(s.leave(user: 1, now: t0).cancelled == r)
    #expect(s.requests[Int(r)].state == .cancelled)
    _ = try s.takeSeat(user: 2, seatIndex: 1).get()
    #expect(s.leave(user: 2, now: t0).vacatedSeat == 1)
    #expect(s.occupiedSeats(room: 0) == 0)
    #expect(s.connectedCount[0] == 0)
    #expect(failure(s.leaveSeat(user: 2)) == .notOnSeat)
  }

  @Test func everyRequestEndsExactlyOnce() throws {
    var s = service(seats: 4, limit: 4, users: 40)
    var rng = Xoshiro256(seed: 17)
    for step in 0..<2_000 {
      let user = UInt32(1 + rng.next(below: 39))
      switch rng.next(below: 6) {
      case 0: _ = s.apply(user: user, seatIndex: -1, now: SimInstant(nanoseconds: Int64(step)))
      case 1: if let r = s.pendingRequest(of: user) { _ = s.accept(request: r, by: 0, now: t0) }
      case 2: if let r = s.pendingRequest(of: user) { _ = s.reject(request: r, by: 0, now: t0) }
      case 3: if let r = s.pendingRequest(of: user) { _ = s.cancel(request: r, now: t0) }
      case 4: _ = s.leaveSeat(user: user)
      default: if let r = s.pendingRequest(of: user) { _ = s.timeOut(request: r, now: t0) }
      }
      #expect(s.occupiedSeats(room: 0) == Int(s.connectedCount[0]))
      #expect(s.connectedCount[0] <= 4)
    }
    // Pending requests are exactly those some user still points at.
    let pending = s.requests.indices.filter { s.requests[$0].state == .pending }
    let pointedAt = (0..<40).compactMap { s.pendingRequest(of: UInt32($0)) }.map(Int.init).sorted()
    #expect(pending == pointedAt)
  }
}
