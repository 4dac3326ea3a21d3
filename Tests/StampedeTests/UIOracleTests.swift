import Testing

@testable import Clients
@testable import LiveStack
@testable import Oracles
@testable import Scenario
@testable import SimKernel

/// The UI oracles: each mismatch is caught once it has held for its settle time, and a mismatch
/// that clears sooner (a transient a correct app passes through) is not.
@Suite struct UIOracleTests {
  func checker() -> Checker {
    Checker(
      seats: SeatService(
        rooms: [RoomSettings(maxSeatCount: 4, packageLimit: 4, seatMode: .apply, coHostSeatLimit: 0)], userCount: 8))
  }

  func facts(
    _ status: CoGuestStatus?, pending: Bool = false, seated: Bool = false, mic: Bool = false, screen: Bool? = nil,
    call: CallParticipantState = .none, capture: Bool = false
  ) -> Checker.UIFacts {
    Checker.UIFacts(
      status: status, pending: pending, seated: seated, microphoneOn: mic, callScreen: screen, callState: call,
      captureOn: capture)
  }

  /// Feeds `f` every second for `seconds` seconds; returns the violations of `id`.
  func hold(_ f: Checker.UIFacts, seconds: Int, _ id: InvariantID, on c: inout Checker, from start: Int = 0) -> Int {
    for s in start...(start + seconds) {
      c.observeUI(user: 3, f, at: SimInstant(nanoseconds: Int64(s) * 1_000_000_000))
    }
    return c.log.counts[id.rawValue]
  }

  @Test func aUIIsAtPeaceOnlyWhenNoCheckCouldFailWhateverIsStillOnItsWay() {
    // At peace: the world need not check it again until something touches the user.
    var c = checker()
    let at = SimInstant.zero
    let connected = c.observeUI(user: 3, facts(.connected, seated: true, mic: true), at: at)
    let idle = c.observeUI(user: 3, facts(.idle), at: at)
    #expect(connected && idle)
    // A mismatch hidden only because the client is not quiet, or an answer may still come, is
    // not peace: it may show once that passes, with no event to touch the user.
    var busy = facts(.idle, pending: true)
    busy.quiet = false
    let notQuiet = c.observeUI(user: 3, busy, at: at)
    var waiting = facts(.applying)
    waiting.answerMayBeLost = true
    let mayStillCome = c.observeUI(user: 3, waiting, at: at)
    #expect(!notQuiet && !mayStillCome)
    // Nor is a mismatch being timed, until it clears.
    let timed = c.observeUI(user: 4, facts(.connected, seated: false, mic: true), at: at)
    #expect(!timed && !c.uiQuiet(4))
    let cleared = c.observeUI(user: 4, facts(.connected, seated: true, mic: true), at: at + .seconds(1))
    #expect(cleared && c.uiQuiet(4))
  }

  @Test func idleWhileTheServerHoldsAnApplicationIsCaughtAfterOneSecond() {
    var c = checker()
    #expect(hold(facts(.idle, pending: true), seconds: 1, .uiIdleWhilePending, on: &c) == 1)
    #expect(c.log.first[InvariantID.uiIdleWhilePending.rawValue]!.message.contains("shows idle"))
  }

