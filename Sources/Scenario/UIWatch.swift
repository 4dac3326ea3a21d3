import SimKernel

/// The app UIs worth checking: every probed user whose code ran in the last ``window``, and any
/// whose UI is not at rest (applying, connected, a call screen up, a mismatch being timed). A UI at
/// rest cannot start to disagree with the server without its app hearing of it (an application
/// is the app's own, and its answer or timeout reaches the app within the SDK's request timeout),
/// so checking only these finds every mismatch the full scan would, at a cost that follows the
/// active users instead of all of them.
struct UIWatch {
  /// How long after its code last ran a UI at rest stays watched: longer than the SDK's request
  /// timeout plus the settle time.
  static let window = SimDuration.seconds(20)
  /// How often the watched UIs are compared with the server.
  static let checkEvery = SimDuration.seconds(1)
  /// The users due for a check at the next round, one bit each (word `u >> 6`, bit `u & 63`):
  /// the watched users but those at peace. A round walks them in ID order, so that the per-user
  /// tables it reads are read front to back.
  var bits: [UInt64] = []
  /// How many users are due.
  var count = 0
  /// Per user: watched until (nanoseconds; 0: not watched).
  var until: [Int64] = []
  /// The users a round checks (kept between rounds for its capacity).
  var due: [UInt32] = []
  /// Per user, during a check: whether an SDK call of the user awaits its answer.
  var busy: [Bool] = []
  /// Per user: whether the SDK reported the user's latest application as failed for want of an
  /// answer (-1), while the server may hold it.
  var lostApply: [Bool] = []

  mutating func noteApplyAnswer(_ user: UInt32, lost: Bool) {
    let u = Int(user)
    if u >= lostApply.count { lostApply += [Bool](repeating: false, count: u + 1 - lostApply.count) }
    lostApply[u] = lost
  }

  func applyAnswerLost(_ user: UInt32) -> Bool { Int(user) < lostApply.count && lostApply[Int(user)] }

  /// Per user: whether an answer to its application was lost on its way (`seat.response_lost`), so
  /// that its client may go on showing "applying" until it moves on by itself.
  var answerDropped: [Bool] = []

  mutating func noteDroppedAnswer(_ user: UInt32) {
    let u = Int(user)
    if u >= answerDropped.count { answerDropped += [Bool](repeating: false, count: u + 1 - answerDropped.count) }
    answerDropped[u] = true
  }

  mutating func clearDroppedAnswer(_ user: UInt32) {
    if Int(user) < answerDropped.count { answerDropped[Int(user)] = false }
  }

  func droppedAnswer(_ user: UInt32) -> Bool { Int(user) < answerDropped.count && answerDropped[Int(user)] }

  mutating func watch(_ user: UInt32, until end: SimInstant) {
    let u = Int(user)
    if u >= until.count {
      until += [Int64](repeating: 0, count: u + 1 - until.count)
    }
    until[u] = max(end.nanoseconds, 1)
    due(u)
  }

  /// Makes `u` due for a check at the next round.
  mutating func due(_ u: Int) {
    if u >> 6 >= bits.count { bits += [UInt64](repeating: 0, count: (u >> 6) + 1 - bits.count) }
    let bit: UInt64 = 1 << UInt64(u & 63)
    if bits[u >> 6] & bit == 0 {
      bits[u >> 6] |= bit
      count += 1
    }
  }

  /// The server changed something of `user`: its UI is checked at the next round (watched from
  /// now if it was not; its client's code did not run, so it stays quiet).
  mutating func touch(_ user: UInt32, now: SimInstant) {
    let u = Int(user)
    if u < until.count && until[u] != 0 {
      due(u)
    } else {
      watch(user, until: now)
    }
  }

  /// A check found `user`'s UI at peace: nothing could fail on its facts, even were its client
  /// quiet and every answer in, and no mismatch is being timed. No check is due until something
  /// touches the user (its code runs, or the server changes something of it).
  mutating func atPeace(_ user: UInt32) {
    let u = Int(user)
    bits[u >> 6] &= ~(1 << UInt64(u & 63))
    count -= 1
  }

  /// Stops watching `user`.
  mutating func unwatch(_ user: UInt32) {
    let u = Int(user)
    until[u] = 0
    let bit: UInt64 = 1 << UInt64(u & 63)
    if bits[u >> 6] & bit != 0 {
      bits[u >> 6] &= ~bit
      count -= 1
    }
  }
}
