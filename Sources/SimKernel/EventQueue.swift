#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The pending events, ordered by `(time, seq)`: a radix heap over the 128-bit key, in 8-bit digits.
///
/// A discrete-event run never schedules before the event it is handling, so every key pushed is
/// at least the last key taken out. A radix heap exploits that. With `last` the most recently
/// settled minimum, an entry lives in the bucket named by the first 8-bit digit (from the top) in
/// which its key differs from `last` (the level) and its own value of that digit. Keys in a lower
/// level are smaller than keys in a higher one, and within a level a smaller digit holds smaller
/// keys, so the minimum is in the first non-empty bucket. Taking it out scans that bucket once,
/// makes its smallest key the new `last` and moves the rest of the bucket to lower levels; every
/// other bucket keeps its place. `push` is an append.
///
/// An entry moves down a level at a time, through sequential memory, and stops moving once it is
/// alone in its bucket: a few moves in its life, where a binary heap pays a dependent,
/// cache-missing step per level on every pop. The order is exactly that of a heap on
/// `(time, seq)`: keys are unique (every entry gets the next sequence number), so equal times run
/// in scheduling order and trace hashes do not depend on the queue. A push below `last`, which
/// the run loop never makes but a caller may between two `run` calls, rebuilds the buckets around
/// the new key: correct, and O(n).
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
  /// Which levels have a non-empty bucket (bit *L* for level *L*); which digits of a level do is
  /// in `buckets.digitMasks`.
  @usableFromInline var levelMask: UInt32
  @usableFromInline var _count: Int
  @usableFromInline var nextSeq: UInt64

  /// The largest sequence number an entry can hold (48 bits).
  public static let maxSeq: UInt64 = (1 << 48) - 1

  /// Creates an empty queue. `capacity` is accepted for callers that size their containers up
  /// front; the buckets grow by doubling and give large blocks back as the queue shrinks.
  @inlinable
  public init(reservingCapacity capacity: Int = 0) {
    buckets = RadixBuckets()
    head = QueueEntry(time: 0, seq: 0, event: Event(kind: 0))
    hasHead = false
    lastTime = 0
    lastOrder = 0
    levelMask = 0
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

  /// The bucket of a key above `last`, as `level << digitBits | digit`: the level is the digit in
  /// which they first differ from the top (the order word's digits are the low levels, the time
  /// word's the high ones), the digit is the key's own value there.
  @inlinable @inline(__always)
  func bucket(time: UInt64, order: UInt64) -> Int {
    let tx = time ^ lastTime
    if tx != 0 {
      let level = (63 &- tx.leadingZeroBitCount) / RadixBuckets.digitBits
      return (RadixBuckets.levelsPerWord &+ level) << RadixBuckets.digitBits
        | Int(truncatingIfNeeded: time >> UInt64(level &* RadixBuckets.digitBits)) & RadixBuckets.digitMask
    }
    let level = (63 &- (order ^ lastOrder).leadingZeroBitCount) / RadixBuckets.digitBits
    return level << RadixBuckets.digitBits
      | Int(truncatingIfNeeded: order >> UInt64(level &* RadixBuckets.digitBits)) & RadixBuckets.digitMask
  }

  @inlinable @inline(__always)
  mutating func mark(_ index: Int) {
    let level = index >> RadixBuckets.digitBits
    let digit = index & RadixBuckets.digitMask
    buckets.digitMasks[level &* RadixBuckets.maskWords &+ digit >> 6] |= 1 &<< UInt64(digit & 63)
    levelMask |= 1 &<< UInt32(level)
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
      makeHead(entry)
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
    let level = levelMask.trailingZeroBitCount
    let words = buckets.digitMasks.advanced(by: level &* RadixBuckets.maskWords)
    var w = 0
    while words[w] == 0 { w &+= 1 }
    let digits = words[w]
    let index = level << RadixBuckets.digitBits | w << 6 | digits.trailingZeroBitCount
    let rest = digits & (digits &- 1)
    words[w] = rest
    if rest == 0 {
      var empty = true
      var k = w &+ 1
      while k < RadixBuckets.maskWords {
        if words[k] != 0 {
          empty = false
          break
        }
        k &+= 1
      }
      if empty { levelMask &= ~(1 &<< UInt32(level)) }
    }
    let slot = buckets.slots.advanced(by: index)
    let items = slot.pointee.items.unsafelyUnwrapped
    let n = slot.pointee.count
    slot.pointee.count = 0
    defer { buckets.release(emptied: slot, pending: _count) }
    if n == 1 {
      // Alone in its bucket: it is the minimum, and nothing moves.
      makeHead(items[0])
      return
    }
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
    makeHead(items[best])
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

  /// Makes `entry` the head and its key `last`.
  @inlinable @inline(__always)
  mutating func makeHead(_ entry: QueueEntry) {
    head = entry
    hasHead = true
    lastTime = EventQueue.flip(entry.time)
    lastOrder = entry.order
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
    buckets.clearMasks()
    levelMask = 0
    makeHead(entry)
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
    buckets.clearMasks()
    levelMask = 0
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
      let level = index >> RadixBuckets.digitBits
      let digit = index & RadixBuckets.digitMask
      let words = buckets.digitMasks.advanced(by: level * RadixBuckets.maskWords)
      let marked = words[digit >> 6] >> UInt64(digit & 63) & 1 == 1
      if marked != (slot.count > 0) { return false }
      let levelEmpty = (0..<RadixBuckets.maskWords).allSatisfy { words[$0] == 0 }
      if (levelMask >> UInt32(level) & 1 == 1) == levelEmpty { return false }
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

/// The radix queue's 4,096 buckets (16 levels of 256 digits), in one block of slot headers. Each
/// bucket's storage grows by doubling; see ``release(emptied:pending:)`` for when it is given back.
public final class RadixBuckets: @unchecked Sendable {
  /// The width of a digit in bits.
  public static let digitBits = 8
  /// The values a digit takes: the buckets of a level.
  public static let digitCount = 1 << digitBits
  @usableFromInline static let digitMask = digitCount - 1
  /// The levels of one 64-bit word of the key (the top one may be narrower).
  public static let levelsPerWord = (64 + digitBits - 1) / digitBits
  /// The levels: the order word's, then the time word's.
  public static let levels = 2 * levelsPerWord
  /// The number of buckets.
  public static let bucketCount = levels << digitBits
  /// The 64-bit words of one level's digit mask.
  @usableFromInline static let maskWords = (digitCount + 63) / 64
  /// The slot headers.
  @usableFromInline let slots: UnsafeMutablePointer<RadixSlot>
  /// For each level, which of its digits' buckets are non-empty (``maskWords`` words a level).
  @usableFromInline let digitMasks: UnsafeMutablePointer<UInt64>

  @usableFromInline
  init() {
    slots = .allocate(capacity: RadixBuckets.bucketCount)
    slots.initialize(repeating: RadixSlot(items: nil, count: 0, capacity: 0), count: RadixBuckets.bucketCount)
    digitMasks = .allocate(capacity: RadixBuckets.levels * RadixBuckets.maskWords)
    digitMasks.initialize(repeating: 0, count: RadixBuckets.levels * RadixBuckets.maskWords)
  }

  deinit {
    for index in 0..<RadixBuckets.bucketCount { free(slots[index].items) }
    slots.deallocate()
    digitMasks.deallocate()
  }

  /// Marks every bucket empty.
  @usableFromInline
  func clearMasks() { digitMasks.update(repeating: 0, count: RadixBuckets.levels * RadixBuckets.maskWords) }

  /// A copy with the same entries in the same buckets.
  @usableFromInline
  func copy() -> RadixBuckets {
    let other = RadixBuckets()
    other.digitMasks.update(from: digitMasks, count: RadixBuckets.levels * RadixBuckets.maskWords)
    for index in 0..<RadixBuckets.bucketCount where slots[index].count > 0 {
      let n = slots[index].count
      let items = malloc(n * MemoryLayout<QueueEntry>.stride)!.bindMemory(to: QueueEntry.self, capacity: n)
      items.update(from: slots[index].items.unsafelyUnwrapped, count: n)
      other.slots[index] = RadixSlot(items: items, count: n, capacity: n)
      other.totalCapacity += n
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

  /// Entries a bucket always keeps room for when it empties.
  public static let keptCapacity = (1 << 19) / bucketCount
  /// The room held in all buckets, in entries.
  @usableFromInline var totalCapacity = 0

  /// Frees the storage of an emptied bucket larger than ``keptCapacity`` while the buckets hold
  /// room for more than three times the `pending` entries, so that the room held follows the
  /// queue rather than the sum of every bucket's peak, without freeing and regrowing in a steady
  /// state.
  @inlinable @inline(__always)
  func release(emptied slot: UnsafeMutablePointer<RadixSlot>, pending: Int) {
    if slot.pointee.capacity > RadixBuckets.keptCapacity && totalCapacity > 3 &* pending {
      totalCapacity &-= slot.pointee.capacity
      free(slot.pointee.items)
      slot.pointee.items = nil
      slot.pointee.capacity = 0
    }
  }

  @usableFromInline
  func grow(_ slot: UnsafeMutablePointer<RadixSlot>) {
    let capacity = max(16, slot.pointee.capacity * 2)
    let raw = realloc(slot.pointee.items, capacity * MemoryLayout<QueueEntry>.stride)
    guard let raw else { fatalError("event queue: out of memory for \(capacity) entries") }
    slot.pointee.items = raw.bindMemory(to: QueueEntry.self, capacity: capacity)
    totalCapacity += capacity - slot.pointee.capacity
    slot.pointee.capacity = capacity
  }
}
