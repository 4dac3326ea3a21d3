import SimKernel

/// The network between every client and the server: one ordered (FIFO) channel each way per
/// client, with a latency drawn per message.
///
/// A message is never delivered before the previous one on the same channel, so the seat list
/// stays consistent without version numbers, as in the SDK. Faults act through the verbs: `send`
/// takes the extra delay and the hold a fault puts on a message; `holdDownlink` makes everything
/// after a late message wait behind it; `sendHeldBack` lets later messages of other channel
/// classes overtake one (`network.reorder`), while its own class stays in order behind it.
public struct Network {
  /// The one-way latency of a message.
  let latency: Distribution
  /// The latency in nanoseconds when it is a constant (which draws nothing), else -1: the common
  /// case skips the distribution's dispatch on every message.
  let constantLatencyNs: Int64
  /// Each user's channels (by user ID), in one record so that a message touches one cache line.
  /// (Every message reads and writes its user's record and its slot: the tables are columns, and
  /// a copy of a `Network` shares them.)
  package let links: Column<Link>
  /// Notices on their way, by slot (a `clientNotice` event names the slot).
  @usableFromInline let notices = Column<Notice?>(reservingCapacity: 0)
  let freeNotices = Column<UInt32>(reservingCapacity: 0)
  /// Slots that carry a retransmission (`network.duplicate`): the client hears them, the oracles
  /// and metrics already counted the original.
  var duplicates = Set<UInt32>()
  /// Per user and channel class (`user << 3 | class`): the delivery time of a message held back
  /// by `network.reorder`, which later messages of that class wait behind. Empty unless the fault
  /// acts; an entry goes once its time has passed.
  var classHolds: [UInt64: Int64] = [:]
  /// Per user: the latest delivery time of a message held back to it (0: none on its way). The
  /// quiet checks and every send read it instead of the table above, which only a user with a
  /// hold still on its way needs (a dictionary lookup costs a hash, where this costs a load).
  /// Empty until the first message is held back.
  var heldUntil: [Int64] = []

  /// A network of `random.count` clients with one-way latency `latency`, each user's messages
  /// drawing from its own generator in `random`.
  public init(latency: Distribution, random: [SplitMix64]) {
    self.latency = latency
    if case .constant = latency {
      var none = SplitMix64(seed: 0)
      constantLatencyNs = latency.sampleDuration(&none).nanoseconds
    } else {
      constantLatencyNs = -1
    }
    links = Column(count: random.count) { Link(random: random[$0], downlinkAt: 0, uplinkAt: 0) }
  }

  /// One user's two channels.
  package struct Link {
    /// The user's `network` stream: one latency draw per message to or from it.
    var random: SplitMix64
    /// The delivery time of the last message to the user, and from it (nanoseconds).
    var downlinkAt: Int64
    var uplinkAt: Int64
    /// The latest batch of messages reaching the user at one instant, which the world delivers
    /// as one event (kept here, beside the channel's delivery time, so that sending a message
    /// and joining its batch touch one record).
    package var batch = DownlinkBatch()
    /// The user's `service` stream, kept by the world: the service times of its requests. A
    /// request reaches the server a latency after its send read this record, so the draw
    /// usually finds it in the cache.
    package var service = SplitMix64(seed: 0)
    /// The user's `clients` and `devices` streams, kept by the world: its behaviour's decisions,
    /// and its devices' open times and failures. Here, because nearly every event of a user's
    /// client sends or receives a message: with them the record is 64 bytes, one cache line in a
    /// table of them, where a 48-byte record straddled two lines at every other user and the
    /// streams took a line of their own.
    package var client = SplitMix64(seed: 0)
    package var devices = SplitMix64(seed: 0)
  }

  /// The latest batch of deliveries to a user at one instant: its instant in nanoseconds (`-1`:
  /// none open), the event that leads it and its last follower (`-1`: none yet), as the world's
  /// batching numbers them.
  package struct DownlinkBatch {
    package var openAt: Int64 = -1
    package var leader: UInt32 = 0
    package var tail: Int32 = -1

    package init(openAt: Int64 = -1, leader: UInt32 = 0, tail: Int32 = -1) {
      self.openAt = openAt
      self.leader = leader
      self.tail = tail
    }
  }

  /// Whether a message to or from `user` is still on its way at `now`.
  public func hasInFlight(_ user: UInt32, now: SimInstant) -> Bool {
    links[Int(user)].downlinkAt > now.nanoseconds || links[Int(user)].uplinkAt > now.nanoseconds
      || heldBack(user, after: now.nanoseconds)
  }

  /// Whether a message of class `channelClass` held back by `network.reorder` is still on its way
  /// to `user` at `now`: what the client's SDK shows of that channel may lag behind the others.
  public func holdsBack(_ user: UInt32, channelClass: UInt8, at now: SimInstant) -> Bool {
    guard heldBack(user, after: now.nanoseconds) else { return false }
    return (classHolds[UInt64(user) << 3 | UInt64(channelClass)] ?? 0) > now.nanoseconds
  }

  /// Whether a message held back by `network.reorder` is still on its way to `user` after `ns`.
  func heldBack(_ user: UInt32, after ns: Int64) -> Bool {
    !heldUntil.isEmpty && heldUntil[Int(user)] > ns
  }

