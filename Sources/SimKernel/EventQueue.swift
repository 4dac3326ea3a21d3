#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The pending events, ordered by `(time, seq)`: a radix heap over the 128-bit key.
///
/// A discrete-event run never schedules before the event it is handling, so every key pushed is
/// at least the last key taken out. A radix heap exploits that: with `last` the most recently
/// settled minimum, an entry lives in bucket *i*, where *i* is the highest bit in which its key
/// differs from `last`. Every key in a lower bucket is smaller than every key in a higher one, so
/// the minimum is in the lowest non-empty bucket. Taking it out scans that bucket once, makes its
/// smallest key the new `last` and redistributes the rest into strictly lower buckets; the buckets
/// above are untouched (their highest differing bit does not change). `push` is an append.
///
/// Each entry moves down at most 127 times in its life and in practice a handful, through
/// sequential memory, where a binary heap pays one dependent, cache-missing step per level on every
/// pop. The order is exactly that of a heap on `(time, seq)`: keys are unique (every entry gets the
/// next sequence number), so equal times run in scheduling order and trace hashes do not depend on
/// the queue. A push below `last`, which the run loop never makes but a caller may between two
/// `run` calls, rebuilds the buckets around the new key: correct, and O(n).
@frozen
public struct EventQueue: Sendable {
  /// The buckets; copied on write.
  @usableFromInline var buckets: RadixBuckets
  /// The settled minimum, whose key is `last`; valid when `hasHead`.
  @usableFromInline var head: QueueEntry
  @usableFromInline var hasHead: Bool
  /// `last`: the key of the most recently settled minimum, time with its sign bit flipped so that
  /// unsigned order is signed order.
  @usableFromInline var lastTime: UInt64
  @usableFromInline var lastOrder: UInt64
  /// Which buckets are non-empty: bit *i* of `lowMask` for bucket *i* < 64, of `highMask` for 64 + *i*.
  @usableFromInline var lowMask: UInt64
  @usableFromInline var highMask: UInt64
  @usableFromInline var _count: Int
  @usableFromInline var nextSeq: UInt64

  /// The largest sequence number an entry can hold (48 bits).
  public static let maxSeq: UInt64 = (1 << 48) - 1

  /// Creates an empty queue. `capacity` is accepted for symmetry with other containers; buckets
  /// grow geometrically and keep their room.
  @inlinable
  public init(reservingCapacity capacity: Int = 0) {
    buckets = RadixBuckets()
    head = QueueEntry(time: 0, seq: 0, event: Event(kind: 0))
    hasHead = false
    lastTime = 0
    lastOrder = 0
    lowMask = 0
    highMask = 0
    _count = 0
    nextSeq = 0
  }

  /// The number of pending events.
  @inlinable public var count: Int { _count }
  /// Whether no event is pending.
  @inlinable public var isEmpty: Bool { _count == 0 }
  /// How many events have been scheduled so far; also the next sequence number.
  @inlinable public var scheduledCount: UInt64 { nextSeq }

  @inlinable @inline(__always)
  static func flip(_ time: Int64) -> UInt64 { UInt64(bitPattern: time) ^ (1 << 63) }

  /// The bucket of a key above `last`: the index of the highest bit in which they differ, counting
  /// the order word as bits 0–63 and the time word as bits 64–127.
  @inlinable @inline(__always)
  func bucket(time: UInt64, order: UInt64) -> Int {
    let tx = time ^ lastTime
    if tx != 0 { return 127 &- tx.leadingZeroBitCount }
    return 63 &- (order ^ lastOrder).leadingZeroBitCount
  }

  @inlinable @inline(__always)
  mutating func mark(_ index: Int) {
    if index < 64 {
      lowMask |= 1 &<< UInt64(index)
    } else {
      highMask |= 1 &<< UInt64(index &- 64)
    }
  }

  @inlinable @inline(__always)
  mutating func makeUnique() {
    if !isKnownUniquelyReferenced(&buckets) { buckets = buckets.copy() }
  }

  /// Schedules `event` at `time` nanoseconds, after every event already scheduled for that time.
  @inlinable
  public mutating func push(time: Int64, _ event: Event) {
    precondition(nextSeq <= EventQueue.maxSeq, "event sequence space exhausted")
    let entry = QueueEntry(time: time, seq: nextSeq, event: event)
    nextSeq &+= 1
    _count &+= 1
    let t = EventQueue.flip(time)
    if _count == 1 {
      // The only entry: it is the minimum.
      head = entry
      hasHead = true
      lastTime = t
      lastOrder = entry.order
      return
    }
    if t < lastTime || (t == lastTime && entry.order < lastOrder) {
      rebuild(below: entry)
      return
    }
    makeUnique()
    let index = bucket(time: t, order: entry.order)
    buckets.append(entry, to: index)
    mark(index)
  }

  /// The earliest pending entry, if any.
  @inlinable
  public mutating func peekFirst() -> QueueEntry? {
    if !hasHead {
      if _count == 0 { return nil }
      settle()
    }
    return head
  }

  /// Removes and returns the earliest entry, or `nil` when the queue is empty.
  @inlinable
  public mutating func popFirst() -> QueueEntry? {
    if !hasHead {
      if _count == 0 { return nil }
      settle()
    }
    hasHead = false
    _count &-= 1
    return head
  }

