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

  /// One room with `seats` seats and `limit` package limit. User 0 owns it, user 1 is an admin,
  /// users 2..<users are audience members; everyone is in the room.
  func service(seats: Int = 3, limit: Int = 2, users: Int = 8, mode: SeatMode = .apply) -> SeatService {
    var s = SeatService(
      rooms: [RoomSettings(maxSeatCount: seats, packageLimit: limit, seatMode: mode)], userCount: users)
    #expect(s.join(user: 0, room: 0, role: .owner) == nil)
    #expect(s.join(user: 1, room: 0, role: .admin) == nil)
    for u in 2..<UInt32(users) { #expect(s.join(user: u, room: 0) == nil) }
    s.drain()
    return s
  }

  // MARK: Applications

  @Test func anAcceptedApplicationSeatsTheGuestOnTheLowestFreeSeat() throws {
    var s = service()
    let r = try s.apply(user: 2, seatIndex: -1, now: t0).get()
    #expect(s.pendingApplication(of: 2) == r)
    #expect(s.pendingCount == 1)
    #expect(try s.acceptApplication(guest: 2, by: 0, now: t0).get() == 0)
    #expect(s.seat(of: 2) == 0)
    #expect(s.occupant(room: 0, seat: 0) == 2)
    #expect(s.requests[Int(r)].state == .accepted)
    #expect(s.requests[Int(r)].processedBy == 0)
    #expect(s.pendingApplication(of: 2) == nil)
    #expect(s.pendingCount == 0)
    #expect(s.changes == [SeatChange(room: 0, seat: 0, user: 2, seated: true, grant: .acceptedApplication)])
    #expect(s.ended == [r])
  }

  @Test func applicationErrorsCarryTheSDKCodesInTheirDocumentedOrder() throws {
    var s = service(seats: 3, limit: 2, users: 9)
    #expect(s.leave(user: 8, now: t0) == nil)
    #expect(failure(s.apply(user: 8, seatIndex: -1, now: t0)) == .notInRoom)
    #expect(failure(s.apply(user: 2, seatIndex: 3, now: t0)) == .seatIndexNotExist)
    #expect(failure(s.apply(user: 2, seatIndex: -2, now: t0)) == .seatIndexNotExist)
    _ = try s.apply(user: 2, seatIndex: -1, now: t0).get()
    #expect(failure(s.apply(user: 2, seatIndex: -1, now: t0)) == .alreadyInQueue)
    _ = try s.acceptApplication(guest: 2, by: 0, now: t0).get()
    #expect(failure(s.apply(user: 2, seatIndex: -1, now: t0)) == .alreadyOnSeat)
    #expect(s.setLocked(seat: 1, true, by: 0) == nil)
    #expect(failure(s.apply(user: 3, seatIndex: 1, now: t0)) == .seatLocked)
    #expect(failure(s.apply(user: 3, seatIndex: 0, now: t0)) == .seatOccupied)
    _ = try s.apply(user: 3, seatIndex: 2, now: t0).get()
    _ = try s.acceptApplication(guest: 3, by: 0, now: t0).get()
    // Two guests connected: the package limit (2) comes before any seat check.
    #expect(failure(s.apply(user: 4, seatIndex: -1, now: t0)) == .seatLimitExceeded)
    #expect(failure(s.apply(user: 4, seatIndex: 1, now: t0)) == .seatLimitExceeded)
  }

  @Test func allSeatsTakenIsDistinctFromThePackageLimit() throws {
    var s = service(seats: 2, limit: 2)
    #expect(s.setLocked(seat: 0, true, by: 0) == nil)
    _ = try s.apply(user: 2, seatIndex: -1, now: t0).get()
    _ = try s.acceptApplication(guest: 2, by: 0, now: t0).get()
    // One guest of two allowed, but the only other seat is locked: all seats taken, not the limit.
    #expect(failure(s.apply(user: 3, seatIndex: -1, now: t0)) == .allSeatsTaken)
    #expect(SeatError.allSeatsTaken.rawValue == 100_205 && SeatError.seatLimitExceeded.rawValue == -2340)
  }

  @Test func theSecondHostToAcceptGetsAlreadyProcessed() throws {
    var s = service()
    let r = try s.apply(user: 2, seatIndex: -1, now: t0).get()
    _ = try s.acceptApplication(guest: 2, by: 1, now: t0).get()
    #expect(failure(s.acceptApplication(guest: 2, by: 0, now: t0)) == .alreadyProcessed)
    #expect(s.rejectApplication(guest: 2, by: 0, now: t0) == .alreadyProcessed)
    #expect(s.requests[Int(r)].processedBy == 1)
    #expect(s.ended == [r])
  }

  @Test func cancelLosesToAnAcceptThatArrivedFirstAndWinsOtherwise() throws {
    var s = service()
    _ = try s.apply(user: 2, seatIndex: -1, now: t0).get()
    _ = try s.acceptApplication(guest: 2, by: 0, now: t0).get()
    #expect(s.cancelApplication(user: 2, now: t0) == .alreadyProcessed)
    #expect(s.seat(of: 2) != nil)
    let r = try s.apply(user: 3, seatIndex: -1, now: t0).get()
    #expect(s.cancelApplication(user: 3, now: t0) == nil)
    #expect(s.requests[Int(r)].state == .cancelled)
    #expect(failure(s.acceptApplication(guest: 3, by: 0, now: t0)) == .alreadyProcessed)
  }

  @Test func aSeatLockedBetweenApplyAndAcceptFailsTheAcceptAndKeepsTheRequestPending() throws {
    var s = service(seats: 3, limit: 3)
    let r = try s.apply(user: 2, seatIndex: 1, now: t0).get()
    #expect(s.setLocked(seat: 1, true, by: 0) == nil)
    #expect(failure(s.acceptApplication(guest: 2, by: 0, now: t0)) == .seatLocked)
    #expect(s.requests[Int(r)].state == .pending)
    // Taken by someone else instead: occupied.
    #expect(s.setLocked(seat: 1, false, by: 0) == nil)
    _ = try s.apply(user: 3, seatIndex: 1, now: t0).get()
    _ = try s.acceptApplication(guest: 3, by: 0, now: t0).get()
    #expect(failure(s.acceptApplication(guest: 2, by: 0, now: t0)) == .seatOccupied)
    let first = s.timeOut(request: r, now: t0)
    let second = s.timeOut(request: r, now: t0)
    #expect(first && !second)
    #expect(s.requests[Int(r)].state == .timedOut)
  }

  @Test func onlyStaffMayAnswerApplications() throws {
    var s = service()
    _ = try s.apply(user: 2, seatIndex: -1, now: t0).get()
    #expect(failure(s.acceptApplication(guest: 2, by: 3, now: t0)) == .refused)
    #expect(s.rejectApplication(guest: 2, by: 3, now: t0) == .refused)
    #expect(s.rejectApplication(guest: 2, by: 1, now: t0) == nil)
  }

  @Test func leavingTheRoomFailsPendingRequestsAndVacatesTheSeat() throws {
    var s = service()
    let a = try s.apply(user: 2, seatIndex: -1, now: t0).get()
    let i = try s.invite(guest: 2, by: 0, seatIndex: -1, now: t0).get()
    _ = try s.apply(user: 3, seatIndex: -1, now: t0).get()
    _ = try s.acceptApplication(guest: 3, by: 0, now: t0).get()
    s.drain()
    #expect(s.leave(user: 2, now: t0) == nil)
    #expect(s.requests[Int(a)].state == .failed && s.requests[Int(a)].failure == .left)
    #expect(s.requests[Int(i)].state == .failed)
    #expect(s.leave(user: 3, now: t0) == nil)
    #expect(s.changes == [SeatChange(room: 0, seat: 0, user: 3, seated: false)])
    #expect(s.leave(user: 3, now: t0) == .notInRoom)
  }

  @Test func aRejoinWhileSeatedKeepsTheSeatAndAnotherRoomIsRefused() throws {
    var s = SeatService(
      rooms: [RoomSettings(maxSeatCount: 2, packageLimit: 2, seatMode: .apply)] + [
        RoomSettings(maxSeatCount: 2, packageLimit: 2, seatMode: .apply)
      ], userCount: 4)
    #expect(s.join(user: 0, room: 0, role: .owner) == nil)
    #expect(s.join(user: 2, room: 0) == nil)
    _ = try s.apply(user: 2, seatIndex: -1, now: t0).get()
    _ = try s.acceptApplication(guest: 2, by: 0, now: t0).get()
    s.drain()
    #expect(s.join(user: 2, room: 0) == nil)
    #expect(s.seat(of: 2) == 0)
    #expect(s.changes.isEmpty)
    #expect(s.join(user: 2, room: 1) == .refused)
  }

  // MARK: Invitations

  @Test func anAcceptedInvitationSeatsTheGuestAndFailsItsOwnApplicationAsAlreadySeated() throws {
    var s = service()
    let app = try s.apply(user: 2, seatIndex: -1, now: t0).get()
    let inv = try s.invite(guest: 2, by: 1, seatIndex: 2, now: t0).get()
    #expect(s.pendingInvitation(of: 2) == inv)
    #expect(s.acceptInvitation(user: 2, inviter: 0, now: t0).map { _ in () }.isFailure(.alreadyProcessed))
    #expect(try s.acceptInvitation(user: 2, inviter: 1, now: t0).get() == 2)
    #expect(s.requests[Int(inv)].state == .accepted)
    #expect(s.requests[Int(app)].state == .failed && s.requests[Int(app)].failure == .alreadySeated)
    #expect(s.changes.last?.grant == .acceptedInvitation)
    #expect(s.pendingCount == 0)
  }

  @Test func invitationErrorsCarryTheSDKCodes() throws {
    var s = service(seats: 2, limit: 1, users: 9)
    #expect(failure(s.invite(guest: 3, by: 2, seatIndex: -1, now: t0)) == .refused)
    #expect(s.leave(user: 8, now: t0) == nil)
    #expect(failure(s.invite(guest: 8, by: 0, seatIndex: -1, now: t0)) == .notInRoom)
    #expect(failure(s.invite(guest: 1, by: 0, seatIndex: -1, now: t0)) == .notInRoom)
    #expect(failure(s.invite(guest: 3, by: 0, seatIndex: 5, now: t0)) == .seatIndexNotExist)
    _ = try s.invite(guest: 3, by: 0, seatIndex: -1, now: t0).get()
    #expect(failure(s.invite(guest: 3, by: 1, seatIndex: -1, now: t0)) == .alreadyInQueue)
    _ = try s.acceptInvitation(user: 3, inviter: 0, now: t0).get()
    #expect(failure(s.invite(guest: 3, by: 0, seatIndex: -1, now: t0)) == .alreadyOnSeat)
    #expect(failure(s.invite(guest: 4, by: 0, seatIndex: -1, now: t0)) == .seatLimitExceeded)
  }

  @Test func invitationsCanBeDeclinedOrWithdrawnOnce() throws {
    var s = service()
    let a = try s.invite(guest: 2, by: 0, seatIndex: -1, now: t0).get()
    #expect(s.rejectInvitation(user: 2, inviter: 1, now: t0) == .alreadyProcessed)
    #expect(s.rejectInvitation(user: 2, inviter: 0, now: t0) == nil)
    #expect(s.requests[Int(a)].state == .rejected)
    let b = try s.invite(guest: 2, by: 0, seatIndex: -1, now: t0).get()
    #expect(s.cancelInvitation(guest: 2, by: 1, now: t0) == .alreadyProcessed)
    #expect(s.cancelInvitation(guest: 2, by: 0, now: t0) == nil)
    #expect(s.requests[Int(b)].state == .cancelled)
    #expect(s.cancelInvitation(guest: 2, by: 0, now: t0) == .alreadyProcessed)
    #expect(failure(s.acceptInvitation(user: 2, inviter: 0, now: t0)) == .alreadyProcessed)
  }

  // MARK: Seat operations

  @Test func kickRemovesTheGuestAndOnlyStaffMayKick() throws {
    var s = service()
    _ = try s.apply(user: 2, seatIndex: -1, now: t0).get()
    _ = try s.acceptApplication(guest: 2, by: 0, now: t0).get()
    s.drain()
    #expect(failure(s.kick(guest: 2, by: 3)) == .refused)
    #expect(failure(s.kick(guest: 3, by: 0)) == .notOnSeat)
    #expect(try s.kick(guest: 2, by: 1).get() == 0)
    #expect(s.changes == [SeatChange(room: 0, seat: 0, user: 2, seated: false, removedBy: 1)])
    #expect(s.connectedCount[0] == 0)
  }

  @Test func disconnectRemovesOnlyTheCallerItself() throws {
    var s = service()
    _ = try s.apply(user: 2, seatIndex: -1, now: t0).get()
    _ = try s.acceptApplication(guest: 2, by: 0, now: t0).get()
    // The host calling disConnect (a common mistake) leaves *its own* seat: it has none.
    #expect(failure(s.leaveSeat(user: 0)) == .notOnSeat)
    #expect(s.seat(of: 2) == 0)
    #expect(try s.leaveSeat(user: 2).get() == 0)
    #expect(failure(s.leaveSeat(user: 2)) == .notOnSeat)
  }

  @Test func movePoliciesAbortReplaceOrSwap() throws {
    var s = service(seats: 4, limit: 4)
    for (u, seat) in [(2, 0), (3, 1)] {
      _ = try s.apply(user: UInt32(u), seatIndex: seat, now: t0).get()
      _ = try s.acceptApplication(guest: UInt32(u), by: 0, now: t0).get()
    }
    #expect(failure(s.move(user: 2, to: 1, policy: .abortWhenOccupied, by: 0)) == .seatOccupied)
    #expect(failure(s.move(user: 2, to: 9, policy: .abortWhenOccupied, by: 0)) == .seatIndexNotExist)
    #expect(failure(s.move(user: 4, to: 2, policy: .abortWhenOccupied, by: 0)) == .notOnSeat)
    #expect(failure(s.move(user: 2, to: 2, policy: .abortWhenOccupied, by: 3)) == .refused)
    s.drain()
    #expect(try s.move(user: 2, to: 1, policy: .swapPosition, by: 0).get() == 1)
    #expect(s.seat(of: 2) == 1 && s.seat(of: 3) == 0)
    #expect(s.changes.filter(\.seated).map(\.user) == [2, 3])
    #expect(try s.move(user: 2, to: 0, policy: .forceReplace, by: 1).get() == 0)
    #expect(s.seat(of: 2) == 0 && s.seat(of: 3) == nil)
    #expect(s.changes.contains(SeatChange(room: 0, seat: 0, user: 3, seated: false, removedBy: 1)))
    #expect(try s.move(user: 2, to: 3, policy: .abortWhenOccupied, by: 2).get() == 3)
    #expect(try s.move(user: 2, to: 3, policy: .abortWhenOccupied, by: 2).get() == 3)
    #expect(s.setLocked(seat: 2, true, by: 0) == nil)
    #expect(failure(s.move(user: 2, to: 2, policy: .forceReplace, by: 0)) == .seatLocked)
  }

  @Test func aSwapOffALockedSeatIsRefused() throws {
    var s = service(seats: 3, limit: 3)
    for (u, seat) in [(2, 0), (3, 1)] {
      _ = try s.apply(user: UInt32(u), seatIndex: seat, now: t0).get()
      _ = try s.acceptApplication(guest: UInt32(u), by: 0, now: t0).get()
    }
    #expect(s.setLocked(seat: 0, true, by: 0) == nil)
    #expect(failure(s.move(user: 2, to: 1, policy: .swapPosition, by: 0)) == .seatLocked)
    #expect(s.seat(of: 2) == 0 && s.seat(of: 3) == 1)
  }

  @Test func freeModeTakesSeatsDirectlyAndApplyModeRefusesIt() throws {
    var free = service(mode: .free)
    #expect(try free.takeSeat(user: 2, seatIndex: -1, now: t0).get() == 0)
    #expect(free.changes.last?.grant == .freeTake)
    #expect(failure(free.takeSeat(user: 2, seatIndex: -1, now: t0)) == .alreadyOnSeat)
    var apply = service(mode: .apply)
    #expect(failure(apply.takeSeat(user: 2, seatIndex: -1, now: t0)) == .refused)
    #expect(try apply.takeSeat(user: 1, seatIndex: 2, now: t0).get() == 2)
  }

  @Test func lockIsStaffOnlyAndBoundsChecked() {
    var s = service()
    #expect(s.setLocked(seat: 0, true, by: 2) == .refused)
    #expect(s.setLocked(seat: 7, true, by: 0) == .seatIndexNotExist)
    #expect(s.setLocked(seat: 0, true, by: 1) == nil)
    #expect(s.isLocked(room: 0, seat: 0))
  }

  // MARK: Room life

  @Test func endingTheLiveRemovesGuestsFailsRequestsAndClosesTheRoom() throws {
    var s = service(users: 9)
    _ = try s.apply(user: 2, seatIndex: -1, now: t0).get()
    _ = try s.acceptApplication(guest: 2, by: 0, now: t0).get()
    let r = try s.apply(user: 3, seatIndex: -1, now: t0).get()
    #expect(s.leave(user: 8, now: t0) == nil)
    s.drain()
    #expect(s.endLive(user: 1, now: t0) == .refused)
    #expect(s.endLive(user: 0, now: t0) == nil)
    #expect(s.changes == [SeatChange(room: 0, seat: 0, user: 2, seated: false, removedBy: .max)])
    #expect(s.requests[Int(r)].failure == .liveEnded)
    #expect(s.join(user: 8, room: 0) == .roomNotExist)
    #expect(failure(s.apply(user: 4, seatIndex: -1, now: t0)) == .roomNotExist)
  }

  @Test func coHostingTrimsSeatsBeyondTheLimitAndRefusesApplications() throws {
    let settings = RoomSettings(maxSeatCount: 8, packageLimit: 8, seatMode: .apply, coHostSeatLimit: 6)
    var s = SeatService(rooms: [settings, settings], userCount: 20)
    #expect(s.join(user: 0, room: 0, role: .owner) == nil)
    #expect(s.join(user: 10, room: 1, role: .owner) == nil)
    for u in 1..<9 as Range<UInt32> {
      #expect(s.join(user: u, room: 0) == nil)
      _ = try s.apply(user: u, seatIndex: Int(u) - 1, now: t0).get()
      _ = try s.acceptApplication(guest: u, by: 0, now: t0).get()
    }
    s.drain()
    #expect(s.connectCoHost(0, 1) == nil)
    #expect(s.changes.map(\.user) == [7, 8])
    #expect(s.changes.allSatisfy { !$0.seated && $0.removedBy == .max })
    #expect(s.usableSeats(room: 0) == 6)
    #expect(s.connectCoHost(0, 1) == .refused)
    #expect(s.join(user: 9, room: 0) == nil)
    #expect(failure(s.apply(user: 9, seatIndex: -1, now: t0)) == .refused)
    s.disconnectCoHost(room: 1)
    #expect(s.coHostPartner(of: 0) == nil)
    #expect(try s.apply(user: 9, seatIndex: -1, now: t0).get() >= 0)
  }

  @Test func everyRequestEndsExactlyOnceWhateverTheOrderOfAnswers() throws {
    // Random interleavings of every way a request can end: each ends once, and the service's own
    // bookkeeping (pending count, per-user handles) agrees with the request list.
    var rng = Xoshiro256(seed: 7)
    for _ in 0..<200 {
      var s = service(seats: 3, limit: 2, users: 10)
      for _ in 0..<60 {
        let u = UInt32(2 + rng.next(below: 8))
        let h = UInt32(rng.next(below: 2))
        switch rng.next(below: 9) {
        case 0: _ = s.apply(user: u, seatIndex: -1, now: t0)
        case 1: _ = s.acceptApplication(guest: u, by: h, now: t0)
        case 2: _ = s.rejectApplication(guest: u, by: h, now: t0)
        case 3: _ = s.cancelApplication(user: u, now: t0)
        case 4: _ = s.invite(guest: u, by: h, seatIndex: -1, now: t0)
        case 5: _ = s.acceptInvitation(user: u, inviter: h, now: t0)
        case 6: _ = s.leaveSeat(user: u)
        case 7:
          if !s.requests.isEmpty { _ = s.timeOut(request: UInt32(rng.next(below: UInt64(s.requests.count))), now: t0) }
        default: _ = s.kick(guest: u, by: h)
        }
      }
      let endedIDs = s.ended
      #expect(Set(endedIDs).count == endedIDs.count)
      #expect(endedIDs.count == s.requests.filter { $0.state.isTerminal }.count)
      #expect(s.pendingCount == s.requests.filter { !$0.state.isTerminal }.count)
      #expect(Int(s.connectedCount[0]) == s.occupiedSeats(room: 0))
      #expect(s.occupiedSeats(room: 0) <= 2)
    }
  }
}

extension Result where Failure == SeatError {
  func isFailure(_ e: SeatError) -> Bool {
    if case .failure(let x) = self { return x == e }
    return false
  }
}
