import CPlatformHooks
import SimKernel

/// The randomness app code draws (`Int.random(in:)`, `Double.random(in:)`, `shuffled()`,
/// `randomElement()`, `SystemRandomNumberGenerator`): inside a virtual user's code it comes from
/// that user's own stream, seeded from the run's seed and the user, so a retry's jitter or a
/// shuffled list is the same in every run of a seed and does not move when other users draw.
/// Elsewhere it is the system's. Foundation's `UUID()` too: it reads /dev/urandom, which the same
/// hook answers inside a user's code.
///
/// How: every one of those reads the runtime's `swift_stdlib_random`, which asks the system
/// through `syscall(SYS_getrandom, …)`; the `CPlatformHooks` library defines `syscall` in the
/// executable and asks the hook installed here whether app code runs.
enum AppRandomness {
  static func install() {
    stampede_set_random_hook { buffer, count in
      guard let buffer, let host = AppHost.current, host.user != .max else { return 0 }
      host.fillRandom(buffer, count: count)
      return 1
    }
  }
}

extension AppHost {
  /// Fills `count` bytes at `buffer` from the current user's stream.
  func fillRandom(_ buffer: UnsafeMutableRawPointer, count: Int) {
    var stream = randomStreams[user] ?? SplitMix64(seed: randomSeed ^ (UInt64(user) &* 0x9E37_79B9_7F4A_7C15))
    var offset = 0
    while offset < count {
      var word = stream.next()
      let n = min(8, count - offset)
      withUnsafeBytes(of: &word) { buffer.advanced(by: offset).copyMemory(from: $0.baseAddress!, byteCount: n) }
      offset += n
    }
    randomStreams[user] = stream
  }
}
