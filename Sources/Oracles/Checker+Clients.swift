import Clients
import LiveStack
import SimKernel

/// Clients: what a client shows and captures against what its own SDK knows, after every
/// callback.
extension Checker {
  /// A client finished handling an event (and its commands ran). `sawOwnLeave` says the event told
  /// it that it left its seat; `inCall` that its SDK is in an accepted call (which may capture).
  @inlinable
  public mutating func observeClient(
    user: UInt32, status: CoGuestStatus, seenSeat: Int?, captureOn: Bool, inCall: Bool = false, sawOwnLeave: Bool,
    probedUI: Bool = false, devices: @autoclosure () -> StaticString = "a capture device", at now: SimInstant
  ) {
    // An app's own UI passes through states the built-in clients name (it may show "applying"
    // while its devices open): it is judged after a settle time instead (`Checker+UI`).
    // (Inlined: it runs after every client callback, and nearly always finds nothing.)
    guard !probedUI else { return }
    if status == .applying && seenSeat != nil {
      recordApplyingWhileSeated(user: user, seat: seenSeat!, at: now)
    }
    if captureOn && !inCall && (sawOwnLeave || (status != .connecting && status != .connected)) {
      recordCaptureOff(user: user, status: status, sawOwnLeave: sawOwnLeave, devices: devices(), at: now)
    }
  }

  @usableFromInline
  mutating func recordApplyingWhileSeated(user: UInt32, seat: Int, at now: SimInstant) {
    log.record(
      .notApplyingWhileSeated, at: now, entities: ["user:\(user)"],
      "user \(user) shows \"applying\" while its seat list shows it on seat \(seat)")
  }

  @usableFromInline
  mutating func recordCaptureOff(
    user: UInt32, status: CoGuestStatus, sawOwnLeave: Bool, devices: StaticString, at now: SimInstant
  ) {
    log.record(
      .captureOnlyWhileSeated, at: now, entities: ["user:\(user)"],
      sawOwnLeave
        ? "user \(user) kept its \(devices) on after its seat list showed it left the seat"
        : "user \(user) has its \(devices) on while \(status.name)")
  }
}

extension Checker {
  /// `client.view-matches-server` for a viewer's whole seat list, sampled while the run goes on:
  /// `seen` is the list the viewer's SDK shows once every change reached it, `server` the
  /// server's, both without the viewer's own seat (occupant + 1 per seat).
  public mutating func observeViewerSeatList(
    user: UInt32, room: UInt32, seen: [UInt32], server: [UInt32], at now: SimInstant
  ) {
    guard seen != server else { return }
    log.record(
      .viewMatchesServer, at: now, entities: ["user:\(user)", "room:\(room)"],
      "viewer \(user)'s seat list shows \(Checker.occupants(seen)) but the server has \(Checker.occupants(server))")
  }

  /// `client.view-matches-server`, sampled while the run goes on: in each room, one viewer in turn
  /// (the `k`th, cycling) that is in the room and whom every change has reached must see the
  /// others' seats as the server has them (its own seat is judged by its own messages, at the end
  /// of the run). The seat service is read in place: a copy would retain each of its tables.
  public mutating func checkViewerLists(
    sample k: Int, layout: Layout, seats: SeatService, feed: RoomFeed, runtime: ClientRuntime, at now: SimInstant
  ) {
    for room in 0..<UInt32(layout.rooms) {
      let audience = layout.audience(of: room)
      guard !audience.isEmpty else { continue }
      let u = audience.lowerBound + UInt32(k % audience.count)
      guard runtime.clients[Int(u)].joinedRoom == room + 1, seats.room(of: u) == room,
        feed.isSettled(room: room, viewer: u, now: now)
      else { continue }
      let me = u + 1
      // The server's list as the feed lists it (occupant + 1 per seat).
      func truth(_ seat: Int) -> UInt32 { seats.occupant(room: room, seat: seat).map { $0 + 1 } ?? 0 }
      guard !feed.viewAgrees(room: room, viewer: u, now: now, ignoring: me, truth: truth) else { continue }
      let seen = feed.view(room: room, viewer: u, now: now).map { $0 == me ? 0 : $0 }
      let all = (0..<seats.settings[Int(room)].seatCount).map { truth($0) == me ? 0 : truth($0) }
      observeViewerSeatList(user: u, room: room, seen: seen, server: all, at: now)
    }
  }

  /// A seat list (occupant + 1 per seat) for messages: `[-, 12, -]`.
  static func occupants(_ list: [UInt32]) -> String {
    "[" + list.map { $0 == 0 ? "-" : String($0 - 1) }.joined(separator: ", ") + "]"
  }
}

extension Checker {
  /// How long a viewer's app may keep its camera on after entering the background.
  public static let backgroundCameraSettle = SimDuration.seconds(2)

  /// `user`'s app has been in the background since `since`: its camera must be closed by now.
  public mutating func observeBackgroundCamera(user: UInt32, cameraOn: Bool, since: SimInstant, at now: SimInstant) {
    guard cameraOn else { return }
    log.record(
      .cameraOffInBackground, at: now, entities: ["user:\(user)"],
      "user \(user)'s camera is still on \(now - since) after its app entered the background at \(since)")
  }
}
