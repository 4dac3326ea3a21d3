import Chaos
import Clients
import LiveStack
import Oracles
import Profiles
import SimKernel

extension LiveWorld {
  /// Judges the liveness invariants at the end of a run (`now`), allowing `slack` for answers in
  /// flight (see ``Checker/judgeLiveness(now:slack:view:)``).
  public mutating func judgeLiveness(now: SimInstant, slack: SimDuration = .seconds(5)) {
    observers.checker.observeOutsideUser(runtime)
    observers.checker.checkLocks(seats: server.seats, runtime: runtime, at: now)
    let busy = inFlight.usersInFlight()
    let world = self
    let view = LivenessView(
      server: server, runtime: runtime, network: network, phones: phoneOS,
      conversationGrace: profile.calls?.conversationGrace ?? .zero, requestTimeoutsNs: server.requestTimeoutsNs,
      callTimeoutsNs: server.callTimeoutsNs, inFlight: { busy.contains($0) }, connected: { world.signallingReaches($0) }
    )
    observers.checker.judgeLiveness(now: now, slack: slack, view: view)
  }

}
