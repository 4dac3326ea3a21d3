import LiveStack
import SimKernel

extension ResourceUsage {
  /// A live run's resources as a capacity planner reads them, over a run that ended at `endNs`:
  /// the reviewers (hosts and admins), the seats (`rooms` × `perRoom` guest seats), each server
  /// service with a capacity (`serviceNames` in the desk's order), and room messaging when it has
  /// one.
  public static func ofRun(
    endNs: Int64, measured: LiveMetrics, reviews: ReviewBook, seated: LevelGauge, rooms: Int, seatsPerRoom perRoom: Int,
    desk: ServiceDesk, serviceNames: [String], feed: RoomFeed
  ) -> [ResourceUsage] {
    let counters = measured.counters.values
    var refused: [String: UInt64] = [:]
    if counters[measured.rejectedSeatLimit] > 0 { refused["seat_limit"] = counters[measured.rejectedSeatLimit] }
    if counters[measured.rejectedAllTaken] > 0 { refused["all_taken"] = counters[measured.rejectedAllTaken] }
    let seats = ResourceUsage(
      name: "room.seats", utilisation: seated.utilisation(capacity: rooms * perRoom, untilNs: endNs),
      queueMean: 0, queueP99: 0, refused: refused, capacity: "\(rooms) room(s) × \(perRoom) guest seat(s)")
    var out = [reviews.usage(endNs: endNs), seats]
    for (i, name) in serviceNames.enumerated() {
      guard desk.isLimited(i) else { continue }
      let q = desk.queues[i]
      var refused: [String: UInt64] = [:]
      for (k, why) in ServiceRefusal.allCases.enumerated() where q.refused[k] > 0 {
        refused[why.rawValue] = q.refused[k]
      }
      let workers = q.settings.workers
      var usage = ResourceUsage(
        name: "server.\(name)",
        utilisation: workers.map { q.busy.utilisation(capacity: $0, untilNs: endNs) } ?? 0,
        queueMean: q.queued.mean(untilNs: endNs), queueP99: q.queued.quantile(0.99, untilNs: endNs),
        refused: refused,
        capacity: (workers.map { "\($0) worker(s)" } ?? "unlimited workers")
          + (q.settings.queueLimit.map { ", queue \($0)" } ?? ""))
      usage.waitMeanMs = q.meanWaitSeconds * 1000
      out.append(usage)
    }
    if let q = feed.queue {
      // Room messaging refuses nothing: what waits takes in later changes (counted as merged).
      let workers = q.settings.workers
      var usage = ResourceUsage(
        name: "server.messaging",
        utilisation: workers.map { q.busy.utilisation(capacity: $0, untilNs: endNs) } ?? 0,
        queueMean: q.queued.mean(untilNs: endNs), queueP99: q.queued.quantile(0.99, untilNs: endNs),
        refused: feed.merged > 0 ? ["merged": feed.merged] : [:],
        capacity: (workers.map { "\($0) worker(s)" } ?? "unlimited workers")
          + (feed.settings.perRoom.map { ", \($0) broadcast(s) per room per second" } ?? ""))
      usage.waitMeanMs = q.meanWaitSeconds * 1000
      out.append(usage)
    }
    return out
  }
}
