import LiveStack
import Profiles
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
    self.init(
      viewers: viewers, staffPerRoom: 1 + p.adminsPerRoom, phoneCount: profile.calls?.users ?? 0,
      firstRoom: UInt32(p.firstRoom), firstPhone: UInt32(profile.calls?.firstUser ?? 0))
  }
}
