import SimKernel

/// How guests get onto seats in a room.
public enum SeatMode: String, Sendable, Codable, CaseIterable {
  /// Anyone in the room may take a free seat directly.
  case free
  /// Taking a seat needs a host's approval of an application.
  case apply
}

/// What `moveUserToSeat` does when the target seat is occupied.
public enum MovePolicy: UInt8, Sendable, Codable, CaseIterable {
  /// Fail with 100201 (seat occupied).
  case abortWhenOccupied
  /// Remove the occupant from its seat and move the user in.
  case forceReplace
  /// Exchange the two users' seats.
  case swapPosition

  /// The policy's name as profiles spell it.
  public var name: String { String(describing: self) }
}

/// A user's role in the room it is in.
public enum RoomRole: UInt8, Sendable, Codable, CaseIterable {
  /// An audience member.
  case audience
  /// An admin: may do everything the owner does except end the live.
  case admin
  /// The room's owner (host).
  case owner

  /// Whether the role may answer applications, invite, kick, lock and move.
  public var isStaff: Bool { self != .audience }
}

/// The fixed settings of one room.
public struct RoomSettings: Hashable, Sendable {
  /// How many seats the room has for guests (the owner's seat excluded).
  public var maxSeatCount: Int
  /// How many co-guests may be connected at once under the plan.
  public var packageLimit: Int
  /// Free or apply mode.
  public var seatMode: SeatMode
  /// How many guest seats stay usable while the room co-hosts with another (the voice-room
  /// six-seat rule).
  public var coHostSeatLimit: Int
  /// Whether the owner sits on seat 0 of the seat list while its live is on, as the SDK's host
  /// takes the first seat when it starts the live; guests' seats then follow from index 1.
  public var ownerSeat: Bool

  /// Creates room settings.
  public init(
    maxSeatCount: Int, packageLimit: Int, seatMode: SeatMode, coHostSeatLimit: Int = 6, ownerSeat: Bool = false
  ) {
    precondition(maxSeatCount >= 0 && packageLimit >= 0 && coHostSeatLimit >= 0, "seat counts must not be negative")
    self.maxSeatCount = maxSeatCount
    self.packageLimit = packageLimit
    self.seatMode = seatMode
    self.coHostSeatLimit = coHostSeatLimit
    self.ownerSeat = ownerSeat
  }

  /// The index of the first guest seat: 1 when the owner has seat 0, else 0.
  public var firstGuestSeat: Int { ownerSeat ? 1 : 0 }
  /// How many seats the seat list has: the guests' and the owner's (the SDK's `maxSeatCount`).
  public var seatCount: Int { maxSeatCount + firstGuestSeat }
}

/// Whether a request is an audience member's application or a host's invitation.
public enum RequestKind: UInt8, Sendable, Codable, CaseIterable {
  /// `applyForSeat`: an audience member asks; a host or admin answers.
  case application
  /// `inviteToSeat`: a host or admin asks; the audience member answers.
  case invitation
}

/// Where a co-guest request is in its life. Every request ends in exactly one terminal state.
public enum RequestState: UInt8, Sendable, Codable, CaseIterable {
  /// Waiting for an answer.
  case pending
  /// Accepted: the guest was given a seat.
  case accepted
  /// Rejected by the one who was asked.
  case rejected
  /// Withdrawn by the one who asked.
  case cancelled
  /// Nobody answered within the timeout.
  case timedOut
  /// Ended by the server: the guest got a seat another way, left the room, or the live ended.
  case failed

  /// Whether the request has ended.
  public var isTerminal: Bool { self != .pending }
}

/// Why the server ended a request as `failed`.
public enum RequestFailure: UInt8, Sendable, Codable, CaseIterable {
  /// Not failed.
  case none
  /// The guest took a seat by another request (`NoResponseReason.alreadySeated`).
  case alreadySeated
  /// The guest (or, for an invitation, the inviter) left the room.
  case left
  /// The live ended.
  case liveEnded
}

/// One co-guest request: an application or an invitation.
public struct SeatRequest: Sendable {
  /// Application or invitation.
  public var kind: RequestKind
  /// The room it was filed in.
  public var room: UInt32
  /// The audience member who would take the seat.
  public var guest: UInt32
  /// For an invitation, the inviting host or admin; for an application, who processed it (or
  /// `UInt32.max`).
  public var host: UInt32
  /// The seat asked for, or -1 for any.
  public var seatIndex: Int16
  /// Its state.
  public var state: RequestState
  /// Why it failed, when `state == .failed`.
  public var failure: RequestFailure
  /// When the server registered it.
  public var createdAt: SimInstant
  /// When it ended (meaningful once terminal).
  public var endedAt: SimInstant

  /// The host or admin that accepted or rejected an application, or that sent an invitation.
  public var processedBy: UInt32? { host == .max ? nil : host }
}

/// Why a user was put on a seat: the checkers verify every placement has a grant.
public enum SeatGrant: UInt8, Sendable, CaseIterable {
  /// An accepted application.
  case acceptedApplication
  /// An accepted invitation.
  case acceptedInvitation
  /// `takeSeat` in free mode (or by staff).
  case freeTake
  /// `moveUserToSeat` (the user was already seated).
  case move
  /// The owner took its own seat, seat 0, when its live started or it took the seat again.
  case owner
}

/// One change to a room's seat list, as observers see it (`seated`/`left` deltas).
public struct SeatChange: Sendable, Equatable {
  /// The room.
  public var room: UInt32
  /// The seat index.
  public var seat: Int16
  /// The user who sat down or left.
  public var user: UInt32
  /// `true` for seated, `false` for left.
  public var seated: Bool
  /// Why the user was seated (meaningful when `seated`).
  public var grant: SeatGrant?
  /// For a `left` change caused by someone else (kick, forced replace, co-host trim, live end), who
  /// did it, or `UInt32.max` for the server itself; `nil` when the user left on its own.
  public var removedBy: UInt32?

  /// Creates a change.
  public init(room: UInt32, seat: Int16, user: UInt32, seated: Bool, grant: SeatGrant? = nil, removedBy: UInt32? = nil)
  {
    self.room = room
    self.seat = seat
    self.user = user
    self.seated = seated
    self.grant = grant
    self.removedBy = removedBy
  }
}

/// Seats of many rooms laid out flat: each room's first index, for rooms of `seatCounts` seats,
/// and the seats in all.
public func flatSeats(_ seatCounts: [Int]) -> (base: [Int], total: Int) {
  var base: [Int] = []
  base.reserveCapacity(seatCounts.count)
  var total = 0
  for n in seatCounts {
    base.append(total)
    total += n
  }
  return (base, total)
}
