import SimKernel

/// What the server sends because of what it just did, in the order it sends it.
public enum Outgoing: Sendable {
  /// A message to one client.
  case notice(Notice)
  /// The answer to the SDK call in operation slot `slot` (nil: success), which the server held
  /// back until the request's outcome (`applyCompletion: "outcome"`).
  case answer(slot: UInt32, SeatError?)
}

/// The simulated server side, protocol included: the seat, login, call and push services, and who
/// hears what when they change.
///
/// The world hands it an operation; it carries it out, returns the answer, and appends the notices
/// the operation causes to ``outbox`` (seat-list batches to the room's staff and the user named,
/// co-guest events, the answers it held back). It never touches the scheduler, the metrics or the
/// checker: the world sends what the outbox holds over the network, in order, and the oracles read
/// the services.
public struct Server {
  /// Who is who.
  public let layout: Layout
  /// Rooms, seats and co-guest requests.
  public var seats: SeatService
  /// IM login.
  public var login: LoginService
  /// Calls.
  public var calls: CallService
  /// The offline-push backend.
  public var push: PushBackend
  /// Room messaging: each room's seat list as every member sees it (see ``RoomFeed``).
  public let feed: RoomFeed
  /// What the last operations caused, not yet sent (see ``Outgoing``).
  public var outbox: ScratchList<Outgoing> = []
  /// How long the server keeps a room member whose heartbeat stopped.
  public static let presenceTimeout = SimDuration.seconds(30)
  /// Per user: its latest application as request ID + 1 (0 = none).
  var lastApplication: [UInt32]
  /// Per request, in ID order: the timeout it was filed with, in nanoseconds (0: none).
  public internal(set) var requestTimeoutsNs: [Int64] = []
  /// Per call, in ID order: its ringing timeout, in nanoseconds.
  public internal(set) var callTimeoutsNs: [Int64] = []
  /// Whether an apply's answer waits for the request's outcome.
  let applyAnswersOnOutcome: Bool
  /// Applicants pending when a host or admin's `joinLive` reached the server, by operation slot,
  /// until the answer reaches its SDK (looked up by key only).
  var joinSnapshots: [UInt32: [UInt32]] = [:]
  /// Per user: the `applyForSeat` call waiting for its outcome, as operation slot + 1.
  var deferredApply: [UInt32]
  /// Seat-list batches in flight, by slot (a `Notice.seats` names the slot).
  var seatBatches: [SeatBatch] = []
  var freeBatches: [UInt32] = []

  /// A server for `layout`'s rooms with `settings` each, `push` as its push backend and `feed`
  /// as its room messaging (by default: immediate, every viewer 40 ms behind).
  public init(
    layout: Layout, settings: RoomSettings, push: PushBackend, applyAnswersOnOutcome: Bool, feed: RoomFeed? = nil
  ) {
    self.layout = layout
    self.feed =
      feed
      ?? RoomFeed(
        seatCounts: [Int](repeating: settings.seatCount, count: layout.rooms),
        delayUs: [UInt32](table: 40_000, count: layout.totalUsers),
        homeRoom: { layout.isPhone($0) ? nil : layout.homeRoom[Int($0)] }, messaging: .unlimited)
    let users = layout.totalUsers
    seats = SeatService(
      rooms: [RoomSettings](repeating: settings, count: layout.rooms), userCount: users)
    login = LoginService(userCount: users)
    calls = CallService(userCount: users)
    self.push = push
    self.applyAnswersOnOutcome = applyAnswersOnOutcome
    deferredApply = [UInt32](table: 0, count: users)
    lastApplication = [UInt32](table: 0, count: users)
  }

  /// Hints what serving a request of `user` reads: its home room and role, and its login state
  /// (`login`) or its room membership (`membership`).
  @inlinable @inline(__always)
  public func prefetchServing(_ user: UInt32, login: Bool, membership: Bool) {
    let u = Int(user)
    layout.homeRoom.prefetch(u)
    layout.roles.prefetch(u)
    if login { self.login.loggedIn.prefetch(u) }
    if membership {
      seats.userRoom.prefetch(u)
      seats.userRole.prefetch(u)
    }
  }

