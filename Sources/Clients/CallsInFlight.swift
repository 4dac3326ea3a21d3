import LiveStack
import SimKernel

/// The SDK calls in flight and the behaviours' timers, each in a slot table with a free list. An
/// event names a slot (`Event` carries no payloads), so a slot stays live until its event is
/// handled.
///
/// The tables live in one ``Storage`` object behind raw pointers: every call in a run goes
/// through here twice (filed, then answered), and plain loads and stores there cost neither the
/// uniqueness check of an array write nor the retain and release of copying a completion (a
/// completion is moved in when filed and moved out when answered). Like the clients' SDK state,
/// the tables have reference semantics: a copy of `CallsInFlight` shares them.
public struct CallsInFlight {
  @usableFromInline let storage: Storage

  /// No calls and no timers, for the clients in `clients` (whose records count each one's calls
  /// awaiting answers).
  public init(clients: ColumnView<ClientState>) { storage = Storage(clients: clients) }

  /// SDK calls by slot (a freed slot has `live == false`).
  public var ops: SlotTable<OperationRecord> { SlotTable(base: storage.ops, count: storage.opCount) }
  /// Behaviour timers by slot.
  public var timers: SlotTable<TimerRecord> { SlotTable(base: storage.timers, count: storage.timerCount) }

  /// Stores SDK call `op` with its completion, if any, made by a process of generation
  /// `generation`; returns its slot.
  public mutating func allocate(
    _ op: PendingOperation, completion: consuming Completion? = nil, generation: UInt16
  ) -> UInt32 {
    var record = OperationRecord(op)
    record.generation = generation
    let s = storage
    s.countCall(of: record.user, by: 1)
    let slot: Int
    if s.freeOpCount > 0 {
      s.freeOpCount &-= 1
      slot = Int(s.freeOps[s.freeOpCount])
    } else {
      if s.opCount == s.opCapacity { s.growOps() }
      slot = s.opCount
      s.opCount &+= 1
    }
    s.ops[slot] = record
    (s.completions + slot).initialize(to: CompletionSlot(fn: completion))
    return UInt32(slot)
  }

  /// Frees operation `slot`, returning its record; its completion is moved into `completion`.
  /// (Returned separately: a tuple holding a closure is destroyed through the runtime's generic
  /// path, which costs hundreds of instructions.)
  public mutating func take(_ slot: UInt32, completion: inout Completion?) -> OperationRecord {
    let s = storage
    let i = Int(slot)
    precondition(i < s.opCount && s.ops[i].live, "operation slot \(slot) is free")
    let op = s.ops[i]
    s.ops[i].live = false
    s.countCall(of: op.user, by: -1)
    completion = (s.completions + i).move().fn
    s.freeOps[s.freeOpCount] = slot
    s.freeOpCount &+= 1
    return op
  }

  /// The call in `slot` will get no answer (`network.loss`, a vanishing outage): the SDK times it
  /// out.
  public mutating func loseAnswer(_ slot: UInt32) {
    precondition(Int(slot) < storage.opCount, "operation slot \(slot) out of range")
    storage.ops[Int(slot)].answerLost = true
  }

  /// The answer to the call in `slot` comes late, just inside the SDK's timeout (steered chaos).
  public mutating func delayAnswer(_ slot: UInt32) {
    precondition(Int(slot) < storage.opCount, "operation slot \(slot) out of range")
    storage.ops[Int(slot)].answerLate = true
  }

  /// The server carried out the request in `slot`.
  public mutating func markPerformed(_ slot: UInt32) {
    storage.ops[Int(slot)].performed = true
  }

  /// Whether `user` has a `joinLive` awaiting its answer (a scan: for rare events only).
  public func isJoining(_ user: UInt32) -> Bool {
    ops.contains { $0.live && $0.user == user && $0.kind == .joinLive }
  }

  /// Whether `user` has a `leaveLive` awaiting its answer (a scan: for rare events only).
  public func isLeaving(_ user: UInt32) -> Bool {
    ops.contains { $0.live && $0.user == user && $0.kind == .leaveLive }
  }

