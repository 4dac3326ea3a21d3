import Clients
import LiveStack
import Metrics
import Profiles
import SimKernel

/// The hosts and admins as reviewers: which applications wait for one, how long they waited, and
/// how busy the reviewers were (the `room.reviewers` resource).
///
/// Reviewers report what they take up and put down (`Client.reviewStarted`/`reviewEnded`); the
/// server says when an application is filed and when it ends. An application waits for review
/// from its filing until the first reviewer takes it up, or until it ends unreviewed.
struct ReviewBook {
  /// Per staff slot: how many applications that reviewer has in hand.
  var inHand: [UInt16]
  /// Reviewers with at least one application in hand.
  var busy = LevelGauge()
  /// Applications filed and not yet taken up by any reviewer.
  var waiting = LevelGauge()
  /// Per request ID: whether it is an application still waiting for its first review.
  var awaiting: [Bool] = []
  /// How many reviewers there are (every room's owner and admins).
  let reviewers: Int
  /// How many applications one reviewer takes at once (`nil`: no limit).
  let atOnce: Int?

  init(layout: Layout, atOnce: Int?) {
    reviewers = layout.rooms * layout.staffPerRoom
    inHand = [UInt16](repeating: 0, count: reviewers)
    self.atOnce = atOnce
  }

  /// Request `id` was filed: an application starts waiting for a reviewer.
  mutating func filed(_ id: UInt32, application: Bool, now: SimInstant) {
    awaiting.grow(toInclude: Int(id), filling: false)
    guard application else { return }
    awaiting[Int(id)] = true
    waiting.add(1, at: now.nanoseconds)
  }

  /// Request `id` ended: if no reviewer had taken it up, it no longer waits.
  mutating func ended(_ id: UInt32, now: SimInstant) {
    guard Int(id) < awaiting.count, awaiting[Int(id)] else { return }
    awaiting[Int(id)] = false
    waiting.add(-1, at: now.nanoseconds)
  }

  /// Reviewer `slot` takes up (`started`) or puts down an application; `pending` is the request
  /// the server holds for that guest, if any. Returns how long it had waited, on its first review.
  mutating func review(slot: Int, pending: SeatRequest?, id: UInt32?, started: Bool, now: SimInstant) -> SimDuration? {
    guard slot >= 0 && slot < inHand.count else { return nil }
    if started {
      if inHand[slot] == 0 { busy.add(1, at: now.nanoseconds) }
      inHand[slot] &+= 1
    } else if inHand[slot] > 0 {
      inHand[slot] -= 1
      if inHand[slot] == 0 { busy.add(-1, at: now.nanoseconds) }
    }
    guard started, let id, let pending, Int(id) < awaiting.count, awaiting[Int(id)] else { return nil }
    awaiting[Int(id)] = false
    waiting.add(-1, at: now.nanoseconds)
    return now - pending.createdAt
  }

  /// The reviewers as a resource over a run that ended at `endNs`.
  func usage(endNs: Int64) -> ResourceUsage {
    ResourceUsage(
      name: "room.reviewers", utilisation: busy.utilisation(capacity: reviewers, untilNs: endNs),
      queueMean: waiting.mean(untilNs: endNs), queueP99: waiting.quantile(0.99, untilNs: endNs), refused: [:],
      capacity: "\(reviewers) reviewer(s) × " + (atOnce.map { "\($0) at once" } ?? "any number at once"))
  }
}

extension LiveWorld {
  /// The run's resources as a capacity planner reads them, over a run that ended at `end`: the
  /// reviewers (hosts and admins), the seats, each server service with a capacity, and room
  /// messaging when it has one.
  public func resources(end: SimInstant) -> [ResourceUsage] {
    let endNs = end.nanoseconds
    let perRoom = min(profile.seats.maxSeatCount, profile.seats.packageLimit)
    let counters = measured.counters.values
    var refused: [String: UInt64] = [:]
    if counters[measured.rejectedSeatLimit] > 0 { refused["seat_limit"] = counters[measured.rejectedSeatLimit] }
    if counters[measured.rejectedAllTaken] > 0 { refused["all_taken"] = counters[measured.rejectedAllTaken] }
    let seats = ResourceUsage(
      name: "room.seats", utilisation: observers.seated.utilisation(capacity: layout.rooms * perRoom, untilNs: endNs),
      queueMean: 0, queueP99: 0, refused: refused, capacity: "\(layout.rooms) room(s) × \(perRoom) guest seat(s)")
    var out = [observers.reviews.usage(endNs: endNs), seats]
    for (i, named) in profile.server.named.enumerated() {
      guard desk.isLimited(i) else { continue }
      let q = desk.queues[i]
      var refused: [String: UInt64] = [:]
      for (k, why) in ServiceRefusal.allCases.enumerated() where q.refused[k] > 0 {
        refused[why.rawValue] = q.refused[k]
      }
      let workers = q.settings.workers
      var usage = ResourceUsage(
        name: "server.\(named.name)",
        utilisation: workers.map { q.busy.utilisation(capacity: $0, untilNs: endNs) } ?? 0,
        queueMean: q.queued.mean(untilNs: endNs), queueP99: q.queued.quantile(0.99, untilNs: endNs),
        refused: refused,
        capacity: (workers.map { "\($0) worker(s)" } ?? "unlimited workers")
          + (q.settings.queueLimit.map { ", queue \($0)" } ?? ""))
      usage.waitMeanMs = q.meanWaitSeconds * 1000
      out.append(usage)
    }
    let feed = server.feed
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
