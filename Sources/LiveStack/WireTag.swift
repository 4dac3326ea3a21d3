/// What the events of a request and of its answer carry beside their operation slot, so that the
/// hint for the next event (``Column/prefetch(_:)`` on the user's records) need not wait for a
/// read of the operation's record: at ten million users that read misses the cache, and every
/// hint behind it waited for it (docs/DESIGN.md, "Ten million users: what an event waits for").
///
/// A request's tag is its caller, its service at the server's desk (``ServiceDesk/Service``) and
/// whether it enters or leaves a room; an answer's is its caller and its answer, as the error's
/// place among ``SeatError/allCases`` (0: success; ``enteredRoom``: success of a call that enters
/// the caller's room, whose answer closes the interval from its login). A run holds fewer than
/// ``Layout/maxUsers`` users, so the caller fits beside either.
public enum WireTag {
  /// The tag of a request by `user` to desk service `service` (0 to 7).
  @inlinable
  public static func request(user: UInt32, service: Int, entersOrLeavesRoom: Bool) -> UInt32 {
    user << 4 | UInt32(truncatingIfNeeded: service & 7) | (entersOrLeavesRoom ? 8 : 0)
  }

  /// The caller a request's tag names.
  @inlinable public static func user(ofRequest tag: UInt32) -> UInt32 { tag >> 4 }
  /// The desk service a request's tag names.
  @inlinable public static func service(ofRequest tag: UInt32) -> Int { Int(tag & 7) }
  /// Whether a request's tag says it enters or leaves a room.
  @inlinable public static func entersOrLeavesRoom(_ tag: UInt32) -> Bool { tag & 8 != 0 }

  /// The answer code of a success that enters the caller's room (the five bits all set; the
  /// errors take 1 to `SeatError.allCases.count`, fewer than 31).
  public static let enteredRoom: UInt32 = 31

  /// The tag of an answer to `user`: `error`, or success (`nil`), of a call that enters the
  /// caller's room (`entersRoom`) or not.
  @inlinable
  public static func reply(user: UInt32, _ error: SeatError?, entersRoom: Bool = false) -> UInt32 {
    guard let error else { return user << 5 | (entersRoom ? enteredRoom : 0) }
    return user << 5 | UInt32(truncatingIfNeeded: error.ordinal + 1)
  }

  /// Whether an answer's tag says its call succeeded and entered the caller's room.
  @inlinable public static func entersRoom(ofReply tag: UInt32) -> Bool { tag & 31 == enteredRoom }

  /// The caller an answer's tag names.
  @inlinable public static func user(ofReply tag: UInt32) -> UInt32 { tag >> 5 }
  /// The answer an answer's tag carries (`nil`: success).
  @inlinable
  public static func error(ofReply tag: UInt32) -> SeatError? {
    let i = Int(tag & 31)
    return i == 0 || i == Int(enteredRoom) ? nil : SeatError.allCases[i - 1]
  }
}
