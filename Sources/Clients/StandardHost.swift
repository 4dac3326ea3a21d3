import LiveStack
import SimKernel

/// Settings of ``StandardHost``; profile keys under `host` (and `admin`).
public struct HostSettings: Sendable {
  /// Time from seeing an application to answering it.
  public var thinkTime: Distribution
  /// Probability of accepting (otherwise rejecting) an application.
  public var acceptProbability: Ratio
  /// Reject at once when the seat list shows no room for another guest, instead of trying.
  public var rejectWhenFull: Bool
  /// Interval between invitations to a random audience member; `nil`: never invites.
  public var inviteEvery: Distribution?
  /// The `timeout` passed to `inviteToSeat`.
  public var inviteTimeout: SimDuration
  /// Interval between kicks of a random guest; `nil`: never kicks.
  public var kickEvery: Distribution?
  /// Interval between locking a random seat; `nil`: never locks.
  public var lockEvery: Distribution?
  /// How long a locked seat stays locked.
  public var lockFor: Distribution
  /// Interval between moving a random guest to another seat; `nil`: never moves.
  public var moveEvery: Distribution?
  /// Policies to draw from for a move.
  public var movePolicies: [MovePolicy]
  /// Time from going live to ending the live (owner only); `nil`: never.
  public var endLiveAfter: Distribution?
  /// How many applications one host or admin reviews at once (a person: 1); `nil`: every
  /// application on its own timer, as if it could read any number at once.
  public var reviewAtOnce: Int? = 1
  /// Which application of the SDK's applicants list a reviewer takes up next.
  public var reviewOrder: ReviewOrder = .oldest
  /// Whether the staff of a room see which applications the others are reviewing (an app
  /// feature): with it two reviewers never take up the same application; without it they can,
  /// and the second one's answer fails with -2311 after its think time.
  public var reviewClaims = false

  /// Creates settings.
  public init(
    thinkTime: Distribution, acceptProbability: Ratio, rejectWhenFull: Bool, inviteEvery: Distribution?,
    inviteTimeout: SimDuration, kickEvery: Distribution?, lockEvery: Distribution?, lockFor: Distribution,
    moveEvery: Distribution?, movePolicies: [MovePolicy], endLiveAfter: Distribution?
  ) {
    precondition(!movePolicies.isEmpty, "at least one move policy")
    self.thinkTime = thinkTime
    self.acceptProbability = acceptProbability
    self.rejectWhenFull = rejectWhenFull
    self.inviteEvery = inviteEvery
    self.inviteTimeout = inviteTimeout
    self.kickEvery = kickEvery
    self.lockEvery = lockEvery
    self.lockFor = lockFor
    self.moveEvery = moveEvery
    self.movePolicies = movePolicies
    self.endLiveAfter = endLiveAfter
  }
}

/// What the hosts and admins of a run share about their reviews, by staff slot and by room.
public final class ReviewDesk {
  /// Per staff slot: the applicants that reviewer is reviewing now.
  @exclusivity(unchecked) var reviewing: [[UInt32]] = []
  /// Per staff slot: the applicants that reviewer has answered, with the answer on its way.
  @exclusivity(unchecked) var answering: [[UInt32]] = []
  /// Per room (with `reviewClaims`): the applicants its reviewers are reviewing now.
  @exclusivity(unchecked) var claimed: [[UInt32]] = []

  /// An empty desk.
  public init() {}

  /// Makes room for `slots` staff slots and room `room`.
  func ensure(slots: Int, room: UInt32) {
    reviewing.grow(toInclude: slots - 1, filling: [])
    answering.grow(toInclude: slots - 1, filling: [])
    claimed.grow(toInclude: Int(room), filling: [])
  }

  /// Removes one `guest` from `list`.
  func remove(_ guest: UInt32, from list: inout [UInt32]) {
    if let i = list.firstIndex(of: guest) { list.remove(at: i) }
  }
}

/// Which application a reviewer takes up next from its applicants list (`host.reviewOrder`).
public enum ReviewOrder: String, Sendable, CaseIterable {
  /// The one that has waited longest (first in the list).
  case oldest
  /// The one that arrived last.
  case newest
  /// Any one, uniformly.
  case random
}

