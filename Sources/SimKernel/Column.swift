/// A fixed-size array of plain values with reference semantics, indexed by dense IDs.
///
/// Shared state that many parts of a world read and write (the SDK state of every simulated
/// client) lives in columns so that an access costs one bounds check, without the dynamic
/// exclusivity check a class's `var` array property pays on every access. `T` must be a trivial
/// type (no references), which the initializer checks.
public final class Column<T> {
  @usableFromInline let base: UnsafeMutablePointer<T>
  /// Number of elements.
  public let count: Int

  /// A column of `count` copies of `value`.
  public init(repeating value: T, count: Int) {
    precondition(count >= 0, "a column cannot have a negative size")
    precondition(_isPOD(T.self), "columns hold plain values only")
    base = UnsafeMutablePointer<T>.allocate(capacity: max(1, count))
    base.initialize(repeating: value, count: count)
    self.count = count
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

  /// The elements as an array (for tests and reports).
  public var elements: [T] { Array(UnsafeBufferPointer(start: base, count: count)) }
}
