import SimKernel

/// What a viewer's client believes about itself, as its UI would show it.
public enum ViewerStatus: UInt8, Sendable, CaseIterable {
  /// Not yet arrived.
  case away
  /// Join sent, not yet confirmed.
  case joining
  /// In the room, not on a seat and not applying.
  case watching
  /// An application is out.
  case applying
  /// Accepted; opening the microphone and camera.
  case connecting
  /// On a seat with devices open.
  case connected
  /// Gone for good.
  case left
}

/// One viewer's client state: 24 bytes, stored densely by user ID.
public struct Viewer: Sendable {
  /// The status the client shows.
  public var status: ViewerStatus = .away
  /// Applications filed so far.
  public var applies: UInt8 = 0
  /// When the current application was intended (the user tapped "apply"), in nanoseconds.
  public var applyIntendedAt: Int64 = 0
  /// When the server accepted the current application, in nanoseconds.
  public var acceptedAt: Int64 = 0

  /// A viewer who has not arrived.
  public init() {}
}