  /// Whether `user` has a `login` awaiting its answer (a scan: for rare events only).
  public func isLoggingIn(_ user: UInt32) -> Bool {
    ops.contains { $0.live && $0.user == user && $0.kind == .login }
  }

  /// Whether `user` has an SDK call awaiting its answer.
  @inlinable public func hasCallInFlight(_ user: UInt32) -> Bool {
    storage.clients[Int(user)].callsInFlight > 0
  }

  /// The users with an operation in flight (the end-of-run liveness checks ask it of every user).
  public func usersInFlight() -> UserBits {
    var busy = UserBits()
    for op in ops where op.live { busy.insert(op.user) }
    return busy
  }

  /// Stores a timer's tag and argument; the `clientTimer` event carries the returned slot.
  public mutating func addTimer(tag: UInt32, arg: UInt32, generation: UInt16 = 0) -> UInt32 {
    let record = TimerRecord(tag: tag, arg: arg, generation: generation)
    let s = storage
    if s.freeTimerCount > 0 {
      s.freeTimerCount &-= 1
      let free = s.freeTimers[s.freeTimerCount]
      s.timers[Int(free)] = record
      return free
    }
    if s.timerCount == s.timerCapacity { s.growTimers() }
    s.timers[s.timerCount] = record
    s.timerCount &+= 1
    return UInt32(s.timerCount &- 1)
  }

  /// Hints that timer `slot` is about to be taken (see ``prefetchHint(_:)``).
  @inlinable
  public func prefetchTimer(_ slot: UInt32) {
    if Int(slot) < storage.timerCount { prefetchHint(storage.timers + Int(slot)) }
  }

  /// Hints that the record in operation `slot` is about to be read.
  @inlinable
  public func prefetchRecord(_ slot: UInt32) {
    if Int(slot) < storage.opCount { prefetchHint(storage.ops + Int(slot)) }
  }

  /// Hints that the completion in operation `slot` is about to be taken (its answer comes next).
  public func prefetchCompletion(_ slot: UInt32) {
    if Int(slot) < storage.opCount { prefetchHint(storage.completions + Int(slot)) }
  }

  /// Frees timer `slot`, returning what it holds.
  public mutating func takeTimer(_ slot: UInt32) -> TimerRecord {
    let s = storage
    precondition(Int(slot) < s.timerCount, "timer slot \(slot) out of range")
    s.freeTimers[s.freeTimerCount] = slot
    s.freeTimerCount &+= 1
    return s.timers[Int(slot)]
  }

  /// The slot tables of ``CallsInFlight``, in raw storage that grows by doubling. A live
  /// operation slot holds an initialized completion; a free one holds none.
  public final class Storage {
    @usableFromInline var ops: UnsafeMutablePointer<OperationRecord>
    var completions: UnsafeMutablePointer<CompletionSlot>
    /// Free operation slots (a stack), with room for every slot.
    var freeOps: UnsafeMutablePointer<UInt32>
    @usableFromInline var opCount = 0
    var opCapacity = 0
    var freeOpCount = 0
    /// The clients' records, which count each one's calls awaiting answers.
    @usableFromInline let clients: ColumnView<ClientState>
    @usableFromInline var timers: UnsafeMutablePointer<TimerRecord>
    var freeTimers: UnsafeMutablePointer<UInt32>
    @usableFromInline var timerCount = 0
    var timerCapacity = 0
    var freeTimerCount = 0
    /// The call each successful `calls()` created, by operation slot, until its answer arrives
    /// (looked up by key only).
    var placedCalls: [UInt32: UInt32] = [:]

    init(clients: ColumnView<ClientState>) {
      self.clients = clients
      ops = .allocate(capacity: 0)
      completions = .allocate(capacity: 0)
      freeOps = .allocate(capacity: 0)
      timers = .allocate(capacity: 0)
      freeTimers = .allocate(capacity: 0)
    }

