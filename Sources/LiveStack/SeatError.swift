/// Error codes of the login, room, live-seat, co-guest and device APIs, with the SDK's numeric values.
///
/// The package limit (-2340) is deliberately distinct from "all seats taken" (100205): one is a plan
/// cap that waiting will not lift while the room stays full of guests, the other a momentary state.
public enum SeatError: Int32, Error, CaseIterable, Sendable, Codable {
  /// Generic failure.
  case failed = -1
  /// The request was rate-limited ("request is limited, please try again later"; TUIError
  /// `ERR_FREQ_LIMIT`): a server service's rate limit (`server.<service>.ratePer…`).
  case frequencyLimited = -2
  /// Invalid parameter (TUIError `ERR_INVALID_PARAMETER`).
  case invalidParameter = -1001
  /// Refused in the current state (an audience member applying while the room co-hosts, a viewer
  /// calling a host-only operation, a second login).
  case refused = -3
  /// Camera failed to start.
  case cameraStartFailed = -1100
  /// Camera permission denied.
  case cameraNotAuthorized = -1101
  /// Camera used by another app.
  case cameraOccupied = -1102
  /// Microphone failed to start.
  case microphoneStartFailed = -1104
  /// Microphone permission denied.
  case microphoneNotAuthorized = -1105
  /// Microphone used by another app.
  case microphoneOccupied = -1106
  /// Not logged in.
  case notLoggedIn = -1201
  /// `CallStore`: an empty or invalid participant list, or the caller itself in it.
  case invalidCallParticipant = -1202
  /// `CallStore`: refused in the current call state.
  case callRefusedInState = -1203
  /// `CallStore`: the same operation again.
  case callRepeated = -1204
  /// The live room does not exist or has ended.
  case roomNotExist = -2100
  /// The user is not in the room.
  case notInRoom = -2101
  /// The request was already processed (by another host, or it ended), or there is no such request.
  case alreadyProcessed = -2311
  /// Connected co-guests would exceed the package (plan) limit.
  case seatLimitExceeded = -2340
  /// The seat index does not exist.
  case seatIndexNotExist = -2344
  /// The seat is locked.
  case seatLocked = 100_200
  /// The seat is occupied.
  case seatOccupied = 100_201
  /// The user already has a request in the seat queue.
  case alreadyInQueue = 100_202
  /// The user is already on a seat.
  case alreadyOnSeat = 100_203
  /// Every seat is taken (or locked).
  case allSeatsTaken = 100_205
  /// The user is not on a seat.
  case notOnSeat = 100_206

  /// The constant's name as the profile and reports spell it (`seatLimitExceeded`).
  public var name: String { String(describing: self) }
}

extension SeatError {
  /// The error's place in ``allCases`` (its declaration order), so that an event can carry it in a
  /// few bits.
  @inlinable public var ordinal: Int { Int(withUnsafeBytes(of: self) { $0[0] }) }
}
