import SimKernel

/// Messages to one client that arrive at the same instant, delivered as one event.
///
/// The ordered channel to a client often delivers several messages at once: a server change
/// answers the caller and notifies it in the same step, and a later message never overtakes an
/// earlier one, so its delivery time is clamped to the earlier one's. Each used to be its own
/// event. Now the first message to a user at an instant is scheduled as before (the batch's
/// leader), and every later one to that user at the same instant joins it as a follower; the
/// leader's event delivers them all, in channel order, right after itself.
///
/// Nothing the model decides changes: each message's delivery time, its faults (drawn when it is
/// sent) and its handling are those it had as an event of its own. What moves is the order among
/// events at one instant: a follower is now handled before events of other users (or a timer of
/// its own) that were scheduled between it and its leader for the same instant. Such ties were
/// broken by scheduling order before too; the channel's order, which the SDK guarantees, is kept.
public struct DownlinkBatches {
  /// Per user, its latest batch: the instant (the batch new messages at that instant join;
  /// delivery times on a channel never decrease, so only the latest batch can grow, and earlier
  /// ones wait for their leaders), its leader (as ``DownlinkBatches/key(_:)``) and its last
  /// follower. It lives in the user's network record, which the message's send has just read.
  /// (The tables are columns: every message to a client passes through here.)
  let links: Column<Network.Link>
  /// Per leader slot (notices and replies apart): its first follower (`-1`: none).
  let noticeHead = Column<Int32>(reservingCapacity: 0)
  let replyHead = Column<Int32>(reservingCapacity: 0)
  /// Followers: the event each would have been, and the next follower of the same batch.
  let events = Column<Event>(reservingCapacity: 0)
  let next = Column<Int32>(reservingCapacity: 0)
  let free = Column<Int32>(reservingCapacity: 0)

  /// The event kind of a reply to an SDK call (replies and notices have slots of their own).
  let replyKind: UInt16

  /// Batches for the users of `network`, whose reply events are of kind `replyKind`.
  public init(network: Network, replyKind: UInt16) {
    links = network.links
    self.replyKind = replyKind
  }

  static let replyBit: UInt32 = 1 << 31

  /// A delivery event's identity: its slot, with the top bit set for a reply.
  func key(_ e: Event) -> UInt32 {
    e.kind == replyKind ? e.a | DownlinkBatches.replyBit : e.a
  }

  /// The first follower of the batch `key` leads.
  func head(_ key: UInt32) -> Int32 {
    let slot = Int(key & ~Self.replyBit)
    if key & Self.replyBit != 0 { return slot < replyHead.count ? replyHead[slot] : -1 }
    return slot < noticeHead.count ? noticeHead[slot] : -1
  }

  mutating func setHead(_ key: UInt32, _ value: Int32) {
    let slot = Int(key & ~Self.replyBit)
    if key & Self.replyBit != 0 {
      replyHead.grow(toInclude: slot, filling: -1)
      replyHead[slot] = value
    } else {
      noticeHead.grow(toInclude: slot, filling: -1)
      noticeHead[slot] = value
    }
  }

  /// Whether `e`, a delivery to `user` due `at`, joins the batch of that instant (it is then
  /// stored, not scheduled); otherwise it leads a new batch and must be scheduled.
  public mutating func join(_ e: Event, user: UInt32, at: SimInstant) -> Bool {
    let u = Int(user)
    let latest = links[u].batch
    guard latest.openAt == at.nanoseconds else {
      links[u].batch = Network.DownlinkBatch(openAt: at.nanoseconds, leader: key(e), tail: -1)
      return false
    }
    let slot: Int32
    if let f = free.popLast() {
      slot = f
      events[Int(f)] = e
      next[Int(f)] = -1
    } else {
      slot = Int32(events.count)
      events.append(e)
      next.append(-1)
    }
    if latest.tail >= 0 { next[Int(latest.tail)] = slot } else { setHead(latest.leader, slot) }
    links[u].batch.tail = slot
    return true
  }

  /// The followers of the batch `e` leads, in channel order, left in place (for traces, before
  /// the batch is handled).
  public func followers(ledBy e: Event) -> [Event] {
    var out: [Event] = []
    var i = head(key(e))
    while i >= 0 {
      out.append(events[Int(i)])
      i = next[Int(i)]
    }
    return out
  }

  /// After the delivery `e` to `user`: the followers of the batch it leads, appended to
  /// `followers` in channel order (none if it leads no batch). The batch is closed.
  public mutating func close(ledBy e: Event, user: UInt32, now: SimInstant, into followers: inout ScratchList<Event>) {
    let key = key(e)
    let u = Int(user)
    let latest = links[u].batch
    if latest.openAt == now.nanoseconds && latest.leader == key {
      links[u].batch.openAt = -1
      // It leads the user's latest batch, which nothing joined: no followers, and no need to read
      // its head (a cache miss at millions of users; most deliveries travel alone).
      if latest.tail < 0 { return }
    }
    var i = head(key)
    guard i >= 0 else { return }
    setHead(key, -1)
    while i >= 0 {
      followers.append(events[Int(i)])
      free.append(i)
      i = next[Int(i)]
    }
  }
}
