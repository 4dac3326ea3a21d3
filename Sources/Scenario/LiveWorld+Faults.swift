import Chaos
import Clients
import LiveStack
import SimKernel

extension LiveWorld {
  /// A rate fault at an opportunity for `user`: whether it fires now. Chaos decides; the world
  /// counts the injection.
  @inline(__always)
  mutating func fires(_ kind: FaultKind, user: UInt32, _ now: SimInstant) -> Bool {
    guard chaos.fires(kind, user: user, now) else { return false }
    metrics.counters.add(faultCounters[kind.index])
    return true
  }

  /// The active window of `kind` covering `user` now, if any; counts the injection.
  @inline(__always)
  mutating func window(_ kind: FaultKind, user: UInt32, _ now: SimInstant, service: FaultService = .all)
    -> FaultWindow?
  {
    guard let w = chaos.window(kind, user: user, now, service: service) else { return nil }
    metrics.counters.add(faultCounters[kind.index])
    return w
  }

  /// The service an SDK call belongs to, for outages and slowdowns.
  static func service(of kind: OperationKind) -> FaultService {
    switch kind {
    case .login, .logout, .tuiLogin, .setVOIP: return .login
    case .placeCall, .acceptCall, .rejectCall, .hangupCall, .joinCall: return .calls
    default: return .seats
    }
  }

  /// A domain fault's rate draw for the ring of `call` at `callee` (app backgrounded, caller
  /// cancelling at once).
  mutating func ringFaults(callee: UInt32, call: UInt32, _ scheduler: inout Scheduler) {
    guard chaos.isOn(.callCancelLate), fires(.callCancelLate, user: callee, scheduler.now) else { return }
    let caller = server.calls.calls[Int(call)].caller
    guard server.calls.call(of: caller) == call else { return }
    inject(
      .system(caller, .hangupCall, at: scheduler.now), &scheduler)
  }

  /// Sends an SDK call on a client's behalf (what its user did in the UI, or another device), past
  /// the usage checks: it reaches the server like any other.
  mutating func inject(_ op: PendingOperation, _ scheduler: inout Scheduler) {
    let slot = inFlight.allocate(op, generation: generation(of: op.user))
    scheduler.schedule(at: fifo(downlink: false, op.user, scheduler.now), event(.serverCall, slot))
  }

  /// Opportunity for session faults after a successful login: the server may end it later.
  mutating func loginFaults(_ user: UInt32, _ scheduler: inout Scheduler) {
    for kind in [FaultKind.loginKickedOffline, .loginExpired]
    where chaos.isOn(kind) && fires(kind, user: user, scheduler.now) {
      let after = SimDuration(nanoseconds: 10_000_000_000 + Int64(chaos.draw(below: 590_000_000_000)))
      let event: LoginEvent = kind == .loginKickedOffline ? .kickedOffline : .loginExpired
      scheduler.schedule(after: after, self.event(.loginEnded, user, UInt32(event.rawValue)))
    }
  }

  /// The fault coverage of the run: every configured kind with its injections.
  public var faultCoverage: [(kind: FaultKind, injected: UInt64)] {
    chaos.configured.map { ($0, metrics.counters.value("fault.\($0.rawValue)") ?? 0) }
  }

  /// `audience.rejoin` at a viewer taking a seat: later, its SDK enters the room again.
  mutating func seatedFaults(_ guest: UInt32, _ scheduler: inout Scheduler) {
    guard chaos.isOn(.audienceRejoin), layout.role(of: guest) == .audience, !layout.isPhone(guest),
      fires(.audienceRejoin, user: guest, scheduler.now)
    else { return }
    let after = SimDuration.seconds(5 + Int64(chaos.draw(below: 115)))
    scheduler.schedule(after: after, event(.audienceRejoin, guest))
  }

  /// The viewer's SDK joins its room again, if it is still seated and in the room.
  mutating func audienceRejoin(_ user: UInt32, _ scheduler: inout Scheduler) {
    let u = Int(user)
    guard server.seats.seat(of: user) != nil, runtime.clients[u].joinedRoom != 0, runtime.clients[u].loggedIn else {
      return
    }
    inject(
      .system(user, .joinLive, at: scheduler.now), &scheduler)
  }

  /// `host.reenter`: the host's SDK leaves the room and joins it again (both calls reach the server
  /// like any other), if the live is still on.
  mutating func hostReenter(_ user: UInt32, _ scheduler: inout Scheduler) {
    guard runtime.clients[Int(user)].joinedRoom != 0, runtime.clients[Int(user)].loggedIn else { return }
    for kind in [OperationKind.leaveLive, .joinLive] {
      inject(
        .system(user, kind, at: scheduler.now), &scheduler)
    }
  }
}
