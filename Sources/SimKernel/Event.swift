/// What happens at an instant: a kind and two dense entity IDs.
///
/// Events are plain values so the queue never allocates per event. Anything larger than two IDs
/// lives in a side table indexed by one of them (a request ID, a message ID, a user ID).
@frozen
public struct Event: Hashable, Sendable {
  /// The event kind; its meaning belongs to the world that schedules it.
  public var kind: UInt16
  /// The first entity, usually the one the event is addressed to.
  public var a: UInt32
  /// The second entity or an argument.
  public var b: UInt32

  /// Creates an event of `kind` about `a` and `b`.
  @inlinable
  public init(kind: UInt16, a: UInt32 = 0, b: UInt32 = 0) {
    self.kind = kind
    self.a = a
    self.b = b
  }
}

/// One pending event in the queue: 24 bytes, compared by `(time, seq)`.
@frozen
public struct QueueEntry: Sendable {
  /// When the event is due, in nanoseconds.
  public var time: Int64
  /// The scheduling sequence number in the upper 48 bits, the event kind in the lower 16.
  /// Sequence numbers are unique, so comparing `order` compares sequence numbers.
  public var order: UInt64
  /// The event's first entity.
  public var a: UInt32
  /// The event's second entity.
  public var b: UInt32

  /// Creates an entry for `event` due at `time` with sequence number `seq`.
  @inlinable
  public init(time: Int64, seq: UInt64, event: Event) {
    self.time = time
    self.order = seq << 16 | UInt64(event.kind)
    self.a = event.a
    self.b = event.b
  }

  /// The scheduling sequence number.
  @inlinable public var seq: UInt64 { order >> 16 }
  /// The event this entry carries.
  @inlinable public var event: Event { Event(kind: UInt16(truncatingIfNeeded: order), a: a, b: b) }
  /// The instant this entry is due.
  @inlinable public var instant: SimInstant { SimInstant(nanoseconds: time) }

  /// Whether `self` runs before `other`: earlier time first, then earlier scheduling.
  @inlinable @inline(__always)
  public func runsBefore(_ other: QueueEntry) -> Bool {
    time < other.time || (time == other.time && order < other.order)
  }
}
