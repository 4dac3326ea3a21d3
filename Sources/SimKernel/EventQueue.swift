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
/// The buckets sort by time alone. Entries due at the time of `last` wait in a first-in
/// first-out run of their own (`now`), in sequence order: a push at that time has the newest
/// sequence number, so it simply joins the end, and while `now` holds entries its first is the
/// minimum. Bursts of events at one instant (a crowd arriving together, answers sent at once)
/// thus cost an append and a read each, and never move through the buckets.
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

  /// The bucket of a time after `last`'s, as `level << digitBits | digit`: the level is the digit
  /// in which the times first differ from the top, the digit is the time's own value there.
  @inlinable @inline(__always)
  func bucket(time: UInt64) -> Int {
    let level = (63 &- (time ^ lastTime).leadingZeroBitCount) / RadixBuckets.digitBits
    return level << RadixBuckets.digitBits
      | Int(truncatingIfNeeded: time >> UInt64(level &* RadixBuckets.digitBits)) & RadixBuckets.digitMask
  }

  /// Files `entry`, whose time `t` (flipped) is after `last`'s, in its bucket.
  @inlinable @inline(__always)
  mutating func file(_ entry: QueueEntry, flippedTime t: UInt64) {
    let index = bucket(time: t)
    buckets.append(entry, to: index)
    mark(index)
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
    if t == lastTime {
      // At the time of `last`, with the newest sequence number: the end of `now`.
      buckets.appendNow(entry)
    } else {
      file(entry, flippedTime: t)
    }
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

  /// A cheap guess at the entry that runs next, for prefetching its records while the current one
  /// runs: the first entry due now, else the first entry of the lowest non-empty bucket (exact
  /// when that bucket holds one entry, as it mostly does near the front). Reads the queue and
  /// changes nothing; `nil` without a head-less pending entry.
  @inlinable @inline(__always)
  public func upcomingGuess() -> QueueEntry? {
    if hasHead { return head }
    if buckets.nowStart != buckets.nowEnd { return buckets.nowItems.unsafelyUnwrapped[buckets.nowStart] }
    if levelMask == 0 { return nil }
    let level = levelMask.trailingZeroBitCount
    let words = buckets.digitMasks.advanced(by: level &* RadixBuckets.maskWords)
    var w = 0
    while words[w] == 0 {
      w &+= 1
      if w == RadixBuckets.maskWords { return nil }
    }
    let index = level << RadixBuckets.digitBits | w << 6 | words[w].trailingZeroBitCount
    let slot = buckets.slots.advanced(by: index)
    guard slot.pointee.count > 0 else { return nil }
    return slot.pointee.items.unsafelyUnwrapped[0]
  }

  /// Makes the first entry of `now`, else the smallest key in the lowest non-empty bucket, the new
  /// `last` and the head, and redistributes the rest of that bucket below it. Requires a pending
  /// entry and no head.
  @inlinable
  mutating func settle() {
    makeUnique()
    if buckets.nowStart != buckets.nowEnd {
      // Due at the time of `last`, in sequence order: the first is the minimum.
      let e = buckets.popNow(pending: _count)
      head = e
      hasHead = true
      lastOrder = e.order
      return
    }
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
    if n == 1 {
      // Alone in its bucket: it is the minimum, and nothing moves.
      makeHead(items[0])
      emptied(slot)
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
    // Every other entry of the bucket moves to a strictly lower bucket, never to this one, or to
    // `now` (empty until here) if due at the minimum's time; the bucket's own storage is read
    // while the others are appended to. Entries of one time sit in a bucket in the order they
    // reached it, not always their sequence order: `now` is sorted if they came out of order.
    var inOrder = true
    var previous = lastOrder
    i = 0
    while i < n {
      if i != best {
        let e = items[i]
        let t = EventQueue.flip(e.time)
        if t == lastTime {
          if e.order < previous { inOrder = false }
          previous = e.order
          buckets.appendNow(e)
        } else {
          file(e, flippedTime: t)
        }
      }
      i &+= 1
    }
    if !inOrder { buckets.sortNow() }
    emptied(slot)
  }

  /// After `slot`'s bucket was emptied (and its entries moved): its block goes back if large, and
  /// buckets emptied while the queue was large give theirs back at each halving of the queue.
  /// (Inlined: a `defer` here was a call per pop.)
  @inlinable @inline(__always)
  mutating func emptied(_ slot: UnsafeMutablePointer<RadixSlot>) {
    buckets.release(emptied: slot, pending: _count)
    if _count > buckets.sweptAt {
      buckets.sweptAt = _count
    } else if _count &* 2 < buckets.sweptAt && buckets.totalCapacity > 3 &* _count {
      buckets.sweep(pending: _count)
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
    for k in buckets.nowStart..<buckets.nowEnd { all.append(buckets.nowItems.unsafelyUnwrapped[k]) }
    buckets.clearNow()
    for index in 0..<RadixBuckets.bucketCount {
      let slot = buckets.slots[index]
      for k in 0..<slot.count { all.append(slot.items.unsafelyUnwrapped[k]) }
      buckets.slots[index].count = 0
    }
    buckets.clearMasks()
    levelMask = 0
    makeHead(entry)
    for e in all {
      let t = EventQueue.flip(e.time)
      if t == lastTime { buckets.appendNow(e) } else { file(e, flippedTime: t) }
    }
    buckets.sortNow()
  }

  /// Removes every pending event; sequence numbers keep counting.
  @inlinable
  public mutating func removeAll() {
    makeUnique()
    for index in 0..<RadixBuckets.bucketCount { buckets.slots[index].count = 0 }
    buckets.clearNow()
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
    var previous = lastOrder
    for k in buckets.nowStart..<buckets.nowEnd {
      let e = buckets.nowItems.unsafelyUnwrapped[k]
      if EventQueue.flip(e.time) != lastTime || e.order <= previous { return false }
      previous = e.order
      seen += 1
    }
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
        let t = EventQueue.flip(e.time)
        if t <= lastTime || bucket(time: t) != index { return false }
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

/// The radix queue's 2,048 buckets (8 levels of 256 digits of the time), in one block of slot
/// headers, and the run of entries due at the time of the last minimum (`now`). Each bucket's
/// storage grows by doubling; see ``release(emptied:pending:)`` for when it is given back.
public final class RadixBuckets: @unchecked Sendable {
  /// The width of a digit in bits.
  public static let digitBits = 8
  /// The values a digit takes: the buckets of a level.
  public static let digitCount = 1 << digitBits
  @usableFromInline static let digitMask = digitCount - 1
  /// The levels: the digits of the 64-bit time (the top one may be narrower).
  public static let levels = (64 + digitBits - 1) / digitBits
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
    free(nowItems)
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
    let pendingNow = nowEnd - nowStart
    if pendingNow > 0 {
      let items = malloc(pendingNow * MemoryLayout<QueueEntry>.stride)!.bindMemory(
        to: QueueEntry.self, capacity: pendingNow)
      items.update(from: nowItems.unsafelyUnwrapped + nowStart, count: pendingNow)
      other.nowItems = items
      other.nowEnd = pendingNow
      other.nowCapacity = pendingNow
      other.totalCapacity += pendingNow
    }
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

  /// The entries due at the time of the last minimum, in sequence order: `nowItems[nowStart..<nowEnd]`.
  @usableFromInline var nowItems: UnsafeMutablePointer<QueueEntry>?
  @usableFromInline var nowStart = 0
  @usableFromInline var nowEnd = 0
  @usableFromInline var nowCapacity = 0

  /// Appends `entry` to `now`.
  @inlinable @inline(__always)
  func appendNow(_ entry: QueueEntry) {
    if nowEnd == nowCapacity { makeRoomNow() }
    nowItems.unsafelyUnwrapped[nowEnd] = entry
    nowEnd &+= 1
  }

  /// Removes and returns the first entry of `now` (which must hold one); an emptied run starts
  /// again at the front, and gives a large block back as an emptied bucket does.
  @inlinable @inline(__always)
  func popNow(pending: Int) -> QueueEntry {
    let e = nowItems.unsafelyUnwrapped[nowStart]
    nowStart &+= 1
    if nowStart == nowEnd {
      nowStart = 0
      nowEnd = 0
      if nowCapacity > RadixBuckets.keptCapacity && totalCapacity > 3 &* pending { releaseNow() }
    }
    return e
  }

  /// Empties `now`.
  @usableFromInline
  func clearNow() {
    nowStart = 0
    nowEnd = 0
  }

  /// Sorts `now` by sequence number.
  @usableFromInline
  func sortNow() {
    guard nowEnd - nowStart > 1 else { return }
    var run = UnsafeMutableBufferPointer(start: nowItems.unsafelyUnwrapped + nowStart, count: nowEnd - nowStart)
    run.sort { $0.order < $1.order }
  }

  @usableFromInline
  func releaseNow() {
    totalCapacity -= nowCapacity
    free(nowItems)
    nowItems = nil
    nowCapacity = 0
  }

  /// Room for one more entry at the end of `now`: its entries move to the front, or it doubles.
  @usableFromInline
  func makeRoomNow() {
    if nowStart > 0 {
      let n = nowEnd - nowStart
      let items = nowItems.unsafelyUnwrapped
      memmove(items, items + nowStart, n * MemoryLayout<QueueEntry>.stride)
      nowStart = 0
      nowEnd = n
      if n < nowCapacity { return }
    }
    let capacity = max(16, nowCapacity * 2)
    let raw = realloc(nowItems, capacity * MemoryLayout<QueueEntry>.stride)
    guard let raw else { fatalError("event queue: out of memory for \(capacity) entries") }
    nowItems = raw.bindMemory(to: QueueEntry.self, capacity: capacity)
    totalCapacity += capacity - nowCapacity
    nowCapacity = capacity
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

  /// The pending count at the last ``sweep(pending:)`` (or the largest seen since).
  @usableFromInline var sweptAt = 0

  /// Gives back the blocks above ``keptCapacity`` of every empty bucket.
  @usableFromInline
  func sweep(pending: Int) {
    for index in 0..<RadixBuckets.bucketCount
    where slots[index].count == 0 && slots[index].capacity > RadixBuckets.keptCapacity {
      totalCapacity -= slots[index].capacity
      free(slots[index].items)
      slots[index].items = nil
      slots[index].capacity = 0
    }
    sweptAt = pending
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
