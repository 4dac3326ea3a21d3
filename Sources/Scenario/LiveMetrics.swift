import Metrics

/// The named latencies and counters a live-seat run records.
public struct LiveMetrics: Sendable {
  /// Latency histograms, index-aligned with ``latencyNames``.
  public var latencies: [Histogram]
  /// Exact counters.
  public var counters = Counters()

  /// Latency names, in report order.
  public static let latencyNames = ["seat.apply_to_response", "seat.accept_to_connected"]
  /// Index of `seat.apply_to_response`: from the user tapping "apply" to the first terminal answer
  /// (accepted, rejected, timed out, or the apply call failing).
  public static let applyToResponse = 0
  /// Index of `seat.accept_to_connected`: from the server applying the accept to the guest's
  /// microphone and camera being open.
  public static let acceptToConnected = 1

  // Counter indices, registered in this order.
  let applications: Int
  let connected: Int
  let rejectedSeatLimit: Int
  let rejectedAllTaken: Int
  let rejectedOther: Int
  let accepted: Int
  let rejected: Int
  let timedOut: Int
  let cancelled: Int
  let acceptFailed: Int
  let acceptRaceLost: Int
  let viewersJoined: Int
  let viewersLeft: Int
  let seatLeft: Int

  /// Empty metrics with every counter registered (so zero counts are reported too).
  public init() {
    latencies = LiveMetrics.latencyNames.map { _ in Histogram() }
    applications = counters.register("seat.applications")
    connected = counters.register("seat.connected")
    rejectedSeatLimit = counters.register("seat.rejected.seat_limit")
    rejectedAllTaken = counters.register("seat.rejected.all_taken")
    rejectedOther = counters.register("seat.rejected.other")
    accepted = counters.register("seat.accepted")
    rejected = counters.register("seat.rejected_by_host")
    timedOut = counters.register("seat.timed_out")
    cancelled = counters.register("seat.cancelled")
    acceptFailed = counters.register("seat.accept_failed")
    acceptRaceLost = counters.register("seat.accept_race_lost")
    viewersJoined = counters.register("viewers.joined")
    viewersLeft = counters.register("viewers.left")
    seatLeft = counters.register("seat.left")
  }
}
