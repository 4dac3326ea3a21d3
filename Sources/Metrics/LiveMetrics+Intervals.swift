import Clients
import LiveStack
import SimKernel

/// When the intervals behind the latencies started, per user, call and phone. Each start is
/// `-1` when no interval is open; a measured end records the latency and closes the interval, so a
/// repeated end (a duplicate message, a second ring) is not counted twice.
struct IntervalStarts: Sendable {
  /// Per user: the open `applyForSeat` call, the grant of a seat (until connected), the `login` call
  /// (until it entered its room).
  struct User: Sendable {
    var applyCalled: Int64 = -1
    var granted: Int64 = -1
    var loginCalled: Int64 = -1
  }
  /// Per phone: the last VoIP push sent (until delivered), delivered (until reported), the `login`
  /// call (until the token upload), and the call whose ring was measured, as ID + 1.
  struct Phone: Sendable {
    var pushSent: Int64 = -1
    var pushArrived: Int64 = -1
    var loginCalled: Int64 = -1
    var ringMeasured: UInt32 = 0
  }
  var users: [User] = []
  var phones: [Phone] = []
  /// Per call, in ID order: when the caller called `calls()`.
  var dialed: [Int64] = []
  /// Per request, in ID order: when the call that filed it was made.
  var requested: [Int64] = []
}

extension LiveMetrics {
  /// Sizes the interval tables for `users` users, of whom `phones` (the first being
  /// `firstPhone`) are phone users.
  public mutating func track(users: Int, phones: Range<UInt32>) {
    starts.users = [IntervalStarts.User](table: IntervalStarts.User(), count: users)
    starts.phones = [IntervalStarts.Phone](repeating: IntervalStarts.Phone(), count: phones.count)
    firstPhone = phones.lowerBound
  }

  /// Tracks capacity lost in rooms of `seatCounts` seats each.
  public mutating func trackSeats(_ seatCounts: [Int]) {
    let (base, total) = flatSeats(seatCounts)
    seatBase = base
    lockedEmptySince = [Int64](repeating: 0, count: total)
  }

  /// Seat `seat` of `room` changed (its lock or its occupant): while it stands locked with nobody
  /// on it, the time counts as capacity lost (`seat.locked_empty_ms`).
  public mutating func observeLockedEmpty(room: UInt32, seat: Int, seats: SeatService, _ now: SimInstant) {
    guard Int(room) < seatBase.count else { return }
    let lockedEmpty = seats.isLocked(room: room, seat: seat) && seats.occupant(room: room, seat: seat) == nil
    let i = seatBase[Int(room)] + seat
    let since = lockedEmptySince[i]
    if lockedEmpty && since == 0 {
      lockedEmptySince[i] = now.nanoseconds + 1
    } else if !lockedEmpty && since != 0 {
      counters.add(lockedEmptyMs, UInt64(max(0, now.nanoseconds - (since - 1)) / 1_000_000))
      lockedEmptySince[i] = 0
    }
  }

  /// Milliseconds of seats still locked and empty at `now`, not yet counted.
  public func lockedEmptyOpenMs(at now: SimInstant) -> UInt64 {
    var ms: UInt64 = 0
    for since in lockedEmptySince where since != 0 { ms += UInt64(max(0, now.nanoseconds - (since - 1)) / 1_000_000) }
    return ms
  }

  /// Records the interval from `start` to `now` in `histogram` and closes it, if it is open.
  static func close(_ histogram: inout Histogram, from start: inout Int64, _ now: SimInstant) {
    guard start >= 0 else { return }
    histogram.record(SimDuration(nanoseconds: now.nanoseconds - start))
    start = -1
  }

  // MARK: - Seats and rooms

  /// `user` called `applyForSeat` (opens `seat.apply_to_response`).
  public mutating func applyCalled(_ user: UInt32, _ now: SimInstant) {
    starts.users[Int(user)].applyCalled = now.nanoseconds
  }

  /// `user` learnt the outcome of its application (closes `seat.apply_to_response`).
  public mutating func applyAnswered(_ user: UInt32, _ now: SimInstant) {
    LiveMetrics.close(&latencies[LiveMetrics.applyToResponse], from: &starts.users[Int(user)].applyCalled, now)
  }

  /// The server seated `user` by a grant (opens `seat.accept_to_connected`).
  public mutating func seated(_ user: UInt32, _ now: SimInstant) {
    starts.users[Int(user)].granted = now.nanoseconds
  }

  /// A seat changed: a grant opens `seat.accept_to_connected`; a removal by the server counts.
  public mutating func observe(_ change: SeatChange, _ now: SimInstant) {
    if change.seated, let grant = change.grant, grant != .move { seated(change.user, now) }
    if !change.seated && change.removedBy == .max { counters.add(serverRemoved) }
  }

  /// `user`'s status became connected: counts it and closes `seat.accept_to_connected`.
  public mutating func connected(_ user: UInt32, _ now: SimInstant) {
    counters.add(connected)
    LiveMetrics.close(&latencies[LiveMetrics.acceptToConnected], from: &starts.users[Int(user)].granted, now)
  }

  /// `user` called `login` (opens `login.to_room`, and `login.to_token_upload` on a phone).
  public mutating func loginCalled(_ user: UInt32, _ now: SimInstant) {
    starts.users[Int(user)].loginCalled = now.nanoseconds
  }

  /// A phone app called `login` (opens `login.to_token_upload`).
  public mutating func phoneLoginCalled(_ user: UInt32, _ now: SimInstant) {
    starts.phones[Int(user - firstPhone)].loginCalled = now.nanoseconds
  }

