import Foundation
import Metrics
import Testing

@testable import Clients
@testable import LiveStack
@testable import Oracles
@testable import Profiles
@testable import Scenario
@testable import SimKernel

/// A minimal valid profile; tests replace or add single keys.
let minimalProfile = """
  {
    name: "t",
    duration: "1m",
    population: { rooms: 1, audiencePerRoom: 10 },
    seats: { maxSeatCount: 4 },
    audience: { stay: "30s" },
    host: { thinkTime: "1s" },
  }
  """

func profileError(_ text: String) -> ProfileError? {
  do {
    _ = try Profile.parse(Data(text.utf8))
    return nil
  } catch {
    return error
  }
}

/// One room: user 0 owns it, user 1 is an admin, users 2, 3 and 4 watch. Every message takes
/// exactly 10 ms and every device opens in 100 ms, so races can be staged to the millisecond.
/// The owner sits on no seat, so the two seats are the guests' 0 and 1 (``stagedOwnerSeated`` keeps
/// the owner on seat 0, as shipped profiles do).
let stagedProfile = """
  {
    name: "staged", duration: "10m",
    population: { rooms: 1, audiencePerRoom: 3, adminsPerRoom: 1 },
    seats: { maxSeatCount: 2, packageLimit: 2, applyTimeout: "30s", keepOwnerOnSeat: false },
    audience: { stay: "1h" },
    host: { thinkTime: "1s" },
    network: { clientServer: "constant(10ms)" },
    devices: { openTime: "constant(100ms)" },
  }
  """

/// The staged room with the owner on seat 0 and the guests' seats 1 and 2.
let stagedOwnerSeated = TestProfile(stagedProfile).with("seats.keepOwnerOnSeat", json5: "true").text

/// Phones 5, 6 and 7 beside the staged room, with every delay fixed: messages 10 ms, pushes
/// 500 ms, cold starts 1 s, tokens 100 ms after the registry, system-UI taps 2 s after the ring.
let stagedPush = TestProfile(stagedProfile).with(
  "calls",
  json5: """
    {
      users: 3, dialEvery: "1000h", answerProbability: 1, answerAfter: "constant(2s)", talkTime: "1000h",
      app: { coldStart: "constant(1s)", away: "1000h", suspendedLifetime: "1000h" },
      push: {
        certificateID: 7, certificates: [{ id: 7 }], latency: "constant(500ms)", backendLatency: "constant(0ms)",
        reportDeadline: "5s", suppressAfter: 2, tokenDelay: "constant(100ms)",
      },
      conversations: { actionTimeout: "30s", endGrace: "10s" },
    }
    """
).text

/// Phones in the staged world: one room as usual, plus phone users 5, 6 and 7. Every message
/// takes 10 ms.
let stagedCalls = TestProfile(stagedProfile).with("calls", json5: "{ users: 3, dialEvery: \"1000h\" }").text

/// The staged room (every message 10 ms) with `plan` (JSON5 fault entries) as its fault list and
/// a one-minute heal.
func chaosStaged(_ plan: String, base: String = stagedProfile) -> String {
  TestProfile(base).with("faults", json5: "{ heal: \"1m\", plan: [\(plan)] }").text
}

/// Runs `text` with the built-in clients from `seed`, to its end or `untilMs`.
func runProfile(_ text: String, seed: UInt64 = 1, untilMs: Int64? = nil) throws -> (LiveWorld, Simulation) {
  let profile = try Profile.parse(Data(text.utf8))
  var world = LiveWorld(profile: profile, streams: RandomStreams(rootSeed: seed))
  var sim = Simulation()
  world.start(&sim.scheduler)
  _ = sim.run(&world, until: .zero + (untilMs.map { .milliseconds($0) } ?? profile.duration))
  return (world, sim)
}

/// Runs `text` with the built-in clients from `seed` to its end, without the oracles (for tests
/// that measure queues rather than judge clients).
func runUnchecked(_ text: String, seed: UInt64) throws -> LiveWorld {
  let profile = try Profile.parse(Data(text.utf8))
  var world = LiveWorld(profile: profile, streams: RandomStreams(rootSeed: seed))
  world.checking = false
  var sim = Simulation()
  world.start(&sim.scheduler)
  _ = sim.run(&world, until: .zero + profile.duration)
  return world
}

/// The repository's root folder, found from this file's path.
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
  .deletingLastPathComponent().deletingLastPathComponent()

/// A shipped profile by file name, parsed, with its bytes.
func repositoryProfile(_ name: String) throws -> (Profile, Data) {
  let url = repositoryRoot.appendingPathComponent("profiles/\(name)")
  let data = try Data(contentsOf: url)
  return (try Profile.parse(data), data)
}

/// The proving ground of the catalogue.
func mistakesProfile() throws -> (Profile, Data) {
  let url = repositoryRoot.appendingPathComponent("profiles/mistakes.json5")
  let data = try Data(contentsOf: url)
  return (try Profile.parse(data), data)
}
