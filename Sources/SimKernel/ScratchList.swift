/// A list that is filled, read and emptied over and over: what one server operation changed, what
/// the server has to send, the deliveries that ride on one event. Emptying it keeps its room and
/// costs a few instructions; an `Array`'s `removeAll(keepingCapacity:)` goes through the general
/// `replaceSubrange` and costs about a hundred, on every event.
///
/// A value with copy-on-write, like `Array`: a copy shares the elements until either side changes.
@frozen
public struct ScratchList<Element> {
  @usableFromInline var storage: ScratchListStorage<Element>

  /// An empty list.
  @inlinable
  public init() { storage = ScratchListStorage(capacity: 8) }

  /// A list of `elements`, in order.
  @inlinable
  public init<S: Sequence>(_ elements: S) where S.Element == Element {
    self.init()
    for e in elements { append(e) }
  }

  /// Makes the elements this list's alone (copies them if a copy of the list shares them).
  @inlinable @inline(__always)
  mutating func makeUnique() {
    if !isKnownUniquelyReferenced(&storage) { storage = storage.copy(capacity: storage.capacity) }
  }

  /// Adds `element` at the end.
  @inlinable @inline(__always)
  public mutating func append(_ element: Element) {
    makeUnique()
    if storage.count == storage.capacity { storage.grow() }
    (storage.base + storage.count).initialize(to: element)
    storage.count &+= 1
  }

  /// Removes every element, keeping the room for as many.
  @inlinable @inline(__always)
  public mutating func removeAll() {
    let n = storage.count
    guard n > 0 else { return }
    if isKnownUniquelyReferenced(&storage) {
      storage.base.deinitialize(count: n)
      storage.count = 0
    } else {
      storage = ScratchListStorage(capacity: storage.capacity)
    }
  }

  /// Removes the last `k` elements, keeping the room.
  @inlinable @inline(__always)
  public mutating func removeLast(_ k: Int) {
    precondition(k >= 0 && k <= storage.count, "can't remove that many elements")
    guard k > 0 else { return }
    makeUnique()
    (storage.base + (storage.count &- k)).deinitialize(count: k)
    storage.count &-= k
  }
}

extension ScratchList: RandomAccessCollection {
  @inlinable public var startIndex: Int { 0 }
  @inlinable public var endIndex: Int { storage.count }

  /// The element at `index`, which must be in `0..<count`.
  @inlinable
  public subscript(index: Int) -> Element {
    precondition(index >= 0 && index < storage.count, "index out of range")
    return storage.base[index]
  }
}

extension ScratchList: ExpressibleByArrayLiteral {
  /// A list of the literal's elements.
  @inlinable
  public init(arrayLiteral elements: Element...) { self.init(elements) }
}

extension ScratchList: Equatable where Element: Equatable {
  /// Whether both hold equal elements in the same order.
  @inlinable
  public static func == (lhs: ScratchList, rhs: ScratchList) -> Bool { lhs.elementsEqual(rhs) }
}

extension ScratchList: CustomStringConvertible {
  /// The elements as an array literal shows them.
  public var description: String { Array(self).description }
}

extension ScratchList: @unchecked Sendable where Element: Sendable {}

/// The elements of a ``ScratchList``: a block of `capacity` slots, the first `count` initialized.
@usableFromInline
final class ScratchListStorage<Element> {
  @usableFromInline var base: UnsafeMutablePointer<Element>
  @usableFromInline var count = 0
  @usableFromInline var capacity: Int

  @usableFromInline
  init(capacity: Int) {
    base = .allocate(capacity: capacity)
    self.capacity = capacity
  }

  deinit {
    base.deinitialize(count: count)
    base.deallocate()
  }

  /// A storage of its own with the same elements and `capacity` slots.
  @usableFromInline
  func copy(capacity: Int) -> ScratchListStorage {
    let other = ScratchListStorage(capacity: capacity)
    other.base.initialize(from: base, count: count)
    other.count = count
    return other
  }

  /// Doubles the room.
  @usableFromInline
  func grow() {
    base = base.movedToNewBlock(count: count, capacity: capacity * 2)
    capacity *= 2
  }
}
