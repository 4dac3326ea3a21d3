import Clients
import LiveStack
import SimKernel

/// Clients: what a client shows and captures against what its own SDK knows, after every
/// callback.
extension Checker {
  /// A client finished handling an event (and its commands ran). `sawOwnLeave` says the event told
  /// it that it left its seat; `inCall` that its SDK is in an accepted call (which may capture).
  public mutating func observeClient(
    user: UInt32, status: CoGuestStatus, seenSeat: Int?, captureOn: Bool, inCall: Bool = false, sawOwnLeave: Bool,
    probedUI: Bool = false, devices: @autoclosure () -> String = "a capture device", at now: SimInstant
  ) {
    // An app's own UI passes through states the built-in clients name (it may show "applying"
    // while its devices open): it is judged after a settle time instead (`Checker+UI`).
    guard !probedUI else { return }
    if status == .applying && seenSeat != nil {
      log.record(
        .notApplyingWhileSeated, at: now, entities: ["user:\(user)"],
        "user \(user) shows \"applying\" while its seat list shows it on seat \(seenSeat!)")
    }
    if captureOn && !inCall && (sawOwnLeave || (status != .connecting && status != .connected)) {
      log.record(
        .captureOnlyWhileSeated, at: now, entities: ["user:\(user)"],
        sawOwnLeave
          ? "user \(user) kept its \(devices()) on after its seat list showed it left the seat"
          : "user \(user) has its \(devices()) on while \(status.name)")
    }
  }
}
