/// One resource of a run as a capacity planner reads it: how busy it was, how long its queue
/// grew, and what it refused. `report.json` lists them under `resources`.
public struct ResourceUsage: Codable, Sendable, Equatable {
  /// What it is: `server.seats`, `server.login`, `server.calls`, `server.push`,
  /// `server.messaging`, `room.reviewers`, `room.seats`.
  public var name: String
  /// Time-weighted share of its capacity in use, 0–1.
  public var utilisation: Double
  /// Time-weighted mean length of its queue (what waits for it).
  public var queueMean: Double
  /// The 99th percentile of its queue length over time.
  public var queueP99: Int
  /// What it turned away, by reason (`queue_full`, `rate_user`, `rate_room`, `rate_app`,
  /// `client_timeout`, `seat_limit`, `all_taken`; for room messaging, `merged`: changes that joined
  /// a broadcast already waiting), only reasons that occurred.
  public var refused: [String: UInt64]
  /// Its capacity as configured, in words (`8 workers`, `2 reviewers × 1 at once`).
  public var capacity: String
  /// For a server service: the mean time a request waited for a worker (milliseconds).
  public var waitMeanMs: Double?

  /// Creates a figure.
  public init(
    name: String, utilisation: Double, queueMean: Double, queueP99: Int, refused: [String: UInt64], capacity: String
  ) {
    self.name = name
    self.utilisation = utilisation
    self.queueMean = queueMean
    self.queueP99 = queueP99
    self.refused = refused
    self.capacity = capacity
  }
}
