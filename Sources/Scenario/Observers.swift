import Chaos
import Clients
import LiveStack
import Metrics
import Oracles
import Profiles
import SimKernel

/// What watches a live run without steering it: the invariant checkers, the watch on the apps'
/// UIs, the reviewers' book, the seats' occupancy and the sampled series.
///
/// Nothing here draws a random number or schedules an event, so switching the checks off
/// (``checking``) leaves the trace as it was. The world hands each observation what it reads (the
/// server's services, the clients' runtime); the observers keep what they concluded.
public struct Observers {
  /// The invariants.
  var checker: Checker
  /// The app UIs the UI oracles look at now.
  var uiWatch: UIWatch
  /// The hosts and admins as reviewers: the wait for review and their load.
  public internal(set) var reviews: ReviewBook
  /// Guests seated across all rooms, over time (the `room.seats` resource).
  public internal(set) var seated = LevelGauge()
  /// Sampled gauges.
  var series: TimeSeries
  /// Latency percentiles and counter rates per sampling interval.
  var intervals: IntervalSeries
  /// When the UIs were last checked.
  public internal(set) var lastCheck = SimInstant.zero
  /// Which viewer of each room the next sampled seat-list check looks at.
  var viewerCheckTurn = 0
  /// Whether the invariant checkers run (benchmarks switch them off to measure their cost).
  var checking = true
  /// Whether the viewers' behaviour shows its status as its UI (the built-in viewers).
  let audienceStatusIsUI: Bool
  /// The phone users with an app on a simulated phone (empty without `calls`).
  let phoneUsers: Range<UInt32>
  /// Who is who.
  let layout: Layout
  /// Every client's SDK state and UI status (shared with the world).
  let runtime: ClientRuntime

  init(
    profile: Profile, layout: Layout, runtime: ClientRuntime, seats: SeatService, healAtNs: Int64,
    metrics: LiveMetrics, audienceStatusIsUI: Bool, phoneUsers: Range<UInt32>
  ) {
    checker = Checker(seats: seats)
    checker.switchOff(profile.invariantsOff)
    checker.healAtNs = healAtNs
    checker.lockLimitNs = profile.seats.lockLimit?.nanoseconds
    series = TimeSeries(
      intervalNs: profile.sampleEvery.nanoseconds, names: LiveMetrics.gaugeNames, rates: LiveMetrics.rateGauges)
    intervals = IntervalSeries(metrics)
    uiWatch = UIWatch(users: layout.totalUsers)
    reviews = ReviewBook(layout: layout, atOnce: profile.host.reviewAtOnce)
    self.audienceStatusIsUI = audienceStatusIsUI
    self.phoneUsers = phoneUsers
    self.layout = layout
    self.runtime = runtime
  }

  /// Whether `user` is a viewer whose status is its UI.
  @inline(__always)
  func statusIsUI(_ user: UInt32) -> Bool {
    audienceStatusIsUI && layout.role(of: user) == .audience && !phoneUsers.contains(user)
  }

  /// The server changed something of `user` that its UI may have to follow.
  @inline(__always)
  mutating func touchUI(_ user: UInt32, _ now: SimInstant) {
    if checking && (runtime.ui.isProbed(user) || statusIsUI(user)) { uiWatch.touch(user, now: now) }
  }

  /// A client's code ran (its status went from `before` to `status`): the client is checked as it
  /// now stands, and a UI that may have changed is watched for the UI window.
  @inline(__always)
  mutating func clientRan(
    _ user: UInt32, status: CoGuestStatus, before: CoGuestStatus, sawOwnLeave: Bool, now: SimInstant
  ) {
    if status != before { uiWatch.clearDroppedAnswer(user) }
    if runtime.ui.isProbed(user) || statusIsUI(user) {
      uiWatch.watch(user, until: now + UIWatch.window)
    }
    let seen = runtime.clients[Int(user)].seenSeat
    checker.observeClient(
      user: user, status: status, seenSeat: seen < 0 ? nil : Int(seen), captureOn: runtime.anyDeviceOn(user: user),
      inCall: runtime.clients[Int(user)].callState == .accept,
      sawOwnLeave: sawOwnLeave && seen < 0, probedUI: runtime.ui.isStatusProbed(user),
      devices: runtime.deviceNames(user: user), at: now)
  }

