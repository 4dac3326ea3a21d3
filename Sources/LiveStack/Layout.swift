import SimKernel

/// Who is who: user IDs laid out room by room, the owner first, then the admins, then the viewers.
///
/// The server, the network and the fault targets read it; the scenario draws the room sizes.
public struct Layout: Sendable {
  /// The most users a run holds, less one: 2^27 (134,217,728). An answer's event names its caller
  /// in 27 bits beside the answer (so that the next-event hint needs no read of the operation's
  /// record); at about 400 bytes a user, that many would take 50 GiB.
  public static let maxUsers = 1 << 27
  /// Number of rooms.
  public let rooms: Int
  /// Owner plus admins per room.
  public let staffPerRoom: Int
  /// First user ID of each room, plus the total as a last element.
  public let roomBase: [UInt32]
  /// Each user's room.
  public let homeRoom: [UInt32]
  /// Each user's role.
  public let roles: [RoomRole]
  /// The phone users (after every room's users), who take part in calls only.
  public let phones: Range<UInt32>
  /// The identity of room 0: rooms are the `firstRoom`-th and later rooms of a larger population
  /// (0 unless a shrunk profile left the first ones out).
  public let firstRoom: UInt32
  /// The identity of the first phone, likewise.
  public let firstPhone: UInt32
  /// Per user ID: which viewer of its room (counted in the room's own order, as its identity
  /// knows it) holds that audience place. Empty when places and viewers are in the same order.
  /// A room whose viewers arrive over time lists them by arrival, so that the viewers active in
  /// any second sit side by side in every per-user table (docs/DESIGN.md, "Arrival order").
  public let viewerOfPlace: [UInt32]

  /// Lays out `viewers[r]` viewers in each room r, after its owner and `staffPerRoom - 1` admins,
  /// then `phoneCount` phone users. `firstRoom` and `firstPhone` are the identities of room 0 and
  /// of the first phone (see ``identity(of:)``): a population with the first rooms or phones of a
  /// larger one left out keeps the others' identities. `viewerOrder`, if given, says for room r
  /// the viewer (0 to `viewers[r]` - 1) who takes each of its audience places in turn.
  public init(
    viewers: [Int], staffPerRoom: Int, phoneCount: Int, firstRoom: UInt32 = 0, firstPhone: UInt32 = 0,
    viewerOrder: ((_ room: Int, _ viewers: Int) -> [UInt32])? = nil
  ) {
    precondition(staffPerRoom >= 1, "every room has an owner")
    self.firstRoom = firstRoom
    self.firstPhone = firstPhone
    rooms = viewers.count
    self.staffPerRoom = staffPerRoom
    var base: [UInt32] = []
    base.reserveCapacity(viewers.count + 1)
    var total = 0
    for v in viewers {
      base.append(UInt32(total))
      total += staffPerRoom + v
      precondition(total < Layout.maxUsers, "more than \(Layout.maxUsers) users")
    }
    base.append(UInt32(total))
    roomBase = base
    precondition(total + phoneCount < Layout.maxUsers, "more than \(Layout.maxUsers) users")
    phones = UInt32(total)..<UInt32(total + phoneCount)
    // Phones belong to no room: their home room is the one past the last.
    var home = [UInt32](table: UInt32(rooms), count: total + phoneCount)
    for r in 0..<rooms {
      for u in Int(base[r])..<Int(base[r + 1]) { home[u] = UInt32(r) }
    }
    homeRoom = home
    var roles = [RoomRole](table: .audience, count: total + phoneCount)
    for r in 0..<rooms {
      roles[Int(base[r])] = .owner
      for a in 1..<staffPerRoom { roles[Int(base[r]) + a] = .admin }
    }
    self.roles = roles
    guard let viewerOrder else {
      viewerOfPlace = []
      return
    }
    var places = [UInt32](table: 0, count: total + phoneCount)
    for r in 0..<rooms {
      let order = viewerOrder(r, viewers[r])
      precondition(order.count == viewers[r], "an order for every viewer")
      let first = Int(base[r]) + staffPerRoom
      for (k, v) in order.enumerated() { places[first + k] = v }
    }
    viewerOfPlace = places
  }

  /// All users.
  @inlinable public var totalUsers: Int { Int(phones.upperBound) }
  /// All audience members.
  public var audienceCount: Int { Int(roomBase[rooms]) - rooms * staffPerRoom }

  /// Whether `user` is a phone user (calls only).
  @inlinable public func isPhone(_ user: UInt32) -> Bool { phones.contains(user) }

  /// The audience user IDs of `room`.
  @inlinable public func audience(of room: UInt32) -> Range<UInt32> {
    (roomBase[Int(room)] + UInt32(staffPerRoom))..<roomBase[Int(room) + 1]
  }

  /// The owner and admins of `room`.
  @inlinable public func staff(of room: UInt32) -> Range<UInt32> {
    roomBase[Int(room)]..<(roomBase[Int(room)] + UInt32(staffPerRoom))
  }

  /// What `user` is, as its random streams know it: the owner of room r, its a-th admin, its v-th
  /// viewer, or the k-th phone. It does not depend on how many rooms, admins, viewers or phones
  /// come before, so removing others (as `shrink` does) leaves every remaining user's draws as they
  /// were. Rooms and phones count from ``firstRoom`` and ``firstPhone``.
  public func identity(of user: UInt32) -> UInt64 {
    if isPhone(user) { return 3 << 62 | UInt64(user - phones.lowerBound + firstPhone) }
    return identity(of: user, inRoom: homeRoom[Int(user)])
  }

  /// ``identity(of:)`` of `user`, a member of `room` (an owner, admin or viewer, not a phone), for
  /// callers that know the room: it does not read the user's entry in ``homeRoom``, a cache miss
  /// per call at a million users.
  public func identity(of user: UInt32, inRoom room: UInt32) -> UInt64 {
    let place = user - roomBase[Int(room)]
    let roomBits = roomIdentity(room) << 32
    if place == 0 { return roomBits }
    if place < UInt32(staffPerRoom) { return 1 << 62 | roomBits | UInt64(place - 1) }
    let viewer = viewerOfPlace.isEmpty ? place - UInt32(staffPerRoom) : viewerOfPlace[Int(user)]
    return Layout.identity(ofViewer: viewer, inRoom: roomIdentity(room))
  }

  /// The identity of the `viewer`-th viewer (counted in its room's own order) of the room whose
  /// ``roomIdentity(_:)`` is `room`, wherever it sits.
  @inlinable public static func identity(ofViewer viewer: UInt32, inRoom room: UInt64) -> UInt64 {
    2 << 62 | room << 32 | UInt64(viewer)
  }

  /// What room `room` is, as its random streams know it (its index counted from ``firstRoom``).
  @inlinable public func roomIdentity(_ room: UInt32) -> UInt64 { UInt64(firstRoom) + UInt64(room) }

  /// Every room's ``roomIdentity(_:)``, by room index.
  public var roomIdentities: LazyMapSequence<Range<UInt32>, UInt64> {
    (0..<UInt32(rooms)).lazy.map { roomIdentity($0) }
  }

  /// Every user's ``identity(of:)``, by user ID.
  public var identities: LazyMapSequence<Range<UInt32>, UInt64> {
    (0..<UInt32(totalUsers)).lazy.map { identity(of: $0) }
  }

  /// The phone users' identities, by phone index.
  public var phoneIdentities: LazyMapSequence<Range<UInt32>, UInt64> { phones.lazy.map { identity(of: $0) } }

  /// The role of `user` in its room.
  @inlinable public func role(of user: UInt32) -> RoomRole { roles[Int(user)] }
}