  /// Makes the smallest key in the lowest non-empty bucket the new `last` and the head, and
  /// redistributes the rest of that bucket below it. Requires a pending entry and no head.
  @inlinable
  mutating func settle() {
    makeUnique()
    let index = lowMask != 0 ? lowMask.trailingZeroBitCount : 64 &+ highMask.trailingZeroBitCount
    if index < 64 {
      lowMask &= ~(1 &<< UInt64(index))
    } else {
      highMask &= ~(1 &<< UInt64(index &- 64))
    }
    let slot = buckets.slots.advanced(by: index)
    let items = slot.pointee.items.unsafelyUnwrapped
    let n = slot.pointee.count
    slot.pointee.count = 0
    var best = 0
    var bestTime = items[0].time
    var bestOrder = items[0].order
    var i = 1
    while i < n {
      let t = items[i].time
      let o = items[i].order
      if t < bestTime || (t == bestTime && o < bestOrder) {
        best = i
        bestTime = t
        bestOrder = o
      }
      i &+= 1
    }
    head = items[best]
    hasHead = true
    lastTime = EventQueue.flip(bestTime)
    lastOrder = bestOrder
    // Every other entry of the bucket moves to a strictly lower bucket, never to this one, so the
    // bucket's own storage is read while the others are appended to.
    i = 0
    while i < n {
      if i != best {
        let e = items[i]
        let to = bucket(time: EventQueue.flip(e.time), order: e.order)
        buckets.append(e, to: to)
        mark(to)
      }
      i &+= 1
    }
  }

  /// Re-buckets every entry around `entry`, which is below `last` and becomes the head.
  @usableFromInline
  mutating func rebuild(below entry: QueueEntry) {
    makeUnique()
    var all: [QueueEntry] = []
    all.reserveCapacity(_count &- 1)
    if hasHead { all.append(head) }
    for index in 0..<RadixBuckets.bucketCount {
      let slot = buckets.slots[index]
      for k in 0..<slot.count { all.append(slot.items.unsafelyUnwrapped[k]) }
      buckets.slots[index].count = 0
    }
    lowMask = 0
    highMask = 0
    head = entry
    hasHead = true
    lastTime = EventQueue.flip(entry.time)
    lastOrder = entry.order
    for e in all {
      let to = bucket(time: EventQueue.flip(e.time), order: e.order)
      buckets.append(e, to: to)
      mark(to)
    }
  }

  /// Removes every pending event; sequence numbers keep counting.
  @inlinable
  public mutating func removeAll() {
    makeUnique()
    for index in 0..<RadixBuckets.bucketCount { buckets.slots[index].count = 0 }
    lowMask = 0
    highMask = 0
    hasHead = false
    _count = 0
  }

  /// Whether every entry sits in the bucket its key names, above `last`, and the counts agree.
  /// O(n); for tests and debug checks.
  public func isValid() -> Bool {
    var seen = hasHead ? 1 : 0
    if hasHead && (EventQueue.flip(head.time) != lastTime || head.order != lastOrder) { return false }
    for index in 0..<RadixBuckets.bucketCount {
      let slot = buckets.slots[index]
      let marked = index < 64 ? lowMask >> UInt64(index) & 1 == 1 : highMask >> UInt64(index - 64) & 1 == 1
      if marked != (slot.count > 0) { return false }
      for k in 0..<slot.count {
        let e = slot.items.unsafelyUnwrapped[k]
        if bucket(time: EventQueue.flip(e.time), order: e.order) != index { return false }
      }
      seen += slot.count
    }
    return seen == _count
  }
}

/// One bucket of the radix queue: a growable run of entries.
@frozen
public struct RadixSlot {
  /// The bucket's entries; `nil` until the first append.
  public var items: UnsafeMutablePointer<QueueEntry>?
  /// How many entries it holds.
  public var count: Int
  /// How many it has room for.
  public var capacity: Int
}

/// The radix queue's 128 buckets, in one block of slot headers; each bucket's storage grows by
/// doubling and keeps its room when emptied.
public final class RadixBuckets: @unchecked Sendable {
  /// 64 bits of order and 64 of time.
  public static let bucketCount = 128
  /// The slot headers.
  @usableFromInline let slots: UnsafeMutablePointer<RadixSlot>

  @usableFromInline
  init() {
    slots = .allocate(capacity: RadixBuckets.bucketCount)
    slots.initialize(repeating: RadixSlot(items: nil, count: 0, capacity: 0), count: RadixBuckets.bucketCount)
  }

  deinit {
    for index in 0..<RadixBuckets.bucketCount { free(slots[index].items) }
    slots.deallocate()
  }

  /// A copy with the same entries in the same buckets.
  @usableFromInline
  func copy() -> RadixBuckets {
    let other = RadixBuckets()
    for index in 0..<RadixBuckets.bucketCount where slots[index].count > 0 {
      let n = slots[index].count
      let items = malloc(n * MemoryLayout<QueueEntry>.stride)!.bindMemory(to: QueueEntry.self, capacity: n)
      items.update(from: slots[index].items.unsafelyUnwrapped, count: n)
      other.slots[index] = RadixSlot(items: items, count: n, capacity: n)
    }
    return other
  }

  /// Appends `entry` to bucket `index`.
  @inlinable @inline(__always)
  func append(_ entry: QueueEntry, to index: Int) {
    let slot = slots.advanced(by: index)
    let n = slot.pointee.count
    if n == slot.pointee.capacity { grow(slot) }
    slot.pointee.items.unsafelyUnwrapped[n] = entry
    slot.pointee.count = n &+ 1
  }

  @usableFromInline
  func grow(_ slot: UnsafeMutablePointer<RadixSlot>) {
    let capacity = max(16, slot.pointee.capacity * 2)
    let raw = realloc(slot.pointee.items, capacity * MemoryLayout<QueueEntry>.stride)
    guard let raw else { fatalError("event queue: out of memory for \(capacity) entries") }
    slot.pointee.items = raw.bindMemory(to: QueueEntry.self, capacity: capacity)
    slot.pointee.capacity = capacity
  }
}