    deinit {
      for i in 0..<opCount where ops[i].live { (completions + i).deinitialize(count: 1) }
      ops.deallocate()
      completions.deallocate()
      freeOps.deallocate()
      timers.deallocate()
      freeTimers.deallocate()
    }

    @inline(__always)
    func countCall(of user: UInt32, by change: Int32) {
      clients[Int(user)].callsInFlight &+= UInt16(truncatingIfNeeded: change)
    }

    func growOps() {
      let capacity = max(64, opCapacity * 2)
      ops = ops.movedToNewBlock(count: opCount, capacity: capacity)
      freeOps = freeOps.movedToNewBlock(count: freeOpCount, capacity: capacity)
      // Live slots hold a completion, free ones none: move each live one across.
      let moreCompletions = UnsafeMutablePointer<CompletionSlot>.allocateTable(capacity: capacity)
      for i in 0..<opCount where ops[i].live { (moreCompletions + i).moveInitialize(from: completions + i, count: 1) }
      completions.deallocate()
      completions = moreCompletions
      opCapacity = capacity
    }

    func growTimers() {
      let capacity = max(64, timerCapacity * 2)
      timers = timers.movedToNewBlock(count: timerCount, capacity: capacity)
      freeTimers = freeTimers.movedToNewBlock(count: freeTimerCount, capacity: capacity)
      timerCapacity = capacity
    }
  }
}

/// A read-only view of a slot table of ``CallsInFlight``, as it stands when taken (a freed
/// operation slot has `live == false`).
public struct SlotTable<Element>: RandomAccessCollection {
  @usableFromInline let base: UnsafeMutablePointer<Element>
  public let endIndex: Int
  init(base: UnsafeMutablePointer<Element>, count: Int) {
    self.base = base
    endIndex = count
  }
  public var startIndex: Int { 0 }
  @inlinable public subscript(slot: Int) -> Element {
    precondition(slot >= 0 && slot < endIndex, "slot out of range")
    return base[slot]
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

/// One stored completion (see ``CallsInFlight``). Kept inside a struct: a pointer to a function
/// type stores it at maximal abstraction, which wraps every store and load in a freshly
/// allocated reabstraction thunk.
@usableFromInline struct CompletionSlot {
  @usableFromInline var fn: Completion?
  @usableFromInline init(fn: consuming Completion?) { self.fn = fn }
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
  /// Whether the server carried the request out (for outcome coverage: "no answer" after it was
  /// carried out is another case for the caller than a request that never was).
  public var performed = false
  /// Whether the answer comes late, just inside the SDK's timeout (steered: `answer-late`).
  public var answerLate = false
  /// The process generation of a phone app that made the call (0 for everyone else).
  public var generation: UInt16 = 0
  /// Whether it was made on the user's behalf (``PendingOperation/onBehalf``).
  public var onBehalf: Bool
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
    onBehalf = op.onBehalf
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
    case .acceptCall: return .acceptCall(call: target)
    case .rejectCall: return .rejectCall(call: target)
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
  public mutating func placed(_ slot: UInt32, call: UInt32) { storage.placedCalls[slot] = call }

  /// The call the `calls()` in `slot` created, if it did; forgotten once taken.
  public mutating func takePlaced(_ slot: UInt32) -> UInt32? { storage.placedCalls.removeValue(forKey: slot) }
}

/// A set of user IDs, one bit each (bit `u & 63` of word `u >> 6`): asked of every user of a
/// world of millions, it answers without hashing.
public struct UserBits: Sendable {
  private var words: [UInt64] = []

  /// The empty set.
  public init() {}

  /// Adds `user`.
  public mutating func insert(_ user: UInt32) {
    words.grow(toInclude: Int(user >> 6), filling: 0)
    words[Int(user >> 6)] |= 1 << UInt64(user & 63)
  }

  /// Whether `user` is in the set.
  public func contains(_ user: UInt32) -> Bool {
    Int(user >> 6) < words.count && words[Int(user >> 6)] >> UInt64(user & 63) & 1 != 0
  }
}
