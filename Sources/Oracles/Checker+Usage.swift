import Clients
import LiveStack
import SimKernel

/// Usage of the SDK: the calls a client makes and the events it leaves unheard.
extension Checker {
  /// A client makes SDK call `op`: devices opened once, `disConnect()` only by guests,
  /// applications answered only while listed, `calls()` only when logged in and to valid callees.
  public mutating func observeCall(_ op: PendingOperation, runtime: ClientRuntime, layout: Layout, at now: SimInstant) {
    switch op.kind {
    case .inviteToSeat:
      let slot = Int(runtime.clients[Int(op.user)].staffSlot)
      guard slot >= 0 else { break }
      let shows =
        runtime.seatView[slot].contains(op.target + 1)
        ? "seated" : runtime.applicants[slot].contains(op.target) ? "applying" : nil
      if let shows {
        log.record(
          .inviteIdleOnly, at: now, entities: ["user:\(op.user)", "user:\(op.target)"],
          "user \(op.user) invited user \(op.target)\(runtime.siteNote(op)), whom its own SDK shows \(shows)")
      }
    case .unlockSeat:
      if layout.role(of: op.user) != .audience {
        observeUnlock(room: layout.homeRoom[Int(op.user)], seat: Int(op.seat), sent: true, at: now)
      }
    case .openLocalMicrophone, .openLocalCamera:
      let device: CaptureDevice = op.kind == .openLocalMicrophone ? .microphone : .camera
      let u = Int(op.user)
      let bit = UInt8(1) << device.rawValue
      devicesOpening.grow(toInclude: u, filling: 0)
      if runtime.isOn(device, user: op.user) || devicesOpening[u] & bit != 0 {
        log.record(
          .openedOnce, at: now, entities: ["user:\(op.user)"],
          "user \(op.user) opened its \(device)\(runtime.siteNote(op)) while it was already \(runtime.isOn(device, user: op.user) ? "on" : "opening")"
        )
      }
      devicesOpening[u] |= bit
    case .placeCall:
      let callees = runtime.callLists.peek(op.calleeList)
      var why: String?
      if !runtime.clients[Int(op.user)].loggedIn {
        why = "before its SDK was logged in"
      } else if callees.isEmpty || callees.contains(op.user) || callees.count + 1 > CallService.maxParticipants
        || callees.contains(where: { Int($0) >= layout.totalUsers }) || callees.hasDuplicates
      {
        why = "with an invalid list: \(callees)"
      }
      if let why {
        log.record(
          .callValidUse, at: now, entities: ["user:\(op.user)"],
          "user \(op.user) called calls()\(runtime.siteNote(op)) \(why)")
      }
    case .inviteToCall where runtime.clients[Int(op.user)].callState != .accept:
      let state = runtime.clients[Int(op.user)].callState == .waiting ? "a call that still rings" : "no call"
      log.record(
        .callValidUse, at: now, entities: ["user:\(op.user)"],
        "user \(op.user) called invite()\(runtime.siteNote(op)) while its SDK shows \(state), not a connected one")
    case .hangupCall where op.armedWhileRinging != 0 && runtime.clients[Int(op.user)].callState == .accept:
      // Delayed work armed while the call rang, or was being placed, hangs it up once connected,
      // and its person never asked to end it.
      let call = runtime.clients[Int(op.user)].call
      guard op.armedWhileRinging == call || op.armedWhileRinging == .max else { break }
      if let tapped = runtime.endTapped[op.user], tapped == call || tapped == .max { break }
      log.record(
        .noStaleRingTimer, at: now, entities: ["user:\(op.user)", "call:\(call - 1)"],
        "user \(op.user) hung up its connected call \(call - 1)\(runtime.siteNote(op)) from delayed work (a timer, asyncAfter, a sleep) armed while the call \(op.armedWhileRinging == .max ? "was being placed" : "still rang"), and its user never tapped to end it: a timer armed before the call connected (a ring timeout) not cancelled when it did"
      )
    case .disConnect where layout.role(of: op.user) != .audience && !layout.isPhone(op.user):
      log.record(
        .disconnectByGuest, at: now, entities: ["user:\(op.user)", "room:\(layout.homeRoom[Int(op.user)])"],
        "\(layout.role(of: op.user)) \(op.user) called disConnect()\(runtime.siteNote(op)), which leaves the caller's own seat and removes no guest"
      )
    case .acceptApplication, .rejectApplication:
      let slot = Int(runtime.clients[Int(op.user)].staffSlot)
      if slot >= 0 && !runtime.applicants[slot].contains(op.target) {
        log.record(
          .answerListedApplicant, at: now,
          entities: ["user:\(op.user)", "user:\(op.target)", "room:\(layout.homeRoom[Int(op.user)])"],
          "user \(op.user) answered user \(op.target)'s application\(runtime.siteNote(op)), which its SDK no longer lists"
        )
      }
    default:
      break
    }
  }

