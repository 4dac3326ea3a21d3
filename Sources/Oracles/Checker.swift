import LiveStack
import SimKernel

/// Every invariant of the catalogue (``catalogue``), checked as the run goes: safety ones at the moment of each
/// event, liveness ones when their bound passes or at the end of the run.
///
/// The world calls the `observe…` methods after the server or a client changed state, and
/// ``judgeLiveness(now:slack:view:)`` at the end. Each method reads, never writes, what it is
/// given; findings go to ``log``. Checking never changes the run: a world with checking off has
/// the same trace. The checks live in one file per family: seats, requests, clients, calls, push,
/// conversations, usage of the SDK, and liveness.
public struct Checker: Sendable {
  /// Every invariant, in report order.
  public static let catalogue: [Invariant] = InvariantID.catalogue

  /// What was found.
  public internal(set) var log = ViolationLog(catalogue: Checker.catalogue)

  /// Adds another room shard's findings of the same run to ``log`` (see ``ViolationLog/merge(_:)``).
  public mutating func mergeLog(_ other: ViolationLog) { log.merge(other) }
  /// Per request: terminal answers delivered to its client.
  var terminalAnswers: [UInt8] = []
  /// Per user: when its SDK last heard a terminal answer (nanoseconds + 1; 0: never).
  var lastTerminalAt: [Int64] = []
  /// Per flat seat: occupant + 1 when the seat was locked (0: empty or unlocked).
  var lockedOccupant: [UInt32]
  /// `seat.lock-released`: how long a staff lock may keep an empty guest seat locked (nanoseconds;
  /// `nil`: not judged).
  public var lockLimitNs: Int64?
  /// The seats a host or admin locked and the server has not unlocked: seat slot, room, seat,
  /// locker, since when (nanoseconds), unlocks of it sent and not yet failed, and whether it was
  /// reported; in the order they were locked. An unlocked seat's entry stays as a gap (slot -1)
  /// until gaps are half the list, so that a lock or unlock costs O(1) and the order is kept.
  var staffLocks: [(slot: Int, room: UInt32, seat: Int, by: UInt32, sinceNs: Int64, unlocking: Int, reported: Bool)] =
    []
  /// Per flat seat: its entry's place in `staffLocks`, or -1.
  var staffLockPlace: [Int32]
  /// The gaps in `staffLocks`.
  var staffLockGaps = 0
  let seatBase: [Int]
  /// Per user: the capture devices being opened, bit `device.rawValue` (`device.opened-once`).
  var devicesOpening: [UInt8] = []
  /// When faults stop acting (nanoseconds; 0 without faults). What a fault may have delayed is
  /// not held to its bound until then: each check below names its heal exemption.
  public var healAtNs: Int64 = 0
  /// Per probed user: since when each UI mismatch has held (nanoseconds + 1; 0: not now).
  var uiSince: [SIMD8<Int64>] = []
  /// Per probed user: whether any slot of its ``uiSince`` record is set.
  var uiTiming: [Bool] = []
  /// How long an app's UI may disagree with the server before the UI invariants call it wrong:
  /// answers, seat lists and device opens in flight settle well within it.
  public var uiSettle = SimDuration.seconds(5)
  /// The same for "idle while an application is pending", which a correct app never shows even
  /// briefly (it shows applying before it sends, and the server drops the application before it
  /// tells the app): only a lying -1 answer makes it, so one check interval is enough.
  public var uiIdleSettle = SimDuration.seconds(1)
  /// How long a UI may show idle while its user is on a seat: a leave that got no answer is sent
  /// again after ``SDKTiming/resendAfter``, and meanwhile the seat stands.
  public var uiSeatSettle = SimDuration.seconds(10)

  /// A checker for the rooms of `seats`.
  public init(seats: SeatService) {
    let (base, total) = flatSeats(seats.settings.map(\.seatCount))
    seatBase = base
    lockedOccupant = [UInt32](repeating: 0, count: total)
    staffLockPlace = [Int32](repeating: -1, count: total)
  }

  /// Switches off the invariants whose IDs are in `ids` (see ``ViolationLog/switchOff(_:)``).
  public mutating func switchOff(_ ids: Set<String>) { log.switchOff(ids) }

  /// Records a finding of invariant `id` (for checks the world makes on both sides' state).
  public mutating func record(_ id: InvariantID, at now: SimInstant, entities: [String], _ message: String) {
    log.record(id, at: now, entities: entities, message)
  }

  /// Records a liveness finding.
  public mutating func recordLiveness(_ id: InvariantID, at now: SimInstant, entities: [String], _ message: String) {
    precondition(id.invariant.kind == .liveness, "only liveness findings are recorded this way")
    log.record(id, at: now, entities: entities, message)
  }
}
