import Clients
import LiveStack
import Oracles
import Profiles
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
  let bits = Column<UInt64>(reservingCapacity: 0)
  /// One bit per word of ``bits`` (word `w >> 6`, bit `w & 63`), set while that word has a user
  /// due: a round visits only those words, not one word per 64 users of the whole world.
  let words = Column<UInt64>(reservingCapacity: 0)
  /// How many users are due.
  var count = 0
  /// Per user: watched until (nanoseconds; 0: not watched).
  let until = Column<Int64>(reservingCapacity: 0)
  /// The users a round checks (kept between rounds for its capacity).
  var due: [UInt32] = []
  /// Per user: whether the SDK reported the user's latest application as failed for want of an
  /// answer (-1), while the server may hold it.
  var lostApply: [Bool] = []

  /// The answer to an application of `user` reached its SDK. A refusal filed nothing, so an
  /// application still standing is an earlier one, whose lost answer still excuses the app; but
  /// "already applying" (100202) told the app that one stands.
  mutating func noteApplyAnswer(_ user: UInt32, _ error: SeatError?) {
    let u = Int(user)
    lostApply.grow(toInclude: u, filling: false)
    switch error {
    case .failed: lostApply[u] = true
    case nil, .alreadyInQueue: lostApply[u] = false
    default: break
    }
  }

  func applyAnswerLost(_ user: UInt32) -> Bool { Int(user) < lostApply.count && lostApply[Int(user)] }

  /// Per user: whether an answer to its application was lost on its way (`seat.response_lost`), so
  /// that its client may go on showing "applying" until it moves on by itself.
  var answerDropped: [Bool] = []

  mutating func noteDroppedAnswer(_ user: UInt32) {
    let u = Int(user)
    answerDropped.grow(toInclude: u, filling: false)
    answerDropped[u] = true
  }

  mutating func clearDroppedAnswer(_ user: UInt32) {
    if Int(user) < answerDropped.count { answerDropped[Int(user)] = false }
  }

  func droppedAnswer(_ user: UInt32) -> Bool { Int(user) < answerDropped.count && answerDropped[Int(user)] }

  /// Makes room for users `0..<users` up front (the tables still grow for any user beyond).
  init(users: Int) {
    if users > 0 {
      until.grow(toInclude: users - 1, filling: 0)
      bits.grow(toInclude: (users - 1) >> 6, filling: 0)
      words.grow(toInclude: (users - 1) >> 12, filling: 0)
    }
  }

  mutating func watch(_ user: UInt32, until end: SimInstant) {
    let u = Int(user)
    until.grow(toInclude: u, filling: 0)
    until[u] = max(end.nanoseconds, 1)
    due(u)
  }

  /// Makes `u` due for a check at the next round.
  mutating func due(_ u: Int) {
    bits.grow(toInclude: u >> 6, filling: 0)
    let bit: UInt64 = 1 << UInt64(u & 63)
    if bits[u >> 6] & bit == 0 {
      bits[u >> 6] |= bit
      count += 1
      words.grow(toInclude: u >> 12, filling: 0)
      words[u >> 12] |= 1 << UInt64((u >> 6) & 63)
    }
  }

  /// Clears `u`'s bit, which is set, and its word's bit once the word has no user due.
  mutating func clear(_ u: Int) {
    bits[u >> 6] &= ~(1 << UInt64(u & 63))
    count -= 1
    if bits[u >> 6] == 0 { words[u >> 12] &= ~(1 << UInt64((u >> 6) & 63)) }
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

  /// Appends the users due, in ID order, to `list`: the words of ``bits`` that ``words`` marks.
  func appendDue(to list: inout [UInt32]) {
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
  mutating func atPeace(_ user: UInt32) { clear(Int(user)) }

  /// Stops watching `user`.
  mutating func unwatch(_ user: UInt32) {
    let u = Int(user)
    until[u] = 0
    if bits[u >> 6] & (1 << UInt64(u & 63)) != 0 { clear(u) }
  }
}

extension LiveWorld {
  /// Compares the watched UIs with the server (see `Checker+UI` and ``UIWatch``).
  mutating func checkUIs() {
    guard checking else { return }
    let now = runtime.now
    guard observers.uiWatch.count > 0 else { return }
    // Users at peace and untouched since the last round would give the same facts and the same
    // verdict: only the others are due.
    var due: [UInt32] = []
    swap(&due, &observers.uiWatch.due)
    due.removeAll(keepingCapacity: true)
    observers.uiWatch.appendDue(to: &due)
    defer { swap(&due, &observers.uiWatch.due) }
    guard !due.isEmpty else { return }
    let audienceUI = audienceStatusIsUI
    // The users are spread over large tables: in a large world each check hints the records of
    // the user a few places ahead, so that they arrive while the checks in between run.
    let ahead = 8
    for k in 0..<due.count {
      if prefetchesNextEvent && k + ahead < due.count { prefetchUI(of: due[k + ahead]) }
      checkUI(due[k], audienceUI: audienceUI, now: now)
    }
  }

  /// Hints the per-user records ``checkUI(_:audienceUI:now:)`` reads first. (`mutating` only so
  /// that the check loop calls it on the world in place, never on a copy of it.)
  @inline(__always)
  mutating func prefetchUI(of u: UInt32) {
    let i = Int(u)
    runtime.clients.prefetch(i)
    runtime.ui.prefetch(u)
    observers.uiWatch.until.prefetch(i)
    network.links.prefetch(i)
    server.seats.prefetchSeatState(of: u)
    server.calls.prefetchState(of: u)
  }

  /// Compares `user`'s UI with the server (see ``checkUIs()``), and stops watching it once it is
  /// at rest and its window has passed; notes when it found the UI at peace.
  mutating func checkUI(_ u: UInt32, audienceUI: Bool, now: SimInstant) {
    // (The probes are read through the runtime each time: a local copy of them retains their table.)
    let client = runtime.clients[Int(u)]
    let status = client.status
    let callScreen = runtime.ui.callScreen(of: u)
    let atRest = (status == .idle || status == .left || status == .away) && callScreen != 1
    let settled = now.nanoseconds >= observers.uiWatch.until[Int(u)] && atRest && observers.checker.uiQuiet(u)
    if settled { observers.uiWatch.unwatch(u) }
    // A killed app shows nothing, and a suspended one neither shows its screen nor can change it:
    // its call screen is judged while its code can run (it hears on resuming what it missed).
    let running = phoneOS.map { !$0.phones.contains(u) || $0.isRunning(u) } ?? true
    let screen = running ? callScreen : -1
    let shown = runtime.ui.isStatusProbed(u) || (audienceUI && layout.role(of: u) == .audience && !isPhoneUser(u))
    let pending = server.seats.pendingApplication(of: u) != nil && !observers.uiWatch.applyAnswerLost(u)
    let seated = server.seats.seat(of: u) != nil
    let callState = server.calls.state(of: u)
    let captureOn = client.deviceBits != 0
    // What only one check reads is worked out only when that check can fail.
    let mayFailApplying = shown && status == .applying && !pending
    let facts = Checker.UIFacts(
      status: shown ? status : nil, pending: pending, seated: seated,
      microphoneOn: client.deviceBits & (1 << CaptureDevice.microphone.rawValue) != 0,
      callScreen: screen < 0 ? nil : screen == 1, callState: callState, captureOn: captureOn,
      devices: captureOn && !seated && callState != .accept ? runtime.deviceNames(user: u) : "",
      // Quiet: nothing under way now, and its code has not run since the last check (a retry
      // that failed at once between two checks is activity all the same).
      quiet: !inFlight.hasCallInFlight(u) && !network.hasInFlight(u, now: now)
        && observers.uiWatch.until[Int(u)] - UIWatch.window.nanoseconds <= now.nanoseconds
          - UIWatch.checkEvery.nanoseconds,
      answerMayBeLost: mayFailApplying
        && (observers.uiWatch.droppedAnswer(u)
          || server.lastApplicationTiming(of: u).map { a in
            // Until the application's timeout (30 s when it set none) and the SDK's request timeout.
            now < a.filedAt + (a.timeout > .zero ? a.timeout : .seconds(30)) + profile.network.requestTimeout
          } ?? false)
    )
    if observers.checker.observeUI(user: u, facts, at: now) && !settled { observers.uiWatch.atPeace(u) }
  }

  /// The server changed something of `user` that its UI may have to follow.
  @inline(__always)
  mutating func touchUI(_ user: UInt32, _ now: SimInstant) {
    observers.touchUI(user, now)
  }
}