/// The built-in host and admin: a `HostCoGuestViewModel` as apps write it, corrected.
///
/// - It decides from the SDK's `applicants` state, so an application cancelled, timed out or
///   processed by another host is never answered.
/// - A guest is removed with `kickUserOutOfSeat`, never with `disConnect()` (which would remove the
///   host itself).
/// - An accept that fails for lack of a seat is answered with a rejection, so the applicant does
///   not wait for its timeout.
/// - It is a person: it reviews `reviewAtOnce` applications at a time (one by default), each for
///   a think time, taking them up from the SDK's applicants list in `reviewOrder`. Applications
///   beyond that wait in the list; the staff of a room share it, so two reviewers can take up the
///   same one unless `reviewClaims` is on.
public final class StandardHost: ClientBehavior {
  /// The settings.
  public let settings: HostSettings

  enum Tag: UInt32 {
    case decide = 1
    case invite, kick, lock, unlock, move, endLive, cancelInvitation
  }

  public func timerName(tag: UInt32) -> String? { Tag(rawValue: tag).map { "\($0)" } }

  /// What the reviewers share (the owners' and the admins' behaviours hold the same desk).
  public let desk: ReviewDesk

  /// Creates the behaviour; hosts and admins that share `desk` see each other's claims.
  public init(settings: HostSettings, desk: ReviewDesk = ReviewDesk()) {
    self.settings = settings
    self.desk = desk
  }

  /// Mistakes from the catalogue this host makes (none by default).
  @exclusivity(unchecked) public var mistakes = MistakeSet()

  public func start(_ client: inout Client) {
    client.coGuest.subscribeHostEvents()
    // The mistake: the subscription's cancellable is not kept, so it ends at once.
    if mistakes.contains(.hostEventsNotRetained) { client.coGuest.unsubscribe() }
    client.liveSeat.subscribe()
    client.login.subscribeEvents()
    client.liveList.subscribe()
    client.login.login { [unowned(unsafe) self] c, result in
      guard case .success = result else { return }
      c.liveList.joinLive { [unowned(unsafe) self] c, result in
        guard case .success = result else { return }
        c.status = .idle
        // Applications listed at join wait for this reviewer too.
        self.review(&c)
        self.every(self.settings.inviteEvery, .invite, &c)
        self.every(self.settings.kickEvery, .kick, &c)
        self.every(self.settings.lockEvery, .lock, &c)
        self.every(self.settings.moveEvery, .move, &c)
        if c.role == .owner, let end = self.settings.endLiveAfter {
          c.schedule(after: end.sampleDuration(&c.random), tag: Tag.endLive.rawValue)
        }
      }
    }
  }

  func every(_ interval: Distribution?, _ tag: Tag, _ c: inout Client) {
    guard let interval, c.status == .idle else { return }
    c.schedule(after: interval.sampleDuration(&c.random), tag: tag.rawValue)
  }

  public func hostEvent(_ event: HostEvent, _ c: inout Client) {
    guard case .onGuestApplicationReceived(let guest) = event else { return }
    if settings.reviewAtOnce == nil {
      c.reviewStarted(guest)
      c.schedule(after: settings.thinkTime.sampleDuration(&c.random), tag: Tag.decide.rawValue, arg: guest)
    } else {
      review(&c)
    }
  }

  /// The applicants `c` is reviewing now.
  func underReview(_ c: Client) -> [UInt32] {
    let slot = Int(c.runtime.clients[Int(c.user)].staffSlot)
    return slot < 0 || slot >= desk.reviewing.count ? [] : desk.reviewing[slot]
  }

  /// Takes up applications from the applicants list while this reviewer has a free hand.
  func review(_ c: inout Client) {
    guard let atOnce = settings.reviewAtOnce, c.status == .idle else { return }
    let slot = Int(c.runtime.clients[Int(c.user)].staffSlot)
    guard slot >= 0 else { return }
    desk.ensure(slots: c.runtime.applicants.count, room: c.room)
    while desk.reviewing[slot].count < atOnce {
      // What the SDK lists, less what this reviewer has in hand or has just answered (and, with
      // claims, what the room's other reviewers have in hand), in the SDK's order; picked by
      // position among those open, without building their list.
      let listed = c.coGuest.applicants
      let rank: Int
      switch settings.reviewOrder {
      case .oldest:
        rank = 0
      case .newest, .random:
        // Only these need to know how many are open.
        let open = openCount(listed, slot: slot, room: c.room)
        guard open > 0 else { return }
        rank = settings.reviewOrder == .newest ? open - 1 : Int(c.random.next(below: UInt64(open)))
      }
      guard let guest = openApplicant(listed, rank: rank, slot: slot, room: c.room) else { return }
      desk.reviewing[slot].append(guest)
      if settings.reviewClaims { desk.claimed[Int(c.room)].append(guest) }
      c.reviewStarted(guest)
      c.schedule(after: settings.thinkTime.sampleDuration(&c.random), tag: Tag.decide.rawValue, arg: guest)
    }
  }