  /// App code's uses of the platform outside every virtual user's code so far (the run went on:
  /// the work was dropped, or got a stand-in), taken from `runtime`, each at its time.
  /// Also the platform contracts app code broke (``ClientRuntime/appContractBroken``).
  public mutating func observeOutsideUser(_ runtime: ClientRuntime) {
    if !runtime.appContractBroken.isEmpty {
      for broken in runtime.appContractBroken {
        log.record(
          .appPlatformContract, at: SimInstant(nanoseconds: broken.timeNs),
          entities: broken.user == .max ? [] : ["user:\(broken.user)"],
          "\(broken.user == .max ? "app code" : "user \(broken.user)'s code") broke a platform contract: \(broken.what)"
        )
      }
      runtime.appContractBroken.removeAll()
    }
    if !runtime.appCrashes.happened.isEmpty {
      for (timeNs, crash) in runtime.appCrashes.happened {
        log.record(
          .appCrashFree, at: SimInstant(nanoseconds: timeNs), entities: ["user:\(crash.user)"],
          "user \(crash.user)'s app crashed, and its process died: \(crash.detail)")
      }
      runtime.appCrashes.happened.removeAll()
    }
    guard !runtime.appOutsideUser.isEmpty else { return }
    for use in runtime.appOutsideUser {
      log.record(
        .appInsideUser, at: SimInstant(nanoseconds: use.timeNs), entities: [],
        "app code outside a virtual user: \(use.what) (on a thread of its own, or in the release of an object that no user's code let go of)"
      )
    }
    runtime.appOutsideUser.removeAll()
  }

  /// The phone answered `user`'s open call for `device` (the device is no longer opening).
  public mutating func observeDeviceAnswered(user: UInt32, _ device: CaptureDevice) {
    if Int(user) < devicesOpening.count { devicesOpening[Int(user)] &= ~(UInt8(1) << device.rawValue) }
  }

  /// `notice` reached `user` (a viewer if `audience`, a phone user if `phone`), subscribed to
  /// `subscribed`: an event its role must hear (``requiredStream(_:audience:phone:)``) needs a
  /// handler. Not held against the app: one whose objects are not made yet
  /// (``Subscriptions/appStarting``) or whose process crashed (``Subscriptions/appGone``), or one
  /// that unsubscribed as it left its room (its SDK out of
  /// it, `inRoom` false, or `leaving` it: read only when a violation is at stake).
  @inline(__always)
  public mutating func observeDelivery(
    _ notice: Notice, to user: UInt32, audience: Bool, phone: Bool, subscribed: Subscriptions, inRoom: Bool,
    leaving: @autoclosure () -> Bool, at now: SimInstant
  ) {
    guard let stream = Checker.requiredStream(notice, audience: audience, phone: phone),
      !subscribed.contains(stream), subscribed.isDisjoint(with: [.appStarting, .appGone])
    else { return }
    if notice.isSignalling && (!inRoom || leaving()) { return }
    log.record(
      .eventsHeard, at: now, entities: ["user:\(user)"],
      "an event for \(stream.name) reached user \(user), which has no handler subscribed to it")
  }

  /// The stream a client must be subscribed to for `notice` (nil: none required): only the events
  /// its role must hear to stay correct. A viewer (`audience`) must hear its co-guest events (the
  /// answers to its application, kicks, invitations), staff the applications and answers of the
  /// host events, a phone user (`phone`) its calls. The seat list, the login and the live's end
  /// are state the SDK keeps whether or not code listens: an app may read them when it wants.
  public static func requiredStream(_ notice: Notice, audience: Bool, phone: Bool) -> Subscriptions? {
    switch notice {
    case .guest: return audience ? .guestEvents : nil
    case .host: return .hostEvents
    case .call: return phone ? .callEvents : nil
    case .seats, .login, .liveEnded, .applicantRemoved, .inviteeRemoved, .invitationRemoved: return nil
    }
  }
}