  @Test func connectedWithTheMicrophoneClosedOrOffTheSeatIsCaughtAfterTheSettleTime() {
    var c = checker()
    #expect(hold(facts(.connected, seated: true, mic: false), seconds: 4, .uiConnectedMeansSeated, on: &c) == 0)
    #expect(
      hold(facts(.connected, seated: true, mic: false), seconds: 1, .uiConnectedMeansSeated, on: &c, from: 5) == 1)
    var d = checker()
    #expect(hold(facts(.connected, seated: false, mic: true), seconds: 5, .uiConnectedMeansSeated, on: &d) == 1)
    #expect(d.log.first[InvariantID.uiConnectedMeansSeated.rawValue]!.message.contains("no seat"))
  }

  @Test func applyingWithNothingPendingIsCaughtOnceAnAnswerCannotStillBeOnItsWay() {
    var c = checker()
    var waiting = facts(.applying, pending: false, seated: true, mic: true)
    waiting.answerMayBeLost = true
    #expect(hold(waiting, seconds: 60, .uiApplyingMeansPending, on: &c) == 0)
    let stuck = facts(.applying, pending: false, seated: true, mic: true)
    #expect(hold(stuck, seconds: 5, .uiApplyingMeansPending, on: &c, from: 100) == 1)
    #expect(c.log.first[InvariantID.uiApplyingMeansPending.rawValue]!.message.contains("on a seat"))
  }

  /// A withdrawal that got no answer (-1) leaves the application possibly standing: a correct app
  /// shows "applying" and sends it again, backing off to 8 s, so the gap between two tries (no
  /// call under way) is excused for 10 s after each failure, and no longer.
  @Test func applyingBetweenTwoTriesOfAnUnansweredWithdrawalIsExcusedForTenSeconds() {
    var w = UIWatch(users: 8)
    let t0 = SimInstant.zero + .seconds(100)
    #expect(!w.withdrawalUnanswered(3, now: t0))
    w.noteAnswer(3, toWithdrawal: true, .failed, now: t0)
    #expect(w.withdrawalUnanswered(3, now: t0 + .seconds(8)))
    #expect(w.withdrawalUnanswered(3, now: t0 + .milliseconds(9_999)))
    #expect(!w.withdrawalUnanswered(3, now: t0 + .seconds(10)))
    // Another failure restarts the window; an answer (or any other error) ends it.
    w.noteAnswer(3, toWithdrawal: true, .failed, now: t0 + .seconds(18))
    #expect(w.withdrawalUnanswered(3, now: t0 + .seconds(26)))
    w.noteAnswer(3, toWithdrawal: true, nil, now: t0 + .seconds(27))
    #expect(!w.withdrawalUnanswered(3, now: t0 + .seconds(27)))
    // An apply's answer is the apply's: it leaves the withdrawal's window alone.
    w.noteAnswer(4, toWithdrawal: true, .failed, now: t0)
    w.noteAnswer(4, toWithdrawal: false, nil, now: t0 + .seconds(1))
    #expect(w.withdrawalUnanswered(4, now: t0 + .seconds(2)) && !w.applyAnswerLost(4))
  }

  @Test func idleOnASeatIsCaughtOnlyAfterALostLeaveCouldHaveBeenSentAgain() {
    var c = checker()
    // A leave that got no answer is sent again 5 s later: idle on a seat for up to 10 s is allowed.
    #expect(hold(facts(.idle, seated: true), seconds: 9, .uiIdleMeansOffSeat, on: &c) == 0)
    #expect(hold(facts(.idle, seated: true), seconds: 1, .uiIdleMeansOffSeat, on: &c, from: 10) == 1)
    #expect(c.log.first[InvariantID.uiIdleMeansOffSeat.rawValue]!.message.contains("on a seat"))
    var d = checker()
    var resending = facts(.idle, seated: true)
    for s in 0..<60 {
      resending.quiet = s % 6 != 5  // the leave goes out again every 6 s
      d.observeUI(user: 3, resending, at: SimInstant(nanoseconds: Int64(s) * 1_000_000_000))
    }
    #expect(d.log.counts[InvariantID.uiIdleMeansOffSeat.rawValue] == 0)
  }

  @Test func aHostsApplicationsListThatDiffersFromItsSDKsIsCaughtAfterTheSettleTime() {
    var c = checker()
    var stale = facts(.idle)
    stale.applicantsMismatch = "shows [5, 7] while its SDK lists [7]"
    #expect(hold(stale, seconds: 4, .uiApplicantsMatchSDK, on: &c) == 0)
    #expect(hold(stale, seconds: 1, .uiApplicantsMatchSDK, on: &c, from: 5) == 1)
    #expect(
      c.log.first[InvariantID.uiApplicantsMatchSDK.rawValue]!.message
        == "user 3's applications list shows [5, 7] while its SDK lists [7] for 5s or more")
    // Busy or quiet: the list is held to what its own SDK already has.
    var busy = stale
    busy.quiet = false
    var b = checker()
    #expect(hold(busy, seconds: 5, .uiApplicantsMatchSDK, on: &b) == 1)
    // A list one hop behind its SDK (a main-queue hop, a row just answered) catches up in time.
    var d = checker()
    for s in 0..<60 {
      d.observeUI(user: 3, s % 4 == 0 ? stale : facts(.idle), at: SimInstant(nanoseconds: Int64(s) * 1_000_000_000))
    }
    #expect(d.log.counts[InvariantID.uiApplicantsMatchSDK.rawValue] == 0)
  }

  @Test func aListIsComparedAsASetOfUsers() {
    #expect(UIProbes.distinctSorted([7, 3, 7, 5, 3]) == [3, 5, 7])
    #expect(UIProbes.distinctSorted([]) == [])
    let probes = UIProbes(userCount: 4)
    #expect(probes.shownApplicants(of: 2) == nil && !probes.isProbed(2))
    probes.setShownApplicants(2, [3, .max, 3])
    #expect(probes.shownApplicants(of: 2) == [3, .max] && probes.isProbed(2))
    #expect(!probes.isStatusProbed(2) && probes.callScreen(of: 2) == -1)
    // Compared as sets of users, with the difference spelled out.
    #expect(probes.applicantsMismatch(of: 2, listed: [.max, 3, 3]) == "")
    #expect(probes.applicantsMismatch(of: 2, listed: [4, 3]) == "shows [3, ?] while its SDK lists [3, 4]")
    #expect(probes.applicantsMismatch(of: 1, listed: [4]) == "", "no probe reads user 1's list")
  }

  @Test func aMismatchIsNotTimedWhileMessagesAreOnTheirWay() {
    var c = checker()
    var busy = facts(.idle, pending: true)
    busy.quiet = false
    #expect(hold(busy, seconds: 30, .uiIdleWhilePending, on: &c) == 0)
    #expect(hold(facts(.idle, pending: true), seconds: 1, .uiIdleWhilePending, on: &c, from: 31) == 1)
  }

  @Test func aCallScreenThatOutlivesItsCallOrMissesItIsCaught() {
    var c = checker()
    #expect(hold(facts(nil, screen: true, call: .none), seconds: 5, .uiCallScreenMatchesCall, on: &c) == 1)
    var d = checker()
    #expect(hold(facts(nil, screen: false, call: .accept), seconds: 5, .uiCallScreenMatchesCall, on: &d) == 1)
    var e = checker()
    #expect(hold(facts(nil, screen: true, call: .waiting), seconds: 30, .uiCallScreenMatchesCall, on: &e) == 0)
  }

  @Test func captureOffTheSeatIsCaughtForProbedApps() {
    var c = checker()
    #expect(hold(facts(.idle, capture: true), seconds: 5, .captureOnlyWhileSeated, on: &c) == 1)
  }

  @Test func aMismatchThatClearsBeforeTheSettleTimeIsNotAViolationAndIsReportedOncePerEpisode() {
    var c = checker()
    let bad = facts(.connected, seated: true, mic: false)
    let good = facts(.connected, seated: true, mic: true)
    for s in 0..<100 {
      // Three seconds wrong, then right again: a device still opening.
      c.observeUI(user: 3, s % 6 < 3 ? bad : good, at: SimInstant(nanoseconds: Int64(s) * 1_000_000_000))
    }
    #expect(c.log.total == 0)
    // Wrong for a minute: one violation, not sixty.
    #expect(hold(bad, seconds: 60, .uiConnectedMeansSeated, on: &c, from: 200) == 1)
    #expect(c.uiQuiet(3) == false)
    c.observeUI(user: 3, good, at: SimInstant(nanoseconds: 300_000_000_000))
    #expect(c.uiQuiet(3))
  }

  @Test func aUIInAgreementIsNeverJudged() {
    var c = checker()
    let cases = [
      facts(.idle), facts(.applying, pending: true), facts(.connected, seated: true, mic: true),
      facts(nil, screen: true, call: .accept), facts(nil, screen: false, call: .none), facts(.left),
    ]
    for (i, f) in cases.enumerated() { _ = hold(f, seconds: 20, .uiIdleWhilePending, on: &c, from: i * 100) }
    #expect(c.log.total == 0)
  }

  /// A rejection reaches the viewer's SDK at once, but its UI stays on "applying" until the user
  /// gives up 10 s later. The application's answer can no longer be on its way, so the UI oracle
  /// judges it after the settle time; it used to excuse "applying" for the application's timeout
  /// and the SDK's request timeout (40 s here) whether or not the answer had come. A viewer that
  /// shows idle on the rejection is not judged.
  @Test(arguments: [true, false])
  func applyingAfterTheRejectionReachedTheSDKIsCaughtAfterTheSettleTime(ignoresRejection: Bool) throws {
    let viewer = ScriptedClient()
    viewer.uiStatus = true
    viewer.onApply = { c in
      c.status = .applying
      c.coGuest.applyForSeat(timeout: .seconds(30))
    }
    viewer.onGuest = { e, c in
      if case .onGuestApplicationResponded(false, _) = e, !ignoresRejection { c.status = .idle }
    }
    viewer.onTimer = { _, c in c.status = .idle }  // the user gives up
    let host = ScriptedClient()
    host.onHost = { e, c in
      if case .onGuestApplicationReceived(let guest) = e { c.coGuest.rejectApplication(userID: guest) }
    }
    var s = try Staged(audience: viewer, host: host, admin: ScriptedClient())
    s.apply(2, atMs: 2000)
    s.timer(2, atMs: 12_000)
    s.run(untilMs: 60_000)
    #expect(s.counter("seat.rejected") >= 1 || viewer.log.contains { $0.contains("isAccept: false") })
    #expect(s.world.checker.log.counts[InvariantID.uiApplyingMeansPending.rawValue] == (ignoresRejection ? 1 : 0))
  }
}