  /// Whether `guest`, listed by the SDK, is open to the reviewer in `slot`: not in its hand, not
  /// answered with the answer on its way, and (with claims) not in another reviewer's hand.
  func isOpen(_ guest: UInt32, slot: Int, room: UInt32) -> Bool {
    !desk.reviewing[slot].contains(guest) && !desk.answering[slot].contains(guest)
      && !(settings.reviewClaims && desk.claimed[Int(room)].contains(guest))
  }

  /// How many of `listed` are open to the reviewer in `slot`.
  func openCount(_ listed: [UInt32], slot: Int, room: UInt32) -> Int {
    var n = 0
    for guest in listed where isOpen(guest, slot: slot, room: room) { n += 1 }
    return n
  }

  /// The open applicant at position `rank` (from 0) among the open ones of `listed`, in its order;
  /// `nil` when fewer are open.
  func openApplicant(_ listed: [UInt32], rank: Int, slot: Int, room: UInt32) -> UInt32? {
    var seen = 0
    for guest in listed where isOpen(guest, slot: slot, room: room) {
      if seen == rank { return guest }
      seen += 1
    }
    return nil
  }

  /// The review of `guest` ends (its decision is made, or the reviewer left): the hand is free.
  func endReview(_ guest: UInt32, _ c: inout Client) {
    c.reviewEnded(guest)
    guard settings.reviewAtOnce != nil else { return }
    let slot = Int(c.runtime.clients[Int(c.user)].staffSlot)
    guard slot >= 0 && slot < desk.reviewing.count else { return }
    desk.remove(guest, from: &desk.reviewing[slot])
    if settings.reviewClaims && Int(c.room) < desk.claimed.count {
      desk.remove(guest, from: &desk.claimed[Int(c.room)])
    }
  }

  /// Sends the answer to `guest`'s application; until it comes back, the guest still listed is not
  /// taken up again (the app greys the row out).
  func answer(accept: Bool, _ guest: UInt32, _ c: inout Client, _ then: Completion? = nil) {
    let slot = Int(c.runtime.clients[Int(c.user)].staffSlot)
    let tracked = settings.reviewAtOnce != nil && slot >= 0 && slot < desk.answering.count
    if tracked { desk.answering[slot].append(guest) }
    // A completion of its own only when there is something to do besides `then`.
    let done: Completion?
    if tracked {
      done = { [desk] c, result in
        desk.remove(guest, from: &desk.answering[slot])
        then?(&c, result)
      }
    } else {
      done = then
    }
    if accept {
      c.coGuest.acceptApplication(userID: guest, completion: done)
    } else {
      c.coGuest.rejectApplication(userID: guest, completion: done)
    }
  }

  public func liveEnded(_ c: inout Client) { leave(&c) }

  public func loginEvent(_ event: LoginEvent, _ c: inout Client) { leave(&c) }

  /// The host leaves: the reviews under way end undecided.
  func leave(_ c: inout Client) {
    c.status = .left
    for guest in underReview(c) { endReview(guest, &c) }
  }

  public func timer(tag: UInt32, arg: UInt32, _ c: inout Client) {
    guard c.status == .idle else { return }
    switch Tag(rawValue: tag) {
    case .decide:
      endReview(arg, &c)
      decide(guest: arg, &c)
      review(&c)
    case .invite:
      // Only a viewer this host's own lists show neither applying nor seated (the viewer's own
      // state may have moved on before the host's lists did).
      if let guest = c.randomAudienceMember(), !c.coGuest.hasApplicant(guest), !showsSeated(guest, c) {
        c.coGuest.inviteToSeat(userID: guest, seatIndex: -1, timeout: settings.inviteTimeout) {
          [unowned(unsafe) self] c, result in
          // No answer (-1): the server may have filed it all the same. Cancel it, so that the
          // invitation cannot outlive what this host knows of it.
          if case .failure(.failed) = result { self.cancelInvitation(guest, &c) }
        }
      }
      every(settings.inviteEvery, .invite, &c)
    case .cancelInvitation:
      cancelInvitation(arg, &c)
    case .kick:
      let guests = self.guests(c)
      if !guests.isEmpty {
        let guest = guests[Int(c.random.next(below: UInt64(guests.count)))]
        // The mistake: disConnect() leaves the caller's own seat; it takes no user.
        if mistakes.contains(.kickWithDisconnect) {
          c.coGuest.disConnect()
        } else {
          c.liveSeat.kickUserOutOfSeat(userID: guest)
        }
      }
      every(settings.kickEvery, .kick, &c)
    case .lock:
      // A guest seat: the owner's stays open for it.
      let first = c.liveSeat.firstGuestSeat
      let guestSeats = c.liveSeat.maxSeatCount - first
      let seat = first + Int(c.random.next(below: UInt64(max(1, guestSeats))))
      if guestSeats > 0 {
        c.liveSeat.lockSeat(index: seat)
        c.schedule(after: settings.lockFor.sampleDuration(&c.random), tag: Tag.unlock.rawValue, arg: UInt32(seat))
      }
      every(settings.lockEvery, .lock, &c)
    case .unlock:
      // No answer (-1): the unlock may never have reached the server; refused (-3): the SDK was
      // out of the room for a moment (re-entering it). A seat left locked is lost for the rest of
      // the live, so it is sent again until the server carries it out (timers stop once the live
      // or the session ended).
      c.liveSeat.unlockSeat(index: Int(arg)) { c, result in
        switch result {
        case .failure(.failed), .failure(.refused):
          c.schedule(after: SDKTiming.resendAfter, tag: Tag.unlock.rawValue, arg: arg)
        default:
          break
        }
      }
    case .move:
      move(&c)
      every(settings.moveEvery, .move, &c)
    case .endLive:
      c.liveList.endLive()
    case nil:
      preconditionFailure("unknown host timer tag \(tag)")
    }
  }

