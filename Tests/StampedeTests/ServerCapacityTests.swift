import Foundation
import Testing

@testable import Clients
@testable import LiveStack
@testable import Metrics
@testable import Profiles
@testable import Scenario
@testable import SimKernel

/// The server's services as queues: workers, service time, queue limit and rate limits, checked
/// against queueing theory and staged to the request.
@Suite struct ServerCapacityTests {
  static func run(_ text: String, seed: UInt64) throws -> LiveWorld { try runUnchecked(text, seed: seed) }

  @Test func aServiceWithTwoWorkersIsAnMM2Queue() throws {
    // Viewers arrive as a Poisson stream of λ = 2/s and each logs in once; the login service has
    // c = 2 workers of exponential service time with mean 500 ms (μ = 2/s): a = 1, and Erlang C
    // gives C(2, 1) = 1/3 and a mean wait for a worker of C / (cμ − λ) = 1/6 s.
    let text = """
      {
        name: "mm2", duration: "95m",
        population: { rooms: 1, audiencePerRoom: 10800, adminsPerRoom: 0 },
        arrival: { pattern: "poisson", over: "90m" },
        seats: { maxSeatCount: 4 },
        audience: { stay: "100h", applyProbability: 0 },
        host: { thinkTime: "1s" },
        network: { clientServer: "constant(10ms)" },
        server: { login: { workers: 2, serviceTime: "exponential(500ms)" } },
      }
      """
    var means: [Double] = []
    for seed: UInt64 in 1...4 {
      let world = try Self.run(text, seed: seed)
      let login = world.backend.desk.queues[1]
      #expect(login.served > 10_000)
      means.append(login.meanWaitSeconds)
      let usage = world.resources(end: .zero + .minutes(95)).first { $0.name == "server.login" }!
      // Utilisation: λ/(cμ) = 0.5 over the arrivals' 90 minutes of 95.
      #expect(abs(usage.utilisation - 0.5 * 90 / 95) < 0.03, "\(usage)")
    }
    let expected = 1.0 / 6.0
    let mean = means.reduce(0, +) / Double(means.count)
    let sd = (means.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(means.count - 1)).squareRoot()
    let error = sd / Double(means.count).squareRoot()
    #expect(abs(mean - expected) < 4 * error, "mean wait \(mean) s ± \(error), Erlang C says \(expected) s")
    #expect(abs(mean - expected) < 0.15 * expected, "mean wait \(mean) s, Erlang C says \(expected) s")
  }

  @Test func aFullQueueRefusesWithTheGenericErrorAndTheResourceSaysSo() throws {
    // The five users of the staged room log in at time zero; one worker takes a second per login
    // and nothing may wait: the first is served, the four others are refused with -1.
    let text = TestProfile(stagedProfile).with(
      "server", json5: "{ login: { workers: 1, serviceTime: \"constant(1s)\", queueLimit: 0 } }"
    ).text
    let world = try Self.run(text, seed: 1)
    let login = world.backend.desk.queues[1]
    #expect(login.refused[ServiceRefusal.allCases.firstIndex(of: .queueFull)!] >= 4)
    let usage = world.resources(end: .zero + .minutes(10)).first { $0.name == "server.login" }!
    #expect(usage.refused["queue_full"]! >= 4 && usage.capacity == "1 worker(s), queue 0")
    #expect(world.metrics.counters.value("errors.failed")! >= 4)
  }

  @Test func aRateLimitRefusesWithTheFrequencyLimitError() throws {
    // Each viewer joins and at once applies: two seat requests in one second. One a second per
    // user refuses every application with -2; two a second refuse none.
    func refused(_ perUser: Int) throws -> UInt64 {
      let text = TestProfile(stagedProfile)
        .with("audience", json5: "{ stay: \"1h\", applyProbability: 1, applyAfter: \"constant(0ms)\", maxApplies: 1 }")
        .with("server", json5: "{ seats: { ratePerUser: \(perUser) } }").text
      let world = try Self.run(text, seed: 1)
      #expect(world.resources(end: .zero + .minutes(10)).contains { $0.name == "server.seats" })
      return world.metrics.counters.value("errors.frequencyLimited") ?? 0
    }
    #expect(try refused(1) == 3)
    #expect(try refused(2) == 0)
    #expect(SeatError.frequencyLimited.rawValue == -2 && SeatError.invalidParameter.rawValue == -1001)
  }

