extension Array {
  /// Extends the array with copies of `value` until `index` is a valid index, in place (no
  /// temporary array); does nothing if it already is. For tables indexed by IDs that only grow.
  @inlinable @inline(__always)
  public mutating func grow(toInclude index: Int, filling value: Element) {
    if index >= count { append(contentsOf: repeatElement(value, count: index + 1 - count)) }
  }
}
