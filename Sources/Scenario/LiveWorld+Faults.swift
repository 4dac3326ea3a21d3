import Clients
import LiveStack
import SimKernel

/// The faults of one run, resolved: the plan's entries by kind (swarm draws done), whether each
/// kind is on, and when chaos stops. Draws come from the `faults` stream only, and only when a
/// kind is configured, so faults never shift the clients' streams.
struct FaultState {
  /// Entries by kind index.
  var entries: [[FaultEntry]]
  /// Bit per kind index: configured.
  var bits: UInt32 = 0
  /// Faults act only before this instant (nanoseconds): the heal phase follows.
  var chaosEnd: Int64
  /// Counter index per kind (registered only for configured kinds).
  var counters: [Int]
  /// A salt for fraction targets.
  var salt: UInt64

  init(plan: FaultPlan, duration: SimDuration, streams: RandomStreams, metrics: inout LiveMetrics) {
    var resolved = plan.entries.filter { !$0.swarm }
    var swarmRandom = streams.stream("fault-swarm")
    if plan.swarm {
      resolved += FaultPlan.swarmEntries(&swarmRandom, from: [])
    }
    let perEntry = plan.entries.filter(\.swarm)
    if !perEntry.isEmpty { resolved += FaultPlan.swarmEntries(&swarmRandom, from: perEntry) }
    entries = [[FaultEntry]](repeating: [], count: FaultKind.allCases.count)
    counters = [Int](repeating: -1, count: FaultKind.allCases.count)
    for e in resolved where e.rate != .zero {
      entries[e.kind.index].append(e)
      bits |= 1 << UInt32(e.kind.index)
    }
    for k in FaultKind.allCases where bits & (1 << UInt32(k.index)) != 0 {
      counters[k.index] = metrics.counters.register("fault.\(k.rawValue)")
    }
    chaosEnd = plan.isEmpty ? 0 : duration.nanoseconds - plan.heal.nanoseconds
    var saltRandom = swarmRandom
    salt = saltRandom.next()
  }

  /// The kinds configured, in catalogue order.
  var configured: [FaultKind] { FaultKind.allCases.filter { bits & (1 << UInt32($0.index)) != 0 } }
}

extension LiveWorld {
  /// The bits of the kinds that act on every message.
  static let networkFaultBits: UInt32 =
    1 << UInt32(FaultKind.networkDelay.index) | 1 << UInt32(FaultKind.networkPartition.index)

  /// Whether fault `kind` is configured at all (a bit test; no draw).
  @inline(__always)
  func faultOn(_ kind: FaultKind) -> Bool { faults.bits & (1 << UInt32(kind.index)) != 0 }

  /// Whether `target` covers `user`.
  /// (Inlined: a call would copy the whole world to pass `self` from a mutating handler.)
  @inline(__always)
  func covers(_ target: FaultTarget, _ user: UInt32) -> Bool {
    switch target {
    case .all: return true
    case .users(let r): return r.contains(user)
    case .rooms(let r): return r.contains(layout.homeRoom[Int(user)])
    case .role(let role):
      if role == .phone { return layout.isPhone(user) }
      if layout.isPhone(user) { return false }
      switch layout.role(of: user) {
      case .audience: return role == .audience
      case .owner: return role == .owner
      case .admin: return role == .admin
      }
    case .fraction(let f):
      var mix = SplitMix64(seed: faults.salt ^ (UInt64(user) &* 0x9E37_79B9_7F4A_7C15))
      // Below numerator/denominator of the 32-bit range, compared exactly in integers.
      return (mix.next() >> 32) &* f.denominator < f.numerator << 32
    }
  }

  /// Records one injection of `kind`.
  mutating func injected(_ kind: FaultKind) { metrics.counters.add(faults.counters[kind.index]) }

  /// A rate fault at an opportunity for `user`: whether it fires now (drawn from the fault stream).
  mutating func fires(_ kind: FaultKind, user: UInt32, _ now: SimInstant) -> Bool {
    guard faultOn(kind), now.nanoseconds < faults.chaosEnd else { return false }
    let k = kind.index
    for i in faults.entries[k].indices {
      let target = faults.entries[k][i].target
      let rate = faults.entries[k][i].rate
      // A rate fault may also be limited to a window.
      let start = faults.entries[k][i].at?.nanoseconds ?? 0
      if now.nanoseconds < start { continue }
      if let d = faults.entries[k][i].duration, now.nanoseconds >= start + d.nanoseconds { continue }
      guard covers(target, user) else { continue }
      if faultRandom.chance(rate) {
        injected(kind)
        return true
      }
    }
    return false
  }

  /// The active window of `kind` covering `user` now, if any (drawing its rate when below 1).
  mutating func window(_ kind: FaultKind, user: UInt32, _ now: SimInstant, service: FaultService = .all)
    -> (extra: SimDuration, direction: FaultDirection, end: Int64, vanish: Bool)?
  {
    guard faultOn(kind), now.nanoseconds < faults.chaosEnd else { return nil }
    let k = kind.index
    for i in faults.entries[k].indices {
      let start = faults.entries[k][i].at?.nanoseconds ?? 0
      let end = min(faults.entries[k][i].duration.map { start + $0.nanoseconds } ?? faults.chaosEnd, faults.chaosEnd)
      guard now.nanoseconds >= start, now.nanoseconds < end else { continue }
      let entryService = faults.entries[k][i].service
      if entryService != .all && service != .all && entryService != service { continue }
      let target = faults.entries[k][i].target
      guard covers(target, user) else { continue }
      let rate = faults.entries[k][i].rate
      if rate != Ratio(1, 1)! && !faultRandom.chance(rate) { continue }
      injected(kind)
      return (faults.entries[k][i].extra, faults.entries[k][i].direction, end, faults.entries[k][i].vanish)
    }
    return nil
  }