/// Violation messages name the device.
@Suite struct DeviceMessageTests {
  @Test func aCaptureViolationNamesTheDevicesThatAreOn() {
    var c = Checker(
      seats: SeatService(
        rooms: [RoomSettings(maxSeatCount: 4, packageLimit: 4, seatMode: .apply, coHostSeatLimit: 0)], userCount: 8))
    c.observeClient(
      user: 1, status: .idle, seenSeat: nil, captureOn: true, sawOwnLeave: false, devices: "camera",
      at: SimInstant(nanoseconds: 1))
    #expect(c.log.first[InvariantID.captureOnlyWhileSeated.rawValue]!.message == "user 1 has its camera on while idle")
    var facts = Checker.UIFacts(
      status: .idle, pending: false, seated: false, microphoneOn: true, callScreen: nil, callState: .none,
      captureOn: true, devices: "microphone")
    facts.quiet = true
    var d = Checker(
      seats: SeatService(
        rooms: [RoomSettings(maxSeatCount: 4, packageLimit: 4, seatMode: .apply, coHostSeatLimit: 0)], userCount: 8))
    for s in 0...5 { d.observeUI(user: 2, facts, at: SimInstant(nanoseconds: Int64(s) * 1_000_000_000)) }
    #expect(d.log.first[InvariantID.captureOnlyWhileSeated.rawValue]!.message.hasPrefix("user 2 has its microphone on"))
  }
}

