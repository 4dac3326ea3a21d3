import LiveStack
import SimKernel

/// Who is who: user IDs laid out room by room, the owner first, then the admins, then the viewers.
///
/// Room sizes are drawn from the profile's `audiencePerRoom` with the `rooms` random stream, so a
/// seed fixes them.
public struct Layout: Sendable {
  /// Number of rooms.
  public let rooms: Int
  /// Owner plus admins per room.
  public let staffPerRoom: Int
  /// First user ID of each room, plus the total as a last element.
  public let roomBase: [UInt32]
  /// Each user's room.
  public let homeRoom: [UInt32]
  /// Each user's role.
  let roles: [RoomRole]
  /// The phone users (after every room's users), who take part in calls only.
  public let phones: Range<UInt32>

  /// Draws the layout of `profile` from `streams`.
  public init(profile: Profile, streams: RandomStreams) {
    var rng = streams.stream("rooms")
    let p = profile.population
    rooms = p.rooms
    staffPerRoom = 1 + p.adminsPerRoom
    var base: [UInt32] = []
    base.reserveCapacity(p.rooms + 1)
    var total = 0
    for _ in 0..<p.rooms {
      base.append(UInt32(total))
      let drawn = p.audiencePerRoom.sample(&rng)
      let viewers = drawn.isFinite ? Int(max(0, min(10_000_000, drawn.rounded()))) : 10_000_000
      total += staffPerRoom + viewers
      precondition(total < Int(Int32.max), "more than 2^31 users")
    }
    base.append(UInt32(total))
    roomBase = base
    let phoneCount = profile.calls?.users ?? 0
    precondition(total + phoneCount < Int(Int32.max), "more than 2^31 users")
    phones = UInt32(total)..<UInt32(total + phoneCount)
    // Phones belong to no room: their home room is the one past the last.
    var home = [UInt32](repeating: UInt32(p.rooms), count: total + phoneCount)
    for r in 0..<p.rooms {
      for u in Int(base[r])..<Int(base[r + 1]) { home[u] = UInt32(r) }
    }
    homeRoom = home
    var roles = [RoomRole](repeating: .audience, count: total + phoneCount)
    for r in 0..<p.rooms {
      roles[Int(base[r])] = .owner
      for a in 1..<staffPerRoom { roles[Int(base[r]) + a] = .admin }
    }
    self.roles = roles
  }

  /// All users.
  public var totalUsers: Int { Int(phones.upperBound) }
  /// All audience members.
  public var audienceCount: Int { Int(roomBase[rooms]) - rooms * staffPerRoom }

  /// Whether `user` is a phone user (calls only).
  public func isPhone(_ user: UInt32) -> Bool { phones.contains(user) }

  /// The audience user IDs of `room`.
  public func audience(of room: UInt32) -> Range<UInt32> {
    (roomBase[Int(room)] + UInt32(staffPerRoom))..<roomBase[Int(room) + 1]
  }

  /// The owner and admins of `room`.
  public func staff(of room: UInt32) -> Range<UInt32> {
    roomBase[Int(room)]..<(roomBase[Int(room)] + UInt32(staffPerRoom))
  }

  /// The role of `user` in its room.
  public func role(of user: UInt32) -> RoomRole { roles[Int(user)] }
}
