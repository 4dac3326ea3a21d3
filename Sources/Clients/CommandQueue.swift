import LiveStack
import SimKernel

/// The commands clients issue during one callback, in order: a growable buffer whose bookkeeping
/// sits behind constant pointers, so appending through a copy of the queue costs neither an
/// exclusivity check nor a retain. A queue is a handle: copies share the buffer, and its owner
/// frees it once with ``deallocate()``.
@frozen
public struct CommandQueue {
  let storage: UnsafeMutablePointer<UnsafeMutablePointer<ClientCommand>>
  // The operations' completions, beside their commands: a command is then built and moved without
  // copying (and retaining) the closure it carries. (In a struct: see `CompletionSlot`.)
  let sides: UnsafeMutablePointer<UnsafeMutablePointer<CompletionSlot>>
  let counts: UnsafeMutablePointer<Int>  // [count, capacity]

  /// An empty queue.
  public init() {
    storage = .allocate(capacity: 1)
    storage.initialize(to: .allocate(capacity: 16))
    sides = .allocate(capacity: 1)
    sides.initialize(to: .allocate(capacity: 16))
    counts = .allocate(capacity: 2)
    counts.initialize(repeating: 0, count: 2)
    counts[1] = 16
  }

  /// Frees the buffer and any commands not taken; no copy of the queue may be used after.
  public func deallocate() {
    storage.pointee.deinitialize(count: counts[0])
    storage.pointee.deallocate()
    storage.deallocate()
    sides.pointee.deinitialize(count: counts[0])
    sides.pointee.deallocate()
    sides.deallocate()
    counts.deallocate()
  }

  /// Commands waiting.
  public var count: Int { counts[0] }

  /// Appends a command (an operation so appended has no completion: see
  /// ``appendOperation(user:kind:target:seat:policy:timeout:issuedAt:completion:)``).
  public func append(_ command: consuming ClientCommand) {
    if counts[0] == counts[1] { grow() }
    (sides.pointee + counts[0]).initialize(to: CompletionSlot(fn: nil))
    (storage.pointee + counts[0]).initialize(to: command)
    counts[0] += 1
  }

  /// Doubles the room for commands.
  func grow() {
    storage.pointee = storage.pointee.movedToNewBlock(count: counts[0], capacity: counts[1] * 2)
    sides.pointee = sides.pointee.movedToNewBlock(count: counts[0], capacity: counts[1] * 2)
    counts[1] *= 2
  }

  /// Appends an SDK call, built in place, with its completion.
  @inline(__always)
  public func appendOperation(
    user: UInt32, kind: OperationKind, target: UInt32, seat: Int16, policy: MovePolicy, timeout: SimDuration,
    issuedAt: SimInstant, site: UInt32 = 0, armedWhileRinging: UInt32 = 0, completion: consuming Completion?
  ) {
    if counts[0] == counts[1] { grow() }
    (sides.pointee + counts[0]).initialize(to: CompletionSlot(fn: completion))
    var op = PendingOperation(
      user: user, kind: kind, target: target, seat: seat, policy: policy, timeout: timeout, issuedAt: issuedAt)
    op.site = site
    op.armedWhileRinging = armedWhileRinging
    (storage.pointee + counts[0]).initialize(to: .operation(op))
    counts[0] += 1
  }

  /// Whether a command queued now is an SDK call of `kind` by `user` (a scan: for app code's
  /// timers only).
  public func holdsOperation(_ kind: OperationKind, by user: UInt32) -> Bool {
    (0..<counts[0]).contains { i in
      if case .operation(let op) = (storage.pointee + i).pointee { op.kind == kind && op.user == user } else { false }
    }
  }

  /// Removes and returns the command at `index` (left uninitialized until ``reset()``); each index
  /// must be taken exactly once, then the queue reset. An operation's completion, if it has one,
  /// is moved into `completion` (otherwise `completion` is set to nil).
  public func take(_ index: Int, completion: inout Completion?) -> ClientCommand {
    precondition(index >= 0 && index < counts[0], "command index out of range")
    completion = (sides.pointee + index).move().fn
    return (storage.pointee + index).move()
  }

  /// Drops the commands from `index` on (none of them taken yet), each handed to `each` first and
  /// then released with its completion.
  public func dropLast(from index: Int, _ each: (borrowing ClientCommand) -> Void) {
    precondition(index >= 0 && index <= counts[0], "command index out of range")
    for i in index..<counts[0] {
      each((storage.pointee + i).pointee)
      (storage.pointee + i).deinitialize(count: 1)
      (sides.pointee + i).deinitialize(count: 1)
    }
    counts[0] = index
  }

  /// Forgets the commands taken with ``take(_:completion:)``; call after taking every one.
  public func reset() { counts[0] = 0 }
}
