/// The server's messages to clients: the co-guest signalling events, login events, and the
/// `Notice` that carries any of them (or a seat-list batch) to one client.

/// Why an application or invitation got no answer (`NoResponseReason`).
public enum NoResponseReason: UInt8, Sendable, CaseIterable {
  /// Nobody answered within the timeout.
  case timeout
  /// The guest got a seat another way first.
  case alreadySeated
}

/// Events `CoGuestStore.guestEventPublisher` delivers to an audience member.
public enum GuestEvent: Sendable, Equatable {
  /// `onHostInvitationReceived(hostUser)`.
  case onHostInvitationReceived(host: UInt32)
  /// `onHostInvitationCancelled(hostUser)`.
  case onHostInvitationCancelled(host: UInt32)
  /// `onGuestApplicationResponded(isAccept, hostUser)`.
  case onGuestApplicationResponded(isAccept: Bool, host: UInt32)
  /// `onGuestApplicationNoResponse(reason)`.
  case onGuestApplicationNoResponse(reason: NoResponseReason)
  /// `onKickedOffSeat(seatIndex, hostUser)`.
  case onKickedOffSeat(seatIndex: Int, host: UInt32)
}

/// Events `CoGuestStore.hostEventPublisher` delivers to a host or admin.
public enum HostEvent: Sendable, Equatable {
  /// `onGuestApplicationReceived(guestUser)`.
  case onGuestApplicationReceived(guest: UInt32)
  /// `onGuestApplicationCancelled(guestUser)`.
  case onGuestApplicationCancelled(guest: UInt32)
  /// `onGuestApplicationProcessedByOtherHost(guestUser, hostUser)`.
  case onGuestApplicationProcessedByOtherHost(guest: UInt32, host: UInt32)
  /// `onHostInvitationResponded(isAccept, guestUser)`.
  case onHostInvitationResponded(isAccept: Bool, guest: UInt32)
  /// `onHostInvitationNoResponse(guestUser, reason)`.
  case onHostInvitationNoResponse(guest: UInt32, reason: NoResponseReason)
}

/// Events `LoginStore` delivers.
public enum LoginEvent: UInt8, Sendable, CaseIterable {
  /// The same user logged in elsewhere.
  case kickedOffline
  /// The UserSig expired.
  case loginExpired
}

extension GuestEvent {
  /// Whether this is the answer to the guest's application (accepted, rejected or no response).
  public var isApplicationAnswer: Bool {
    switch self {
    case .onGuestApplicationResponded, .onGuestApplicationNoResponse: return true
    default: return false
    }
  }
}

extension CallEvent {
  /// The call the event is about.
  public var call: UInt32 {
    switch self {
    case .received(_, let c), .started(_, let c), .ended(_, let c, _, _): return c
    }
  }

  /// The user the event goes to.
  public var user: UInt32 {
    switch self {
    case .received(let u, _), .started(let u, _), .ended(let u, _, _, _): return u
    }
  }
}

/// Up to four seat-list changes delivered to one client in one message.
public struct SeatBatch: Sendable {
  /// How many changes it holds.
  public private(set) var count = 0
  /// Whether it is part of the list a client's SDK is sent as it enters the room (state its
  /// `joinLive` brings, not an event a handler must hear).
  public var snapshot = false
  /// Whether it starts a host's or admin's snapshot: the SDK drops the list it held (changes made
  /// while it was out of the room never reached it) and takes the room's as it follows.
  public var startsList = false
  var changes: (SeatChange?, SeatChange?, SeatChange?, SeatChange?) = (nil, nil, nil, nil)

  /// An empty batch.
  public init() {}

  /// The `i`th change (below `count`).
  public subscript(i: Int) -> SeatChange {
    switch i {
    case 0: return changes.0!
    case 1: return changes.1!
    case 2: return changes.2!
    default: return changes.3!
    }
  }

  /// Adds a change (at most four).
  public mutating func append(_ c: SeatChange) {
    precondition(count < 4, "a seat batch holds four changes")
    switch count {
    case 0: changes.0 = c
    case 1: changes.1 = c
    case 2: changes.2 = c
    default: changes.3 = c
    }
    count += 1
  }

  /// Whether it holds four changes.
  public var isFull: Bool { count == 4 }
}

/// A server-to-client message in flight.
public enum Notice: Sendable {
  /// A co-guest event for an audience member, about request `request` (`.max`: none).
  case guest(UInt32, GuestEvent, request: UInt32)
  /// A co-guest event for a host or admin, about request `request`.
  case host(UInt32, HostEvent, request: UInt32)
  /// The host's SDK drops a guest from its applicants list (no event is raised).
  case applicantRemoved(host: UInt32, guest: UInt32)
  /// The host's SDK drops a guest from its invitees list (no event is raised).
  case inviteeRemoved(host: UInt32, guest: UInt32)
  /// The guest's SDK drops the host's invitation (no event is raised).
  case invitationRemoved(guest: UInt32, host: UInt32)
  /// A seat-list batch, kept out of line in a slot table (slot) so notices stay small.
  case seats(UInt32, batch: UInt32)
  /// The user's live ended.
  case liveEnded(UInt32)
  /// The user's login ended.
  case login(UInt32, LoginEvent)
  /// A call event.
  case call(UInt32, CallEvent)

  /// Whether this is a co-guest signalling event (what `network.duplicate` repeats).
  public var isSignalling: Bool {
    switch self {
    case .guest, .host: return true
    default: return false
    }
  }

  /// The user it goes to.
  public var user: UInt32 {
    switch self {
    case .guest(let u, _, _), .host(let u, _, _), .seats(let u, _), .liveEnded(let u), .login(let u, _),
      .call(let u, _):
      return u
    case .applicantRemoved(let h, _), .inviteeRemoved(let h, _): return h
    case .invitationRemoved(let g, _): return g
    }
  }
}
