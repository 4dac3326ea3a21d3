import CPrefetch

/// An array of plain values with reference semantics, indexed by dense IDs.
///
/// Shared state that many parts of a world read and write (the SDK state of every simulated
/// client, the per-message tables of the network and the deliveries) lives in columns so that an
/// access costs one bounds check, without the dynamic exclusivity check a class's `var` array
/// property pays on every access, or the uniqueness check of a copy-on-write array's every write.
/// `T` must be a trivial type (no references), which the initializer checks. A column grows in
/// place (``append(_:)``, ``grow(toInclude:filling:)``); a copy of the reference shares it.
public final class Column<T> {
  @usableFromInline var base: UnsafeMutablePointer<T>
  @usableFromInline var _count: Int
  /// Number of elements.
  @inlinable public var count: Int { _count }
  /// Room for elements before the storage is reallocated.
  @usableFromInline var capacity: Int

  /// A column of `count` copies of `value`.
  public init(repeating value: T, count: Int) {
    precondition(count >= 0, "a column cannot have a negative size")
    precondition(_isPOD(T.self), "columns hold plain values only")
    base = UnsafeMutablePointer<T>.allocateTable(capacity: max(1, count))
    base.initialize(repeating: value, count: count)
    _count = count
    capacity = max(1, count)
  }

  /// An empty column with room for `capacity` elements.
  public convenience init(reservingCapacity capacity: Int) {
    precondition(_isPOD(T.self), "columns hold plain values only")
    self.init(unsafeUninitializedCapacity: max(1, capacity))
  }

  /// A column of `elements`, in order (copied in one block).
  public convenience init(_ elements: [T]) {
    precondition(_isPOD(T.self), "columns hold plain values only")
    self.init(unsafeUninitializedCapacity: max(1, elements.count))
    elements.withUnsafeBufferPointer { source in
      if let start = source.baseAddress { base.initialize(from: start, count: source.count) }
    }
    _count = elements.count
  }

  /// A column of `count` elements, element `i` being `element(i)`, written in place (a table of
  /// a million records is built without an array of them first).
  public convenience init(count: Int, _ element: (Int) -> T) {
    precondition(count >= 0, "a column cannot have a negative size")
    precondition(_isPOD(T.self), "columns hold plain values only")
    self.init(unsafeUninitializedCapacity: max(1, count))
    for i in 0..<count { (base + i).initialize(to: element(i)) }
    _count = count
  }

  init(unsafeUninitializedCapacity capacity: Int) {
    base = UnsafeMutablePointer<T>.allocateTable(capacity: capacity)
    _count = 0
    self.capacity = capacity
  }

  deinit { base.deallocate() }

  /// The element at `index`.
  @inlinable
  public subscript(index: Int) -> T {
    get {
      precondition(index >= 0 && index < count, "column index out of range")
      return base[index]
    }
    set {
      precondition(index >= 0 && index < count, "column index out of range")
      base[index] = newValue
    }
  }

  /// Whether the column has no elements.
  @inlinable public var isEmpty: Bool { count == 0 }

  /// Appends `value`.
  @inlinable
  public func append(_ value: T) {
    if count == capacity { reserve(count + 1) }
    (base + count).initialize(to: value)
    _count += 1
  }

  /// Removes and returns the last element, if any.
  @inlinable
  public func popLast() -> T? {
    guard count > 0 else { return nil }
    _count -= 1
    return base[_count]
  }

  /// Grows the column with `value` until `index` is valid (nothing if it already is).
  @inlinable @inline(__always)
  public func grow(toInclude index: Int, filling value: T) {
    if index >= _count { extend(toInclude: index, filling: value) }
  }

  @usableFromInline
  func extend(toInclude index: Int, filling value: T) {
    if index >= capacity { reserve(index + 1) }
    (base + _count).initialize(repeating: value, count: index + 1 - _count)
    _count = index + 1
  }

  /// Removes every element, keeping the storage.
  public func removeAll() { _count = 0 }

