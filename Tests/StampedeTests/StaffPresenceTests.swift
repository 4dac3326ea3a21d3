import Foundation
import Testing

@testable import Clients
@testable import LiveStack
@testable import Scenario
@testable import SimKernel

/// A host or admin hears its room only while it is in it, as a room engine's SDK does: the
/// room's co-guest events and seat-list changes go to the staff in the room, not to a host or
/// admin that left it, was logged out or was kicked offline. Entering again brings the room as it
/// stands (the seat list, started afresh, and the pending applicants), and leaving empties what
/// the SDK showed of it.
@Suite struct StaffPresenceTests {
  /// The staged room (owner 0, admin 1, viewers 2 to 4, two seats, every message 10 ms): viewer 4
  /// is seated while the admin is in; the admin leaves at 1,000 ms; the host kicks 4 at 1,500;
  /// viewer 2 applies at 2,000 and is seated, viewer 3 applies at 3,000 and waits; the admin
  /// enters again at 5,000.
  func adminAway() throws -> (Staged, admin: ScriptedClient) {
    let host = ScriptedClient()
    host.onHost = { e, c in
      if case .onGuestApplicationReceived(let guest) = e, guest != 3 { c.coGuest.acceptApplication(userID: guest) }
    }
    host.onTimer = { _, c in c.liveSeat.kickUserOutOfSeat(userID: 4) }
    let admin = ScriptedClient()
    admin.onTimer = { [unowned admin] tag, c in
      if tag == 1 {
        admin.log.append("left")
        c.liveList.leaveLive()
      } else {
        admin.log.append("entering")
        c.liveList.joinLive()
      }
    }
    let audience = ScriptedClient()
    audience.onApply = { c in c.coGuest.applyForSeat(timeout: .seconds(30)) }
    var s = try Staged(audience: audience, host: host, admin: admin)
    s.apply(4, atMs: 300)
    s.timer(1, atMs: 1000, tag: 1)
    s.timer(0, atMs: 1500)
    s.apply(2, atMs: 2000)
    s.apply(3, atMs: 3000)
    s.timer(1, atMs: 5000, tag: 2)
    return (s, admin)
  }

  func staffSlot(_ s: Staged, _ user: UInt32) -> Int { Int(s.world.runtime.clients[Int(user)].staffSlot) }

  @Test func anAdminOutOfItsRoomHearsNothingOfItAndFindsItAsItStandsWhenItEntersAgain() throws {
    var (s, admin) = try adminAway()
    s.run(untilMs: 4000)
    // Out of the room: it heard 4's application and seat before it left, nothing after.
    let left = try #require(admin.log.firstIndex(of: "left"))
    #expect(admin.log[..<left].contains("1 onGuestApplicationReceived(guest: 4)"))
    #expect(admin.log[..<left].contains { $0.hasPrefix("1 seat") && $0.hasSuffix("+4") })
    #expect(admin.log[left...].filter { $0 != "left" } == [], "\(admin.log[left...])")
    // Its SDK shows nothing of a room it is not in.
    #expect(s.world.runtime.applicants[staffSlot(s, 1)] == [])
    #expect(s.world.runtime.seatView[staffSlot(s, 1)].allSatisfy { $0 == 0 })
    // The server seated 2 and kept 3 waiting meanwhile, and the host (in the room) heard both.
    #expect(s.world.server.seats.seat(of: 2) != nil && s.world.server.seats.seat(of: 4) == nil)
    s.run(untilMs: 6000)
    // Back in: the pending applicant and the seat list as they stand, 4 gone from it.
    #expect(s.world.runtime.applicants[staffSlot(s, 1)] == [3])
    let seat = try #require(s.world.server.seats.seat(of: 2))
    var expected = [UInt32](repeating: 0, count: 2)
    expected[seat] = 3
    #expect(s.world.runtime.seatList(of: 1) == expected)
    #expect(s.world.runtime.seatList(of: 0) == expected, "the host's, kept up all along, says the same")
    #expect(s.violations == 0)
  }

  @Test func aSnapshotStartsAStaffSeatListAfresh() throws {
    // A host's seat list that missed a guest's leave (it was out of the room) is replaced by the
    // snapshot its entry brings, empty rooms included.
    var s = try Staged()
    s.run(untilMs: 1000)
    let slot = staffSlot(s, 1)
    s.world.runtime.seatView[slot][1] = 5
    var empty = SeatBatch()
    empty.snapshot = true
    #expect(s.world.runtime.received(empty, user: 1).ownLeave == false)
    #expect(s.world.runtime.seatView[slot] == [0, 5], "a batch that does not start the list leaves it")
    empty.startsList = true
    _ = s.world.runtime.received(empty, user: 1)
    #expect(s.world.runtime.seatView[slot] == [0, 0])
  }
}
