import Chaos
import Clients
import LiveStack
import Profiles
import Scenario
import SimKernel

/// What one event is about, for traces: its kind, the room and users it touches, and a detail.
public struct EventDescription: Sendable, Equatable {
  /// The event kind's name (`serverCall`, `clientNotice`, …).
  public var kind: String
  /// The room it concerns, if one.
  public var room: UInt32?
  /// The users it touches: the acting or receiving user first.
  public var users: [UInt32]
  /// The co-guest request it concerns, if one.
  public var request: UInt32?
  /// One readable line: the SDK call, the event delivered, the timer.
  public var detail: String
  /// Whether it happens on the server (otherwise on a client's phone).
  public var onServer: Bool

  /// Whether the event touches `room` (directly, or through a user of that room) or `user`.
  public func touches(rooms: Set<UInt32>, users wanted: Set<UInt32>, homeRoom: (UInt32) -> UInt32) -> Bool {
    if let room, rooms.contains(room) { return true }
    for u in users {
      if wanted.contains(u) || rooms.contains(homeRoom(u)) { return true }
    }
    return false
  }
}

extension LiveWorld {
  /// Describes `event` and the deliveries to the same user at the same instant that it leads,
  /// handled right behind it in its event (docs/DESIGN.md, "Fewer events"), each as its own.
  public func describeWithFollowers(_ e: Event) -> [EventDescription] {
    let kind = e.kind
    guard kind == LiveEvent.clientReply.rawValue || kind == LiveEvent.clientNotice.rawValue else {
      return [describe(e)]
    }
    return [describe(e)] + batches.followers(ledBy: e).map(describe)
  }

