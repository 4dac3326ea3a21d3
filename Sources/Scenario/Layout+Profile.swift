import LiveStack
import SimKernel

extension Layout {
  /// Draws the layout of `profile` from `streams`: room sizes come from the profile's
  /// `audiencePerRoom` with the `rooms` random stream, so a seed fixes them.
  public init(profile: Profile, streams: RandomStreams) {
    var rng = streams.stream("rooms")
    let p = profile.population
    var viewers: [Int] = []
    viewers.reserveCapacity(p.rooms)
    for _ in 0..<p.rooms {
      let drawn = p.audiencePerRoom.sample(&rng)
      viewers.append(drawn.isFinite ? Int(max(0, min(10_000_000, drawn.rounded()))) : 10_000_000)
    }
    self.init(viewers: viewers, staffPerRoom: 1 + p.adminsPerRoom, phoneCount: profile.calls?.users ?? 0)
  }
}
