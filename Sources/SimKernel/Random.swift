/// A source of uniformly random 64-bit words, and the draws every model makes from one: units,
/// bounded integers, exact-probability coins. ``Xoshiro256`` and ``SplitMix64`` are the two the
/// simulation uses; both give the same sequence on every platform and build mode.
public protocol RandomSource {
  /// The next 64 random bits.
  mutating func next() -> UInt64
}

extension RandomSource {
  /// A uniform `Double` in `[0, 1)` with 53 random bits.
  @inlinable
  public mutating func nextUnit() -> Double { Double(next() >> 11) * 0x1p-53 }

  /// A uniform `Double` in `(0, 1]`, safe to take the logarithm of.
  @inlinable
  public mutating func nextOpenUnit() -> Double { Double((next() >> 11) + 1) * 0x1p-53 }

  /// A uniform integer in `0..<bound` without modulo bias (Lemire's method). `bound` must be > 0.
  @inlinable
  public mutating func next(below bound: UInt64) -> UInt64 {
    precondition(bound > 0, "bound must be positive")
    var m = next().multipliedFullWidth(by: bound)
    if m.low < bound {
      let threshold = (0 &- bound) % bound
      while m.low < threshold { m = next().multipliedFullWidth(by: bound) }
    }
    return m.high
  }

  /// A uniform integer in `range`.
  @inlinable
  public mutating func next(in range: ClosedRange<Int>) -> Int {
    let width = UInt64(bitPattern: Int64(range.upperBound) &- Int64(range.lowerBound)) &+ 1
    if width == 0 { return Int(truncatingIfNeeded: next()) }
    return range.lowerBound &+ Int(truncatingIfNeeded: next(below: width))
  }

  /// `true` with exactly the probability `ratio`.
  @inlinable
  public mutating func chance(_ ratio: Ratio) -> Bool {
    if ratio.numerator == 0 { return false }
    if ratio.numerator >= ratio.denominator { return true }
    return next(below: ratio.denominator) < ratio.numerator
  }
}

/// SplitMix64: expands one 64-bit seed into well-mixed words. Used to seed xoshiro and to derive
/// stream seeds.
@frozen
public struct SplitMix64: RandomSource, Sendable {
  @usableFromInline var state: UInt64

  /// Creates a generator whose first output depends on `seed` only.
  @inlinable public init(seed: UInt64) { state = seed }

  /// The next 64-bit output.
  @inlinable
  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

/// xoshiro256**: the simulation's random number generator. Fast, 256 bits of state, and the same
/// sequence on every platform and build mode.
@frozen
public struct Xoshiro256: RandomSource, Sendable {
  @usableFromInline var s0: UInt64
  @usableFromInline var s1: UInt64
  @usableFromInline var s2: UInt64
  @usableFromInline var s3: UInt64

  /// Creates a generator seeded through SplitMix64 from `seed`.
  @inlinable
  public init(seed: UInt64) {
    var mixer = SplitMix64(seed: seed)
    s0 = mixer.next()
    s1 = mixer.next()
    s2 = mixer.next()
    s3 = mixer.next()
  }

  /// The next 64 random bits.
  @inlinable
  public mutating func next() -> UInt64 {
    let result = rotl(s1 &* 5, 7) &* 9
    let t = s1 << 17
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = rotl(s3, 45)
    return result
  }

  @inlinable @inline(__always)
  func rotl(_ x: UInt64, _ k: UInt64) -> UInt64 { (x << k) | (x >> (64 - k)) }
}

/// The root seed of a run, split into named, independent streams.
///
/// A stream's seed depends only on the root seed and the stream's name, so adding a new stream (a
/// new fault kind, a new population) never changes the numbers any other stream draws.
public struct RandomStreams: Sendable {
  /// The run's root seed.
  public let rootSeed: UInt64

  /// Creates the stream family for `rootSeed`.
  public init(rootSeed: UInt64) { self.rootSeed = rootSeed }

  /// The generator for stream `name`; the same name always gives the same sequence.
  public func stream(_ name: String) -> Xoshiro256 {
    Xoshiro256(seed: RandomStreams.streamSeed(root: rootSeed, name: name))
  }

  /// The generator of one entity (a room, a user, a phone) in stream `name`, seeded from the root,
  /// the name and the entity's `identity` only.
  ///
  /// An entity's draws therefore never depend on how many other entities exist or how often they
  /// draw: removing unrelated rooms, viewers or phones (as `shrink` does) leaves its life as it
  /// was, as the per-entity streams of FoundationDB's simulator and Hypothesis's shrinker do.
  public func entity(_ name: String, _ identity: UInt64) -> SplitMix64 {
    SplitMix64(seed: RandomStreams.entitySeed(stream: RandomStreams.streamSeed(root: rootSeed, name: name), identity))
  }

  /// One generator per identity in `identities`, in order: ``entity(_:_:)`` for each.
  public func entities(_ name: String, _ identities: some Sequence<UInt64>) -> [SplitMix64] {
    let stream = RandomStreams.streamSeed(root: rootSeed, name: name)
    return identities.map { SplitMix64(seed: RandomStreams.entitySeed(stream: stream, $0)) }
  }

  /// The seed of entity `identity` within the stream seeded `stream`.
  @inlinable
  public static func entitySeed(stream: UInt64, _ identity: UInt64) -> UInt64 {
    var mixer = SplitMix64(seed: stream ^ (identity &* 0xD1B5_4A32_D192_ED03))
    _ = mixer.next()
    return mixer.next()
  }

  /// The seed of stream `name` under `root`: SplitMix64 over the root mixed with FNV-1a of the name.
  public static func streamSeed(root: UInt64, name: String) -> UInt64 {
    var hash: UInt64 = 0xCBF2_9CE4_8422_2325
    for byte in name.utf8 {
      hash ^= UInt64(byte)
      hash = hash &* 0x0000_0100_0000_01B3
    }
    var mixer = SplitMix64(seed: root ^ hash)
    _ = mixer.next()
    return mixer.next()
  }
}