  /// Describes `event` as it is about to be handled (slots it refers to are still live).
  public func describe(_ e: Event) -> EventDescription {
    guard let kind = LiveEvent(rawValue: e.kind) else {
      return EventDescription(
        kind: "unknown(\(e.kind))", room: nil, users: [], request: nil, detail: "", onServer: true)
    }
    let name = String(describing: kind)
    func home(_ u: UInt32) -> UInt32 { layout.homeRoom[Int(u)] }
    switch kind {
    case .clientStart, .applyIntent:
      return .init(kind: name, room: home(e.a), users: [e.a], request: nil, detail: name, onServer: false)
    case .loginEnded:
      let what = LoginEvent(rawValue: UInt8(truncatingIfNeeded: e.b)).map { "\($0)" } ?? "?"
      return .init(
        kind: name, room: home(e.a), users: [e.a], request: nil, detail: "login ended: \(what)", onServer: true)
    case .arrival:
      return .init(
        kind: name, room: e.a, users: [e.b], request: nil, detail: "arrives; app starts", onServer: false)
    case .serverCall, .serverServed, .serviceTimeout, .clientReply, .deviceReply:
      let op = inFlight.ops[Int(e.a)]
      var users = [op.user]
      if Self.takesTarget(op.kind) { users.append(op.target) }
      var detail = "\(op.kind)"
      if op.kind.hasCalleeList && kind == .serverCall {
        let callees = runtime.callLists.peek(op.calleeList)
        users += callees
        detail += " " + callees.map { "user \($0)" }.joined(separator: ", ")
      }
      if op.kind == .joinCall { detail += " call \(op.joinedCall)" }
      if Self.takesTarget(op.kind) { detail += " user \(op.target)" }
      if op.seat >= 0
        && [.takeSeat, .lockSeat, .unlockSeat, .moveUserToSeat, .applyForSeat, .inviteToSeat].contains(op.kind)
      {
        detail += " seat \(op.seat)"
      }
      if op.kind == .moveUserToSeat { detail += " \(op.policy.name)" }
      if kind == .clientReply {
        detail += WireTag.error(ofReply: e.b).map { " → \($0.name) (\($0.rawValue))" } ?? " → ok"
      }
      return .init(
        kind: name, room: home(op.user), users: users, request: nil, detail: detail, onServer: kind == .serverCall)
    case .clientNotice:
      guard let notice = network.notice(e.a) else {
        return .init(kind: name, room: nil, users: [], request: nil, detail: "(freed)", onServer: false)
      }
      return describe(notice, name: name)
    case .clientTimer:
      let t = inFlight.timers[Int(e.b)]
      let named = behaviour(of: e.a).timerName(tag: t.tag).map { "\($0) (timer tag \(t.tag) arg \(t.arg))" }
      return .init(
        kind: name, room: home(e.a), users: [e.a], request: nil,
        detail: t.tag == appWorkTimerTag
          ? "app work (a queued block, asyncAfter, task step or sleep)" : named ?? "timer tag \(t.tag) arg \(t.arg)",
        onServer: false)
    case .requestTimeout:
      let r = server.seats.requests[Int(e.a)]
      var users = [r.guest]
      if let h = r.processedBy { users.append(h) }
      // A room's timeout line (b ≠ 0) was armed at this request's deadline; answered since, it
      // times out nothing of its own, and the line moves on to the next request still pending.
      let detail =
        e.b != 0 && r.state != .pending
        ? "room \(r.room)'s timeout timer, for \(r.kind) \(e.a) answered since: due requests still pending time out"
        : "\(r.kind) \(e.a) timeout"
      return .init(kind: name, room: r.room, users: users, request: e.a, detail: detail, onServer: true)
    case .coHostStart, .coHostEnd:
      return .init(
        kind: name, room: e.a, users: [], request: nil, detail: "\(name) rooms \(e.a) and \(e.a + 1)", onServer: true)
    case .broadcastSent:
      return .init(
        kind: name, room: e.a, users: [], request: nil, detail: "room \(e.a)'s seat-list broadcast leaves",
        onServer: true)
    case .broadcastRelease:
      return .init(
        kind: name, room: e.a, users: [], request: nil, detail: "room \(e.a) may broadcast again", onServer: true)
    case .broadcastSeen:
      return .init(
        kind: name, room: e.b, users: [e.a], request: nil,
        detail: "room \(e.b)'s seat-list broadcast reaches the viewer",
        onServer: false)
    case .flashCrowd, .sample:
      return .init(kind: name, room: nil, users: [], request: nil, detail: name, onServer: true)
    case .viewerApp:
      return .init(
        kind: name, room: nil, users: [e.a], request: nil,
        detail: e.b == 1 ? "the viewer's app enters the background" : "the viewer's app comes back", onServer: false)
    case .backgroundCheck:
      return .init(
        kind: name, room: nil, users: [e.a], request: nil, detail: "background camera check", onServer: false)
    case .otherDevice:
      let accepts = e.b & 1 << 31 != 0
      return .init(
        kind: name, room: nil, users: [e.a], request: nil,
        detail: "user \(e.a)'s other device \(accepts ? "answers" : "declines") call \(e.b & ~(1 << 31))",
        onServer: true)
    case .endByServer:
      let c = server.calls.calls[Int(e.a)]
      return .init(
        kind: name, room: nil, users: [c.caller] + c.callees, request: nil, detail: "the server ends call \(e.a)",
        onServer: true)
    case .busyDecline:
      return .init(
        kind: name, room: nil, users: [e.a], request: nil,
        detail: "user \(e.a)'s SDK, in another call, declines call \(e.b) as busy", onServer: true)
    case .callTimeout:
      let c = server.calls.calls[Int(e.a)]
      return .init(
        kind: name, room: nil, users: [c.caller] + c.callees, request: nil, detail: "call \(e.a) timeout",
        onServer: true)
    case .appLifecycle:
      // Traces describe it once handled (``describeLifecycle(_:before:)``); before, only what it is.
      return .init(kind: name, room: nil, users: [e.a], request: nil, detail: "app lifecycle step", onServer: false)
    case .pushDelivered:
      // The push word carries a malformation (if any) in its top bits.
      let (call, malformed) = PushMalformation.split(e.b)
      let note =
        switch malformed {
        case .noCallerName?: " (its payload lacks voip_caller_name)"
        case .badExt?: " (its ext is not JSON)"
        case nil: ""
        }
      return .init(
        kind: name, room: nil, users: [e.a], request: nil,
        detail: "VoIP push for call \(call) reaches the phone\(note)",
        onServer: false)
    case .appLaunched:
      return .init(
        kind: name, room: nil, users: [e.a], request: nil,
        detail: e.b == 0 ? "app launched by the user" : "cold start for call \(e.b - 1) done", onServer: false)
    case .reportDeadline:
      return .init(
        kind: name, room: nil, users: [e.a], request: nil, detail: "report deadline of push \(e.b)", onServer: false)
    case .tokenIssued, .tokenRotated:
      return .init(kind: name, room: nil, users: [e.a], request: nil, detail: name, onServer: false)
    case .systemTap:
      return .init(
        kind: name, room: nil, users: [e.a], request: nil, detail: "user taps the system UI of conversation \(e.b)",
        onServer: false)
    case .actionTimeout:
      let who = phoneOS?.pendingAction(e.a)
      return .init(
        kind: name, room: nil, users: who.map { [$0.phone] } ?? [], request: nil, detail: "action \(e.a) timeout",
        onServer: false)
    case .cellularCall:
      return .init(
        kind: name, room: nil, users: [e.a], request: nil,
        detail: e.b == 1 ? "a cellular call starts" : "the cellular call ends", onServer: false)
    case .hostReenter:
      return .init(
        kind: name, room: home(e.a), users: [e.a], request: nil, detail: "the host leaves the room and enters it again",
        onServer: false)
    case .audienceRejoin:
      return .init(
        kind: name, room: home(e.a), users: [e.a], request: nil,
        detail: "the seated viewer's SDK enters the room again", onServer: false)
    case .sdkRejoin:
      return .init(
        kind: name, room: home(e.a), users: [e.a], request: nil,
        detail: "the SDK tries again to enter the room its re-entry got no answer for", onServer: false)
    case .presenceLost:
      return .init(
        kind: name, room: home(e.a), users: [e.a], request: nil,
        detail: "the server drops a member whose heartbeat stopped", onServer: true)
    case .systemAction:
      return .init(
        kind: name, room: nil, users: [e.a], request: nil, detail: "the user starts a conversation in the system UI",
        onServer: false)
    case .conversationCheck:
      return .init(
        kind: name, room: nil, users: [e.a], request: nil, detail: "conversation check for call \(e.b)",
        onServer: false)
    case .appStart:
      return .init(
        kind: name, room: nil, users: [e.a], request: nil,
        detail: "the system hands the app the Start action \(e.b) it asked for", onServer: false)
    case .pushServed:
      let push = desk.pushes[Int(e.a)]
      return .init(
        kind: name, room: nil, users: [push.user], request: nil,
        detail: "push backend sends the push of call \(push.call)",
        onServer: true)
    case .uiCheck:
      return .init(
        kind: name, room: nil, users: [], request: nil, detail: "the UI oracles compare app UIs with the server",
        onServer: false)
    }
  }

