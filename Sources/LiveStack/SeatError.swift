/// Error codes of the live-seat and co-guest APIs, with the SDK's numeric values.
///
/// The package limit (-2340) is deliberately distinct from "all seats taken" (100205): one is a plan
/// cap that waiting will not lift while the room stays full of guests, the other a momentary state.
public enum SeatError: Int32, Error, CaseIterable, Sendable, Codable {
  /// Generic failure.
  case failed = -1
  /// Invalid parameter.
  case invalidParameter = -2
  /// Refused in the current state.
  case refused = -3
  /// The user is not in the room.
  case notInRoom = -2101
  /// The request was already processed (by another host, or it ended).
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

  /// A short stable name used in counters and traces, e.g. `seat_limit`.
  public var name: String {
    switch self {
    case .failed: return "failed"
    case .invalidParameter: return "invalid_parameter"
    case .refused: return "refused"
    case .notInRoom: return "not_in_room"
    case .alreadyProcessed: return "already_processed"
    case .seatLimitExceeded: return "seat_limit"
    case .seatIndexNotExist: return "seat_index_not_exist"
    case .seatLocked: return "seat_locked"
    case .seatOccupied: return "seat_occupied"
    case .alreadyInQueue: return "already_in_queue"
    case .alreadyOnSeat: return "already_on_seat"
    case .allSeatsTaken: return "all_taken"
    case .notOnSeat: return "not_on_seat"
    }
  }
}