  /// Makes room for at least `minimum` elements (doubling).
  @usableFromInline
  func reserve(_ minimum: Int) {
    let bigger = max(minimum, capacity * 2, 16)
    base = base.movedToNewBlock(count: count, capacity: bigger)
    capacity = bigger
  }

  /// The elements as an array (for tests and reports).
  public var elements: [T] { Array(UnsafeBufferPointer(start: base, count: count)) }

  /// Hints that element `index` is about to be used (see ``prefetchHint(_:)``); an index out of
  /// range is ignored.
  @inlinable @inline(__always)
  public func prefetch(_ index: Int) { view.prefetch(index) }
}

extension Column {
  /// A view of the column's elements that holds no reference to it: reading or writing through
  /// it costs no retain of the column. Valid while the column lives and does not grow (the owner
  /// keeps the column, and hands out the view).
  @inlinable public var view: ColumnView<T> { ColumnView(base: base, count: _count) }
}

/// The elements of a fixed-size ``Column``, by raw pointer (see ``Column/view``).
@frozen
public struct ColumnView<T> {
  @usableFromInline let base: UnsafeMutablePointer<T>
  /// Number of elements.
  public let count: Int

  @inlinable init(base: UnsafeMutablePointer<T>, count: Int) {
    self.base = base
    self.count = count
  }

  /// The element at `index`.
  @inlinable
  public subscript(index: Int) -> T {
    get {
      precondition(index >= 0 && index < count, "column index out of range")
      return base[index]
    }
    nonmutating set {
      precondition(index >= 0 && index < count, "column index out of range")
      base[index] = newValue
    }
  }

  /// The elements as an array (for tests and reports).
  public var elements: [T] { Array(UnsafeBufferPointer(start: base, count: count)) }

  /// Hints that element `index` is about to be used (see ``prefetchHint(_:)``); an index out of
  /// range is ignored.
  @inlinable @inline(__always)
  public func prefetch(_ index: Int) {
    if UInt(bitPattern: index) < UInt(bitPattern: count) { prefetchHint(base + index) }
  }
}

/// Asks the processor to start loading the record at `address` for reading and writing, and goes
/// on at once. A hint only: it never faults and changes no value, so code that hints the records
/// of the next event computes exactly what it computes without hints, only sooner when those
/// records were out of the cache.
///
/// A record whose stride does not divide the 64-byte cache line (a 48-byte network link, a 28-byte
/// client state) straddles two lines at some indices; both its first and its last byte are
/// hinted, so that the second line is not left to miss (decided at compile time per type: a
/// record that never straddles costs one hint). Records longer than two lines are hinted at their
/// ends only.
@inlinable @inline(__always)
public func prefetchHint<T>(_ address: UnsafePointer<T>) {
  let raw = UnsafeRawPointer(address)
  stampede_prefetch(raw)
  if recordMayStraddleLines(T.self) { stampede_prefetch(raw + (MemoryLayout<T>.size &- 1)) }
}

/// ``prefetchHint(_:)`` for a mutable pointer.
@inlinable @inline(__always)
public func prefetchHint<T>(_ address: UnsafeMutablePointer<T>) { prefetchHint(UnsafePointer(address)) }

/// Whether a record of type `T`, at some index of a table, spans two 64-byte cache lines (its
/// stride does not divide the line, or it is longer than one). Constant for each type.
@inlinable @inline(__always)
public func recordMayStraddleLines<T>(_ type: T.Type) -> Bool {
  let stride = MemoryLayout<T>.stride
  return MemoryLayout<T>.size > 1 && (stride > 64 || 64 % stride != 0)
}

extension Array {
  /// Hints that element `index` is about to be used (see ``prefetchHint(_:)``); an index out of
  /// range is ignored.
  @inlinable @inline(__always)
  public func prefetch(_ index: Int) {
    withUnsafeBufferPointer { buffer in
      if UInt(bitPattern: index) < UInt(bitPattern: buffer.count) { prefetchHint(buffer.baseAddress! + index) }
    }
  }
}
