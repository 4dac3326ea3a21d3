import Clients
import LiveStack
import SimKernel

/// The app UIs worth checking: every probed user whose code ran in the last ``window``, and any
/// whose UI is not at rest (applying, connected, a call screen up, a mismatch being timed). A UI at
/// rest cannot start to disagree with the server without its app hearing of it (an application
/// is the app's own, and its answer or timeout reaches the app within the SDK's request timeout),
/// so checking only these finds every mismatch the full scan would, at a cost that follows the
/// active users instead of all of them.
public struct UIWatch {
  /// How long after its code last ran a UI at rest stays watched: longer than the SDK's request
  /// timeout plus the settle time.
  public static let window = SimDuration.seconds(20)
  /// How often the watched UIs are compared with the server.
  public static let checkEvery = SimDuration.seconds(1)
  /// The users due for a check at the next round, one bit each (word `u >> 6`, bit `u & 63`):
  /// the watched users but those at peace. A round walks them in ID order, so that the per-user
  /// tables it reads are read front to back.
  public let bits = Column<UInt64>(reservingCapacity: 0)
  /// One bit per word of ``bits`` (word `w >> 6`, bit `w & 63`), set while that word has a user
  /// due: a round visits only those words, not one word per 64 users of the whole world.
  public let words = Column<UInt64>(reservingCapacity: 0)
  /// How many users are due.
  public var count = 0
  /// Per user: watched until (nanoseconds; 0: not watched), with ``dueFlag`` set while the user is
  /// due (its bit in ``bits`` set). Read the time through ``end(of:)``. The flag answers "due
  /// already?" from the record every touch reads anyway (and the next-event hint loads), where
  /// the bit set, one word per 64 users, is a cache miss of its own at millions of users.
  public let until = Column<Int64>(reservingCapacity: 0)
  /// The bit of ``until`` that marks a user due.
  public static let dueFlag = Int64.min
  /// The users a round checks (kept between rounds for its capacity).
  public var due: [UInt32] = []
  /// Per user: whether the SDK reported the user's latest application as failed for want of an
  /// answer (-1), while the server may hold it.
  public var lostApply: [Bool] = []

  /// The answer to an application of `user` reached its SDK. A refusal filed nothing, so an
  /// application still standing is an earlier one, whose lost answer still excuses the app; but
  /// "already applying" (100202) told the app that one stands.
  public mutating func noteApplyAnswer(_ user: UInt32, _ error: SeatError?) {
    let u = Int(user)
    lostApply.grow(toInclude: u, filling: false)
    switch error {
    case .failed: lostApply[u] = true
    case nil, .alreadyInQueue: lostApply[u] = false
    default: break
    }
  }

  /// How long after a withdrawal (`cancelApplication`) failed for want of an answer (-1) the UI
  /// may go on showing "applying" with no call under way: longer than a correct app waits before
  /// it sends the withdrawal again, backing off to 8 s (docs/CLIENTS.md).
  public static let withdrawalRetryWindow = SimDuration.seconds(10)
  /// Per user: when its latest withdrawal failed for want of an answer (nanoseconds + 1; 0: its
  /// latest withdrawal was answered, or none failed).
  public private(set) var withdrawalLostAt: [Int64] = []

  /// The answer to an application of `user`, or to its withdrawal, reached its SDK at `now`.
  public mutating func noteAnswer(_ user: UInt32, toWithdrawal: Bool, _ error: SeatError?, now: SimInstant) {
    guard toWithdrawal else { return noteApplyAnswer(user, error) }
    let u = Int(user)
    withdrawalLostAt.grow(toInclude: u, filling: 0)
    withdrawalLostAt[u] = error == .failed ? now.nanoseconds + 1 : 0
  }

  /// Whether `user`'s latest withdrawal failed for want of an answer less than
  /// ``withdrawalRetryWindow`` before `now`: the application may still stand, and the app is
  /// between two tries.
  public func withdrawalUnanswered(_ user: UInt32, now: SimInstant) -> Bool {
    let u = Int(user)
    guard u < withdrawalLostAt.count, withdrawalLostAt[u] != 0 else { return false }
    return now.nanoseconds + 1 - withdrawalLostAt[u] < UIWatch.withdrawalRetryWindow.nanoseconds
  }