  /// The seat service's changes and ended requests since it was last drained reach the checkers,
  /// the metrics, the reviewers' book and the UI watch; the rooms whose seat lists changed are
  /// noted in the order they first changed. Returns whether there was anything.
  @inline(__always)
  mutating func seatChanges(
    _ seats: SeatService, measured: inout LiveMetrics, now: SimInstant,
    rooms touched: inout (UInt32, UInt32), more: inout [UInt32]
  ) -> Bool {
    let n = seats.changes.count
    for i in 0..<n {
      let c = seats.changes[i]
      if checking {
        checker.observe(c, seats: seats, at: now)
        touchUI(c.user, now)
      }
      measured.observe(c, now)
      measured.observeLockedEmpty(room: c.room, seat: Int(c.seat), seats: seats, now)
      seated.add(c.seated ? 1 : -1, at: now.nanoseconds)
      if touched.0 == .max {
        touched.0 = c.room
      } else if c.room != touched.0 && touched.1 == .max {
        touched.1 = c.room
      } else if c.room != touched.0 && c.room != touched.1 && !more.contains(c.room) {
        more.append(c.room)
      }
    }
    if n == 0 && seats.ended.isEmpty { return false }
    if n > 0 { measured.counters.add(measured.seatChanges, UInt64(n)) }
    for id in seats.ended {
      reviews.ended(id, now: now)
      if checking {
        touchUI(seats.requests[Int(id)].guest, now)
        if let host = seats.requests[Int(id)].processedBy { touchUI(host, now) }
      }
    }
    return true
  }

  /// A staff member heard an application: its applicant list is checked against its seat list,
  /// unless that list may lag behind the application (see ``ServerSide/seatListMayLag(for:request:now:)``).
  mutating func applicationHeard(by user: UInt32, seatListMayLag lagging: Bool, now: SimInstant) {
    guard checking else { return }
    let slot = Int(runtime.clients[Int(user)].staffSlot)
    checker.observeApplicants(
      host: user, applicants: runtime.applicants[slot], seatView: lagging ? [] : runtime.seatView[slot], at: now)
  }

  /// Takes a sample: the gauges, the interval's percentiles and rates, and the checks that run on
  /// the sampler's beat (code outside any user, lock limits, one viewer's seat list per room).
  mutating func sample(now: SimInstant, measured: LiveMetrics, server: Server) {
    series.append(atNs: now.nanoseconds, LiveMetrics.gauges(seats: server.seats, runtime: runtime, feed: server.feed))
    intervals.sample(measured, atNs: now.nanoseconds)
    checker.observeOutsideUser(runtime)
    checker.checkLocks(seats: server.seats, runtime: runtime, at: now)
    checkViewerLists(sample: viewerCheckTurn, server: server)
    viewerCheckTurn &+= 1
  }

  /// Samples every `every` until `sample` and checks the UIs until `check`, in a room shard that
  /// went quiet while the run's busier shards went on (docs/DESIGN.md, "One run on every core"):
  /// nothing else happens in it any more, so the missed instants are taken in time order here.
  mutating func sampleOn(
    untilSample sample: SimInstant, check: SimInstant, every: SimDuration, measured: LiveMetrics,
    _ backend: inout ServerSide
  ) {
    var nextSample = SimInstant(nanoseconds: series.times.last ?? 0) + every
    // (A world that never checked its UIs has no check to take.)
    var nextCheck = lastCheck > .zero ? lastCheck + UIWatch.checkEvery : SimInstant(nanoseconds: check.nanoseconds + 1)
    while nextSample <= sample || nextCheck <= check {
      let checks = nextCheck <= check && (nextSample > sample || nextCheck < nextSample)
      runtime.now = checks ? nextCheck : nextSample
      if checks {
        checkUIs(&backend, prefetch: false)
        nextCheck = nextCheck + UIWatch.checkEvery
      } else {
        self.sample(now: runtime.now, measured: measured, server: backend.server)
        nextSample = nextSample + every
      }
    }
  }

  /// `client.view-matches-server`, sampled while the run goes on (see
  /// ``Checker/checkViewerLists(sample:layout:seats:feed:runtime:at:)``).
  mutating func checkViewerLists(sample k: Int, server: Server) {
    guard checking else { return }
    checker.checkViewerLists(
      sample: k, layout: layout, seats: server.seats, feed: server.feed, runtime: runtime, at: runtime.now)
  }

  // MARK: - UIs

  /// Compares the watched UIs with the server (see `Checker+UI` and ``UIWatch``); `prefetch`
  /// hints the records of the users a few checks ahead.
  mutating func checkUIs(_ backend: inout ServerSide, prefetch: Bool) {
    lastCheck = runtime.now
    guard checking else { return }
    let now = runtime.now
    guard uiWatch.count > 0 else { return }
    // Users at peace and untouched since the last round would give the same facts and the same
    // verdict: only the others are due.
    var due: [UInt32] = []
    swap(&due, &uiWatch.due)
    due.removeAll(keepingCapacity: true)
    uiWatch.appendDue(to: &due)
    defer { swap(&due, &uiWatch.due) }
    guard !due.isEmpty else { return }
    let audienceUI = audienceStatusIsUI
    // The users are spread over large tables: in a large world each check hints the records of
    // the user a few places ahead, so that they arrive while the checks in between run.
    let ahead = 8
    for k in 0..<due.count {
      if prefetch && k + ahead < due.count { prefetchUI(of: due[k + ahead], &backend) }
      checkUI(due[k], audienceUI: audienceUI, now: now, &backend)
    }
  }