  static func takesTarget(_ k: OperationKind) -> Bool {
    switch k {
    case .acceptApplication, .rejectApplication, .inviteToSeat, .cancelInvitation, .acceptInvitation, .rejectInvitation,
      .kickUserOutOfSeat, .moveUserToSeat:
      return true
    default:
      return false
    }
  }

  /// A phone app's lifecycle step, once handled, by what it did: from the app's state `before`
  /// the step to its state now.
  public func describeLifecycle(_ e: Event, before: AppState?) -> EventDescription {
    let detail: String
    if e.b == PhoneFleet.movedEpoch {
      return .init(
        kind: "appLifecycle", room: nil, users: [e.a], request: nil,
        detail: "the app hears that it went to the background (didEnterBackgroundNotification)", onServer: false)
    }
    switch (before, phoneOS?.appState(e.a)) {
    case (.foreground, .background): detail = "app left the foreground (the user went to the home screen)"
    case (.foreground, .killed): detail = "app swiped away by the user: its process ended"
    case (.background, .foreground): detail = "app came to the foreground"
    case (.background, .killed): detail = "app killed by the system (suspended too long)"
    case (.background, .background): detail = "app stays in the background, kept running by its call"
    case (.killed, .foreground): detail = "app opened again by the user (a cold start)"
    case (.killed, .background): detail = "app launched in the background"
    default: detail = "app lifecycle step superseded by a later one: nothing happened"
    }
    return .init(kind: "appLifecycle", room: nil, users: [e.a], request: nil, detail: detail, onServer: false)
  }

