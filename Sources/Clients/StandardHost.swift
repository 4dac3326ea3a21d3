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

/// The built-in host and admin: a `HostCoGuestViewModel` as apps write it, corrected.
///
/// - It decides from the SDK's `applicants` state, so an application cancelled, timed out or
///   processed by another host is never answered.
/// - A guest is removed with `kickUserOutOfSeat`, never with `disConnect()` (which would remove the
///   host itself).
/// - An accept that fails for lack of a seat is answered with a rejection, so the applicant does
///   not wait for its timeout.
public final class StandardHost: ClientBehavior {
  /// The settings.
  public let settings: HostSettings

  enum Tag: UInt32 {
    case decide = 1
    case invite, kick, lock, unlock, move, endLive, cancelInvitation
  }

  /// Creates the behaviour.
  public init(settings: HostSettings) { self.settings = settings }

  /// Mistakes from the catalogue this host makes (none by default).
  @exclusivity(unchecked) public var mistakes = MistakeSet()

  public func start(_ client: inout Client) {
    client.coGuest.subscribeHostEvents()
    // The mistake: the subscription's cancellable is not kept, so it ends at once.
    if mistakes.contains(.hostEventsNotRetained) { client.coGuest.unsubscribe() }
    client.liveSeat.subscribe()
    client.login.subscribeEvents()
    client.liveList.subscribe()
    client.login.login { [unowned self] c, result in
      guard case .success = result else { return }
      c.liveList.joinLive { [unowned self] c, result in
        guard case .success = result else { return }
        c.status = .idle
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
    if case .onGuestApplicationReceived(let guest) = event {
      c.schedule(after: settings.thinkTime.sampleDuration(&c.random), tag: Tag.decide.rawValue, arg: guest)
    }
  }

  public func liveEnded(_ c: inout Client) { c.status = .left }

  public func loginEvent(_ event: LoginEvent, _ c: inout Client) { c.status = .left }

  public func timer(tag: UInt32, arg: UInt32, _ c: inout Client) {
    guard c.status == .idle else { return }
    switch Tag(rawValue: tag) {
    case .decide:
      decide(guest: arg, &c)
    case .invite:
      if let guest = c.randomAudienceMember() {
        c.coGuest.inviteToSeat(userID: guest, seatIndex: -1, timeout: settings.inviteTimeout) {
          [unowned self] c, result in
          // No answer (-1): the server may have filed it all the same. Cancel it, so that the
          // invitation cannot outlive what this host knows of it.
          if case .failure(.failed) = result { self.cancelInvitation(guest, &c) }
        }
      }
      every(settings.inviteEvery, .invite, &c)
    case .cancelInvitation:
      cancelInvitation(arg, &c)
    case .kick:
      let guests = c.coGuest.connected
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
      let seat = Int(c.random.next(below: UInt64(max(1, c.liveSeat.maxSeatCount))))
      if c.liveSeat.maxSeatCount > 0 {
        c.liveSeat.lockSeat(index: seat)
        c.schedule(after: settings.lockFor.sampleDuration(&c.random), tag: Tag.unlock.rawValue, arg: UInt32(seat))
      }
      every(settings.lockEvery, .lock, &c)
    case .unlock:
      c.liveSeat.unlockSeat(index: Int(arg))
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
      c.coGuest.rejectApplication(userID: guest)
      return
    }
    guard c.random.chance(settings.acceptProbability) else {
      c.coGuest.rejectApplication(userID: guest)
      return
    }
    c.coGuest.acceptApplication(userID: guest) { c, result in
      guard case .failure(let error) = result, error != .alreadyProcessed, error != .refused else { return }
      // No seat could be given: tell the applicant now rather than leave it waiting (if it still
      // waits: it may have cancelled or timed out meanwhile).
      if c.coGuest.hasApplicant(guest) { c.coGuest.rejectApplication(userID: guest) }
    }
  }

  func hasRoom(_ c: Client) -> Bool {
    let guests = c.coGuest.connectedCount
    return guests < c.liveSeat.packageLimit && guests < c.liveSeat.maxSeatCount
  }

  func move(_ c: inout Client) {
    let seats = c.liveSeat.seatList
    let guests = c.coGuest.connected
    guard !guests.isEmpty, seats.count > 1 else { return }
    let guest = guests[Int(c.random.next(below: UInt64(guests.count)))]
    let target = Int(c.random.next(below: UInt64(seats.count)))
    let policy = settings.movePolicies[Int(c.random.next(below: UInt64(settings.movePolicies.count)))]
    c.liveSeat.moveUserToSeat(userID: guest, targetIndex: target, policy: policy)
  }
}