  /// Sends a message now to (`downlink`) or from `user`: returns its delivery time, a latency draw
  /// plus `extraNs` later, no sooner than `holdUntilNs`, and never before the previous message on
  /// the same channel. `channelClass` (below 8) names the downlink message's class, which also waits
  /// behind a message of its class held back by ``sendHeldBack(_:_:channelClass:by:extraNs:holdUntilNs:)``.
  public mutating func send(
    downlink: Bool, _ user: UInt32, _ now: SimInstant, extraNs: Int64 = 0, holdUntilNs: Int64 = 0,
    channelClass: UInt8 = 0
  ) -> SimInstant {
    let u = Int(user)
    // Read, update and store the record once.
    var link = links[u]
    let delay = constantLatencyNs >= 0 ? constantLatencyNs : latency.sampleDuration(&link.random).nanoseconds
    var t = now.nanoseconds &+ delay &+ extraNs
    t = max(t, holdUntilNs)
    if downlink {
      t = max(t, link.downlinkAt)
      if !heldUntil.isEmpty {
        let held = heldUntil[u]
        if held > now.nanoseconds {
          t = max(t, classHold(user, channelClass, now))
        } else if held != 0 {
          // Every hold of this user has passed (and a passed one delays nothing): forget them.
          heldUntil[u] = 0
          for c in 0..<UInt64(8) { classHolds[UInt64(user) << 3 | c] = nil }
        }
      }
      link.downlinkAt = t
    } else {
      t = max(t, link.uplinkAt)
      link.uplinkAt = t
    }
    links[u] = link
    return SimInstant(nanoseconds: t)
  }

  /// Sends a message to `user` of class `channelClass` held back `by` beyond its place in the
  /// ordered channel: later messages of other classes may overtake it (they wait only for its
  /// place, as for any message, which a partition's hold sets), later messages of its own class
  /// still arrive after it.
  public mutating func sendHeldBack(
    _ user: UInt32, _ now: SimInstant, channelClass: UInt8, by: SimDuration, extraNs: Int64 = 0,
    holdUntilNs: Int64 = 0
  ) -> SimInstant {
    let place = send(
      downlink: true, user, now, extraNs: extraNs, holdUntilNs: holdUntilNs, channelClass: channelClass)
    let t = place.nanoseconds &+ by.nanoseconds
    classHolds[UInt64(user) << 3 | UInt64(channelClass)] = t
    if heldUntil.isEmpty { heldUntil = [Int64](table: 0, count: links.count) }
    heldUntil[Int(user)] = max(heldUntil[Int(user)], t)
    return SimInstant(nanoseconds: t)
  }

  /// The time a held-back message of class `c` to `user` arrives (0: none on its way at `now`;
  /// a passed entry is dropped).
  mutating func classHold(_ user: UInt32, _ c: UInt8, _ now: SimInstant) -> Int64 {
    let key = UInt64(user) << 3 | UInt64(c)
    guard let t = classHolds[key] else { return 0 }
    if t <= now.nanoseconds { classHolds[key] = nil }
    return t
  }

  /// Holds the channel to `user` until `instant`: nothing sent to it later arrives sooner.
  public mutating func holdDownlink(_ user: UInt32, until instant: SimInstant) {
    links[Int(user)].downlinkAt = instant.nanoseconds
  }

  /// Whether nothing sent to or from `user` is still on its way at `now`.
  public func isQuiet(_ user: UInt32, at now: SimInstant) -> Bool {
    links[Int(user)].uplinkAt <= now.nanoseconds && links[Int(user)].downlinkAt <= now.nanoseconds
      && !heldBack(user, after: now.nanoseconds)
  }

  /// Keeps `notice` until it is delivered; returns its slot. A `duplicate` is a retransmission.
  public mutating func post(_ notice: Notice, duplicate: Bool = false) -> UInt32 {
    let slot: UInt32
    if let free = freeNotices.popLast() {
      notices[Int(free)] = notice
      slot = free
    } else {
      notices.append(notice)
      slot = UInt32(notices.count - 1)
    }
    if duplicate { duplicates.insert(slot) }
    return slot
  }

  /// The user the notice in `slot` is on its way to.
  @inlinable public func recipient(ofNotice slot: UInt32) -> UInt32 { notices[Int(slot)]!.user }
  /// The recipient of the notice in `slot`, if one is there (for prefetching).
  @inlinable public func recipientIfPending(ofNotice slot: UInt32) -> UInt32? {
    Int(slot) < notices.count ? notices[Int(slot)]?.user : nil
  }

  /// The notice in `slot`, which is delivered now (the slot is freed), and whether it is a
  /// retransmission (looked up only when `mayBeDuplicate`).
  public mutating func deliver(_ slot: UInt32, mayBeDuplicate: Bool) -> (notice: Notice, duplicate: Bool) {
    let notice = notices[Int(slot)]!
    notices[Int(slot)] = nil
    freeNotices.append(slot)
    return (notice, mayBeDuplicate && duplicates.remove(slot) != nil)
  }

  /// Whether the message telling `user` that `call` ended is still on its way. (It looks through
  /// every message in flight: for rare questions only.)
  public func isCallEndInFlight(to user: UInt32, call: UInt32) -> Bool {
    for i in 0..<notices.count {
      if case .call(let u, .ended(_, let id, _, _)) = notices[i], u == user, id == call { return true }
    }
    return false
  }

  /// The notice in `slot`, still on its way (for traces).
  public func notice(_ slot: UInt32) -> Notice? { notices[Int(slot)] }
}
