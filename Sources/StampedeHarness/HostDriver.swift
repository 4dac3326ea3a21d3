import AtomicXCore
import Clients
import LiveStack
import SimKernel
import VirtualPlatform

/// Drives a ``HostApp`` (owners and admins).
///
/// The person at the screen reviews `host.reviewAtOnce` applications at a time (one by default),
/// each for a think time, then taps accept or reject; the app's own UI picks which applicant the
/// tap answers (so `reviewOrder` and `reviewClaims`, which describe the built-in host's screen, do
/// not apply). The wait for review is measured to the application at the top of the list when
/// the reviewer takes one up.
final class HostDriver<Objects>: Driver<Objects> {
  let app: HostApp<Objects>
  let settings: HostSettings
  /// Per user: the applications this reviewer has in hand.
  @exclusivity(unchecked) var inHand: [UInt16]
  /// Per user: which guest each review in hand was measured against.
  @exclusivity(unchecked) var measuredGuests: [[UInt32]]

  init(app: HostApp<Objects>, settings: HostSettings, harness: Harness) {
    self.app = app
    self.settings = settings
    inHand = [UInt16](repeating: 0, count: harness.userCount)
    measuredGuests = [[UInt32]](repeating: [], count: harness.userCount)
    super.init(harness: harness)
  }

  /// Takes up listed applications while this reviewer has a free hand.
  func takeUp(_ user: UInt32, host: AppHost) {
    guard let atOnce = settings.reviewAtOnce else { return }
    let slot = Int(host.runtime.clients[Int(user)].staffSlot)
    guard slot >= 0 else { return }
    let listed = host.runtime.applicants[slot]
    while Int(inHand[Int(user)]) < atOnce && listed.count > Int(inHand[Int(user)]) {
      let guest = listed.first { !measuredGuests[Int(user)].contains($0) } ?? listed[0]
      inHand[Int(user)] += 1
      measuredGuests[Int(user)].append(guest)
      host.client(user).reviewStarted(guest)
      schedule(.decide, after: harness.sample(settings.thinkTime), user: user, host: host)
    }
  }

  override func start(_ c: inout Client) {
    let role: UserContext.Role = c.role == .owner ? .host : .admin
    enterRoom(&c) { [unowned self] host in
      let user = host.user
      setObjects(onMainActor { app.make(context(user, role: role)) }, of: user)
      if let every = settings.inviteEvery, app.invite != nil {
        schedule(.invite, after: harness.sample(every), user: user, host: host)
      }
      // The seat taps the built-in host makes, on the same profile settings.
      if let every = settings.kickEvery, app.kick != nil {
        schedule(.kick, after: harness.sample(every), user: user, host: host)
      }
      if let every = settings.lockEvery, app.lock != nil {
        schedule(.lock, after: harness.sample(every), user: user, host: host)
      }
      if let every = settings.moveEvery, app.move != nil {
        schedule(.move, after: harness.sample(every), user: user, host: host)
      }
      if role == .host, let after = settings.endLiveAfter, app.endLive != nil {
        schedule(.endLive, after: harness.sample(after), user: user, host: host)
      }
    }
  }

  /// The guest seats of `user`'s room (the owner's own seat left out).
  func guestSeats(_ user: UInt32, host: AppHost) -> Range<Int>? {
    guard let room = roomOf(user) else { return nil }
    let settings = host.runtime.rooms[Int(room)]
    return settings.firstGuestSeat..<settings.seatCount
  }

  /// The guests `user`'s seat list shows, as its UI lists them.
  func seatedGuests(_ user: UInt32, host: AppHost) -> [UInt32] {
    let slot = Int(host.runtime.clients[Int(user)].staffSlot)
    guard slot >= 0, let seats = guestSeats(user, host: host) else { return [] }
    let view = host.runtime.seatView[slot]
    return seats.compactMap { $0 < view.count && view[$0] != 0 ? view[$0] - 1 : nil }
  }

  /// Reads the applications list the app shows, when it has a probe for it.
  override func settle(_ user: UInt32, host: AppHost) {
    guard let probe = app.applicants, let box = objects(of: user) else { return }
    let shown = onMainActor { probe(box.value) }
    host.runtime.ui.setShownApplicants(user, shown.map { VirtualIDs.user($0) ?? .max })
  }

  override func heard(_ callback: ClientCallback, user: UInt32, host: AppHost) {
    if case .hostEvent(.onGuestApplicationReceived) = callback {
      if settings.reviewAtOnce == nil {
        schedule(.decide, after: harness.sample(settings.thinkTime), user: user, host: host)
      } else {
        takeUp(user, host: host)
      }
    }
  }

  override func tap(_ tap: Tap, arg: UInt32, user: UInt32, host: AppHost) {
    if tap == .decide && settings.reviewAtOnce != nil && inHand[Int(user)] > 0 {
      inHand[Int(user)] -= 1
      if !measuredGuests[Int(user)].isEmpty {
        host.client(user).reviewEnded(measuredGuests[Int(user)].removeFirst())
      }
    }
    // A host or admin whose session ended (kicked offline, the login expired, the live ended)
    // taps nothing more: its screens are closed.
    guard let box = objects(of: user), host.runtime.clients[Int(user)].status != .left else { return }
    let o = box.value
    switch tap {
    case .decide:
      if harness.chance(settings.acceptProbability) {
        onMainActor { app.accept?(o) }
      } else {
        onMainActor { app.reject?(o) }
      }
      takeUp(user, host: host)
    case .invite:
      guard let every = settings.inviteEvery, let room = roomOf(user) else { return }
      let range = host.runtime.audienceRange[Int(room)]
      if !range.isEmpty {
        // Any member of the room, as the audience list shows them: seated, applying or invited
        // ones too.
        let guest = range.lowerBound + UInt32(harness.random.next(below: UInt64(range.count)))
        if host.runtime.clients[Int(guest)].joinedRoom == room + 1 {
          onMainActor { app.invite?(o, VirtualIDs.userID(guest)) }
        }
      }
      schedule(.invite, after: harness.sample(every), user: user, host: host)
    case .kick:
      guard let every = settings.kickEvery else { return }
      let guests = seatedGuests(user, host: host)
      if !guests.isEmpty {
        let guest = guests[Int(harness.random.next(below: UInt64(guests.count)))]
        onMainActor { app.kick?(o, VirtualIDs.userID(guest)) }
      }
      schedule(.kick, after: harness.sample(every), user: user, host: host)
    case .lock:
      guard let every = settings.lockEvery, let seats = guestSeats(user, host: host), !seats.isEmpty else { return }
      let seat = seats.lowerBound + Int(harness.random.next(below: UInt64(seats.count)))
      onMainActor { app.lock?(o, seat) }
      schedule(.unlock, after: harness.sample(settings.lockFor), user: user, arg: UInt32(seat), host: host)
      schedule(.lock, after: harness.sample(every), user: user, host: host)
    case .unlock:
      onMainActor { app.unlock?(o, Int(arg)) }
    case .endLive:
      onMainActor { app.endLive?(o) }
    case .move:
      guard let every = settings.moveEvery else { return }
      let guests = seatedGuests(user, host: host)
      if let seats = guestSeats(user, host: host), !guests.isEmpty, seats.count > 1 {
        let guest = guests[Int(harness.random.next(below: UInt64(guests.count)))]
        let target = seats.lowerBound + Int(harness.random.next(below: UInt64(seats.count)))
        onMainActor { app.move?(o, VirtualIDs.userID(guest), target) }
      }
      schedule(.move, after: harness.sample(every), user: user, host: host)
    default: break
    }
  }
}
