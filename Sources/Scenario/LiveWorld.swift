import Clients
import LiveStack
import SimKernel

/// The live-seat world: rooms on a server, viewers who arrive, apply for seats and leave, and hosts
/// and admins who answer applications after thinking. Every message crosses the network model.
///
/// User IDs are laid out room by room: the owner first, then the admins, then the viewers.
public struct LiveWorld: World {
  /// The profile this world runs.
  public let profile: Profile
  /// The server side.
  public private(set) var seats: SeatService
  /// Viewer clients by user ID (hosts' entries stay unused).
  public private(set) var viewers: [Viewer]
  /// What was measured.
  public private(set) var metrics = LiveMetrics()

  var arrivals: Xoshiro256
  var audienceRandom: Xoshiro256
  var hostRandom: Xoshiro256
  var networkRandom: Xoshiro256
  let usersPerRoom: Int
  let staffPerRoom: Int

  /// Builds the world for `profile` with its random streams drawn from `streams`.
  public init(profile: Profile, streams: RandomStreams) {
    self.profile = profile
    let p = profile.population
    staffPerRoom = 1 + p.adminsPerRoom
    usersPerRoom = staffPerRoom + p.audiencePerRoom
    let room = RoomSettings(
      maxSeatCount: profile.seats.maxSeatCount, packageLimit: profile.seats.packageLimit,
      seatMode: profile.seats.mode)
    seats = SeatService(rooms: [RoomSettings](repeating: room, count: p.rooms), userCount: profile.totalUsers)
    viewers = [Viewer](repeating: Viewer(), count: profile.totalUsers)
    arrivals = streams.stream("arrivals")
    audienceRandom = streams.stream("audience")
    hostRandom = streams.stream("hosts")
    networkRandom = streams.stream("network")
  }

  /// Schedules the first events: staff join at time zero; viewers arrive by the arrival pattern.
  public mutating func start(_ scheduler: inout Scheduler) {
    let p = profile.population
    for room in 0..<p.rooms {
      let base = room * usersPerRoom
      for staff in 0..<staffPerRoom {
        let user = UInt32(base + staff)
        _ = seats.join(user: user, room: UInt32(room))
      }
      guard p.audiencePerRoom > 0 else { continue }
      switch profile.arrival {
      case .closed:
        for v in 0..<p.audiencePerRoom {
          scheduler.schedule(
            after: .zero, Event(kind: LiveEvent.viewerArrive.rawValue, a: UInt32(base + staffPerRoom + v)))
        }
      case .poisson:
        // A chain per room: each arrival schedules the next, so the queue holds one per room.
        scheduler.schedule(
          after: nextArrivalGap(), Event(kind: LiveEvent.viewerArrive.rawValue, a: UInt32(base + staffPerRoom)))
      }
    }
  }

  func roomOf(_ user: UInt32) -> UInt32 { UInt32(Int(user) / usersPerRoom) }
  func isLastViewerOfRoom(_ user: UInt32) -> Bool { Int(user) % usersPerRoom == usersPerRoom - 1 }

  mutating func nextArrivalGap() -> SimDuration {
    guard case .poisson(let over) = profile.arrival else { return .zero }
    let mean = Double(over.nanoseconds) / Double(profile.population.audiencePerRoom)
    return Distribution.exponential(mean: mean).sampleDuration(&arrivals)
  }

  mutating func latency() -> SimDuration { profile.network.clientServer.sampleDuration(&networkRandom) }

  mutating func send(_ kind: LiveEvent, a: UInt32, b: UInt32 = 0, _ scheduler: inout Scheduler) {
    scheduler.schedule(after: latency(), Event(kind: kind.rawValue, a: a, b: b))
  }

  mutating func after(_ delay: SimDuration, _ kind: LiveEvent, a: UInt32, b: UInt32 = 0, _ scheduler: inout Scheduler) {
    scheduler.schedule(after: delay, Event(kind: kind.rawValue, a: a, b: b))
  }

