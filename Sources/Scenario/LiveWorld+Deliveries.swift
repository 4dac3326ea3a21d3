import Chaos
import Clients
import LiveStack
import Profiles
import SimKernel

/// How messages reach clients: over each client's ordered channel, where chaos may delay, hold or
/// reorder them, and, when several reach one client at one instant, as one event
/// (``DownlinkBatches``).
extension LiveWorld {
  /// The delivery time of the next message to (`downlink`) or from `user`: now plus a latency
  /// draw, but never before the previous message on the same ordered channel.
  /// A downlink message names its `channel`: `network.reorder` may hold it back so that later
  /// messages of other channels overtake it.
  mutating func fifo(downlink: Bool, _ user: UInt32, _ now: SimInstant, channel: FaultChannel? = nil) -> SimInstant {
    let cls = FaultChannel.networkClass(channel)
    guard chaos.active || order.active else { return network.send(downlink: downlink, user, now, channelClass: cls) }
    // Chaos decides; the network carries out the delay, the hold and the reordering.
    var (extra, hold): (Int64, Int64) = (0, 0)
    if chaos.actsOnMessages { (extra, hold) = chaos.messageFaults(user: user, downlink: downlink, now) }
    // A delivery's place among those racing it (`network.ties`, `network.pct`).
    if downlink && order.active { extra += order.extraNs(to: user, now) }
    if downlink, chaos.active, let channel, let by = chaos.reorder(to: user, channel: channel, now) {
      measured.counters.add(measured.messagesReordered)
      return network.sendHeldBack(user, now, channelClass: cls, by: by, extraNs: extra, holdUntilNs: hold)
    }
    return network.send(downlink: downlink, user, now, extraNs: extra, holdUntilNs: hold, channelClass: cls)
  }

  mutating func reply(_ slot: UInt32, _ error: SeatError?, _ scheduler: inout Scheduler) {
    let op = inFlight.ops[Int(slot)]
    let deadline = op.issuedAt + profile.network.requestTimeout
    if !op.answerLost {
      var at = fifo(downlink: true, op.user, scheduler.now, channel: op.kind.answerChannel)
      if op.answerLate {
        // Steered late: everything behind it on the client's ordered channel waits for it.
        let late = chaos.lateAnswerNs(user: op.user, remainingNs: (deadline - scheduler.now).nanoseconds)
        at = max(at, scheduler.now + .nanoseconds(late))
        network.holdDownlink(op.user, until: at)
      }
      if at <= deadline {
        return deliver(
          event(.clientReply, slot, UInt32(bitPattern: error?.rawValue ?? 0)), to: op.user, at: at, &scheduler)
      }
      // Held up in the network past the SDK's request timeout: lost as well.
    }
    // No answer: the SDK gives up at its timeout (-1), though the server carried the request out.
    scheduler.schedule(
      at: max(deadline, scheduler.now), event(.clientReply, slot, UInt32(bitPattern: SeatError.failed.rawValue)))
  }

  /// The server never hears of SDK call `op` (in `slot`), made now: the SDK gives up after its
  /// request timeout.
  mutating func neverHeard(_ op: PendingOperation, slot: UInt32, _ scheduler: inout Scheduler) {
    if op.kind.hasCalleeList { _ = runtime.callLists.take(op.calleeList) }
    scheduler.schedule(
      after: profile.network.requestTimeout, event(.clientReply, slot, UInt32(bitPattern: SeatError.failed.rawValue)))
  }

  /// Schedules a delivery to `user` over its ordered channel, or adds it to the batch of messages
  /// that reach `user` at the same instant.
  mutating func deliver(_ e: Event, to user: UInt32, at: SimInstant, _ scheduler: inout Scheduler) {
    if coalescesEvents && batches.join(e, user: user, at: at) { return }
    scheduler.schedule(at: at, e)
  }

  /// After a delivery to `user`: the messages that reached it at the same instant behind it.
  mutating func deliverFollowers(of e: Event, user: UInt32, _ scheduler: inout Scheduler) {
    guard coalescesEvents else { return }
    let start = followers.count
    batches.close(ledBy: e, user: user, now: scheduler.now, into: &followers)
    guard followers.count > start else { return }
    // Handled as their own events would have been, in channel order. (A follower's handler may
    // lead nothing: its batch is closed.)
    var i = start
    while i < followers.count {
      let f = followers[i]
      if f.kind == LiveEvent.clientReply.rawValue {
        clientReply(slot: f.a, code: Int32(bitPattern: f.b), &scheduler)
      } else {
        clientNotice(slot: f.a, &scheduler)
      }
      i += 1
    }
    followers.removeLast(followers.count - start)
  }
}
