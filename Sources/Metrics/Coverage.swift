import Clients
import LiveStack

/// What the clients' code was tested against: for every SDK call, the outcomes its callers saw
/// (success, each error the SDK can give that call, and "no answer" split by whether the request
/// was carried out), and for every role, the events its handlers heard. The outcomes a call can
/// get and never got are what the code was never tested against.
public struct OutcomeCoverage: Sendable, Equatable {
  /// How an SDK call ended, as its caller saw it.
  public enum Outcome: Hashable, Sendable {
    /// It succeeded.
    case ok
    /// It succeeded, its answer arriving late: after half the SDK's request timeout.
    case okLate
    /// No answer (-1) though the server carried the request out: its answer was lost.
    case noAnswerCarriedOut
    /// No answer (-1), the request not carried out: lost on the way, queued past the SDK's
    /// timeout, or turned away by a server in an outage.
    case noAnswerNotCarriedOut
    /// The SDK or the server refused it with this error.
    case error(SeatError)

    /// How a report names it.
    public var name: String {
      switch self {
      case .ok: return "ok"
      case .okLate: return "ok, answered late"
      case .noAnswerCarriedOut: return "no answer (-1), carried out"
      case .noAnswerNotCarriedOut: return "no answer (-1), not carried out"
      case .error(let e): return "\(e.name) (\(e.rawValue))"
      }
    }
  }

  /// Every outcome, in the order of the counters' columns.
  public static let outcomes: [Outcome] =
    [.ok, .okLate, .noAnswerCarriedOut, .noAnswerNotCarriedOut]
    + SeatError.allCases.filter { $0 != .failed }.map { .error($0) }
  static let width = outcomes.count
  /// The column of error `e` (not `.failed`, which is counted as no answer): the errors follow
  /// the four outcomes before them in the order of `SeatError.allCases`, whose first is `.failed`.
  /// (Arithmetic rather than a table: it runs for every refused call.)
  @inline(__always)
  static func errorColumn(_ e: SeatError) -> Int { 3 &+ e.ordinal }

  /// The event kinds counted, in the order of ``events``' columns.
  public static var eventNames: [String] { ClientCallback.coverageNames }

  /// The roles whose events are counted, in the order of ``events``' rows.
  public static let roles = ["audience", "owner", "admin", "phone"]

  /// Per call kind and outcome: how many calls ended so.
  public private(set) var calls: [UInt64]
  /// Per role and event kind (``ClientCallback/coverageNames``): how many its handlers heard.
  public private(set) var events: [UInt64]
  /// ``width`` and the number of event kinds, kept here: read at every count, where reading a
  /// static constant of another file is a call.
  let callColumns: Int
  let eventColumns: Int

  /// Nothing counted yet.
  public init() {
    callColumns = OutcomeCoverage.width
    eventColumns = ClientCallback.coverageNames.count
    calls = [UInt64](repeating: 0, count: OperationKind.allCases.count * callColumns)
    events = [UInt64](repeating: 0, count: OutcomeCoverage.roles.count * eventColumns)
  }

  /// A call of `kind` got `error` (nil: success); `carriedOut`: whether the server carried the
  /// request out; `late`: whether the answer came after half the SDK's request timeout.
  public mutating func answered(_ kind: OperationKind, _ error: SeatError?, carriedOut: Bool, late: Bool = false) {
    let column: Int
    switch error {
    case nil: column = late ? 1 : 0
    case .failed?: column = carriedOut ? 2 : 3
    case let e?: column = OutcomeCoverage.errorColumn(e)
    }
    calls[Int(kind.rawValue) &* callColumns &+ column] &+= 1
  }

  /// A handler of a user of role `role` (an index into ``roles``) heard `callback`.
  @inline(__always)
  public mutating func heard(_ callback: ClientCallback, role: Int) {
    guard let i = callback.coverageIndex else { return }
    events[role &* eventColumns &+ i] &+= 1
  }

  /// How many calls of `kind` ended with `outcome`.
  public func count(_ kind: OperationKind, _ outcome: Outcome) -> UInt64 {
    guard let column = OutcomeCoverage.outcomes.firstIndex(of: outcome) else { return 0 }
    return calls[Int(kind.rawValue) * OutcomeCoverage.width + column]
  }

  /// How many events named `name` the handlers of `role` heard.
  public func heardCount(role: String, _ name: String) -> UInt64 {
    guard let r = OutcomeCoverage.roles.firstIndex(of: role),
      let i = ClientCallback.coverageNames.firstIndex(of: name)
    else { return 0 }
    return events[r * ClientCallback.coverageNames.count + i]
  }

