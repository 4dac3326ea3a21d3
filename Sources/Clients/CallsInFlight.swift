import LiveStack
import SimKernel

/// The SDK calls in flight and the behaviours' timers, each in a slot table with a free list. An
/// event names a slot (`Event` carries no payloads), so a slot stays live until its event is
/// handled.
public struct CallsInFlight {
  /// SDK calls by slot (a freed slot has `live == false`).
  public private(set) var ops: [OperationRecord] = []
  /// Completions of the calls in flight, by slot. Kept inside a struct: array elements of function
  /// type are stored at maximal abstraction, which wraps every store and load in a freshly
  /// allocated reabstraction thunk.
  var completions: [CompletionSlot] = []
  var freeOps: [UInt32] = []
  /// Per user (grown on demand): how many of its SDK calls await their answers.
  @usableFromInline var liveByUser: [UInt32] = []
  /// Behaviour timers by slot.
  public private(set) var timers: [TimerRecord] = []
  var freeTimers: [UInt32] = []
  /// The call each successful `calls()` created, by operation slot, until its answer arrives
  /// (looked up by key only).
  var placedCalls: [UInt32: UInt32] = [:]

  /// No calls and no timers.
  public init() {}

  /// Stores SDK call `op`, made by a process of generation `generation`; returns its slot.
  public mutating func allocate(_ op: PendingOperation, generation: UInt16) -> UInt32 {
    var op = op
    return allocate(op, completion: op.completion.take(), generation: generation)
  }

  /// Takes a free slot for `op`, whose completion is passed apart (moved out of the operation, so
  /// that the operation is copied without retaining it); returns the slot.
  public mutating func allocate(_ op: PendingOperation, completion: consuming Completion?, generation: UInt16) -> UInt32
  {
    var record = OperationRecord(op)
    record.generation = generation
    let u = Int(record.user)
    liveByUser.grow(toInclude: u, filling: 0)
    liveByUser[u] += 1
    if let slot = freeOps.popLast() {
      ops[Int(slot)] = record
      completions[Int(slot)] = CompletionSlot(completion)
      return slot
    }
    ops.append(record)
    completions.append(CompletionSlot(completion))
    return UInt32(ops.count - 1)
  }

  /// Frees operation `slot`, returning its record; its completion is moved into `completion`.
  /// (Returned separately: a tuple holding a closure is destroyed through the runtime's generic
  /// path, which costs hundreds of instructions.)
  public mutating func take(_ slot: UInt32, completion: inout Completion?) -> OperationRecord {
    let op = ops[Int(slot)]
    precondition(op.live, "operation slot \(slot) is free")
    ops[Int(slot)].live = false
    liveByUser[Int(op.user)] -= 1
    completion = completions[Int(slot)].take()
    freeOps.append(slot)
    return op
  }

  /// The call in `slot` will get no answer (`network.loss`, a vanishing outage): the SDK times it
  /// out.
  public mutating func loseAnswer(_ slot: UInt32) { ops[Int(slot)].answerLost = true }

  /// Whether `user` has a `joinLive` awaiting its answer (a scan: for rare events only).
  public func isJoining(_ user: UInt32) -> Bool {
    ops.contains { $0.live && $0.user == user && $0.kind == .joinLive }
  }

  /// Whether `user` has a `login` awaiting its answer (a scan: for rare events only).
  public func isLoggingIn(_ user: UInt32) -> Bool {
    ops.contains { $0.live && $0.user == user && $0.kind == .login }
  }

  /// Whether `user` has an SDK call awaiting its answer.
  @inlinable public func hasCallInFlight(_ user: UInt32) -> Bool {
    Int(user) < liveByUser.count && liveByUser[Int(user)] > 0
  }

  public func usersInFlight() -> Set<UInt32> {
    var busy = Set<UInt32>()
    for op in ops where op.live { busy.insert(op.user) }
    return busy
  }

  /// Stores a timer's tag and argument; the `clientTimer` event carries the returned slot.
  public mutating func addTimer(tag: UInt32, arg: UInt32, generation: UInt16 = 0) -> UInt32 {
    let record = TimerRecord(tag: tag, arg: arg, generation: generation)
    if let free = freeTimers.popLast() {
      timers[Int(free)] = record
      return free
    }
    timers.append(record)
    return UInt32(timers.count - 1)
  }

  /// Frees timer `slot`, returning what it holds.
  public mutating func takeTimer(_ slot: UInt32) -> TimerRecord {
    freeTimers.append(slot)
    return timers[Int(slot)]
  }
}