  // MARK: - Operations whose notices are the server's to decide

  /// `joinLive`: the user enters its home room. Its SDK gets the seat list as it stands, as
  /// `seated` rows ahead of the answer; a host or admin's SDK also gets the pending applicants
  /// (see ``takeJoinSnapshot(slot:)``).
  public mutating func joinLive(user: UInt32, slot: UInt32) -> SeatError? {
    let role = layout.role(of: user)
    if let error = seats.join(user: user, room: layout.homeRoom[Int(user)], role: role) { return error }
    sendSnapshot(to: user)
    if role != .audience {
      let room = layout.homeRoom[Int(user)]
      var pending: [UInt32] = []
      for id in seats.requests.indices.reversed() where seats.requests[id].state == .pending {
        let r = seats.requests[id]
        if r.room == room && r.kind == .application { pending.append(r.guest) }
      }
      // (Set or cleared: a slot whose earlier join never delivered its answer must not hand that
      // join's applicants to this one.)
      joinSnapshots[slot] = pending.isEmpty ? nil : pending.reversed()
    }
    return nil
  }

  /// The applicants a host's successful `joinLive` in operation slot `slot` listed (empty if none).
  public mutating func takeJoinSnapshot(slot: UInt32) -> [UInt32] {
    joinSnapshots.removeValue(forKey: slot) ?? []
  }

  /// `applyForSeat`: files an application and tells the room's staff.
  public mutating func apply(user: UInt32, seatIndex: Int, now: SimInstant) -> Result<UInt32, SeatError> {
    let result = seats.apply(user: user, seatIndex: seatIndex, now: now)
    if case .success(let id) = result {
      let room = seats.requests[Int(id)].room
      for s in layout.staff(of: room) where seats.isMember(s, of: room) {
        outbox.append(.notice(.host(s, .onGuestApplicationReceived(guest: user), request: id)))
      }
    }
    return result
  }

  /// Holds back the answer to the `applyForSeat` in operation slot `slot` until the outcome of
  /// `user`'s application.
  public mutating func answerOnOutcome(user: UInt32, slot: UInt32) {
    precondition(applyAnswersOnOutcome, "applies are answered at once")
    deferredApply[Int(user)] = slot + 1
  }

  /// `inviteToSeat`: files an invitation and tells the guest.
  public mutating func invite(guest: UInt32, by host: UInt32, seatIndex: Int, now: SimInstant) -> Result<
    UInt32, SeatError
  > {
    let result = seats.invite(guest: guest, by: host, seatIndex: seatIndex, now: now)
    if case .success(let id) = result {
      outbox.append(.notice(.guest(guest, .onHostInvitationReceived(host: host), request: id)))
    }
    return result
  }

  /// `endLive`: the owner ends its live; everyone still in the room is taken out and told.
  public mutating func endLive(user: UInt32, now: SimInstant) -> SeatError? {
    if let error = seats.endLive(user: user, now: now) { return error }
    let room = layout.homeRoom[Int(user)]
    let all = layout.roomBase[Int(room)]..<layout.roomBase[Int(room) + 1]
    for u in all where seats.room(of: u) == room {
      _ = seats.leave(user: u, now: now)
      outbox.append(.notice(.liveEnded(u)))
    }
    return nil
  }

  // MARK: - Fan-out of what the seat service changed

