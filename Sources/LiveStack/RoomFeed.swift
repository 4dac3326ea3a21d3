import SimKernel

/// Room messaging: every change to a room's seat list goes out to everyone in the room, as in the
/// SDK, where each member's `seatList` is complete.
///
/// A change in a room of 10,000 viewers is 10,000 downlink messages, but a viewer that only
/// watches never acts on most of them. So the feed keeps, per room, a short log of changes with
/// the time each left the server, and every viewer reads its list when it needs it: the room's
/// list as it stood `delay` ago, where `delay` is the viewer's own downlink latency (drawn once
/// per viewer from the network's latency distribution, on the `fan-out` stream). The cost is
/// O(changes) in time and memory; the messages are counted, not simulated one by one.
///
/// Room messaging has a capacity (`server.messaging`) like any other service: a broadcast waits
/// for a worker, takes a fixed time plus a time per recipient, and a room's broadcasts go out in
/// order, one at a time. Changes made while the room's broadcast waits join it (the list is sent
/// whole: the newest wins); so do changes beyond the room's rate limit, which wait for the next
/// second. Both are counted as merges. With no capacity set, every broadcast leaves at once.
///
/// Hosts and admins also hear every change as delta messages of their own (``Server``); with a
/// capacity, those leave with the room's broadcast. The viewer a change is about hears it point to
/// point at once, in order with the answers and events of its own channel.
///
/// A seat's lock is part of the list too (`SeatInfo.isLocked`): a lock or unlock is logged and
/// broadcast like a change of occupant, and every member, staff included, sees it when the
/// broadcast reaches it. The log keeps it in the seat's word (``lockedBit``); every occupant the
/// feed hands out has that bit cleared.
public final class RoomFeed {
  /// The bit of a seat's word that says it is locked (the rest is occupant + 1).
  public static let lockedBit: UInt32 = 1 << 31

  /// One change to a room's list: the seat, its word (occupant as user ID + 1, 0 = empty, with
  /// ``RoomFeed/lockedBit`` if locked) before and after, and when the broadcast carrying it left
  /// the server (`.max`: not yet).
  public struct Entry: Sendable, Equatable {
    /// The seat.
    public var seat: Int16
    /// The seat's word before: occupant + 1 (0: empty), with ``RoomFeed/lockedBit`` if locked.
    public var before: UInt32
    /// The seat's word after: occupant + 1 (0: empty), with ``RoomFeed/lockedBit`` if locked.
    public var after: UInt32
    /// When the broadcast carrying it left the server, in nanoseconds (`.max`: not yet).
    public var sentNs: Int64
  }

  /// What a room's broadcast is doing.
  enum Phase: UInt8 {
    /// Nothing waiting or under way.
    case idle
    /// Over the room's rate limit: waiting for the next second.
    case held
    /// Waiting for a messaging worker.
    case queued
    /// A worker is sending it.
    case sending
  }

  struct Room {
    var entries: [Entry] = []
    /// Index of the first entry not yet sent.
    var unsent = 0
    /// End of the entries the broadcast being sent carries.
    var carried = 0
    var phase = Phase.idle
    /// The second of the last broadcast, and how many went out in it.
    var second: Int64 = -1
    var sentInSecond = 0
    /// The longest delay of any of its viewers (how long a sent entry must be kept).
    var maxDelayNs: Int64 = 0
    /// Delta messages held for the broadcast, each with the entry count it goes out with.
    var held: [(upTo: Int, notice: Notice)] = []
    /// Viewers that hear every change (as events), by user ID.
    var watchers: [UInt32] = []
    /// Downlink messages in the current second, for the peak rate.
    var secondMessages: Int64 = 0
    var messageSecond: Int64 = -1
    /// When its last broadcast left (nanoseconds; -1: never).
    var lastSentNs: Int64 = -1
  }