  /// The service an SDK call belongs to, for outages and slowdowns.
  static func service(of kind: OperationKind) -> FaultService {
    switch kind {
    case .login, .logout, .tuiLogin, .setVOIP: return .login
    case .placeCall, .acceptCall, .rejectCall, .hangupCall, .joinCall: return .calls
    default: return .seats
    }
  }

  /// The network's say on a message's delivery time `t` (ns) to (`downlink`) or from `user`.
  mutating func networkFaults(_ t: Int64, downlink: Bool, _ user: UInt32, _ now: SimInstant) -> Int64 {
    var t = t
    if faultOn(.networkDelay), let w = window(.networkDelay, user: user, now) { t += w.extra.nanoseconds }
    if faultOn(.networkPartition), let w = window(.networkPartition, user: user, now),
      w.direction == .both || (w.direction == .down) == downlink
    {
      // The transport is reliable: the message waits for the partition to heal.
      t = max(t, w.end)
    }
    return t
  }

  /// A domain fault's rate draw for the ring of `call` at `callee` (app backgrounded, caller
  /// cancelling at once).
  mutating func ringFaults(callee: UInt32, call: UInt32, _ scheduler: inout Scheduler) {
    guard faultOn(.callCancelLate), fires(.callCancelLate, user: callee, scheduler.now) else { return }
    let caller = calls.calls[Int(call)].caller
    guard calls.call(of: caller) == call else { return }
    inject(
      PendingOperation(
        user: caller, kind: .hangupCall, target: 0, seat: -1, policy: .abortWhenOccupied, timeout: .zero,
        issuedAt: scheduler.now, completion: nil), &scheduler)
  }

  /// Sends an SDK call on a client's behalf (what its user did in the UI, or another device), past
  /// the usage checks: it reaches the server like any other.
  mutating func inject(_ op: PendingOperation, _ scheduler: inout Scheduler) {
    let slot = allocate(op)
    scheduler.schedule(at: fifo(downlink: false, op.user, scheduler.now), event(.serverCall, slot))
  }

  /// Opportunity for session faults after a successful login: the server may end it later.
  mutating func loginFaults(_ user: UInt32, _ scheduler: inout Scheduler) {
    for kind in [FaultKind.loginKickedOffline, .loginExpired]
    where faultOn(kind) && fires(kind, user: user, scheduler.now) {
      let after = SimDuration(nanoseconds: 10_000_000_000 + Int64(faultRandom.next(below: 590_000_000_000)))
      let event: LoginEvent = kind == .loginKickedOffline ? .kickedOffline : .loginExpired
      scheduler.schedule(after: after, self.event(.loginEnded, user, UInt32(event.rawValue)))
    }
  }

  /// The fault coverage of the run: every configured kind with its injections.
  public var faultCoverage: [(kind: FaultKind, injected: UInt64)] {
    faults.configured.map { ($0, metrics.counters.value("fault.\($0.rawValue)") ?? 0) }
  }

  /// `audience.rejoin` at a viewer taking a seat: later, its SDK enters the room again.
  mutating func seatedFaults(_ guest: UInt32, _ scheduler: inout Scheduler) {
    guard faultOn(.audienceRejoin), layout.role(of: guest) == .audience, !layout.isPhone(guest),
      fires(.audienceRejoin, user: guest, scheduler.now)
    else { return }
    let after = SimDuration.seconds(5 + Int64(faultRandom.next(below: 115)))
    scheduler.schedule(after: after, event(.audienceRejoin, guest))
  }

  /// The viewer's SDK joins its room again, if it is still seated and in the room.
  mutating func audienceRejoin(_ user: UInt32, _ scheduler: inout Scheduler) {
    let u = Int(user)
    guard seats.seat(of: user) != nil, runtime.clients[u].joinedRoom != 0, runtime.clients[u].loggedIn else { return }
    inject(
      PendingOperation(
        user: user, kind: .joinLive, target: 0, seat: -1, policy: .abortWhenOccupied, timeout: .zero,
        issuedAt: scheduler.now, completion: nil), &scheduler)
  }

  /// `host.reenter`: the host's SDK leaves the room and joins it again (both calls reach the server
  /// like any other), if the live is still on.
  mutating func hostReenter(_ user: UInt32, _ scheduler: inout Scheduler) {
    guard runtime.clients[Int(user)].joinedRoom != 0, runtime.clients[Int(user)].loggedIn else { return }
    for kind in [OperationKind.leaveLive, .joinLive] {
      inject(
        PendingOperation(
          user: user, kind: kind, target: 0, seat: -1, policy: .abortWhenOccupied, timeout: .zero,
          issuedAt: scheduler.now, completion: nil), &scheduler)
    }
  }
}
