/// A rolling 64-bit hash over every executed event: its time, kind and entities, in order.
///
/// Two runs with the same hash executed the same events at the same instants. It is cheap enough to
/// run on every event (two multiplies per word).
@frozen
public struct TraceHash: Hashable, Sendable, CustomStringConvertible {
  @usableFromInline var _value: UInt64
  /// The current hash value.
  @inlinable public var value: UInt64 { _value }

  /// The hash of an empty trace.
  @inlinable public init() { _value = 0x6A09_E667_F3BC_C908 }

  @inlinable @inline(__always)
  mutating func mix(_ word: UInt64) {
    var h = (_value ^ word) &* 0x9E37_79B9_7F4A_7C15
    h ^= h >> 29
    _value = h &* 0xBF58_476D_1CE4_E5B9
  }

  /// Folds one executed event into the hash.
  @inlinable
  public mutating func add(time: Int64, kind: UInt16, a: UInt32, b: UInt32) {
    mix(UInt64(bitPattern: time))
    mix(UInt64(kind) << 48 ^ UInt64(a) << 16 ^ UInt64(b) &* 0xD6E8_FEB8_6659_FD93)
  }

  /// The hash of a run made of parts run apart (its room shards): the parts' hashes folded in
  /// their order.
  public init(parts: [TraceHash]) {
    self.init()
    for p in parts { mix(p.value) }
  }

  /// Sixteen lowercase hex digits.
  public var description: String { TraceHash.hex(value) }

  /// `value` as sixteen lowercase hex digits.
  public static func hex(_ value: UInt64) -> String {
    let digits = String(value, radix: 16)
    return String(repeating: "0", count: 16 - digits.count) + digits
  }
}
