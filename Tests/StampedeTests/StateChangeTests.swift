import Foundation
import Testing

@testable import Clients
@testable import LiveStack
@testable import Profiles
@testable import Scenario
@testable import SimKernel

/// App code watches the SDK's state publishers, which publish every change of the SDK's state:
/// the world tells a behaviour that runs app code of each change no callback carries (an answer
/// with no completion, an event of a stream it does not subscribe to, a list the SDK keeps by
/// itself), so that the states publish before the app's next code runs.
@Suite struct StateChangeTests {
  /// The standard host, counting the changes of its SDK's state that no callback told it of.
  final class StateWatchingHost: ClientBehavior {
    let inner: any ClientBehavior
    var unprompted: [UInt32: Int] = [:]
    init(_ inner: any ClientBehavior) { self.inner = inner }
    func start(_ c: inout Client) { inner.start(&c) }
    func timer(tag: UInt32, arg: UInt32, _ c: inout Client) { inner.timer(tag: tag, arg: arg, &c) }
    func hostEvent(_ e: HostEvent, _ c: inout Client) { inner.hostEvent(e, &c) }
    func seatListChanged(_ change: SeatChangeEvent, _ c: inout Client) { inner.seatListChanged(change, &c) }
    func loginEvent(_ e: LoginEvent, _ c: inout Client) { inner.loginEvent(e, &c) }
    func liveEnded(_ c: inout Client) { inner.liveEnded(&c) }
    func sdkStateChanged(_ c: inout Client) { unprompted[c.user, default: 0] += 1 }
    var showsUI: Bool { true }
  }

  static let profile = """
    {
      name: "state-changes", duration: "10m",
      population: { rooms: 2, audiencePerRoom: 30, adminsPerRoom: 1 },
      seats: { maxSeatCount: 4, packageLimit: 4 },
      audience: { stay: "1h", applyProbability: 1, applyAfter: "exponential(30s)", patience: "exponential(10s)" },
      host: { thinkTime: "lognormal(20s, 0.5)", inviteEvery: "exponential(40s)" },
      network: { clientServer: "lognormal(50ms, 0.8)" },
    }
    """

  func run(watching: Bool) throws -> (LiveWorld, [StateWatchingHost]) {
    let profile = try Profile.parse(Data(StateChangeTests.profile.utf8))
    let standard = StandardClients(
      audience: profile.audience, host: profile.host, admin: profile.admin, phone: nil, phones: 0..<0,
      userCount: Layout(profile: profile, streams: RandomStreams(rootSeed: 7)).totalUsers, mistakes: [])
    let hosts = [StateWatchingHost(standard.host), StateWatchingHost(standard.admin)]
    var world =
      watching
      ? LiveWorld(profile: profile, streams: RandomStreams(rootSeed: 7), host: hosts[0], admin: hosts[1])
      : LiveWorld(profile: profile, streams: RandomStreams(rootSeed: 7), host: standard.host, admin: standard.admin)
    var sim = Simulation()
    world.start(&sim.scheduler)
    _ = sim.run(&world, until: .zero + profile.duration)
    return (world, hosts)
  }

  @Test func appCodeHearsEveryChangeNoCallbackCarriedAndTheRunIsOtherwiseTheSame() throws {
    let (watched, hosts) = try run(watching: true)
    let (plain, _) = try run(watching: false)
    // The hosts' SDKs drop withdrawn and timed-out applicants by themselves, and answers of the
    // hosts' calls made with no completion change their lists: each is a change app code hears.
    let staff = hosts.flatMap(\.unprompted)
    #expect(staff.count == 4, "every host and admin heard some: \(staff)")
    #expect(staff.allSatisfy { $0.value > 0 })
    // Hearing them changes nothing the server or the metrics see.
    #expect(watched.metrics.counters == plain.metrics.counters)
    #expect(watched.checker.log.total == 0)
  }
}