  /// The room messaging capacity.
  public let settings: ServiceSettings
  /// The time per recipient of a broadcast, in nanoseconds.
  public let perRecipientNs: Int64
  /// Whether every broadcast leaves the moment its change is made (no capacity set).
  public let immediate: Bool
  /// The messaging workers and queue (`nil` when immediate).
  public private(set) var queue: ServiceQueue?
  /// Each room's first seat in ``current``.
  let seatBase: [Int]
  let seatCount: [Int]
  /// The server's seat lists, occupant + 1 per seat (with ``lockedBit`` if locked), mirrored
  /// change by change.
  var current: [UInt32]
  var rooms: [Room]
  /// Each user's downlink delay for broadcasts, in microseconds.
  let delayUs: [UInt32]
  /// Broadcasts sent, downlink messages they carried, and changes merged into a broadcast that
  /// was already waiting.
  public private(set) var broadcasts: UInt64 = 0
  public private(set) var downlink: UInt64 = 0
  public private(set) var merged: UInt64 = 0
  /// The most downlink messages one room sent in one second.
  public private(set) var peakRoomPerSecond: Int64 = 0

  /// A feed for rooms with `seatCounts` seats each, and a delay per user (microseconds).
  public init(seatCounts: [Int], delayUs: [UInt32], homeRoom: (UInt32) -> UInt32?, messaging: ServiceSettings) {
    let (base, total) = flatSeats(seatCounts)
    seatBase = base
    seatCount = seatCounts
    current = [UInt32](repeating: 0, count: total)
    rooms = [Room](repeating: Room(), count: seatCounts.count)
    self.delayUs = delayUs
    for u in 0..<UInt32(delayUs.count) {
      guard let r = homeRoom(u) else { continue }
      rooms[Int(r)].maxDelayNs = max(rooms[Int(r)].maxDelayNs, Int64(delayUs[Int(u)]) * 1000)
    }
    var s = messaging
    perRecipientNs = s.perRecipient.nanoseconds
    immediate = !s.isLimited
    settings = s
    // The room rate limit merges rather than refuses: the queue sees none.
    s.perRoom = nil
    queue = immediate ? nil : ServiceQueue(settings: s, users: 0, rooms: 0)
  }

  /// Each room's `messaging` stream: the fixed service times of its broadcasts (empty when
  /// every broadcast leaves at once).
  var random: [SplitMix64] = []

  /// Gives the feed each room's `messaging` stream, from which ``drawServiceNs(_:)`` draws.
  public func takeRandom(_ streams: [SplitMix64]) {
    precondition(streams.count == rooms.count, "\(streams.count) messaging streams for \(rooms.count) rooms")
    random = streams
  }

  /// How long the next broadcast of `room` takes before its per-recipient time, in nanoseconds:
  /// a draw of the messaging service time from the room's own stream.
  public func drawServiceNs(_ room: UInt32) -> Int64 {
    settings.serviceTime.sampleDuration(&random[Int(room)]).nanoseconds
  }

  /// Each user's downlink delay for room broadcasts, in microseconds: one draw per audience member
  /// from the network's `latency`, on its own `fan-out` stream (zero for staff and phones, which
  /// hear their own messages).
  public static func delays(layout: Layout, latency: Distribution, streams: RandomStreams) -> [UInt32] {
    var out = [UInt32](table: 0, count: layout.totalUsers)
    let stream = RandomStreams.streamSeed(root: streams.rootSeed, name: "fan-out")
    for room in 0..<UInt32(layout.rooms) {
      for u in layout.audience(of: room) {
        var g = SplitMix64(seed: RandomStreams.entitySeed(stream: stream, layout.identity(of: u)))
        let d = latency.sampleDuration(&g).nanoseconds
        out[Int(u)] = UInt32(clamping: max(0, d) / 1000)
      }
    }
    return out
  }

