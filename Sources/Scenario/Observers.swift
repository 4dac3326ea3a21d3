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
struct Observers {
  /// The invariants.
  var checker: Checker
  /// The app UIs the UI oracles look at now.
  var uiWatch: UIWatch
  /// The hosts and admins as reviewers: the wait for review and their load.
  var reviews: ReviewBook
  /// Guests seated across all rooms, over time (the `room.seats` resource).
  var seated = LevelGauge()
  /// Sampled gauges.
  var series: TimeSeries
  /// Latency percentiles and counter rates per sampling interval.
  var intervals: IntervalSeries
  /// When the last time-series sample was taken (nanoseconds), and room messaging's downlink then.
  var lastSample: (ns: Int64, downlink: UInt64) = (0, 0)
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
    series = TimeSeries(intervalNs: profile.sampleEvery.nanoseconds, names: LiveMetrics.gaugeNames)
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

  /// A staff member heard an application (`request`): its applicant list is checked against its
  /// seat list, unless that list may lag behind the application.
  ///
  /// Seat lists and co-guest signalling are separate channels: when a broadcast of the room was
  /// held back past the application's filing, or a seat-list message to this host is held back in
  /// the network, the list lags behind the application and may still show the applicant on its
  /// old seat.
  mutating func applicationHeard(
    by user: UInt32, request: UInt32, server: Server, network: Network, now: SimInstant
  ) {
    guard checking else { return }
    let slot = Int(runtime.clients[Int(user)].staffSlot)
    let room = layout.homeRoom[Int(user)]
    let lagging =
      server.feed.isBusy(room: room)
      || server.feed.lastSent(room: room).map { $0 > server.seats.requests[Int(request)].createdAt } ?? false
      || network.holdsBack(user, channelClass: FaultChannel.networkClass(.seats), at: now)
    checker.observeApplicants(
      host: user, applicants: runtime.applicants[slot], seatView: lagging ? [] : runtime.seatView[slot], at: now)
  }

  /// Takes a sample: the gauges, the interval's percentiles and rates, and the checks that run on
  /// the sampler's beat (code outside any user, lock limits, one viewer's seat list per room).
  mutating func sample(now: SimInstant, measured: LiveMetrics, server: Server) {
    // Room messaging's downlink since the last sample, per second.
    let downlink = server.feed.downlink
    let sinceNs = now.nanoseconds - lastSample.ns
    let rate = sinceNs > 0 ? Int64((Double(downlink - lastSample.downlink) * 1e9 / Double(sinceNs)).rounded()) : 0
    lastSample = (now.nanoseconds, downlink)
    series.append(
      atNs: now.nanoseconds, LiveMetrics.gauges(seats: server.seats, runtime: runtime, downlinkPerSecond: rate))
    intervals.sample(measured, atNs: now.nanoseconds)
    checker.observeOutsideUser(runtime)
    checker.checkLocks(seats: server.seats, runtime: runtime, at: now)
    checkViewerLists(sample: viewerCheckTurn, server: server)
    viewerCheckTurn &+= 1
  }

  /// `client.view-matches-server`, sampled while the run goes on (see
  /// ``Checker/checkViewerLists(sample:layout:seats:feed:runtime:at:)``).
  mutating func checkViewerLists(sample k: Int, server: Server) {
    guard checking else { return }
    checker.checkViewerLists(
      sample: k, layout: layout, seats: server.seats, feed: server.feed, runtime: runtime, at: runtime.now)
  }
}