  /// The outcomes a call of `kind` can get: success, and for a call the server carries out a
  /// success answered late and "no answer" both ways, and every error the SDK or the server can
  /// answer it with.
  public static func possible(_ kind: OperationKind) -> [Outcome] {
    let noAnswer: [Outcome] =
      kind.isLocal || kind == .tuiLogin ? [] : [.okLate, .noAnswerCarriedOut, .noAnswerNotCarriedOut]
    return [.ok] + noAnswer + kind.possibleErrors.map { .error($0) }
  }

  /// Per call made at least once: the outcomes seen (with their counts, in column order) and the
  /// possible ones never seen. Calls with the most gaps first, then by name.
  public var table: [(call: OperationKind, seen: [(Outcome, UInt64)], neverSeen: [Outcome])] {
    var rows: [(call: OperationKind, seen: [(Outcome, UInt64)], neverSeen: [Outcome])] = []
    for kind in OperationKind.allCases {
      let seen = OutcomeCoverage.outcomes.compactMap { o -> (Outcome, UInt64)? in
        let n = count(kind, o)
        return n > 0 ? (o, n) : nil
      }
      guard !seen.isEmpty else { continue }
      let never = OutcomeCoverage.possible(kind).filter { count(kind, $0) == 0 }
      rows.append((kind, seen, never))
    }
    return rows.sorted {
      $0.neverSeen.count != $1.neverSeen.count ? $0.neverSeen.count > $1.neverSeen.count : "\($0.call)" < "\($1.call)"
    }
  }

  /// Adds `other`'s counts (another seed's, in a sweep).
  public mutating func merge(_ other: OutcomeCoverage) {
    for i in calls.indices { calls[i] &+= other.calls[i] }
    for i in events.indices { events[i] &+= other.events[i] }
  }
}

extension OperationKind {
  /// The errors the SDK or the server can answer this call with, "no answer" (-1) apart: the
  /// columns outcome coverage reports as never seen. Left out are the rate limit's -2 (only with
  /// `server.*.perUser`/`perRoom`/`perApp`) and what only a quirk gives.
  public var possibleErrors: [SeatError] {
    switch self {
    case .login: return []
    case .logout, .tuiLogin, .setVOIP: return [.notLoggedIn]
    case .joinLive: return [.notLoggedIn, .roomNotExist]
    case .leaveLive: return [.notLoggedIn, .notInRoom]
    case .endLive: return [.notLoggedIn, .notInRoom, .refused]
    case .applyForSeat:
      return [
        .notLoggedIn, .notInRoom, .alreadyOnSeat, .alreadyInQueue, .seatLimitExceeded, .seatOccupied, .seatLocked,
        .allSeatsTaken,
      ]
    case .cancelApplication, .rejectInvitation: return [.notLoggedIn, .alreadyProcessed]
    case .acceptApplication:
      return [
        .notLoggedIn, .refused, .alreadyProcessed, .seatLimitExceeded, .seatOccupied, .seatLocked, .allSeatsTaken,
      ]
    case .rejectApplication: return [.notLoggedIn, .refused, .alreadyProcessed]
    case .inviteToSeat:
      return [
        .notLoggedIn, .refused, .notInRoom, .alreadyOnSeat, .alreadyInQueue, .seatLimitExceeded, .seatOccupied,
        .seatLocked, .allSeatsTaken,
      ]
    case .cancelInvitation: return [.notLoggedIn, .alreadyProcessed]
    case .acceptInvitation:
      return [
        .notLoggedIn, .alreadyProcessed, .alreadyOnSeat, .seatLimitExceeded, .seatOccupied, .seatLocked, .allSeatsTaken,
      ]
    case .disConnect, .leaveSeat: return [.notLoggedIn, .notOnSeat]
    case .takeSeat:
      return [
        .notLoggedIn, .notInRoom, .refused, .alreadyOnSeat, .seatLimitExceeded, .seatOccupied, .seatLocked,
        .allSeatsTaken,
      ]
    case .lockSeat, .unlockSeat: return [.notLoggedIn, .refused]
    case .kickUserOutOfSeat: return [.notLoggedIn, .refused, .notOnSeat]
    case .moveUserToSeat: return [.notLoggedIn, .notInRoom, .refused, .notOnSeat, .seatOccupied, .seatLocked]
    case .openLocalMicrophone: return [.microphoneNotAuthorized, .microphoneOccupied]
    case .openLocalCamera: return [.cameraNotAuthorized, .cameraOccupied]
    case .placeCall: return [.notLoggedIn, .invalidCallParticipant, .callRefusedInState]
    case .acceptCall: return [.notLoggedIn, .callRefusedInState, .callRepeated]
    case .rejectCall, .hangupCall: return [.notLoggedIn, .callRefusedInState]
    case .joinCall, .inviteToCall: return [.notLoggedIn, .invalidCallParticipant, .callRefusedInState]
    }
  }
}