  /// The changes of `room`'s broadcast sent at `sentNs` that `viewer` hears as seat-list deltas,
  /// handed to `body` in batches: the changes of others' seats (its own seat it hears by its own
  /// messages), leaving out those that left a seat as it was. The log is read in place: client
  /// code adds to it and folds it only through events of its own (server changes, broadcasts),
  /// never while `body` runs.
  public func deltas(room: UInt32, viewer: UInt32, sentNs: Int64, _ body: (SeatBatch) -> Void) {
    let me = viewer + 1
    var batch = SeatBatch()
    for i in entryIndices(room: room, sentAtOrAfter: sentNs) {
      let e = entry(room: room, at: i)
      let (before, after) = (e.before & ~Self.lockedBit, e.after & ~Self.lockedBit)
      guard e.sentNs == sentNs, after != me, before != me, after != before else { continue }
      batch.append(
        after != 0
          ? SeatChange(room: room, seat: e.seat, user: after - 1, seated: true)
          : SeatChange(room: room, seat: e.seat, user: before - 1, seated: false))
      if batch.isFull {
        body(batch)
        batch = SeatBatch()
      }
    }
    if batch.count > 0 { body(batch) }
  }

  /// `user`'s downlink delay for broadcasts.
  public func delay(of user: UInt32) -> SimDuration { .nanoseconds(Int64(delayUs[Int(user)]) * 1000) }

  // MARK: - The server's side

  /// The server changed a seat: the feed mirrors it and logs it, not yet sent.
  public func record(_ c: SeatChange) {
    let i = seatBase[Int(c.room)] + Int(c.seat)
    let before = current[i]
    let lock = before & Self.lockedBit
    let after: UInt32 = c.seated ? (c.user + 1) | lock : (before & ~Self.lockedBit == c.user + 1 ? lock : before)
    current[i] = after
    rooms[Int(c.room)].entries.append(Entry(seat: c.seat, before: before, after: after, sentNs: .max))
  }

  /// The server locked or unlocked seat `seat` of `room`: the feed mirrors it and, if it changed
  /// the seat, logs it, not yet sent (`logged: false` sets it as the room starts, heard by nobody).
  /// Returns whether it changed the seat.
  @discardableResult
  public func recordLock(room: UInt32, seat: Int, _ locked: Bool, logged: Bool = true) -> Bool {
    let i = seatBase[Int(room)] + seat
    let before = current[i]
    let after = locked ? before | Self.lockedBit : before & ~Self.lockedBit
    guard after != before else { return false }
    current[i] = after
    if logged { rooms[Int(room)].entries.append(Entry(seat: Int16(seat), before: before, after: after, sentNs: .max)) }
    return true
  }

  /// Whether the broadcast of `room` sent at `sentNs` locked or unlocked a seat.
  public func locksChanged(room: UInt32, sentAt sentNs: Int64) -> Bool {
    for i in entryIndices(room: room, sentAtOrAfter: sentNs) {
      let e = entry(room: room, at: i)
      if e.sentNs == sentNs && (e.before ^ e.after) & Self.lockedBit != 0 { return true }
    }
    return false
  }

  /// Holds `notice` (a delta message about `room`'s list) until the room's broadcast carrying
  /// the changes logged so far leaves. Only when not ``immediate``.
  public func hold(_ notice: Notice, room: UInt32) {
    rooms[Int(room)].held.append((rooms[Int(room)].entries.count, notice))
  }

  /// What the world must schedule for a room's broadcast.
  public enum Step: Equatable, Sendable {
    /// Nothing.
    case none
    /// The broadcast leaves at this time (``LiveEvent`` `broadcastSent`).
    case sendAt(SimInstant)
    /// The room may broadcast again at this time (its rate limit).
    case releaseAt(SimInstant)
  }

  /// The server made changes in `room` (logged with ``record(_:)``) and `members` users are in it:
  /// they go out now (immediate), or join the room's waiting broadcast, or start one.
  /// `serviceNs(r)` draws the fixed service time of a broadcast of room `r`.
  public func changed(room: UInt32, members: Int32, now: SimInstant, serviceNs: (UInt32) -> Int64) -> Step {
    let r = Int(room)
    guard rooms[r].unsent < rooms[r].entries.count else { return .none }
    if immediate {
      rooms[r].carried = rooms[r].entries.count
      send(room: room, members: members, now: now)
      return .none
    }
    switch rooms[r].phase {
    case .held, .queued:
      merged &+= 1
      return .none
    case .sending:
      return .none  // it starts when the one being sent leaves
    case .idle:
      return start(room: room, members: members, now: now, serviceNs: serviceNs)
    }
  }