  /// Cancels the invitation of `guest`; a cancel that got no answer (-1) may never have reached the
  /// server, so it is sent again until the server answers it.
  func cancelInvitation(_ guest: UInt32, _ c: inout Client) {
    c.coGuest.cancelInvitation(inviteeID: guest) { c, result in
      guard case .failure(.failed) = result else { return }
      c.schedule(after: SDKTiming.resendAfter, tag: Tag.cancelInvitation.rawValue, arg: guest)
    }
  }

  func decide(guest: UInt32, _ c: inout Client) {
    // Answer only what is still open: cancelled, timed-out and otherwise-processed applications
    // have left the SDK's applicants list.
    guard c.coGuest.hasApplicant(guest) || mistakes.contains(.staleApplicants) else { return }
    if settings.rejectWhenFull && !hasRoom(c) {
      answer(accept: false, guest, &c)
      return
    }
    guard c.random.chance(settings.acceptProbability) else {
      answer(accept: false, guest, &c)
      return
    }
    // The completions hold `self` unowned and unchecked: the behaviour outlives every call it
    // makes, and a checked reference would cost two reference-count operations per decision.
    answer(accept: true, guest, &c) { [unowned(unsafe) self] c, result in
      guard case .failure(let error) = result, error != .alreadyProcessed, error != .refused else { return }
      // No seat could be given: tell the applicant now rather than leave it waiting (if it still
      // waits: it may have cancelled or timed out meanwhile).
      if c.coGuest.hasApplicant(guest) { self.answer(accept: false, guest, &c) }
    }
  }

  /// The guests on seats as the seat list shows them, in seat order: the connected users less the
  /// owner on its own seat.
  /// Whether this host's seat list shows `guest` on a seat.
  func showsSeated(_ guest: UInt32, _ c: Client) -> Bool {
    for i in 0..<c.liveSeat.maxSeatCount where c.liveSeat.occupant(ofSeat: i) == guest { return true }
    return false
  }

  func guests(_ c: Client) -> [UInt32] {
    c.liveSeat.seatList.dropFirst(c.liveSeat.firstGuestSeat).compactMap { $0 }
  }

  /// Whether the seat list shows room for another guest: under the package limit and with a guest
  /// seat free (the owner, connected on its own seat, counts for neither).
  func hasRoom(_ c: Client) -> Bool {
    let first = c.liveSeat.firstGuestSeat
    var guests = c.coGuest.connectedCount
    if first > 0 && c.liveSeat.occupant(ofSeat: 0) != nil { guests -= 1 }
    return guests < c.liveSeat.packageLimit && guests < c.liveSeat.maxSeatCount - first
  }

  func move(_ c: inout Client) {
    let first = c.liveSeat.firstGuestSeat
    let guestSeats = c.liveSeat.seatList.count - first
    let guests = self.guests(c)
    guard !guests.isEmpty, guestSeats > 1 else { return }
    let guest = guests[Int(c.random.next(below: UInt64(guests.count)))]
    let target = first + Int(c.random.next(below: UInt64(guestSeats)))
    let policy = settings.movePolicies[Int(c.random.next(below: UInt64(settings.movePolicies.count)))]
    c.liveSeat.moveUserToSeat(userID: guest, targetIndex: target, policy: policy)
  }
}