  /// Handles one event.
  public mutating func handle(_ event: Event, scheduler: inout Scheduler) {
    guard let kind = LiveEvent(rawValue: event.kind) else { preconditionFailure("unknown event kind \(event.kind)") }
    let now = scheduler.now
    switch kind {
    case .viewerArrive:
      let user = event.a
      viewers[Int(user)].status = .joining
      send(.serverJoin, a: user, &scheduler)
      if case .poisson = profile.arrival, !isLastViewerOfRoom(user) {
        after(nextArrivalGap(), .viewerArrive, a: user + 1, &scheduler)
      }
    case .serverJoin:
      let error = seats.join(user: event.a, room: roomOf(event.a))
      precondition(error == nil, "viewer \(event.a) joined twice")
      send(.viewerJoined, a: event.a, &scheduler)
    case .viewerJoined:
      viewerJoined(event.a, &scheduler)
    case .viewerApply:
      viewerApply(event.a, now: now, &scheduler)
    case .serverApply:
      serverApply(user: event.a, seatIndex: Int(event.b) - 1, now: now, &scheduler)
    case .viewerApplyFailed:
      viewerApplyFailed(event.a, code: Int32(bitPattern: event.b), now: now, &scheduler)
    case .viewerApplySent:
      // The apply call's completion: the application is out; the answer comes as an event.
      break
    case .hostApplicationReceived:
      after(profile.host.thinkTime.sampleDuration(&hostRandom), .hostDecide, a: event.a, b: event.b, &scheduler)
    case .hostDecide:
      hostDecide(request: event.a, host: event.b, &scheduler)
    case .serverAccept:
      serverAccept(request: event.a, host: event.b, now: now, &scheduler)
    case .serverReject:
      serverReject(request: event.a, host: event.b, now: now, &scheduler)
    case .hostAcceptFailed:
      // No seat could be given: answer the applicant with a rejection rather than leave it waiting.
      send(.serverReject, a: event.a, b: event.b, &scheduler)
    case .hostApplicationGone:
      // The host's list drops the applicant; this world's hosts keep no list (they answer every
      // application they saw, and a late answer gets -2311 from the server).
      break
    case .viewerResponded:
      viewerResponded(request: event.a, accepted: event.b == 1, now: now, &scheduler)
    case .viewerNoResponse:
      viewerNoResponse(request: event.a, now: now, &scheduler)
    case .serverTimeout:
      serverTimeout(request: event.a, now: now, &scheduler)
    case .viewerDevicesOpen:
      viewerDevicesOpen(event.a, now: now, &scheduler)
    case .viewerLeaveSeat:
      if viewers[Int(event.a)].status == .connected {
        viewers[Int(event.a)].status = .watching
        send(.serverLeaveSeat, a: event.a, &scheduler)
        scheduleNextApply(event.a, after: profile.audience.retryAfter, &scheduler)
      }
    case .serverLeaveSeat:
      if case .success = seats.leaveSeat(user: event.a) { metrics.counters.add(metrics.seatLeft) }
    case .viewerLeave:
      guard viewers[Int(event.a)].status != .left else { break }
      viewers[Int(event.a)].status = .left
      metrics.counters.add(metrics.viewersLeft)
      send(.serverLeave, a: event.a, &scheduler)
    case .serverLeave:
      let result = seats.leave(user: event.a, now: now)
      if let r = result.cancelled {
        metrics.counters.add(metrics.cancelled)
        notifyStaff(of: r, .hostApplicationGone, except: nil, &scheduler)
      }
    }
  }

  // MARK: - Viewer behaviour

  mutating func viewerJoined(_ user: UInt32, _ scheduler: inout Scheduler) {
    guard viewers[Int(user)].status == .joining else { return }
    viewers[Int(user)].status = .watching
    metrics.counters.add(metrics.viewersJoined)
    after(profile.audience.stay.sampleDuration(&audienceRandom), .viewerLeave, a: user, &scheduler)
    if audienceRandom.chance(profile.audience.applyProbability) {
      scheduleNextApply(user, after: profile.audience.applyAfter, &scheduler)
    }
  }

  mutating func scheduleNextApply(_ user: UInt32, after delay: Distribution, _ scheduler: inout Scheduler) {
    guard Int(viewers[Int(user)].applies) < profile.audience.maxApplies else { return }
    after(delay.sampleDuration(&audienceRandom), .viewerApply, a: user, &scheduler)
  }

  mutating func viewerApply(_ user: UInt32, now: SimInstant, _ scheduler: inout Scheduler) {
    guard viewers[Int(user)].status == .watching else { return }
    viewers[Int(user)].status = .applying
    viewers[Int(user)].applies &+= 1
    viewers[Int(user)].applyIntendedAt = now.nanoseconds
    send(.serverApply, a: user, b: 0, &scheduler)
  }

  mutating func viewerApplyFailed(_ user: UInt32, code: Int32, now: SimInstant, _ scheduler: inout Scheduler) {
    guard viewers[Int(user)].status == .applying else { return }
    recordResponse(user, now: now)
    viewers[Int(user)].status = .watching
    scheduleNextApply(user, after: profile.audience.retryAfter, &scheduler)
  }

  mutating func viewerResponded(request: UInt32, accepted: Bool, now: SimInstant, _ scheduler: inout Scheduler) {
    let user = seats.requests[Int(request)].user
    guard viewers[Int(user)].status == .applying else { return }
    recordResponse(user, now: now)
    if accepted {
      viewers[Int(user)].status = .connecting
      viewers[Int(user)].acceptedAt = seats.requests[Int(request)].endedAt.nanoseconds
      after(profile.audience.deviceOpen.sampleDuration(&audienceRandom), .viewerDevicesOpen, a: user, &scheduler)
    } else {
      viewers[Int(user)].status = .watching
      scheduleNextApply(user, after: profile.audience.retryAfter, &scheduler)
    }
  }

