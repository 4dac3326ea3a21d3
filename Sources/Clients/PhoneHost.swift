import LiveStack
import SimKernel

/// A moment at which the phones' side of the simulation wakes up; the host turns it into a
/// scheduler event and hands it back to the ``PhoneFleet`` when it fires.
public enum PhoneWake: Sendable, Equatable {
  /// The app's next lifecycle step (`epoch` invalidates superseded ones).
  case lifecycle(user: UInt32, epoch: UInt32)
  /// The system replaces the device token.
  case tokenRotated(user: UInt32)
  /// A cellular call starts (`true`) or ends.
  case cellularCall(user: UInt32, starts: Bool)
  /// A cold start finished; `pushCall` is the call whose push woke the app, as ID + 1 (0: none).
  case launched(user: UInt32, pushCall: UInt32)
  /// The report deadline of a push (`serial`: see ``PhoneFleet/reportDeadline(user:serial:_:_:)``).
  case reportDeadline(user: UInt32, serial: UInt32)
  /// PushKit delivers the token to process `generation`.
  case tokenIssued(user: UInt32, generation: UInt32)
  /// The user taps the system UI of ringing conversation `uuid`.
  case systemTap(user: UInt32, uuid: UInt32)
  /// A conversation action's timeout.
  case actionTimeout(action: UInt32)
  /// The grace period after `call` ended passed.
  case conversationCheck(user: UInt32, call: UInt32)
  /// The user starts something in the system UI.
  case systemAction(user: UInt32, kind: ConversationActionKind)
  /// The system hands the app's delegate the Start action `action` the app asked for.
  case appStart(user: UInt32, action: UInt32)
}

extension PhoneWake {
  /// The wake-up as plain numbers for an event: its kind (0..<``kindCount``) and two arguments.
  public var encoded: (kind: Int, a: UInt32, b: UInt32) {
    switch self {
    case .lifecycle(let user, let epoch): return (0, user, epoch)
    case .tokenRotated(let user): return (1, user, 0)
    case .cellularCall(let user, let starts): return (2, user, starts ? 1 : 0)
    case .launched(let user, let pushCall): return (3, user, pushCall)
    case .reportDeadline(let user, let serial): return (4, user, serial)
    case .tokenIssued(let user, let generation): return (5, user, generation)
    case .systemTap(let user, let uuid): return (6, user, uuid)
    case .actionTimeout(let action): return (7, action, 0)
    case .conversationCheck(let user, let call): return (8, user, call)
    case .systemAction(let user, let kind): return (9, user, UInt32(kind.rawValue))
    case .appStart(let user, let action): return (10, user, action)
    }
  }

  /// How many kinds of wake-up there are.
  public static let kindCount = 11

  /// The wake-up ``encoded`` as `kind`, `a` and `b`.
  public init(kind: Int, a: UInt32, b: UInt32) {
    switch kind {
    case 0: self = .lifecycle(user: a, epoch: b)
    case 1: self = .tokenRotated(user: a)
    case 2: self = .cellularCall(user: a, starts: b == 1)
    case 3: self = .launched(user: a, pushCall: b)
    case 4: self = .reportDeadline(user: a, serial: b)
    case 5: self = .tokenIssued(user: a, generation: b)
    case 6: self = .systemTap(user: a, uuid: b)
    case 7: self = .actionTimeout(action: a)
    case 8: self = .conversationCheck(user: a, call: b)
    case 9: self = .systemAction(user: a, kind: ConversationActionKind(rawValue: UInt8(truncatingIfNeeded: b))!)
    case 10: self = .appStart(user: a, action: b)
    default: preconditionFailure("unknown phone wake-up kind \(kind)")
    }
  }
}