  /// Starts `room`'s next broadcast if it has unsent changes: within its rate limit it waits for a
  /// worker; beyond it, for the next second.
  func start(room: UInt32, members: Int32, now: SimInstant, serviceNs: (UInt32) -> Int64) -> Step {
    let r = Int(room)
    guard rooms[r].unsent < rooms[r].entries.count else {
      rooms[r].phase = .idle
      return .none
    }
    let second = now.nanoseconds / 1_000_000_000
    if let limit = settings.perRoom {
      if rooms[r].second != second {
        rooms[r].second = second
        rooms[r].sentInSecond = 0
      }
      if rooms[r].sentInSecond >= limit {
        rooms[r].phase = .held
        return .releaseAt(SimInstant(nanoseconds: (second + 1) * 1_000_000_000))
      }
      rooms[r].sentInSecond += 1
    }
    switch queue!.arrive(slot: room, user: 0, room: 0, now: now) {
    case .serve:
      return begin(room: room, members: members, now: now, serviceNs: serviceNs)
    case .queued:
      rooms[r].phase = .queued
      return .none
    case .refused:
      preconditionFailure("room messaging has no queue limit")
    }
  }

  /// A worker takes `room`'s broadcast: it carries every change logged so far.
  func begin(room: UInt32, members: Int32, now: SimInstant, serviceNs: (UInt32) -> Int64) -> Step {
    let r = Int(room)
    rooms[r].phase = .sending
    rooms[r].carried = rooms[r].entries.count
    return .sendAt(now + .nanoseconds(serviceNs(room) + perRecipientNs * Int64(members)))
  }

  /// A room held by its rate limit may broadcast again.
  public func released(room: UInt32, members: Int32, now: SimInstant, serviceNs: (UInt32) -> Int64) -> Step {
    guard rooms[Int(room)].phase == .held else { return .none }
    return start(room: room, members: members, now: now, serviceNs: serviceNs)
  }

  /// `room`'s broadcast left the server: its changes are sent, the delta messages held for them
  /// are returned for sending, and the worker takes the next waiting broadcast. `members(r)` is
  /// how many users are in room `r`. Returns what to schedule for this room and for the one the
  /// worker takes next.
  public func sent(
    room: UInt32, members: (UInt32) -> Int32, now: SimInstant, serviceNs: (UInt32) -> Int64, release: (Notice) -> Void
  ) -> (this: Step, next: (room: UInt32, step: Step)?) {
    let r = Int(room)
    send(room: room, members: members(room), now: now)
    var kept = 0
    for h in rooms[r].held {
      if h.upTo <= rooms[r].carried {
        release(h.notice)
      } else {
        rooms[r].held[kept] = h
        kept += 1
      }
    }
    rooms[r].held.removeLast(rooms[r].held.count - kept)
    var next: (UInt32, Step)?
    if let other = queue!.finished(now: now) {
      next = (other, begin(room: other, members: members(other), now: now, serviceNs: serviceNs))
    }
    rooms[r].phase = .idle
    return (start(room: room, members: members(room), now: now, serviceNs: serviceNs), next)
  }

  /// Marks the carried entries of `room` sent at `now`, counts the messages, and forgets entries
  /// every viewer has seen.
  func send(room: UInt32, members: Int32, now: SimInstant) {
    let r = Int(room)
    let t = now.nanoseconds
    for i in rooms[r].unsent..<rooms[r].carried { rooms[r].entries[i].sentNs = t }
    rooms[r].unsent = rooms[r].carried
    rooms[r].lastSentNs = t
    broadcasts &+= 1
    downlink &+= UInt64(max(0, members))
    let second = t / 1_000_000_000
    if rooms[r].messageSecond != second {
      rooms[r].messageSecond = second
      rooms[r].secondMessages = 0
    }
    rooms[r].secondMessages += Int64(members)
    peakRoomPerSecond = max(peakRoomPerSecond, rooms[r].secondMessages)
    // Entries every viewer has seen (sent longer ago than the longest delay) are folded away.
    var seen = 0
    let horizon = t - rooms[r].maxDelayNs
    while seen < rooms[r].unsent && rooms[r].entries[seen].sentNs < horizon { seen += 1 }
    if seen > 0 {
      rooms[r].entries.removeFirst(seen)
      rooms[r].unsent -= seen
      rooms[r].carried -= seen
      for k in rooms[r].held.indices { rooms[r].held[k].upTo -= seen }
    }
  }

