import Chaos
import Clients
import LiveStack
import Profiles
import SimKernel

extension RoomSettings {
  /// Every room's settings, from the profile's `seats` section.
  init(_ s: Profile.Seats) {
    self.init(
      maxSeatCount: s.maxSeatCount, packageLimit: s.packageLimit, seatMode: s.mode, coHostSeatLimit: s.coHostSeatLimit,
      ownerSeat: s.keepOwnerOnSeat)
  }
}

extension Server {
  /// The server of `profile`: rooms with `settings`, the push backend of its `calls` section (one
  /// with no certificates without it), room messaging per `server.messaging`, each with its own
  /// random streams.
  init(profile: Profile, layout: Layout, settings: RoomSettings, streams: RandomStreams) {
    let push =
      profile.calls.map {
        PushBackend(
          certificates: $0.push.certificates, appEnvironment: $0.push.appEnvironment, phones: layout.phones,
          delivery: PushDelivery(
            backendLatency: $0.push.backendLatency, latency: $0.push.latency, duplicateRate: $0.push.duplicateRate,
            malformedRate: $0.push.malformedRate),
          // Each phone's `push` stream: the backend's draws for pushes to it.
          random: streams.entities("push", layout.phoneIdentities))
      } ?? PushBackend(certificates: [], appEnvironment: .production, phones: 0..<0)
    let feed = RoomFeed(
      seatCounts: [Int](repeating: settings.seatCount, count: layout.rooms),
      delayUs: RoomFeed.delays(layout: layout, latency: profile.network.clientServer, streams: streams),
      homeRoom: { layout.isPhone($0) ? nil : layout.homeRoom[Int($0)] }, messaging: profile.server.messaging)
    self.init(
      layout: layout, settings: settings, push: push, applyAnswersOnOutcome: profile.seats.applyCompletion == .outcome,
      feed: feed)
    calls.offlineRingsOut = profile.calls?.offlineRingsOut ?? true
    calls.busyRejectedByCallee = profile.calls?.busyRejectedByCallee ?? true
    if !feed.immediate { feed.takeRandom(streams.entities("messaging", layout.roomIdentities)) }
  }
}

extension PhoneFleet {
  /// The phones of the `calls` section `c`, run by `os`, each drawing from its own `phone-os`
  /// stream.
  convenience init(_ c: Profile.Calls, os: PhoneSystem, runtime: ClientRuntime, layout: Layout, streams: RandomStreams)
  {
    self.init(
      os: os, runtime: runtime, app: c.app, push: c.push, phone: c.phone, conversationGrace: c.conversationGrace,
      startActionProbability: c.startActionProbability, random: streams.entities("phone-os", layout.phoneIdentities))
    mergeActionProbability = c.mergeActionProbability
  }
}

extension Profile {
  /// The delivery order settings a run of this profile with `seed` uses (`network.ties`,
  /// `network.pct`): as the profile gives them, or drawn by the seed where it says `"drawn"`, or
  /// says nothing under `faults: "swarm"` (see ``DeliveryOrder/draw(seededTies:depth:random:)``).
  public func ordering(seed: UInt64) -> (seededTies: Bool, depth: Int) {
    ordering(RandomStreams(rootSeed: seed))
  }

  func ordering(_ streams: RandomStreams) -> (seededTies: Bool, depth: Int) {
    let net = network
    let ties: Bool? =
      switch net.ties ?? (faults.swarm ? .drawn : .fifo) {
      case .fifo: false
      case .seeded: true
      case .drawn: nil
      }
    let depth = net.pctDepth ?? (faults.swarm ? Network.drawnDepth : 0)
    let fixedDepth: Int? = depth == Network.drawnDepth ? nil : depth
    guard ties == nil || fixedDepth == nil else { return (ties!, fixedDepth!) }
    var random = streams.stream("ordering-draw")
    return DeliveryOrder.draw(seededTies: ties, depth: fixedDepth, random: &random)
  }
}