  /// Hints the per-user records ``checkUI(_:audienceUI:now:_:)`` reads first.
  @inline(__always)
  func prefetchUI(of u: UInt32, _ backend: inout ServerSide) {
    let i = Int(u)
    runtime.clients.prefetch(i)
    runtime.ui.prefetch(u)
    uiWatch.until.prefetch(i)
    backend.network.links.prefetch(i)
    backend.server.seats.prefetchSeatState(of: u)
    backend.server.calls.prefetchState(of: u)
  }

  /// Compares `user`'s UI with the server (see ``checkUIs(_:prefetch:)``), and stops watching it
  /// once it is at rest and its window has passed; notes when it found the UI at peace.
  mutating func checkUI(_ u: UInt32, audienceUI: Bool, now: SimInstant, _ backend: inout ServerSide) {
    // (The probes are read through the runtime each time: a local copy of them retains their table.)
    let client = runtime.clients[Int(u)]
    let status = client.status
    let callScreen = runtime.ui.callScreen(of: u)
    let atRest = (status == .idle || status == .left || status == .away) && callScreen != 1
    let settled = now.nanoseconds >= uiWatch.end(of: u) && atRest && checker.uiQuiet(u)
    if settled { uiWatch.unwatch(u) }
    // A call screen is judged while its code can run (a killed or suspended app shows nothing),
    // and a screen that is down, while its SDK is logged in (a logged-out one knows no call).
    let running = backend.phoneOS.map { !$0.phones.contains(u) || $0.isRunning(u) } ?? true
    let screen = running && (callScreen == 1 || client.loggedIn) ? callScreen : -1
    let shown =
      runtime.ui.isStatusProbed(u) || (audienceUI && layout.role(of: u) == .audience && !phoneUsers.contains(u))
    let pending = backend.server.seats.pendingApplication(of: u) != nil && !uiWatch.applyAnswerLost(u)
    let seated = backend.server.seats.seat(of: u) != nil
    let callState = backend.server.calls.state(of: u)
    let captureOn = client.deviceBits != 0
    // What only one check reads is worked out only when that check can fail.
    let mayFailApplying = shown && status == .applying && !pending
    var facts = Checker.UIFacts(
      status: shown ? status : nil, pending: pending, seated: seated,
      microphoneOn: client.deviceBits & (1 << CaptureDevice.microphone.rawValue) != 0,
      callScreen: screen < 0 ? nil : screen == 1, callState: callState, captureOn: captureOn,
      devices: captureOn && !seated && callState != .accept ? runtime.deviceNames(user: u) : "",
      // Quiet: nothing under way now, and its code has not run since the last check (a retry
      // that failed at once between two checks is activity all the same).
      quiet: !backend.inFlight.hasCallInFlight(u) && !backend.network.hasInFlight(u, now: now)
        && uiWatch.end(of: u) - UIWatch.window.nanoseconds <= now.nanoseconds
          - UIWatch.checkEvery.nanoseconds,
      answerMayBeLost: mayFailApplying
        && (uiWatch.droppedAnswer(u) || uiWatch.withdrawalUnanswered(u, now: now)
          || backend.server.lastApplicationTiming(of: u).map { a in
            // Until its answer reached the SDK, or its timeout (30 s if none) and the SDK's passed.
            let limit =
              a.filedAt + (a.timeout > .zero ? a.timeout : .seconds(30)) + backend.profile.network.requestTimeout
            return !checker.terminalAnswerReached(request: a.id) && now < limit
          } ?? false)
    )
    // A host's or admin's applications list, while its session and its app last.
    if status != .left && status != .away && !client.subscriptions.contains(.appGone) && client.staffSlot >= 0 {
      facts.applicantsMismatch = runtime.ui.applicantsMismatch(of: u, listed: runtime.applicants[Int(client.staffSlot)])
    }
    if checker.observeUI(user: u, facts, at: now) && !settled { uiWatch.atPeace(u) }
  }

  // MARK: - Resources

  /// The run's resources as a capacity planner reads them, over a run that ended at `end` (see
  /// ``ResourceUsage/ofRun(endNs:measured:reviews:seated:rooms:seatsPerRoom:desk:serviceNames:feed:)``).
  func resources(
    end: SimInstant, measured: LiveMetrics, desk: ServiceDesk, feed: RoomFeed, profile: Profile
  ) -> [ResourceUsage] {
    ResourceUsage.ofRun(
      endNs: end.nanoseconds, measured: measured, reviews: reviews, seated: seated, rooms: layout.rooms,
      seatsPerRoom: min(profile.seats.maxSeatCount, profile.seats.packageLimit), desk: desk,
      serviceNames: profile.server.named.map(\.name), feed: feed)
  }
}
