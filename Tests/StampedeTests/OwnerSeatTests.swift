import Foundation
import Testing

@testable import Clients
@testable import LiveStack
@testable import Oracles
@testable import Profiles
@testable import Scenario
@testable import SimKernel

/// The owner's seat (`seats.keepOwnerOnSeat`): the owner takes seat 0 as its live starts and
/// keeps it, guests' seats follow from index 1, and the SDK's `maxSeatCount` and `connected`
/// count the owner. Staged in the staged room (owner 0, admin 1, viewers 2..4, two guest seats,
/// every message 10 ms).
@Suite struct OwnerSeatTests {
  let t0 = SimInstant.zero

  /// One room with an owner's seat and `seats` guest seats under package limit `limit`: user 0
  /// owns it, user 1 is an admin, users 2..<8 are viewers; everyone is in the room.
  func service(seats: Int = 2, limit: Int = 2) -> SeatService {
    var s = SeatService(
      rooms: [RoomSettings(maxSeatCount: seats, packageLimit: limit, seatMode: .apply, ownerSeat: true)],
      userCount: 8)
    #expect(s.join(user: 0, room: 0, role: .owner) == nil)
    #expect(s.join(user: 1, room: 0, role: .admin) == nil)
    for u in 2..<UInt32(8) { #expect(s.join(user: u, room: 0) == nil) }
    return s
  }

  @Test func theOwnerTakesSeatZeroAsItEntersAndGuestsFollowFromSeatOne() throws {
    var s = service()
    #expect(s.changes == [SeatChange(room: 0, seat: 0, user: 0, seated: true, grant: .owner)])
    #expect(s.occupant(room: 0, seat: 0) == 0 && s.seat(of: 0) == 0)
    // The owner is not a co-guest: nothing of the plan or the guest seats is used.
    #expect(s.connectedCount[0] == 0 && s.occupiedTotal == 0 && s.occupiedSeats(room: 0) == 0)
    _ = try s.apply(user: 2, seatIndex: -1, now: t0).get()
    #expect(try s.acceptApplication(guest: 2, by: 0, now: t0).get() == 1)
    _ = try s.apply(user: 3, seatIndex: -1, now: t0).get()
    #expect(try s.acceptApplication(guest: 3, by: 1, now: t0).get() == 2)
    // Two guests fill the plan (2) and the guest seats; the owner's seat counts for neither.
    #expect(s.connectedCount[0] == 2 && s.occupiedSeats(room: 0) == 2)
    #expect(failure(s.apply(user: 4, seatIndex: -1, now: t0)) == .seatLimitExceeded)
    #expect(failure(s.apply(user: 4, seatIndex: 3, now: t0)) == .seatIndexNotExist)
  }

  @Test func noGuestIsGivenTheOwnersSeatNorMovedOntoItAndTheOwnerIsNeitherKickedNorMoved() throws {
    var s = service(seats: 3, limit: 3)
    #expect(failure(s.apply(user: 2, seatIndex: 0, now: t0)) == .seatOccupied)
    #expect(failure(s.invite(guest: 2, by: 0, seatIndex: 0, now: t0)) == .seatOccupied)
    _ = try s.apply(user: 2, seatIndex: -1, now: t0).get()
    _ = try s.acceptApplication(guest: 2, by: 0, now: t0).get()
    for policy in MovePolicy.allCases {
      #expect(failure(s.move(user: 2, to: 0, policy: policy, by: 0)) == .seatOccupied)
    }
    #expect(failure(s.move(user: 0, to: 2, policy: .abortWhenOccupied, by: 1)) == .refused)
    #expect(failure(s.kick(guest: 0, by: 1)) == .refused)
    #expect(s.seat(of: 0) == 0 && s.seat(of: 2) == 1)
    // Even with the owner away from it, seat 0 stays the owner's.
    #expect(try s.leaveSeat(user: 0).get() == 0)
    #expect(failure(s.apply(user: 3, seatIndex: 0, now: t0)) == .seatOccupied)
    _ = try s.apply(user: 3, seatIndex: -1, now: t0).get()
    #expect(try s.acceptApplication(guest: 3, by: 0, now: t0).get() == 2)
  }

  @Test func theOwnerLeavesItsSeatWithDisconnectAndTakesItBackWithTakeSeat() throws {
    var s = service()
    s.drain()
    // The seed's host "kick" with disConnect(): the owner leaves its own seat; the guest stays.
    #expect(try s.leaveSeat(user: 0).get() == 0)
    #expect(s.changes == [SeatChange(room: 0, seat: 0, user: 0, seated: false)])
    #expect(s.seat(of: 0) == nil && s.connectedCount[0] == 0)
    #expect(failure(s.takeSeat(user: 0, seatIndex: 1, now: t0)) == .refused)
    #expect(try s.takeSeat(user: 0, seatIndex: -1, now: t0).get() == 0)
    #expect(failure(s.takeSeat(user: 0, seatIndex: -1, now: t0)) == .alreadyOnSeat)
    // The live ends: the owner's seat is emptied with the rest.
    s.drain()
    #expect(s.endLive(user: 0, now: t0) == nil)
    #expect(s.changes == [SeatChange(room: 0, seat: 0, user: 0, seated: false, removedBy: .max)])
  }

  @Test func withoutTheOwnersSeatTheSeatListHoldsGuestsFromSeatZero() throws {
    var s = SeatService(rooms: [RoomSettings(maxSeatCount: 2, packageLimit: 2, seatMode: .apply)], userCount: 4)
    #expect(s.join(user: 0, room: 0, role: .owner) == nil)
    #expect(s.join(user: 2, room: 0) == nil)
    #expect(s.changes.isEmpty && s.seat(of: 0) == nil)
    _ = try s.apply(user: 2, seatIndex: -1, now: t0).get()
    #expect(try s.acceptApplication(guest: 2, by: 0, now: t0).get() == 0)
  }

  @Test func theHostsSDKListsTheOwnerOnSeatZeroFromItsJoinAndAGuestOnSeatOne() throws {
    let host = ScriptedClient.acceptingHost()
    let admin = ScriptedClient()
    var heardAt: [String] = []
    admin.onSeat = { e, c in heardAt.append("\(c.now.nanoseconds / 1_000_000) \(e.seatIndex) +\(e.user)") }
    let viewer = ScriptedClient()
    viewer.onApply = { c in c.coGuest.applyForSeat(timeout: .seconds(30)) }
    var s = try Staged(stagedOwnerSeated, audience: viewer, host: host, admin: admin)
    s.apply(2, atMs: 1000)
    s.run(untilMs: 3000)
    // Owner and admin log in (10 ms each way) and enter the room at 30 ms, the owner taking
    // seat 0 as it enters. The admin, entering in the same instant just after, was not yet in the
    // room for the owner's seat delta: it finds the owner in the list its entry brings, at 40 ms.
    // The viewer applies at 1 s and is seated on seat 1 at 1.030 s; the staff hear it at 1.040 s.
    #expect(heardAt == ["40 0 +0", "1040 1 +2"])
    let hostClient = Client(user: 0, room: 0, role: .owner, runtime: s.world.runtime, random: SplitMix64(seed: 0))
    #expect(hostClient.liveSeat.maxSeatCount == 3 && hostClient.liveSeat.firstGuestSeat == 1)
    #expect(hostClient.liveSeat.seatList == [0, 2, nil])
    #expect(hostClient.coGuest.connected == [0, 2])
    #expect(s.world.server.seats.seat(of: 2) == 1)
    #expect(s.violations == 0)
  }

  @Test func theBuiltInHostCountsGuestsWithoutTheOwnerAgainstThePlan() throws {
    // Two guest seats and a plan of two. The second application reaches the host while the owner
    // and one guest are connected: a host counting the owner would see the plan full and reject
    // it. The third is refused by the server (-2340) as it is filed.
    var s = try Staged(stagedOwnerSeated)
    for (u, ms) in [(2, 1000), (3, 3000), (4, 5000)] as [(UInt32, Int64)] { s.apply(u, atMs: ms) }
    s.run(untilMs: 9000)
    #expect(s.world.server.seats.seat(of: 2) == 1 && s.world.server.seats.seat(of: 3) == 2)
    #expect(s.world.server.seats.seat(of: 4) == nil)
    #expect(s.counter("seat.accepted") == 2 && s.counter("seat.rejected_by_host") == 0)
    #expect(s.counter("seat.rejected.seat_limit") == 1)
    #expect(s.violations == 0)
  }

  @Test func aGuestPlantedOnTheOwnersSeatIsCaught() {
    var seats = service(seats: 2, limit: 2)
    var checker = Checker(seats: seats)
    _ = seats.leaveSeat(user: 0)
    seats._forcePlace(user: 5, room: 0, seat: 0)
    checker.observeRoom(0, seats: seats, at: .zero + .seconds(1))
    #expect(checker.log.first(.singleOccupancy)?.message == "user 5 occupies seat 0 of room 0, the owner's seat")
  }

  @Test func aProfileSaysWhetherTheOwnerKeepsASeatAndRefusesAnythingButABoolean() throws {
    #expect(try !Profile.parse(Data(stagedProfile.utf8)).seats.keepOwnerOnSeat)
    #expect(try Profile.parse(Data(stagedOwnerSeated.utf8)).seats.keepOwnerOnSeat)
    // The default keeps the owner on its seat.
    let byDefault = TestProfile(stagedProfile).without("seats.keepOwnerOnSeat").text
    #expect(try Profile.parse(Data(byDefault.utf8)).seats.keepOwnerOnSeat)
    #expect(throws: ProfileError.self) {
      try Profile.parse(Data(TestProfile(stagedProfile).with("seats.keepOwnerOnSeat", json5: "\"yes\"").text.utf8))
    }
  }
}