/// The probes' per-user byte: each flag is kept apart from the others and from other users.
@Suite struct UIProbeTableTests {
  @Test func eachFlagIsKeptApartPerUser() {
    let probes = UIProbes(userCount: 4)
    #expect(
      (0..<4).allSatisfy { !probes.isProbed($0) && !probes.isStatusProbed($0) && probes.callScreen(of: $0) == -1 })
    probes.setCallScreen(1, shown: true)
    #expect(probes.isProbed(1) && !probes.isStatusProbed(1) && probes.callScreen(of: 1) == 1)
    probes.noteStatusProbe(1)
    #expect(probes.isStatusProbed(1) && probes.callScreen(of: 1) == 1)
    probes.setCallScreen(1, shown: false)
    #expect(probes.isStatusProbed(1) && probes.callScreen(of: 1) == 0)
    probes.noteStatusProbe(2)
    #expect(probes.isProbed(2) && probes.callScreen(of: 2) == -1)
    #expect(!probes.isProbed(0) && !probes.isProbed(3))
    // Hints, in range or not, change no flag.
    for u: UInt32 in [0, 1, 3, 4, 1 << 30] { probes.prefetch(u) }
    #expect(probes.isStatusProbed(1) && probes.callScreen(of: 1) == 0 && probes.isProbed(2) && !probes.isProbed(3))
  }
}