  /// Turns what the seat service changed since the last call into notices: seat-list deltas to
  /// the room's staff and to the audience member concerned, kick events, and the answers to
  /// requests that ended. Read `seats.changes` and `seats.ended` before calling: they are cleared.
  public mutating func fanOut() {
    let n = seats.changes.count
    for i in 0..<n { feed.record(seats.changes[i]) }
    for i in 0..<n {
      let c = seats.changes[i]
      if !(0..<i).contains(where: { seats.changes[$0].room == c.room }) {
        // Staff out of the room hear its changes no more, save their own (as a viewer does).
        for s in layout.staff(of: c.room)
        where seats.isMember(s, of: c.room) || (0..<n).contains(where: { seats.changes[$0].user == s }) {
          sendSeatBatch(to: s, room: c.room) { $0.room == c.room }
        }
      }
      if layout.role(of: c.user) == .audience && !(0..<i).contains(where: { seats.changes[$0].user == c.user }) {
        // The viewer a change is about hears it point to point, at once (its own channel keeps
        // its order with the answers and events it gets).
        sendSeatBatch(to: c.user, room: nil) { $0.user == c.user }
        if !c.seated, let by = c.removedBy, by != .max {
          outbox.append(.notice(.guest(c.user, .onKickedOffSeat(seatIndex: Int(c.seat), host: by), request: .max)))
        }
      }
    }
    for i in 0..<seats.ended.count { notifyEnded(seats.ended[i]) }
    seats.drain()
  }

  /// A client entered its room: its SDK gets the seat list as it stands. Hosts and admins get every
  /// occupied seat, in batches of which the first starts their list afresh; an audience member
  /// only its own seat (the only row its client keeps).
  mutating func sendSnapshot(to user: UInt32) {
    guard let room = seats.room(of: user) else { return }
    var batch = SeatBatch()
    batch.snapshot = true
    if layout.role(of: user) == .audience {
      guard let seat = seats.seat(of: user) else { return }
      batch.append(SeatChange(room: room, seat: Int16(seat), user: user, seated: true))
      sendBatch(batch, to: user)
      return
    }
    batch.startsList = true
    for i in 0..<seats.settings[Int(room)].seatCount {
      guard let occupant = seats.occupant(room: room, seat: i) else { continue }
      batch.append(SeatChange(room: room, seat: Int16(i), user: occupant, seated: true))
      if batch.isFull {
        sendBatch(batch, to: user)
        batch = SeatBatch()
        batch.snapshot = true
      }
    }
    // (Sent even when empty: it clears what the SDK held.)
    if batch.count > 0 || batch.startsList { sendBatch(batch, to: user) }
  }

  /// Sends `batch` to `user`, storing it out of line. A delta of `room`'s list (`room` not nil)
  /// leaves with the room's broadcast when room messaging has a capacity.
  mutating func sendBatch(_ batch: SeatBatch, to user: UInt32, room: UInt32? = nil) {
    let slot: UInt32
    if let free = freeBatches.popLast() {
      slot = free
      seatBatches[Int(slot)] = batch
    } else {
      slot = UInt32(seatBatches.count)
      seatBatches.append(batch)
    }
    if let room, !feed.immediate {
      feed.hold(.seats(user, batch: slot), room: room)
    } else {
      outbox.append(.notice(.seats(user, batch: slot)))
    }
  }

  /// The seat-list batch in `slot`, which frees the slot (when its notice is delivered).
  public mutating func takeBatch(_ slot: UInt32) -> SeatBatch {
    freeBatches.append(slot)
    return seatBatches[Int(slot)]
  }

  /// The seat-list batch in `slot`, left in place (for traces).
  public func batch(_ slot: UInt32) -> SeatBatch { seatBatches[Int(slot)] }

  /// Sends the pending seat changes that `include` selects to `user`, four per message, in order;
  /// as deltas of `room`'s list (held for its broadcast), or point to point (`room` nil).
  mutating func sendSeatBatch(to user: UInt32, room: UInt32?, where include: (SeatChange) -> Bool) {
    var batch = SeatBatch()
    for i in 0..<seats.changes.count where include(seats.changes[i]) {
      batch.append(seats.changes[i])
      if batch.isFull {
        sendBatch(batch, to: user, room: room)
        batch = SeatBatch()
      }
    }
    if batch.count > 0 { sendBatch(batch, to: user, room: room) }
  }