/// What happened on a phone that the metrics and the oracles hear of.
public enum PhoneNews: Sendable {
  /// A new process of an app started.
  case coldStart
  /// The system replaced a device token.
  case tokenRotated
  /// The app reported an incoming conversation (`failed`: the report threw).
  case conversationReported(phone: UInt32, failed: Bool)
  /// The phone shows `active` conversation groups after a report, against the limit of `limit`.
  case conversationCount(phone: UInt32, active: Int, limit: Int)
  /// The system UI rang `call` on `phone`.
  case rang(phone: UInt32, call: UInt32)
  /// An action of `kind` on `phone` timed out (after `timeout`) before the app completed it.
  case actionTimedOut(phone: UInt32, action: UInt32, kind: ConversationActionKind, timeout: SimDuration)
  /// An action was settled on time.
  case actionSettled(fulfilled: Bool)
  /// A Join was fulfilled, for `call` (nil: none) that the server had (`accepted`) accepted for
  /// the phone.
  case joinFulfilled(phone: UInt32, call: UInt32?, accepted: Bool)
  /// An action was completed after its timeout (`repeated`: or for the second time).
  case lateCompletion(phone: UInt32, action: UInt32, repeated: Bool, fulfilled: Bool)
  /// The user tapped answer while the app's SDK was not logged in yet.
  case joinDuringColdStart
  /// The system killed the app for a push it did not report: `call` the pushed call (ID, wrapping
  /// for none), `handedAt` when the push reached the handler, `noHandler` whether the process had
  /// no registry, `returned` whether its handler finished without reporting (before the deadline);
  /// `newlySuppressed` whether the system now stops delivering its pushes.
  case missedReport(
    phone: UInt32, call: UInt32, handedAt: SimInstant, noHandler: Bool, returned: Bool, newlySuppressed: Bool)
  /// The report deadline of a push the app did report passed (`launchedAt` the process start,
  /// `declined` the last call the app declined or hung up, as ID + 1).
  case reportedByDeadline(phone: UInt32, pushed: UInt32, launchedAt: SimInstant, declined: UInt32)
  /// The grace period after `call` ended passed for `phone`.
  case graceAfterCall(phone: UInt32, call: UInt32)
  /// The app asked the system to start an outgoing conversation (`failed`: `perform` threw).
  case outgoingStarted(phone: UInt32, failed: Bool)
  /// The app reported a conversation ended, for `reason`.
  case conversationEnded(ConversationEndReason)
}

/// What the phones need from the simulation that runs them: scheduling, the apps' code, the SDK
/// calls the system makes for an app, the SDK's catching up after a reconnect, the call server's
/// records, and the metrics and oracles.
public protocol PhoneHost {
  /// The scheduler event for `wake`.
  static func event(_ wake: PhoneWake) -> Event
  /// Runs `callback` in the app of `user` (with its behaviour), then what it asked for.
  mutating func run(_ user: UInt32, _ callback: ClientCallback, _ scheduler: inout Scheduler)
  /// Sends an SDK call on the app's behalf (the SDK's own rules, such as hanging up on close).
  mutating func issue(_ op: PendingOperation, _ scheduler: inout Scheduler)
  /// A call event reaches the SDK of `user`, as over its signalling channel.
  mutating func deliver(_ user: UInt32, _ event: CallEvent, _ scheduler: inout Scheduler)
  /// Whether the server still has `user` logged in.
  func isLoggedIn(_ user: UInt32) -> Bool
  /// The call the server has `user` in.
  func serverCall(of user: UInt32) -> UInt32?
  /// `user`'s state in its call, by the server's account.
  func serverCallState(of user: UInt32) -> CallParticipantState
  /// Tells the metrics and the oracles what happened.
  mutating func observe(_ news: PhoneNews, _ now: SimInstant)
  /// What the call server knows of call `id` that a phone needs.
  func call(_ id: UInt32) -> CallFacts
}

/// What a phone needs to know of a call: who placed it, how, and whether and why it ended.
public struct CallFacts: Sendable {
  /// The caller.
  public var caller: UInt32
  /// Audio or video.
  public var mediaType: CallMediaType
  /// Whether it has ended.
  public var isOver: Bool
  /// Why it ended, if it did.
  public var endReason: CallEndReason?

  /// The facts of `record`.
  public init(_ record: borrowing CallRecord) {
    caller = record.caller
    mediaType = record.mediaType
    isOver = record.isOver
    endReason = record.endReason
  }
}