/// A service's rate limits: one window per user, counted per second.
@Suite struct ServiceRateWindowTests {
  @Test func aUsersWindowCountsItsOwnRequestsPerSecond() {
    let settings = ServiceSettings(
      workers: nil, serviceTime: .constant(0), queueLimit: nil, perUser: 2, perRoom: nil, perApp: nil)
    var q = ServiceQueue(settings: settings, users: 3, rooms: 1)
    func arrive(_ user: UInt32, atMs ms: Int64) -> ServiceQueue.Admission {
      q.arrive(slot: 0, user: user, room: 0, now: SimInstant(nanoseconds: ms * 1_000_000))
    }
    #expect(arrive(0, atMs: 0) == .serve && arrive(0, atMs: 10) == .serve)
    #expect(arrive(0, atMs: 20) == .refused(.rateUser))
    // Another user has a window of its own; the next second opens a new one.
    #expect(arrive(1, atMs: 30) == .serve)
    #expect(arrive(0, atMs: 1_000) == .serve)
    #expect(q.refused[ServiceRefusal.allCases.firstIndex(of: .rateUser)!] == 1)
  }
}

/// A service's waiting line: FIFO, a client that gives up takes its request out of it, and a slot
/// reused while an abandoned request of it still waits gives up the oldest first.
@Suite struct ServiceWaitingLineTests {
  static let oneWorker = ServiceSettings(
    workers: 1, serviceTime: .constant(0), queueLimit: nil, perUser: nil, perRoom: nil, perApp: nil)

  @Test func aReusedSlotCancelsItsOldestRequestFirst() {
    var q = ServiceQueue(settings: Self.oneWorker, users: 1, rooms: 1)
    let t = SimInstant.zero
    var admitted = [q.arrive(slot: 9, user: 0, room: 0, now: t)]  // the worker's
    for slot: UInt32 in [5, 7, 5] { admitted.append(q.arrive(slot: slot, user: 0, room: 0, now: t)) }
    #expect(admitted == [.serve, .queued, .queued, .queued])
    let gaveUp = q.cancel(slot: 5, now: t)
    #expect(gaveUp)
    let order = [q.finished(now: t), q.finished(now: t), q.finished(now: t)]
    #expect(order == [7, 5, nil], "the older request of slot 5 left; the newer keeps its place")
    let again = [q.cancel(slot: 5, now: t), q.cancel(slot: 7, now: t), q.cancel(slot: 99, now: t)]
    #expect(again == [false, false, false])
  }

  /// Random arrivals, give-ups and completions against a plain list, past the points where the
  /// line drops its served head (after 1,024 served).
  @Test func itAgreesWithAScannedListOverThousandsOfSteps() {
    var q = ServiceQueue(settings: Self.oneWorker, users: 1, rooms: 1)
    var reference: [UInt32] = []  // waiting slots, oldest first
    var busy = false
    var random = SplitMix64(seed: 7)
    let t = SimInstant.zero
    var cancelled = 0
    var served = 0
    for step in 0..<40_000 {
      let slot = UInt32(random.next(below: 300))
      // The line grows for the first half, then drains.
      let arrivals: UInt64 = step < 20_000 ? 5 : 3
      switch random.next(below: 10) {
      case 0..<arrivals:
        let admitted = q.arrive(slot: slot, user: 0, room: 0, now: t)
        if busy {
          #expect(admitted == .queued)
          reference.append(slot)
        } else {
          #expect(admitted == .serve)
          busy = true
        }
      case arrivals..<(arrivals + 2):
        let found = reference.firstIndex(of: slot)
        let gaveUp = q.cancel(slot: slot, now: t)
        #expect(gaveUp == (found != nil))
        if let found {
          reference.remove(at: found)
          cancelled += 1
        }
      default:
        guard busy else { continue }
        let next = q.finished(now: t)
        #expect(next == reference.first)
        if next != nil {
          reference.removeFirst()
          served += 1
        } else {
          busy = false
        }
      }
    }
    #expect(cancelled > 1_000 && served > 2_000, "both paths exercised: \(cancelled) cancelled, \(served) served")
    #expect(q.queued.level == reference.count)
  }
}
