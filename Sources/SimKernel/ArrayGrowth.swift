import CPrefetch

extension Array {
  /// Extends the array with copies of `value` until `index` is a valid index, in place (no
  /// temporary array); does nothing if it already is. For tables indexed by IDs that only grow.
  @inlinable @inline(__always)
  public mutating func grow(toInclude index: Int, filling value: Element) {
    if index >= count { append(contentsOf: repeatElement(value, count: index + 1 - count)) }
  }
}

extension Array where Element: Equatable {
  /// Removes every element equal to `value`, keeping the order of the others and the capacity (for
  /// short lists, cheaper than `removeAll(where:)`).
  @inlinable
  public mutating func removeEvery(_ value: Element) {
    var kept = 0
    var i = 0
    let n = count
    while i < n {
      if self[i] != value {
        if kept != i { self[kept] = self[i] }
        kept &+= 1
      }
      i &+= 1
    }
    if kept < n { removeLast(n &- kept) }
  }
}

extension UnsafeMutablePointer {
  /// Moves the first `count` elements into a new block with room for `capacity`, frees this
  /// block, and returns the new one: how the growable tables (columns, scratch lists, the command
  /// queue, the calls in flight) make room.
  @inlinable
  public func movedToNewBlock(count: Int, capacity: Int) -> UnsafeMutablePointer<Pointee> {
    let more = UnsafeMutablePointer<Pointee>.allocateTable(capacity: capacity)
    more.moveInitialize(from: self, count: count)
    deallocate()
    return more
  }
}

extension UnsafeMutablePointer {
  /// The size from which a table's block asks for huge pages.
  public static var hugeTableBytes: Int { 4 << 20 }

  /// A block for `capacity` elements of a per-entity table. A block of ``hugeTableBytes`` or more
  /// asks the kernel for transparent huge pages: a table read at random by a million users then
  /// costs a TLB miss per read far less often. Only tables ask: the event queue's buckets, freed
  /// and grown again all run long, ran slower on huge pages (docs/DESIGN.md).
  @inlinable
  public static func allocateTable(capacity: Int) -> UnsafeMutablePointer<Pointee> {
    let block = allocate(capacity: capacity)
    block.adviseHugePagesIfLarge(capacity: capacity)
    return block
  }

  /// Asks for transparent huge pages for the block of `capacity` elements starting here, if it
  /// is ``hugeTableBytes`` or more (before its first write: a block written on small pages stays
  /// on them).
  @inlinable
  public func adviseHugePagesIfLarge(capacity: Int) {
    let bytes = capacity &* MemoryLayout<Pointee>.stride
    if bytes >= Self.hugeTableBytes { stampede_advise_huge_pages(UnsafeMutableRawPointer(self), bytes) }
  }
}

extension Array {
  /// A per-entity table of `count` copies of `value` (a column of users or seats kept as an
  /// array). Like ``Swift/UnsafeMutablePointer/allocateTable(capacity:)``, storage of
  /// ``Swift/UnsafeMutablePointer/hugeTableBytes`` or more asks for transparent huge pages, before
  /// its first write: a table written with copies first is backed by small pages for good. At ten
  /// million users the per-user arrays of the seat, call and login services and of the metrics
  /// come to over a gigabyte, and each read of a random user's entry would miss the TLB as well as
  /// the cache.
  @inlinable
  public init(table value: Element, count: Int) {
    self.init(unsafeUninitializedCapacity: count) { buffer, initialized in
      if let base = buffer.baseAddress {
        base.adviseHugePagesIfLarge(capacity: count)
        base.initialize(repeating: value, count: count)
      }
      initialized = count
    }
  }
}

extension Array where Element: Hashable {
  /// Whether two elements are equal. Short lists (a call's callees, a handful) are compared pair by
  /// pair with no allocation; longer ones go through a set.
  @inlinable
  public var hasDuplicates: Bool {
    let n = count
    if n > 16 { return Set(self).count != n }
    var i = 1
    while i < n {
      var j = 0
      while j < i {
        if self[i] == self[j] { return true }
        j &+= 1
      }
      i &+= 1
    }
    return false
  }
}
