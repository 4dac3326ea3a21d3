import LiveStack
import SimKernel

/// How deliveries that race are ordered: the tie-breaker between users and the PCT-style change
/// points (`network.ties`, `network.pct`). Off by default, where deliveries due at one instant go
/// in the order they were sent and no user is held back.
///
/// With seeded ties, every user's deliveries come a constant 0 to 999 ns after their due time,
/// drawn per user from the `ordering` stream: deliveries to different users due at one instant
/// go in an order the seed picks, and each user's own channel keeps its order. With a PCT depth D
/// (after Burckhardt et al.'s probabilistic concurrency testing, whose bug depth bounds the
/// orderings that must go a given way), D change points are drawn at uniform instants before the
/// faults heal. At each, the user the next delivery goes to (the one running then, as PCT lowers
/// the running thread's priority) is held back: for `window` from the change point, its
/// deliveries come `delay` late, behind those of everyone else, in order on its own channel.
public struct DeliveryOrder: Sendable {
  /// One change point: a user held back from `startNs` for the window.
  public struct ChangePoint: Sendable, Equatable {
    /// When it begins, in nanoseconds.
    public var startNs: Int64
    /// The user held back (`.max` until the first delivery from `startNs` on names it).
    public var user: UInt32
  }

  /// Whether any ordering setting is on (the hot path tests this first).
  public let active: Bool
  /// Per user: the constant shift of its deliveries, in nanoseconds (empty: FIFO ties).
  let shiftNs: [UInt16]
  /// The change points, by start.
  public private(set) var points: [ChangePoint]
  /// How long a change point holds its user back, and how late its deliveries then come.
  let windowNs: Int64
  let delayNs: Int64

  /// No reordering.
  public init() {
    active = false
    shiftNs = []
    points = []
    windowNs = 0
    delayNs = 0
  }

  /// The ordering of a run of `users` users whose faults heal at `healNs`, drawn from `random`
  /// (the `ordering` stream).
  public init(
    seededTies: Bool, depth: Int, window: SimDuration, delay: SimDuration, users: Int, healNs: Int64,
    random: inout some RandomSource
  ) {
    var shift: [UInt16] = []
    if seededTies { shift = (0..<users).map { _ in UInt16(random.next(below: 1000)) } }
    var points: [ChangePoint] = []
    if healNs > 0 {
      for _ in 0..<depth { points.append(ChangePoint(startNs: Int64(random.next(below: UInt64(healNs))), user: .max)) }
    }
    points.sort { $0.startNs < $1.startNs }
    shiftNs = shift
    self.points = points
    windowNs = window.nanoseconds
    delayNs = delay.nanoseconds
    active = seededTies || !points.isEmpty
  }

  /// The settings a run uses where the profile lets the seed draw them (`nil`): seeded ties on
  /// half the seeds; a PCT depth of 0 on half, 1 on a quarter, 2 or 3 on an eighth each. Both
  /// draws are always made, in that order, from `random` (the `ordering-draw` stream), so one
  /// setting fixed in the profile leaves the other's draw as it was.
  public static func draw(seededTies: Bool?, depth: Int?, random: inout some RandomSource) -> (
    seededTies: Bool, depth: Int
  ) {
    let ties = random.next(below: 2) == 1
    let d = random.next(below: 8)
    let drawnDepth = d < 4 ? 0 : d < 6 ? 1 : d == 6 ? 2 : 3
    return (seededTies ?? ties, depth ?? drawnDepth)
  }

  /// How much later than its due time a delivery to `user` sent at `now` comes, in nanoseconds;
  /// the first delivery from a change point on names the user it holds back.
  @inline(__always)
  public mutating func extraNs(to user: UInt32, _ now: SimInstant) -> Int64 {
    let extra: Int64 = shiftNs.isEmpty ? 0 : Int64(shiftNs[Int(user)])
    let t = now.nanoseconds
    var held = false
    for i in points.indices where t >= points[i].startNs && t < points[i].startNs + windowNs {
      if points[i].user == .max { points[i].user = user }
      if points[i].user == user { held = true }
    }
    return held ? extra + delayNs : extra
  }
}
