import LiveStack
import SimKernel

/// The commands clients issue during one callback, in order: a growable buffer whose bookkeeping
/// sits behind constant pointers, so appending through a copy of the queue costs neither an
/// exclusivity check nor a retain. A queue is a handle: copies share the buffer, and its owner
/// frees it once with ``deallocate()``.
@frozen
public struct CommandQueue {
  let storage: UnsafeMutablePointer<UnsafeMutablePointer<ClientCommand>>
  let counts: UnsafeMutablePointer<Int>  // [count, capacity]

  /// An empty queue.
  public init() {
    storage = .allocate(capacity: 1)
    storage.initialize(to: .allocate(capacity: 16))
    counts = .allocate(capacity: 2)
    counts.initialize(repeating: 0, count: 2)
    counts[1] = 16
  }

  /// Frees the buffer and any commands not taken; no copy of the queue may be used after.
  public func deallocate() {
    storage.pointee.deinitialize(count: counts[0])
    storage.pointee.deallocate()
    storage.deallocate()
    counts.deallocate()
  }

  /// Commands waiting.
  public var count: Int { counts[0] }

  /// Appends a command.
  public func append(_ command: consuming ClientCommand) {
    if counts[0] == counts[1] { grow() }
    (storage.pointee + counts[0]).initialize(to: command)
    counts[0] += 1
  }

  /// Doubles the room for commands.
  func grow() {
    let bigger = UnsafeMutablePointer<ClientCommand>.allocate(capacity: counts[1] * 2)
    bigger.moveInitialize(from: storage.pointee, count: counts[0])
    storage.pointee.deallocate()
    storage.pointee = bigger
    counts[1] *= 2
  }

  /// Appends an SDK call, built in place.
  @inline(__always)
  public func appendOperation(
    user: UInt32, kind: OperationKind, target: UInt32, seat: Int16, policy: MovePolicy, timeout: SimDuration,
    issuedAt: SimInstant, completion: consuming Completion?
  ) {
    if counts[0] == counts[1] { grow() }
    (storage.pointee + counts[0]).initialize(
      to: .operation(
        PendingOperation(
          user: user, kind: kind, target: target, seat: seat, policy: policy, timeout: timeout, issuedAt: issuedAt,
          completion: completion)))
    counts[0] += 1
  }

  /// Removes and returns the command at `index` (left uninitialized until ``reset()``); each index
  /// must be taken exactly once, then the queue reset.
  public func take(_ index: Int) -> ClientCommand {
    precondition(index >= 0 && index < counts[0], "command index out of range")
    return (storage.pointee + index).move()
  }

  /// Forgets the commands taken with ``take(_:)``; call after taking every one.
  public func reset() { counts[0] = 0 }
}
