import Foundation
import Metrics
import Testing

@testable import Clients
@testable import LiveStack
@testable import Oracles
@testable import Profiles
@testable import Scenario
@testable import SimKernel

/// A world built from a profile (the staged room by default) and driven by a test: events at
/// chosen instants, runs to chosen instants.
struct Staged {
  var world: LiveWorld
  var sim = Simulation()

  /// The world of `text`, started, with these behaviours (the built-in clients where nil).
  init(
    _ text: String = stagedProfile, audience: ClientBehavior? = nil, host: ClientBehavior? = nil,
    admin: ClientBehavior? = nil, phone: ClientBehavior? = nil, seed: UInt64 = 1
  ) throws {
    let profile = try Profile.parse(Data(text.utf8))
    world = LiveWorld(
      profile: profile, streams: RandomStreams(rootSeed: seed), audience: audience, host: host, admin: admin,
      phone: phone)
    world.start(&sim.scheduler)
  }

  /// The world of `profile` (see ``init(_:audience:host:admin:phone:seed:)``).
  init(
    _ profile: TestProfile, audience: ClientBehavior? = nil, host: ClientBehavior? = nil,
    admin: ClientBehavior? = nil, phone: ClientBehavior? = nil, seed: UInt64 = 1
  ) throws {
    try self.init(profile.text, audience: audience, host: host, admin: admin, phone: phone, seed: seed)
  }

  /// Makes `user`'s behaviour run its timer `tag` at `ms` (in the process then running).
  mutating func timer(_ user: UInt32, atMs ms: Int64, tag: UInt32 = 1) {
    let slot = world.backend.inFlight.addTimer(tag: tag, arg: 0, generation: world.generation(of: user))
    sim.scheduler.schedule(
      at: .zero + .milliseconds(ms), Event(kind: LiveEvent.clientTimer.rawValue, a: user, b: slot))
  }

  /// Makes `user` tap "apply" at `ms`.
  mutating func apply(_ user: UInt32, atMs ms: Int64) {
    sim.scheduler.schedule(
      at: .zero + .milliseconds(ms), Event(kind: LiveEvent.applyIntent.rawValue, a: user))
  }

  mutating func run(untilMs ms: Int64) { _ = sim.run(&world, until: .zero + .milliseconds(ms)) }

  var violations: Int { world.checker.log.total }
  func counter(_ name: String) -> UInt64 { world.metrics.counters.value(name) ?? 0 }
}