  /// Hints the interval starts of `user` (read when it enters its room).
  @inline(__always)
  public func prefetchIntervalStarts(of user: UInt32) { starts.users.prefetch(Int(user)) }

  /// `user`'s `joinLive` succeeded (closes `login.to_room`).
  public mutating func enteredRoom(_ user: UInt32, _ now: SimInstant) {
    LiveMetrics.close(&latencies[LiveMetrics.loginToRoom], from: &starts.users[Int(user)].loginCalled, now)
  }

  /// An application waited `waited` for its first reviewer (`seat.wait_for_review`).
  public mutating func reviewWaited(_ waited: SimDuration) { latencies[LiveMetrics.waitForReview].record(waited) }

  /// Request `id` (the next in order) was filed by a call made at `calledAt`.
  public mutating func requestFiled(_ id: UInt32, calledAt: SimInstant) {
    precondition(Int(id) == starts.requested.count, "requests are filed in ID order")
    starts.requested.append(calledAt.nanoseconds)
  }

  /// A host learnt how its invitation `request` ended.
  public mutating func invitationAnswered(request: UInt32, _ now: SimInstant) {
    invitationAnswered(calledAt: SimInstant(nanoseconds: starts.requested[Int(request)]), now)
  }

  /// A host learnt how its invitation ended, `calledAt` being when it invited.
  public mutating func invitationAnswered(calledAt: SimInstant, _ now: SimInstant) {
    latencies[LiveMetrics.inviteToResponse].record(SimDuration(nanoseconds: now.nanoseconds - calledAt.nanoseconds))
  }

  // MARK: - Calls and pushes

  /// Call `id` (the next in order) was dialled at `at`.
  public mutating func callPlaced(_ id: UInt32, dialedAt at: SimInstant) {
    precondition(Int(id) == starts.dialed.count, "calls are numbered in order")
    starts.dialed.append(at.nanoseconds)
  }

  /// Call `call` rang at `user` (in the app, or in the system UI); a phone's ring of one call is
  /// measured once (`call.dial_to_ring`).
  public mutating func rang(_ user: UInt32, call: UInt32, isPhone: Bool, _ now: SimInstant) {
    if isPhone {
      let i = Int(user - firstPhone)
      guard starts.phones[i].ringMeasured != call + 1 else { return }
      starts.phones[i].ringMeasured = call + 1
    }
    latencies[LiveMetrics.dialToRing].record(SimDuration(nanoseconds: now.nanoseconds - starts.dialed[Int(call)]))
  }

  /// The caller of `call` heard it start (`call.dial_to_connected`).
  public mutating func callConnected(_ call: UInt32, _ now: SimInstant) {
    latencies[LiveMetrics.dialToConnected].record(
      SimDuration(nanoseconds: now.nanoseconds - starts.dialed[Int(call)]))
  }

  /// The backend sent a VoIP push to phone `user` (opens `push.send_to_delivery`).
  public mutating func pushSent(_ user: UInt32, _ now: SimInstant) {
    counters.add(pushSent)
    starts.phones[Int(user - firstPhone)].pushSent = now.nanoseconds
  }

  /// A VoIP push reached phone `user` (closes `push.send_to_delivery`, opens
  /// `push.delivery_to_report`).
  public mutating func pushArrived(_ user: UInt32, _ now: SimInstant) {
    let i = Int(user - firstPhone)
    starts.phones[i].pushArrived = now.nanoseconds
    LiveMetrics.close(&latencies[LiveMetrics.pushSendToDelivery], from: &starts.phones[i].pushSent, now)
  }

  /// Phone `user`'s app reported an incoming conversation (closes `push.delivery_to_report`).
  public mutating func conversationReported(_ user: UInt32, _ now: SimInstant) {
    LiveMetrics.close(
      &latencies[LiveMetrics.pushDeliveryToReport], from: &starts.phones[Int(user - firstPhone)].pushArrived, now)
  }

  /// Phone `user`'s VoIP token reached the push backend (closes `login.to_token_upload`).
  public mutating func tokenUploaded(_ user: UInt32, _ now: SimInstant) {
    LiveMetrics.close(
      &latencies[LiveMetrics.loginToTokenUpload], from: &starts.phones[Int(user - firstPhone)].loginCalled, now)
  }
}

extension LiveMetrics {
  /// What happened on a phone reaches the counters and latencies that measure it.
  public mutating func observe(_ news: PhoneNews, _ now: SimInstant) {
    switch news {
    case .coldStart:
      counters.add(coldStarts)
    case .tokenRotated:
      counters.add(tokenRotations)
    case .conversationReported(let phone, let failed):
      conversationReported(phone, now)
      counters.add(failed ? conversationReportFailed : conversationsReported)
    case .rang(let phone, let call):
      rang(phone, call: call, isPhone: true, now)
    case .actionTimedOut:
      counters.add(actionTimeouts)
    case .actionSettled(let fulfilled):
      counters.add(fulfilled ? actionsFulfilled : actionsFailed)
    case .joinDuringColdStart:
      counters.add(probeJoinDuringColdStart)
    case .missedReport(_, _, _, _, _, let newlySuppressed):
      counters.add(pushAppKilled)
      if newlySuppressed { counters.add(pushSuppressedApps) }
    case .outgoingStarted(_, let failed):
      counters.add(failed ? outgoingStartFailed : outgoingStarted)
    case .conversationEnded(let reason):
      counters.add(conversationEnded[Int(reason.rawValue)])
    case .conversationCount, .joinFulfilled, .lateCompletion, .reportedByDeadline, .graceAfterCall:
      break
    }
  }
}