  /// An SDK event as a trace says it: its case and values, without the module's name before
  /// the enums inside it (`reason: timeout`, not `reason: LiveStack.NoResponseReason.timeout`).
  static func spelled(_ event: Any) -> String {
    var text = "\(event)"
    while let r = text.range(of: "LiveStack.") {
      // "LiveStack.NoResponseReason.timeout" → "timeout": the module and the type go.
      let rest = text[r.upperBound...]
      if let dot = rest.firstIndex(of: "."), !rest[..<dot].contains(where: { !$0.isLetter && !$0.isNumber }) {
        text.removeSubrange(r.lowerBound...dot)
      } else {
        text.removeSubrange(r)
      }
    }
    return text
  }

  func describe(_ n: Notice, name: String) -> EventDescription {
    func home(_ u: UInt32) -> UInt32 { layout.homeRoom[Int(u)] }
    switch n {
    case .guest(let u, let event, let request):
      var users = [u]
      switch event {
      case .onHostInvitationReceived(let h), .onHostInvitationCancelled(let h), .onGuestApplicationResponded(_, let h),
        .onKickedOffSeat(_, let h):
        if h != .max { users.append(h) }
      case .onGuestApplicationNoResponse:
        break
      }
      return .init(
        kind: name, room: home(u), users: users, request: request == .max ? nil : request, detail: Self.spelled(event),
        onServer: false)
    case .host(let u, let event, let request):
      var users = [u]
      switch event {
      case .onGuestApplicationReceived(let g), .onGuestApplicationCancelled(let g),
        .onHostInvitationResponded(_, let g),
        .onHostInvitationNoResponse(let g, _):
        users.append(g)
      case .onGuestApplicationProcessedByOtherHost(let g, let h):
        users += [g, h]
      }
      return .init(
        kind: name, room: home(u), users: users, request: request, detail: Self.spelled(event), onServer: false)
    case .applicantRemoved(let h, let g):
      return .init(
        kind: name, room: home(h), users: [h, g], request: nil, detail: "applicants - \(g)", onServer: false)
    case .inviteeRemoved(let h, let g):
      return .init(kind: name, room: home(h), users: [h, g], request: nil, detail: "invitees - \(g)", onServer: false)
    case .invitationRemoved(let g, let h):
      return .init(
        kind: name, room: home(g), users: [g, h], request: nil, detail: "invitation from \(h) gone", onServer: false)
    case .seats(let u, let slot):
      let batch = server.batch(slot)
      var users = [u]
      var parts: [String] = []
      for i in 0..<batch.count {
        let c = batch[i]
        if c.user != u { users.append(c.user) }
        parts.append("\(c.seated ? "+" : "-")\(c.user)@\(c.seat)")
      }
      return .init(
        kind: name, room: home(u), users: users, request: nil, detail: "seats " + parts.joined(separator: " "),
        onServer: false)
    case .liveEnded(let u):
      return .init(kind: name, room: home(u), users: [u], request: nil, detail: "onLiveEnded", onServer: false)
    case .login(let u, let event):
      return .init(kind: name, room: home(u), users: [u], request: nil, detail: Self.spelled(event), onServer: false)
    case .call(let u, let event):
      var users = [u]
      if case .ended(_, _, _, let other) = event, other != u { users.append(other) }
      return .init(kind: name, room: nil, users: users, request: nil, detail: Self.spelled(event), onServer: false)
    }
  }
}

extension LiveWorld {
  /// The behaviour that plays `user` (a phone's, or its role's), whose timers a trace names.
  fileprivate func behaviour(of user: UInt32) -> any ClientBehavior {
    if let phone, layout.isPhone(user) { return phone }
    let role = layout.role(of: user)
    return role == .audience ? audience : role == .owner ? host : admin
  }
}