  /// Whether the SDK reported `user`'s latest application as failed for want of an answer.
  public func applyAnswerLost(_ user: UInt32) -> Bool { Int(user) < lostApply.count && lostApply[Int(user)] }

  /// Per user: whether an answer to its application was lost on its way (`seat.response_lost`), so
  /// that its client may go on showing "applying" until it moves on by itself.
  public var answerDropped: [Bool] = []

  /// An answer to `user`'s application was lost on its way.
  public mutating func noteDroppedAnswer(_ user: UInt32) {
    let u = Int(user)
    answerDropped.grow(toInclude: u, filling: false)
    answerDropped[u] = true
  }

  /// `user`'s status moved on: a lost answer no longer excuses it.
  public mutating func clearDroppedAnswer(_ user: UInt32) {
    if Int(user) < answerDropped.count { answerDropped[Int(user)] = false }
  }

  /// Whether an answer to `user`'s application was lost on its way and its status has not moved since.
  public func droppedAnswer(_ user: UInt32) -> Bool { Int(user) < answerDropped.count && answerDropped[Int(user)] }

  /// Makes room for users `0..<users` up front (the tables still grow for any user beyond).
  public init(users: Int) {
    if users > 0 {
      until.grow(toInclude: users - 1, filling: 0)
      bits.grow(toInclude: (users - 1) >> 6, filling: 0)
      words.grow(toInclude: (users - 1) >> 12, filling: 0)
    }
  }

  /// Watches `user`'s UI until `end` (its code ran; its UI may have changed).
  public mutating func watch(_ user: UInt32, until end: SimInstant) {
    let u = Int(user)
    until.grow(toInclude: u, filling: 0)
    until[u] = max(end.nanoseconds, 1) | until[u] & UIWatch.dueFlag
    due(u)
  }

  /// When `u`'s watch ends (nanoseconds; 0: not watched).
  @inline(__always)
  public func end(of u: UInt32) -> Int64 { until[Int(u)] & Int64.max }

  /// Whether `u` is due for a check at the next round.
  public func isDue(_ u: UInt32) -> Bool { Int(u) < until.count && until[Int(u)] < 0 }

  /// Makes `u`, which is watched, due for a check at the next round.
  public mutating func due(_ u: Int) {
    guard until[u] >= 0 else { return }
    until[u] |= UIWatch.dueFlag
    bits.grow(toInclude: u >> 6, filling: 0)
    bits[u >> 6] |= 1 << UInt64(u & 63)
    count += 1
    words.grow(toInclude: u >> 12, filling: 0)
    words[u >> 12] |= 1 << UInt64((u >> 6) & 63)
  }

  /// Clears `u`'s due flag and bit, which are set, and its word's bit once the word has no user
  /// due.
  public mutating func clear(_ u: Int) {
    until[u] &= Int64.max
    bits[u >> 6] &= ~(1 << UInt64(u & 63))
    count -= 1
    if bits[u >> 6] == 0 { words[u >> 12] &= ~(1 << UInt64((u >> 6) & 63)) }
  }

  /// The server changed something of `user`: its UI is checked at the next round (watched from
  /// now if it was not; its client's code did not run, so it stays quiet).
  public mutating func touch(_ user: UInt32, now: SimInstant) {
    let u = Int(user)
    if u < until.count && until[u] != 0 {
      due(u)
    } else {
      watch(user, until: now)
    }
  }

  /// Appends the users due, in ID order, to `list`: the words of ``bits`` that ``words`` marks.
  public func appendDue(to list: inout [UInt32]) {
    for s in 0..<words.count {
      var summary = words[s]
      while summary != 0 {
        let w = s << 6 + summary.trailingZeroBitCount
        summary &= summary - 1
        var word = bits[w]
        while word != 0 {
          list.append(UInt32(w << 6 + word.trailingZeroBitCount))
          word &= word - 1
        }
      }
    }
  }

  /// A check found `user`'s UI at peace: nothing could fail on its facts, even were its client
  /// quiet and every answer in, and no mismatch is being timed. No check is due until something
  /// touches the user (its code runs, or the server changes something of it).
  public mutating func atPeace(_ user: UInt32) { clear(Int(user)) }

  /// Stops watching `user`.
  public mutating func unwatch(_ user: UInt32) {
    let u = Int(user)
    if until[u] < 0 { clear(u) }
    until[u] = 0
  }
}