  // MARK: - The viewers' side

  /// Registers `user` of `room` as hearing every change of its list (its code subscribed to it).
  public func watch(_ user: UInt32, room: UInt32) {
    if !rooms[Int(room)].watchers.contains(user) { rooms[Int(room)].watchers.append(user) }
  }

  /// The viewers of `room` that hear every change.
  public func watchers(of room: UInt32) -> [UInt32] { rooms[Int(room)].watchers }

  /// `room`'s seat list as `viewer` sees it at `now` (occupant + 1 per seat): the server's list,
  /// less the changes that have not reached the viewer yet.
  public func view(room: UInt32, viewer: UInt32, now: SimInstant) -> [UInt32] {
    var list = [UInt32](repeating: 0, count: seatCount[Int(room)])
    list.withUnsafeMutableBufferPointer { view(room: room, viewer: viewer, now: now, into: $0) }
    return list
  }

  /// Whether any seat of `room` is locked, or was locked or unlocked by a change still in the log
  /// (no member can see a lock otherwise). Allocates nothing.
  public func mayShowLocks(room: UInt32) -> Bool {
    let r = Int(room)
    let base = seatBase[r]
    for s in 0..<seatCount[r] where current[base + s] & Self.lockedBit != 0 { return true }
    for e in rooms[r].entries where (e.before | e.after) & Self.lockedBit != 0 { return true }
    return false
  }

  /// Which seats of `room` `viewer` sees locked at `now`: the server's locks, less the changes
  /// that have not reached the viewer yet.
  public func locks(room: UInt32, viewer: UInt32, now: SimInstant) -> [Bool] {
    let base = seatBase[Int(room)]
    var list = Array(current[base..<base + seatCount[Int(room)]])
    list.withUnsafeMutableBufferPointer { undoUnseen(room: room, viewer: viewer, now: now, in: $0) }
    return list.map { $0 & Self.lockedBit != 0 }
  }

  /// The number of seats of `room`.
  public func seats(of room: UInt32) -> Int { seatCount[Int(room)] }

  /// ``view(room:viewer:now:)`` written into `list`, which holds at least ``seats(of:)`` values.
  public func view(room: UInt32, viewer: UInt32, now: SimInstant, into list: UnsafeMutableBufferPointer<UInt32>) {
    let base = seatBase[Int(room)]
    let n = seatCount[Int(room)]
    for s in 0..<n { list[s] = current[base + s] }
    undoUnseen(room: room, viewer: viewer, now: now, in: list)
    for s in 0..<n { list[s] &= ~Self.lockedBit }
  }

  /// Takes the server's list of `room` in `list` back to what `viewer` has heard at `now`: the
  /// changes it has not yet heard, undone from the newest (seat words, locks included).
  func undoUnseen(room: UInt32, viewer: UInt32, now: SimInstant, in list: UnsafeMutableBufferPointer<UInt32>) {
    let r = Int(room)
    let d = Int64(delayUs[Int(viewer)]) * 1000
    let t = now.nanoseconds
    var i = rooms[r].entries.count - 1
    while i >= 0 {
      let e = rooms[r].entries[i]
      if e.sentNs != .max && e.sentNs + d <= t { break }
      list[Int(e.seat)] = e.before
      i -= 1
    }
  }