  @Test func aPushBackendAtCapacityDelaysPushesAndTurnsAwayWhatItCannotQueue() throws {
    // The shipped call storm with a push backend of one worker taking 200 ms a push and room for
    // five waiting: pushes wait (push.send_to_delivery grows), some are turned away, and the
    // correct clients break no invariant over it.
    let (profile, data) = try repositoryProfile("call-storm.json5")
    _ = profile
    let text = TestProfile(String(decoding: data, as: UTF8.self))
      .with("server", json5: "{ push: { workers: 1, serviceTime: \"constant(200ms)\", queueLimit: 5 } }")
      .with("duration", json5: "\"5m\"").text
    let limited = try Profile.parse(Data(text.utf8))
    var world = LiveWorld(profile: limited, streams: RandomStreams(rootSeed: 1))
    var sim = Simulation()
    world.start(&sim.scheduler)
    _ = sim.run(&world, until: .zero + limited.duration)
    let refused = world.metrics.counters.value("push.lost.refused") ?? 0
    let sent = world.metrics.counters.value("push.sent") ?? 0
    #expect(refused > 0 && refused < sent, "\(refused) of \(sent) pushes refused")
    let push = world.resources(end: .zero + limited.duration).first { $0.name == "server.push" }!
    #expect(push.utilisation > 0.3 && push.refused["queue_full"] == refused, "\(push)")
    // Pushes queue: the mean wait is a sizeable share of the 200 ms service time (94 ms on seed 1).
    #expect(push.waitMeanMs! > 50, "\(push)")
    #expect(world.checker.log.total == 0, "\(world.checker.log.first.compactMap { $0 }.prefix(3))")
  }

  @Test func aRequestStillQueuedAtTheSDKTimeoutFailsThenAndLeavesTheQueue() throws {
    // One login worker taking 30 s and an unlimited queue: the five staged users log in at time
    // zero. The first is served; the other four wait, and at 10 s (the SDK's request timeout,
    // counted from the call) each gets -1 and leaves the queue, so the worker never serves them.
    let text = TestProfile(stagedProfile).with(
      "server", json5: "{ login: { workers: 1, serviceTime: \"constant(30s)\" } }"
    ).text
    let profile = try Profile.parse(Data(text.utf8))
    var world = LiveWorld(profile: profile, streams: RandomStreams(rootSeed: 1))
    world.checking = false
    var sim = Simulation()
    world.start(&sim.scheduler)
    _ = sim.run(&world, until: .zero + .milliseconds(10_500))
    let login = world.backend.desk.queues[1]
    #expect(login.refused[ServiceRefusal.allCases.firstIndex(of: .clientTimeout)!] == 4)
    #expect(login.queued.level == 0 && login.busy.level == 1)
    #expect(world.metrics.counters.value("errors.failed") == 4)
    // The worker finishes the first login at 30 s and, with nothing left waiting, goes idle.
    _ = sim.run(&world, until: .zero + .seconds(40))
    #expect(world.backend.desk.queues[1].served == 1 && world.backend.desk.queues[1].busy.level == 0)
  }

  @Test(.long) func anOverloadedLoginServiceRetriesAndTimesOutButTheCorrectClientsBreakNoInvariant() throws {
    // The call storm with two login workers at exponential(200 ms): logins pile up, time out in
    // the SDK at 10 s and are tried again (the real overload dynamics). A phone whose login is
    // still on its way cannot decline a pushed call yet, so that is not held against it.
    let (_, data) = try repositoryProfile("call-storm.json5")
    let text = TestProfile(String(decoding: data, as: UTF8.self))
      .with("server", json5: "{ login: { workers: 2, serviceTime: \"exponential(200ms)\" } }")
      .with("duration", json5: "\"7m\"").text
    let profile = try Profile.parse(Data(text.utf8))
    var world = LiveWorld(profile: profile, streams: RandomStreams(rootSeed: 1))
    var sim = Simulation()
    world.start(&sim.scheduler)
    _ = sim.run(&world, until: .zero + profile.duration)
    let login = world.backend.desk.queues[1]
    let timeouts = login.refused[ServiceRefusal.allCases.firstIndex(of: .clientTimeout)!]
    #expect(timeouts > 1_000, "\(timeouts) logins timed out")
    #expect(login.busy.utilisation(capacity: 2, untilNs: profile.duration.nanoseconds) > 0.95)
    #expect(world.checker.log.total == 0, "\(world.checker.log.first.compactMap { $0 }.prefix(3))")
  }

  @Test func anUnlimitedServerAddsNoEvent() throws {
    // The default (no `server` section) and an explicit unlimited service run the same events.
    let plain = try Self.run(stagedProfile, seed: 3)
    let explicit = try Self.run(
      TestProfile(stagedProfile).with("server", json5: "{ seats: { workers: \"unlimited\" } }").text, seed: 3)
    #expect(!plain.backend.desk.hasCapacity && !explicit.backend.desk.hasCapacity)
    #expect(plain.metrics.counters == explicit.metrics.counters)
  }

  @Test func badServerSettingsNameTheirKeyPath() {
    let cases: [(String, String, String)] = [
      ("{ seats: { workers: 0 } }", "server.seats.workers", "1"),
      ("{ seats: { workers: \"many\" } }", "server.seats.workers", "unlimited"),
      ("{ login: { ratePerUser: \"unlimited\" } }", "server.login.ratePerUser", "whole number"),
      ("{ pushes: {} }", "server.pushes", "unknown key"),
      ("{ calls: { serviceTime: \"soon\" } }", "server.calls.serviceTime", "expected a duration"),
    ]
    for (json, path, fragment) in cases {
      let error = profileError(TestProfile(minimalProfile).with("server", json5: json).text)
      #expect(error?.path == path, "\(json): \(String(describing: error))")
      #expect(error?.message.contains(fragment) == true, "\(json): \(String(describing: error))")
    }
  }
}