/// A behaviour timer: its tag and argument, and the process generation that set it (a timer of a
/// process that has since died never fires).
public struct TimerRecord: Sendable {
  /// The behaviour's tag.
  public var tag: UInt32
  /// The behaviour's argument.
  public var arg: UInt32
  /// The generation of the phone app process that set it (0 for everyone else).
  public var generation: UInt16
}

/// One stored completion (see ``CallsInFlight``).
struct CompletionSlot {
  var fn: Completion
  var isSet: Bool

  nonisolated(unsafe) static let none: Completion = { _, _ in }

  init(_ fn: Completion?) {
    self.fn = fn ?? CompletionSlot.none
    isSet = fn != nil
  }

  /// Moves the completion out, leaving the slot empty.
  mutating func take() -> Completion? {
    guard isSet else { return nil }
    let f = fn
    fn = CompletionSlot.none
    isSet = false
    return f
  }
}

/// An SDK call in flight, without its completion (kept apart so that copying a record never
/// touches a reference count).
public struct OperationRecord: Sendable {
  /// The calling user.
  public var user: UInt32
  /// Which call.
  public var kind: OperationKind
  /// Whether the slot holds a call in flight.
  public var live: Bool
  /// The seat index argument; for some calls a small argument (media type, token).
  public var seat: Int16
  /// The move policy, for `moveUserToSeat`.
  public var policy: MovePolicy
  /// Whether the answer will be lost (`network.loss`): the SDK then times the call out.
  public var answerLost = false
  /// The process generation of a phone app that made the call (0 for everyone else).
  public var generation: UInt16 = 0
  /// The other user involved; for some calls a slot or ID (callee list, call, certificate).
  public var target: UInt32
  /// The timeout argument (zero: none).
  public var timeout: SimDuration
  /// When the call was made.
  public var issuedAt: SimInstant

  init(_ op: PendingOperation) {
    user = op.user
    kind = op.kind
    live = true
    seat = op.seat
    policy = op.policy
    target = op.target
    timeout = op.timeout
    issuedAt = op.issuedAt
  }
}

extension OperationRecord {
  /// The request this SDK call sends the server, its packed arguments decoded (`callees`: the
  /// participant list of a `calls()`, kept out of line).
  public func request(callees: [UInt32] = []) -> ServerRequest {
    switch kind {
    case .login: return .login
    case .logout: return .logout
    case .joinLive: return .joinLive
    case .leaveLive: return .leaveLive
    case .endLive: return .endLive
    case .applyForSeat: return .applyForSeat(seat: Int(seat))
    case .cancelApplication: return .cancelApplication
    case .acceptApplication: return .acceptApplication(guest: target)
    case .rejectApplication: return .rejectApplication(guest: target)
    case .inviteToSeat: return .inviteToSeat(guest: target, seat: Int(seat))
    case .cancelInvitation: return .cancelInvitation(guest: target)
    case .acceptInvitation: return .acceptInvitation(inviter: target)
    case .rejectInvitation: return .rejectInvitation(inviter: target)
    case .disConnect, .leaveSeat: return .leaveSeat
    case .takeSeat: return .takeSeat(seat: Int(seat))
    case .lockSeat, .unlockSeat: return .setLocked(seat: Int(seat), locked: kind == .lockSeat)
    case .kickUserOutOfSeat: return .kick(guest: target)
    case .moveUserToSeat: return .move(user: target, seat: Int(seat), policy: policy)
    case .openLocalMicrophone, .openLocalCamera: preconditionFailure("device calls are answered by the phone")
    case .placeCall:
      return .placeCall(
        callees: callees, mediaType: mediaType, timeout: timeout > .zero ? timeout : CallService.defaultTimeout)
    case .acceptCall: return .acceptCall
    case .rejectCall: return .rejectCall
    case .hangupCall: return .hangupCall
    case .joinCall: return .joinCall(call: joinedCall)
    case .tuiLogin: return .tuiLogin
    case .setVOIP: return .setVOIP(certificateID: voipConfig.certificateID, token: voipConfig.token)
    case .inviteToCall: return .inviteToCall(callees: callees)
    }
  }
}

extension CallsInFlight {
  /// The `calls()` in `slot` created call `call`; its answer will tell the SDK.
  public mutating func placed(_ slot: UInt32, call: UInt32) { placedCalls[slot] = call }

  /// The call the `calls()` in `slot` created, if it did; forgotten once taken.
  public mutating func takePlaced(_ slot: UInt32) -> UInt32? { placedCalls.removeValue(forKey: slot) }
}
