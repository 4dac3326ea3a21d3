/// A binary min-heap of pending events over contiguous storage, ordered by `(time, seq)`.
///
/// Equal times run in scheduling order because every entry gets the next sequence number.
/// `push` and `popFirst` are O(log n). Removal moves the hole at the root down to a leaf with one
/// branch-free comparison per level, then sifts the displaced entry up from there (libstdc++ does
/// the same). The run loop uses ``takeFirstDeferred()``: the popped root stays vacant until the
/// handler's first `push` fills it, which turns a pop plus a push into one pass.
@frozen
public struct EventQueue: Sendable {
  @usableFromInline var storage: ContiguousArray<QueueEntry>
  @usableFromInline var nextSeq: UInt64
  /// Whether the root slot holds an entry that was already handed out by ``takeFirstDeferred()``.
  @usableFromInline var rootVacant: Bool

  /// The largest sequence number an entry can hold (48 bits).
  public static let maxSeq: UInt64 = (1 << 48) - 1

  /// Creates an empty queue with room for `capacity` entries before it grows.
  @inlinable
  public init(reservingCapacity capacity: Int = 0) {
    storage = []
    storage.reserveCapacity(capacity)
    nextSeq = 0
    rootVacant = false
  }

  /// The number of pending events.
  @inlinable public var count: Int { storage.count - (rootVacant ? 1 : 0) }
  /// Whether no event is pending.
  @inlinable public var isEmpty: Bool { count == 0 }
  /// How many events have been scheduled so far; also the next sequence number.
  @inlinable public var scheduledCount: UInt64 { nextSeq }

  /// The earliest pending entry, if any.
  @inlinable
  public mutating func peekFirst() -> QueueEntry? {
    settle()
    return storage.first
  }

  /// Schedules `event` at `time` nanoseconds, after every event already scheduled for that time.
  @inlinable
  public mutating func push(time: Int64, _ event: Event) {
    precondition(nextSeq <= EventQueue.maxSeq, "event sequence space exhausted")
    let entry = QueueEntry(time: time, seq: nextSeq, event: event)
    nextSeq &+= 1
    if rootVacant {
      rootVacant = false
      replaceRoot(with: entry)
      return
    }
    storage.append(entry)
    storage.withUnsafeMutableBufferPointer { heap in
      EventQueue.siftUp(entry, from: heap.count &- 1, in: heap)
    }
  }

  /// Moves the hole at `start` up until `entry` fits, then stores `entry` there.
  @inlinable @inline(__always)
  static func siftUp(_ entry: QueueEntry, from start: Int, in heap: UnsafeMutableBufferPointer<QueueEntry>) {
    var hole = start
    while hole > 0 {
      let parent = (hole &- 1) >> 1
      if !entry.runsBefore(heap[parent]) { break }
      heap[hole] = heap[parent]
      hole = parent
    }
    heap[hole] = entry
  }

  /// Removes and returns the earliest entry, or `nil` when the queue is empty.
  @inlinable
  public mutating func popFirst() -> QueueEntry? {
    settle()
    guard let last = storage.popLast() else { return nil }
    if storage.isEmpty { return last }
    let top = storage[0]
    replaceRoot(with: last)
    return top
  }

  /// Returns the earliest entry and leaves its slot vacant: the next `push` fills the root directly,
  /// and any other access removes it first. The order of events is exactly that of `popFirst()`
  /// followed by `push`.
  @inlinable
  public mutating func takeFirstDeferred() -> QueueEntry? {
    settle()
    guard let top = storage.first else { return nil }
    rootVacant = true
    return top
  }

  /// Removes a vacant root left by ``takeFirstDeferred()``.
  @inlinable @inline(__always)
  public mutating func settle() {
    guard rootVacant else { return }
    rootVacant = false
    let last = storage.removeLast()
    if !storage.isEmpty { replaceRoot(with: last) }
  }

  /// Puts `entry` at the root and restores the heap property.
  @inlinable
  mutating func replaceRoot(with entry: QueueEntry) {
    storage.withUnsafeMutableBufferPointer { heap in
      let n = heap.count
      var hole = 0
      var child = 1
      // Pairs of children: take the smaller without a branch (a conditional move).
      while child &+ 1 < n {
        child &+= heap[child &+ 1].runsBefore(heap[child]) ? 1 : 0
        heap[hole] = heap[child]
        hole = child
        child = hole &* 2 &+ 1
      }
      // A lone last child.
      if child < n {
        heap[hole] = heap[child]
        hole = child
      }
      // Sift `entry` up from the leaf.
      EventQueue.siftUp(entry, from: hole, in: heap)
    }
  }

  /// Removes every pending event; sequence numbers keep counting.
  @inlinable
  public mutating func removeAll() {
    rootVacant = false
    storage.removeAll(keepingCapacity: true)
  }

  /// Whether the heap property holds for every entry. O(n); for tests and debug checks.
  public func isValidHeap() -> Bool {
    if rootVacant { return false }
    for i in 1..<max(storage.count, 1) where storage[i].runsBefore(storage[(i - 1) >> 1]) {
      return false
    }
    return true
  }
}
