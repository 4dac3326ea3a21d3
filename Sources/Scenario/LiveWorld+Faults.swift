import Chaos
import Clients
import LiveStack
import SimKernel

extension LiveWorld {
  /// A domain fault's rate draw for the ring of `call` at `callee` (app backgrounded, caller
  /// cancelling at once).
  mutating func ringFaults(callee: UInt32, call: UInt32, _ scheduler: inout Scheduler) {
    guard backend.chaos.isOn(.callCancelLate), backend.chaos.fires(.callCancelLate, user: callee, scheduler.now) else {
      return
    }
    let caller = backend.server.calls.calls[Int(call)].caller
    guard backend.server.calls.call(of: caller) == call else { return }
    backend.inject(.system(caller, .hangupCall, at: scheduler.now), &measured, &observers, &scheduler)
  }

  /// The fault coverage of the run: every configured kind with its injections.
  public var faultCoverage: [(kind: FaultKind, injected: UInt64)] {
    backend.chaos.configured.map { ($0, backend.chaos.injected[$0.index]) }
  }

  /// The viewer's SDK joins its room again, if it is still seated and in the room.
  mutating func audienceRejoin(_ user: UInt32, _ scheduler: inout Scheduler) {
    let u = Int(user)
    guard backend.server.seats.seat(of: user) != nil, runtime.clients[u].joinedRoom != 0, runtime.clients[u].loggedIn
    else {
      return
    }
    backend.inject(.system(user, .joinLive, at: scheduler.now), &measured, &observers, &scheduler)
  }

  /// `host.reenter`: the host's SDK leaves the room and joins it again (both calls reach the server
  /// like any other), if the live is still on.
  mutating func hostReenter(_ user: UInt32, _ scheduler: inout Scheduler) {
    guard runtime.clients[Int(user)].joinedRoom != 0, runtime.clients[Int(user)].loggedIn else { return }
    for kind in [OperationKind.leaveLive, .joinLive] {
      backend.inject(.system(user, kind, at: scheduler.now), &measured, &observers, &scheduler)
    }
  }
}
