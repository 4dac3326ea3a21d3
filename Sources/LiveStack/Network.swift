import SimKernel

/// The network between every client and the server: one ordered (FIFO) channel each way per
/// client, with a latency drawn per message.
///
/// A message is never delivered before the previous one on the same channel, so the seat list
/// stays consistent without version numbers, as in the SDK. Faults act through the verbs: `send`
/// takes the extra delay and the hold a fault puts on a message; `holdDownlink` makes everything
/// after a late message wait behind it.
public struct Network {
  /// The one-way latency of a message.
  let latency: Distribution
  /// The `network` stream of each user (by user ID): one latency draw per message to or from it.
  var random: [SplitMix64]
  /// Per user: the delivery time of the last message to it, and from it (nanoseconds).
  var downlinkAt: [Int64]
  var uplinkAt: [Int64]
  /// Notices on their way, by slot (a `clientNotice` event names the slot).
  var notices: [Notice?] = []
  var freeNotices: [UInt32] = []
  /// Slots that carry a retransmission (`network.duplicate`): the client hears them, the oracles
  /// and metrics already counted the original.
  var duplicates = Set<UInt32>()

  /// A network of `random.count` clients with one-way latency `latency`, each user's messages
  /// drawing from its own generator in `random`.
  public init(latency: Distribution, random: [SplitMix64]) {
    let users = random.count
    self.latency = latency
    self.random = random
    downlinkAt = [Int64](repeating: 0, count: users)
    uplinkAt = [Int64](repeating: 0, count: users)
  }

  /// Sends a message now to (`downlink`) or from `user`: returns its delivery time, a latency draw
  /// plus `extraNs` later, no sooner than `holdUntilNs`, and never before the previous message on
  /// the same channel.
  /// Whether a message to or from `user` is still on its way at `now`.
  public func hasInFlight(_ user: UInt32, now: SimInstant) -> Bool {
    downlinkAt[Int(user)] > now.nanoseconds || uplinkAt[Int(user)] > now.nanoseconds
  }

  public mutating func send(
    downlink: Bool, _ user: UInt32, _ now: SimInstant, extraNs: Int64 = 0, holdUntilNs: Int64 = 0
  ) -> SimInstant {
    var t = now.nanoseconds &+ latency.sampleDuration(&random[Int(user)]).nanoseconds &+ extraNs
    t = max(t, holdUntilNs)
    let u = Int(user)
    if downlink {
      t = max(t, downlinkAt[u])
      downlinkAt[u] = t
    } else {
      t = max(t, uplinkAt[u])
      uplinkAt[u] = t
    }
    return SimInstant(nanoseconds: t)
  }

  /// Holds the channel to `user` until `instant`: nothing sent to it later arrives sooner.
  public mutating func holdDownlink(_ user: UInt32, until instant: SimInstant) {
    downlinkAt[Int(user)] = instant.nanoseconds
  }

  /// Whether nothing sent to or from `user` is still on its way at `now`.
  public func isQuiet(_ user: UInt32, at now: SimInstant) -> Bool {
    uplinkAt[Int(user)] <= now.nanoseconds && downlinkAt[Int(user)] <= now.nanoseconds
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

  /// The notice in `slot`, which is delivered now (the slot is freed), and whether it is a
  /// retransmission (looked up only when `mayBeDuplicate`).
  public mutating func deliver(_ slot: UInt32, mayBeDuplicate: Bool) -> (notice: Notice, duplicate: Bool) {
    let notice = notices[Int(slot)]!
    notices[Int(slot)] = nil
    freeNotices.append(slot)
    return (notice, mayBeDuplicate && duplicates.remove(slot) != nil)
  }

  /// The notice in `slot`, still on its way (for traces).
  public func notice(_ slot: UInt32) -> Notice? { notices[Int(slot)] }
}