  /// A request ended: tell its client and every host and admin what their SDKs would learn.
  mutating func notifyEnded(_ id: UInt32) {
    let r = seats.requests[Int(id)]
    let guest = r.guest
    switch r.kind {
    case .application:
      var event: GuestEvent?
      switch r.state {
      case .accepted: event = .onGuestApplicationResponded(isAccept: true, host: r.host)
      case .rejected: event = .onGuestApplicationResponded(isAccept: false, host: r.host)
      case .timedOut: event = .onGuestApplicationNoResponse(reason: .timeout)
      case .failed where r.failure == .alreadySeated: event = .onGuestApplicationNoResponse(reason: .alreadySeated)
      default: event = nil
      }
      if let event { outbox.append(.notice(.guest(guest, event, request: id))) }
      let deferred = deferredApply[Int(guest)]
      if deferred != 0 {
        deferredApply[Int(guest)] = 0
        outbox.append(.answer(slot: deferred - 1, r.state == .accepted ? nil : .failed))
      }
      for s in layout.staff(of: r.room) where seats.isMember(s, of: r.room) {
        switch r.state {
        case .accepted, .rejected:
          if s == r.host {
            outbox.append(.notice(.applicantRemoved(host: s, guest: guest)))
          } else {
            outbox.append(
              .notice(.host(s, .onGuestApplicationProcessedByOtherHost(guest: guest, host: r.host), request: id)))
          }
        case .cancelled:
          outbox.append(.notice(.host(s, .onGuestApplicationCancelled(guest: guest), request: id)))
        default:
          outbox.append(.notice(.applicantRemoved(host: s, guest: guest)))
        }
      }
    case .invitation:
      let inviter = r.host
      var event: HostEvent?
      switch r.state {
      case .accepted: event = .onHostInvitationResponded(isAccept: true, guest: guest)
      case .rejected: event = .onHostInvitationResponded(isAccept: false, guest: guest)
      case .timedOut: event = .onHostInvitationNoResponse(guest: guest, reason: .timeout)
      case .failed where r.failure == .alreadySeated:
        event = .onHostInvitationNoResponse(guest: guest, reason: .alreadySeated)
      default: event = nil
      }
      if let event {
        outbox.append(.notice(.host(inviter, event, request: id)))
      } else {
        outbox.append(.notice(.inviteeRemoved(host: inviter, guest: guest)))
      }
      if r.state == .cancelled {
        outbox.append(.notice(.guest(guest, .onHostInvitationCancelled(host: inviter), request: id)))
      } else {
        outbox.append(.notice(.invitationRemoved(guest: guest, host: inviter)))
      }
    }
  }
}

extension Server {
  /// Request `id` (the next in order) was filed with `timeout` (zero: none).
  public mutating func armed(request id: UInt32, timeout: SimDuration) {
    precondition(Int(id) == requestTimeoutsNs.count, "requests are filed in ID order")
    requestTimeoutsNs.append(timeout.nanoseconds)
  }

  /// Call `id` (the next in order) rings for at most `timeout`.
  public mutating func armed(call id: UInt32, timeout: SimDuration) {
    precondition(Int(id) == callTimeoutsNs.count, "calls are numbered in order")
    callTimeoutsNs.append(timeout.nanoseconds)
  }
}

extension Server {
  /// When `user`'s latest application was filed and how long it may wait for an answer (its
  /// timeout, zero when it set none), if it filed one.
  public func lastApplicationTiming(of user: UInt32) -> (id: UInt32, filedAt: SimInstant, timeout: SimDuration)? {
    let id = lastApplication[Int(user)]
    guard id != 0 else { return nil }
    let i = Int(id - 1)
    return (id - 1, seats.requests[i].createdAt, .nanoseconds(i < requestTimeoutsNs.count ? requestTimeoutsNs[i] : 0))
  }

  /// The state of `user`'s latest application, if it filed one.
  public func lastApplicationState(of user: UInt32) -> RequestState? {
    let id = lastApplication[Int(user)]
    return id == 0 ? nil : seats.requests[Int(id - 1)].state
  }
}
