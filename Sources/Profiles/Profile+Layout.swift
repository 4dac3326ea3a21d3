import LiveStack
import SimKernel

extension Layout {
  /// Draws the layout of `profile` from `streams`: room sizes come from the profile's
  /// `audiencePerRoom`, each room with its own generator of the `rooms` stream, so a seed fixes them.
  public init(profile: Profile, streams: RandomStreams) {
    let p = profile.population
    var viewers: [Int] = []
    viewers.reserveCapacity(p.rooms)
    for r in 0..<p.rooms {
      // Each room's size is its own draw: removing rooms never resizes the others.
      var rng = streams.entity("rooms", UInt64(p.firstRoom) + UInt64(r))
      let drawn = p.audiencePerRoom.sample(&rng)
      viewers.append(drawn.isFinite ? Int(max(0, min(10_000_000, drawn.rounded()))) : 10_000_000)
    }
    // Viewers who arrive over time take their room's audience places in order of arrival (then of
    // viewer number), each arrival time its viewer's own draw (docs/DESIGN.md, "Arrival order").
    let arrival = profile.arrival
    let seed = RandomStreams.streamSeed(root: streams.rootSeed, name: "arrivals")
    var times: [(Int64, UInt32)] = []
    let order: ((Int, Int) -> [UInt32])? =
      arrival == .closed
      ? nil
      : { r, count in
        times.removeAll(keepingCapacity: true)
        for v in 0..<UInt32(count) {
          let at = arrival.time(of: Layout.identity(ofViewer: v, inRoom: UInt64(p.firstRoom) + UInt64(r)), seed: seed)
          times.append((at.nanoseconds, v))
        }
        times.sort { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
        return times.map(\.1)
      }
    self.init(
      viewers: viewers, staffPerRoom: 1 + p.adminsPerRoom, phoneCount: profile.calls?.users ?? 0,
      firstRoom: UInt32(p.firstRoom), firstPhone: UInt32(profile.calls?.firstUser ?? 0), viewerOrder: order)
  }
}

extension Profile.Arrival {
  /// When the viewer with `identity` arrives by this pattern: a uniform time over the pattern's span (poisson), or
  /// the square root of one (ramp: density growing linearly from zero), drawn from the viewer's own
  /// generator of the `arrivals` stream (`seed`). Each viewer's time is its own draw, so removing
  /// other viewers or rooms never moves it; sorted, the independent uniform times are the order
  /// statistics of the arrival pattern.
  public func time(of identity: UInt64, seed: UInt64) -> SimInstant {
    var rng = SplitMix64(seed: RandomStreams.entitySeed(stream: seed, identity))
    let u = rng.nextUnit()
    let over: SimDuration
    let fraction: Double
    switch self {
    case .closed: return .zero
    case .poisson(let o):
      over = o
      fraction = u
    case .ramp(let o):
      over = o
      fraction = u.squareRoot()
    }
    return SimInstant(nanoseconds: Int64((Double(over.nanoseconds) * fraction).rounded(.down)))
  }
}