  /// Whether `viewer`'s view of `room` at `now` holds `truth(seat)` (occupant + 1) on every seat,
  /// leaving out the seats that either side gives to `ignoring` (user ID + 1). Allocates nothing.
  public func viewAgrees(
    room: UInt32, viewer: UInt32, now: SimInstant, ignoring: UInt32, truth: (Int) -> UInt32
  ) -> Bool {
    let r = Int(room)
    let d = Int64(delayUs[Int(viewer)]) * 1000
    let t = now.nanoseconds
    // The first entry the viewer has not seen: seats it touches are read from the log.
    var firstUnseen = rooms[r].entries.count
    while firstUnseen > 0 {
      let e = rooms[r].entries[firstUnseen - 1]
      if e.sentNs != .max && e.sentNs + d <= t { break }
      firstUnseen -= 1
    }
    let base = seatBase[r]
    for seat in 0..<seatCount[r] {
      var seen = current[base + seat]
      var i = rooms[r].entries.count - 1
      while i >= firstUnseen {
        if Int(rooms[r].entries[i].seat) == seat { seen = rooms[r].entries[i].before }
        i -= 1
      }
      seen &= ~Self.lockedBit
      let server = truth(seat)
      if (seen == ignoring ? 0 : seen) != (server == ignoring ? 0 : server) { return false }
    }
    return true
  }

  /// Whether `room` has changes not yet sent, or delta messages held for its broadcast: its
  /// members' lists lag behind the server's until the broadcast leaves.
  public func isBusy(room: UInt32) -> Bool {
    rooms[Int(room)].unsent < rooms[Int(room)].entries.count || !rooms[Int(room)].held.isEmpty
  }

  /// When `room`'s last broadcast left the server (nil: never).
  public func lastSent(room: UInt32) -> SimInstant? {
    let t = rooms[Int(room)].lastSentNs
    return t < 0 ? nil : SimInstant(nanoseconds: t)
  }

  /// Whether every change of `room` has reached `viewer` by `now`.
  public func isSettled(room: UInt32, viewer: UInt32, now: SimInstant) -> Bool {
    guard let last = rooms[Int(room)].entries.last else { return true }
    return last.sentNs != .max && last.sentNs + Int64(delayUs[Int(viewer)]) * 1000 <= now.nanoseconds
  }

  /// The changes of `room` sent at `sentNs` (one broadcast), in order.
  public func entries(room: UInt32, sentAt sentNs: Int64) -> [Entry] {
    entryIndices(room: room, sentAtOrAfter: sentNs).map { entry(room: room, at: $0) }.filter { $0.sentNs == sentNs }
  }

  /// Where in `room`'s log the changes sent at `sentNs` or later lie (the log is in the order of
  /// sending; those sent at `sentNs` are one broadcast): read them with ``entry(room:at:)``,
  /// without copying the log.
  public func entryIndices(room: UInt32, sentAtOrAfter sentNs: Int64) -> Range<Int> {
    let count = rooms[Int(room)].entries.count
    var lo = count
    while lo > 0 && rooms[Int(room)].entries[lo - 1].sentNs >= sentNs {
      lo -= 1
    }
    return lo..<count
  }

  /// The change at index `i` of `room`'s log.
  @inline(__always)
  public func entry(room: UInt32, at i: Int) -> Entry { rooms[Int(room)].entries[i] }

  /// The server's list of `room` as the feed mirrors it (occupant + 1 per seat).
  public func serverList(room: UInt32) -> [UInt32] {
    let base = seatBase[Int(room)]
    return current[base..<base + seatCount[Int(room)]].map { $0 & ~Self.lockedBit }
  }

  /// Changes logged and not yet forgotten, across all rooms (for memory figures and tests).
  public var loggedEntries: Int { rooms.reduce(0) { $0 + $1.entries.count } }

  /// Test-only: makes the mirror of seat `seat` of `room` disagree with the server (to plant a
  /// violation of `client.view-matches-server`).
  public func _corrupt(room: UInt32, seat: Int, occupant: UInt32) {
    current[seatBase[Int(room)] + seat] = occupant
  }
}