  mutating func viewerNoResponse(request: UInt32, now: SimInstant, _ scheduler: inout Scheduler) {
    let user = seats.requests[Int(request)].user
    guard viewers[Int(user)].status == .applying else { return }
    recordResponse(user, now: now)
    viewers[Int(user)].status = .watching
    scheduleNextApply(user, after: profile.audience.retryAfter, &scheduler)
  }

  mutating func viewerDevicesOpen(_ user: UInt32, now: SimInstant, _ scheduler: inout Scheduler) {
    guard viewers[Int(user)].status == .connecting else { return }
    viewers[Int(user)].status = .connected
    metrics.counters.add(metrics.connected)
    metrics.latencies[LiveMetrics.acceptToConnected].record(
      SimDuration(nanoseconds: now.nanoseconds - viewers[Int(user)].acceptedAt))
    after(profile.audience.seatTime.sampleDuration(&audienceRandom), .viewerLeaveSeat, a: user, &scheduler)
  }

  mutating func recordResponse(_ user: UInt32, now: SimInstant) {
    metrics.latencies[LiveMetrics.applyToResponse].record(
      SimDuration(nanoseconds: now.nanoseconds - viewers[Int(user)].applyIntendedAt))
  }

  // MARK: - Host behaviour

  mutating func hostDecide(request: UInt32, host: UInt32, _ scheduler: inout Scheduler) {
    if hostRandom.chance(profile.host.acceptProbability) {
      send(.serverAccept, a: request, b: host, &scheduler)
    } else {
      send(.serverReject, a: request, b: host, &scheduler)
    }
  }

  // MARK: - Server

  mutating func serverApply(user: UInt32, seatIndex: Int, now: SimInstant, _ scheduler: inout Scheduler) {
    switch seats.apply(user: user, seatIndex: seatIndex, now: now) {
    case .failure(let error):
      switch error {
      case .seatLimitExceeded: metrics.counters.add(metrics.rejectedSeatLimit)
      case .allSeatsTaken: metrics.counters.add(metrics.rejectedAllTaken)
      default: metrics.counters.add(metrics.rejectedOther)
      }
      send(.viewerApplyFailed, a: user, b: UInt32(bitPattern: error.rawValue), &scheduler)
    case .success(let request):
      metrics.counters.add(metrics.applications)
      send(.viewerApplySent, a: user, b: request, &scheduler)
      notifyStaff(of: request, .hostApplicationReceived, except: nil, &scheduler)
      let timeout = profile.seats.applyTimeout
      if timeout > .zero { after(timeout, .serverTimeout, a: request, &scheduler) }
    }
  }

  /// Sends `kind` about `request` to every host and admin of its room but `except`.
  mutating func notifyStaff(of request: UInt32, _ kind: LiveEvent, except: UInt32?, _ scheduler: inout Scheduler) {
    let base = UInt32(Int(seats.requests[Int(request)].room) * usersPerRoom)
    for staff in 0..<UInt32(staffPerRoom) where base + staff != except {
      send(kind, a: request, b: base + staff, &scheduler)
    }
  }

  mutating func serverAccept(request: UInt32, host: UInt32, now: SimInstant, _ scheduler: inout Scheduler) {
    switch seats.accept(request: request, by: host, now: now) {
    case .success:
      metrics.counters.add(metrics.accepted)
      send(.viewerResponded, a: request, b: 1, &scheduler)
      notifyStaff(of: request, .hostApplicationGone, except: nil, &scheduler)
    case .failure(.alreadyProcessed):
      metrics.counters.add(metrics.acceptRaceLost)
    case .failure:
      metrics.counters.add(metrics.acceptFailed)
      send(.hostAcceptFailed, a: request, b: host, &scheduler)
    }
  }

  mutating func serverReject(request: UInt32, host: UInt32, now: SimInstant, _ scheduler: inout Scheduler) {
    guard seats.reject(request: request, by: host, now: now) == nil else { return }
    metrics.counters.add(metrics.rejected)
    send(.viewerResponded, a: request, b: 0, &scheduler)
    notifyStaff(of: request, .hostApplicationGone, except: nil, &scheduler)
  }

  mutating func serverTimeout(request: UInt32, now: SimInstant, _ scheduler: inout Scheduler) {
    guard seats.timeOut(request: request, now: now) else { return }
    metrics.counters.add(metrics.timedOut)
    send(.viewerNoResponse, a: request, &scheduler)
    notifyStaff(of: request, .hostApplicationGone, except: nil, &scheduler)
  }
}
