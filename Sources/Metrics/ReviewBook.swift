import LiveStack
import SimKernel

/// The hosts and admins as reviewers: which applications wait for one, how long they waited, and
/// how busy the reviewers were (the `room.reviewers` resource).
///
/// Reviewers report what they take up and put down (`Client.reviewStarted`/`reviewEnded`); the
/// server says when an application is filed and when it ends. An application waits for review
/// from its filing until the first reviewer takes it up, or until it ends unreviewed.
public struct ReviewBook {
  /// Per staff slot: how many applications that reviewer has in hand.
  public var inHand: [UInt16]
  /// Reviewers with at least one application in hand.
  public var busy = LevelGauge()
  /// Applications filed and not yet taken up by any reviewer.
  public var waiting = LevelGauge()
  /// Per request ID: whether it is an application still waiting for its first review.
  public var awaiting: [Bool] = []
  /// How many reviewers there are (every room's owner and admins).
  public let reviewers: Int
  /// How many applications one reviewer takes at once (`nil`: no limit).
  public let atOnce: Int?

  /// A book for the reviewers of `layout`, each taking `atOnce` applications at a time.
  public init(layout: Layout, atOnce: Int?) {
    reviewers = layout.rooms * layout.staffPerRoom
    inHand = [UInt16](repeating: 0, count: reviewers)
    self.atOnce = atOnce
  }

  /// Request `id` was filed: an application starts waiting for a reviewer.
  @inlinable
  public mutating func filed(_ id: UInt32, application: Bool, now: SimInstant) {
    awaiting.grow(toInclude: Int(id), filling: false)
    guard application else { return }
    awaiting[Int(id)] = true
    waiting.add(1, at: now.nanoseconds)
  }

  /// Request `id` ended: if no reviewer had taken it up, it no longer waits.
  @inlinable
  public mutating func ended(_ id: UInt32, now: SimInstant) {
    guard Int(id) < awaiting.count, awaiting[Int(id)] else { return }
    awaiting[Int(id)] = false
    waiting.add(-1, at: now.nanoseconds)
  }

  /// Reviewer `slot` takes up (`started`) or puts down an application; `pending` is the request
  /// the server holds for that guest, if any. Returns how long it had waited, on its first review.
  @inlinable
  public mutating func review(slot: Int, pending: SeatRequest?, id: UInt32?, started: Bool, now: SimInstant)
    -> SimDuration?
  {
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
  public func usage(endNs: Int64) -> ResourceUsage {
    ResourceUsage(
      name: "room.reviewers", utilisation: busy.utilisation(capacity: reviewers, untilNs: endNs),
      queueMean: waiting.mean(untilNs: endNs), queueP99: waiting.quantile(0.99, untilNs: endNs), refused: [:],
      capacity: "\(reviewers) reviewer(s) × " + (atOnce.map { "\($0) at once" } ?? "any number at once"))
  }
}
