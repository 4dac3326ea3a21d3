import Chaos
import Clients
import LiveStack
import SimKernel

extension LiveWorld {
  /// A domain fault's rate draw for the ring of `call` at `callee` (app backgrounded, caller
  /// cancelling at once).
  mutating func ringFaults(callee: UInt32, call: UInt32, _ scheduler: inout Scheduler) {
    guard chaos.isOn(.callCancelLate), chaos.fires(.callCancelLate, user: callee, scheduler.now) else { return }
    let caller = server.calls.calls[Int(call)].caller
    guard server.calls.call(of: caller) == call else { return }
    inject(.system(caller, .hangupCall, at: scheduler.now), &scheduler)
  }

  /// Sends an SDK call on a client's behalf (what its user did in the UI, or another device), past
  /// the usage checks: it reaches the server like any other.
  mutating func inject(_ op: PendingOperation, _ scheduler: inout Scheduler) {
    var op = op
    _ = runtime.prepare(&op)  // the SDK's own bookkeeping of the call (a join's room epoch)
    let slot = inFlight.allocate(op, generation: generation(of: op.user))
    scheduler.schedule(at: fifo(downlink: false, op.user, scheduler.now), event(.serverCall, slot))
  }

  /// The fault coverage of the run: every configured kind with its injections.
  public var faultCoverage: [(kind: FaultKind, injected: UInt64)] {
    chaos.configured.map { ($0, chaos.injected[$0.index]) }
  }

  /// `audience.rejoin` at a viewer taking a seat: later, its SDK enters the room again.
  mutating func seatedFaults(_ guest: UInt32, _ scheduler: inout Scheduler) {
    if let after = chaos.rejoin(guest: guest, scheduler.now) {
      scheduler.schedule(after: after, event(.audienceRejoin, guest))
    }
  }

  /// The viewer's SDK joins its room again, if it is still seated and in the room.
  mutating func audienceRejoin(_ user: UInt32, _ scheduler: inout Scheduler) {
    let u = Int(user)
    guard server.seats.seat(of: user) != nil, runtime.clients[u].joinedRoom != 0, runtime.clients[u].loggedIn else {
      return
    }
    inject(.system(user, .joinLive, at: scheduler.now), &scheduler)
  }

  /// `host.reenter`: the host's SDK leaves the room and joins it again (both calls reach the server
  /// like any other), if the live is still on.
  mutating func hostReenter(_ user: UInt32, _ scheduler: inout Scheduler) {
    guard runtime.clients[Int(user)].joinedRoom != 0, runtime.clients[Int(user)].loggedIn else { return }
    for kind in [OperationKind.leaveLive, .joinLive] {
      inject(.system(user, kind, at: scheduler.now), &scheduler)
    }
  }
}
