import LiveStack
import SimKernel

/// One SDK call as made: what was asked. Its completion travels apart (beside it in
/// ``CommandQueue``, then in ``CallsInFlight``), so that the operation is a plain value whose
/// copies touch no reference count.
public struct PendingOperation: Sendable {
  /// The calling user.
  public var user: UInt32
  /// Which call.
  public var kind: OperationKind
  /// The other user involved (applicant, invitee, inviter, kicked or moved user), if any.
  public var target: UInt32
  /// The seat index argument (-1: any), if any.
  public var seat: Int16
  /// The move policy, for `moveUserToSeat`.
  public var policy: MovePolicy
  /// Whether the SDK, the system or a fault made it on the user's behalf, not its app.
  public var onBehalf = false
  /// The timeout argument of `applyForSeat` / `inviteToSeat` (zero: none).
  public var timeout: SimDuration
  /// When the call was made.
  public var issuedAt: SimInstant
  /// Where app code made it (an index into ``ClientRuntime/callSites``; 0: not app code, or not
  /// known).
  public var site: UInt32 = 0
  /// For a call app code made in delayed work (a timer, `asyncAfter`, a sleep's end, and what
  /// that work posted at once), the call (ID + 1) its user's SDK showed ringing or dialing when
  /// the work was armed (0: none, or not delayed work). See
  /// ``ClientRuntime/workArmedWhileRinging``.
  public var armedWhileRinging: UInt32 = 0

  /// Creates a call.
  public init(
    user: UInt32, kind: OperationKind, target: UInt32, seat: Int16, policy: MovePolicy, timeout: SimDuration,
    issuedAt: SimInstant
  ) {
    self.user = user
    self.kind = kind
    self.target = target
    self.seat = seat
    self.policy = policy
    self.timeout = timeout
    self.issuedAt = issuedAt
  }
}
