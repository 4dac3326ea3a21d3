import LiveStack

/// The co-guest status a client's UI shows (the seed view model's `CoGuestStatus`, with the states
/// around it that a whole session needs).
public enum CoGuestStatus: UInt8, Sendable, CaseIterable {
  /// Not in the room yet.
  case away
  /// In the room, not applying and not on a seat.
  case idle
  /// An application is out.
  case applying
  /// Accepted; opening the microphone and camera.
  case connecting
  /// On a seat.
  case connected
  /// Left the room for good.
  case left

  /// The status's name as reports spell it.
  public var name: String { String(describing: self) }
}

/// The event streams a client can subscribe to. A client receives events only on streams it
/// subscribed to; state (seat list, applicants) is kept by the SDK either way.
public struct Subscriptions: OptionSet, Sendable {
  /// The raw bits.
  public let rawValue: UInt8
  /// Creates a set from raw bits.
  public init(rawValue: UInt8) { self.rawValue = rawValue }
  /// `CoGuestStore.guestEventPublisher`.
  public static let guestEvents = Subscriptions(rawValue: 1)
  /// `CoGuestStore.hostEventPublisher`.
  public static let hostEvents = Subscriptions(rawValue: 2)
  /// `LiveSeatStore` seat-list changes.
  public static let seatList = Subscriptions(rawValue: 4)
  /// `LoginStore` events.
  public static let loginEvents = Subscriptions(rawValue: 8)
  /// `LiveListStore` events (the live ending).
  public static let liveEvents = Subscriptions(rawValue: 16)
  /// `CallStore` events (`onCallReceived`, `onCallStarted`, `onCallEnded`).
  public static let callEvents = Subscriptions(rawValue: 32)
  /// Not a stream: an app whose objects are not made yet (its shell is still logging in and
  /// entering the room), to which no event its role must hear is held against.
  public static let appStarting = Subscriptions(rawValue: 64)
  /// Not a stream: an app whose process crashed and is gone (a user other than a phone's, whose
  /// app nobody launches again in the run), to which nothing that reaches it is held against.
  public static let appGone = Subscriptions(rawValue: 128)
}

extension Subscriptions {
  /// The SDK stream's name, for messages.
  public var name: String {
    switch self {
    case .guestEvents: return "guestEventPublisher"
    case .hostEvents: return "hostEventPublisher"
    case .seatList: return "the seat list"
    case .loginEvents: return "LoginStore events"
    case .liveEvents: return "LiveListStore events"
    case .callEvents: return "CallStore events"
    default: return "stream \(rawValue)"
    }
  }
}
