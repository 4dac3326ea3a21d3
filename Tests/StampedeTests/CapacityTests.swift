import Foundation
import Testing

@testable import Profiles
@testable import Reports
@testable import Runner
@testable import Scenario
@testable import SimKernel

@Suite struct CapacityTests {
  /// Each viewer applies exactly once and is always answered, so `seat.apply_to_response.count`
  /// equals the audience: with the threshold `<= 500` the knee is 500 by construction.
  static let knownAnswer = """
    {
      name: "known", duration: "5m",
      population: { rooms: 1, audiencePerRoom: 100 },
      seats: { maxSeatCount: 4, packageLimit: 4, applyTimeout: "30s" },
      audience: { stay: "1h", applyProbability: 1, applyAfter: "uniform(1s, 60s)", maxApplies: 1 },
      host: { thinkTime: "1s", acceptProbability: "1/2" },
      thresholds: ["seat.apply_to_response.count <= 500"],
    }
    """

  @Test func theKneeIsTheLargestValueMeetingEveryThreshold() throws {
    let data = Data(CapacityTests.knownAnswer.utf8)
    let values = ["100", "300", "500", "700", "900"]
    let profiles = try Capacity.profiles(data: data, key: "population.audiencePerRoom", values: values)
    #expect(profiles.map { $0.population.audiencePerRoom } == values.map { .constant(Double($0)!) })
    let study = Capacity.run(
      profiles: profiles, values: values, key: "population.audiencePerRoom", profilePath: "known.json5",
      profileData: data, seeds: .init(from: 1, to: 3), jobs: 2)
    #expect(study.points.map(\.meetsAll) == [true, true, true, false, false])
    #expect(study.knee == "500")
    #expect(!study.nonMonotone)
    #expect(study.points[3].attainment.value == 0 && study.points[0].attainment.value == 1)
    #expect(study.points[0].attainment.low > 0.3 && study.points[0].attainment.high == 1)
    #expect(study.markdown.contains("Knee: population.audiencePerRoom = 500"))
    #expect(study.html.contains("<svg") && !study.html.contains("http"))
  }

  @Test func varyArgumentsAndOverridesAreCheckedLikeTheProfile() throws {
    #expect(Capacity.parseVary("seats.packageLimit=4,6,8")! == ("seats.packageLimit", ["4", "6", "8"]))
    #expect(Capacity.parseVary("audience.stay=lognormal(5m, 0.5)|lognormal(10m, 0.5)")!.values.count == 2)
    #expect(Capacity.parseVary("seats.packageLimit") == nil)
    #expect(Capacity.parseVary("seats.packageLimit=4,,8") == nil)
    let data = Data(CapacityTests.knownAnswer.utf8)
    do {
      _ = try Capacity.profiles(data: data, key: "seats.packageLimit", values: ["4", "9"])
      Issue.record("a package limit above the seat count was accepted")
    } catch {
      #expect(error.path == "seats.packageLimit")
      #expect(error.message.contains("must not exceed maxSeatCount (4), got 9 (with seats.packageLimit=9)"))
    }
    do {
      _ = try Capacity.profiles(data: data, key: "seats.packageLimt", values: ["4"])
      Issue.record("an unknown key was accepted")
    } catch {
      #expect(error.message.contains("did you mean \"packageLimit\""))
    }
    #expect(throws: ProfileError.self) { try Capacity.profiles(data: data, key: "name.inner", values: ["1"]) }
  }

  @Test func theKneeOfValuesRisingInCapacityIsTheSmallestThatPasses() {
    // Load rising: pass, pass, fail; the failing value beside the knee shows the bottleneck.
    let load = Capacity.knee([true, true, false, false])
    #expect(load.knee == 1 && load.failingBeside == 2 && !load.rising && !load.nonMonotone)
    // Capacity rising (more admins, more workers): fail, fail, pass.
    let staff = Capacity.knee([false, false, true, true])
    #expect(staff.knee == 2 && staff.failingBeside == 1 && staff.rising && !staff.nonMonotone)
    #expect(Capacity.knee([true, true]).knee == 1)
    #expect(Capacity.knee([false, false]).knee == nil)
    #expect(Capacity.knee([true, false, true]).nonMonotone)
    #expect(Capacity.knee([false, true, false]).nonMonotone)
  }

  @Test func severalVaryListsFollowEachOtherOrMakeAGrid() throws {
    let maxSeats = (key: "seats.maxSeatCount", values: ["4", "6", "8"])
    let limit = (key: "seats.packageLimit", values: ["4", "6", "8"])
    let zipped = Capacity.combine([maxSeats, limit], grid: false)!
    #expect(zipped.key == "seats.maxSeatCount + seats.packageLimit")
    #expect(zipped.labels == ["4 + 4", "6 + 6", "8 + 8"])
    #expect(zipped.settings[1].map(\.value) == ["6", "6"])
    let grid = Capacity.combine([maxSeats, (key: "seats.packageLimit", values: ["2", "4"])], grid: true)!
    #expect(grid.labels == ["4 × 2", "4 × 4", "6 × 2", "6 × 4", "8 × 2", "8 × 4"])
    #expect(Capacity.combine([maxSeats, (key: "seats.packageLimit", values: ["2", "4"])], grid: false) == nil)
    // Each setting is checked like the profile, naming every override.
    let data = Data(CapacityTests.knownAnswer.utf8)
    let profiles = try Capacity.profiles(data: data, settings: zipped.settings)
    #expect(profiles.map(\.seats.packageLimit) == [4, 6, 8])
    do {
      _ = try Capacity.profiles(data: data, settings: [[("seats.maxSeatCount", "4"), ("seats.packageLimit", "6")]])
      Issue.record("a package limit above the seat count was accepted")
    } catch {
      #expect(error.message.contains("(with seats.maxSeatCount=4, seats.packageLimit=6)"))
    }
  }

  @Test func theStaffingStudyFindsTheKneeAndNamesTheReviewersAsTheBottleneck() throws {
    let (profile, data) = try repositoryProfile("flash-crowd-staffing.json5")
    #expect(!profile.thresholds.isEmpty)
    let values = ["2", "8"]
    let profiles = try Capacity.profiles(data: data, key: "population.adminsPerRoom", values: values)
    let study = Capacity.run(
      profiles: profiles, values: values, key: "population.adminsPerRoom",
      profilePath: "profiles/flash-crowd-staffing.json5", profileData: data, seeds: .init(from: 1, to: 2), jobs: 2)
    #expect(study.points.map(\.meetsAll) == [false, true])
    #expect(study.knee == "8" && study.kneeIsSmallest)
    #expect(study.bottleneck == "room.reviewers")
    #expect(study.points[0].busiest == "room.reviewers")
    #expect(study.points[0].failedThresholds == ["seat.apply_to_response.p90 < 10s"])
    #expect(study.kneeSentence.contains("smallest value") && study.kneeSentence.contains("Bottleneck: room.reviewers"))
    #expect(study.html.contains("<title>knee</title>") && study.html.contains("<title>threshold</title>"))
    let json = String(decoding: try JSONEncoder().encode(study), as: UTF8.self)
    #expect(json.contains("\"bottleneck\":\"room.reviewers\""))
  }

  @Test func varyingServerWorkersNamesTheServerAsTheBottleneck() throws {
    // 6,000 viewers log in over ten minutes (10 a second) to a login service whose workers take
    // 300 ms each: two workers (6.7 a second) fall behind, eight keep up.
    let text = """
      {
        name: "login-staffing", duration: "12m",
        population: { rooms: 2, audiencePerRoom: 3000, adminsPerRoom: 0 },
        arrival: { pattern: "poisson", over: "10m" },
        seats: { maxSeatCount: 4 },
        audience: { stay: "100h", applyProbability: 0 },
        host: { thinkTime: "1s" },
        server: { login: { workers: 2, serviceTime: "exponential(300ms)" } },
        thresholds: ["login.to_room.p99 < 2s"],
      }
      """
    let data = Data(text.utf8)
    let values = ["2", "8"]
    let profiles = try Capacity.profiles(data: data, key: "server.login.workers", values: values)
    let study = Capacity.run(
      profiles: profiles, values: values, key: "server.login.workers", profilePath: "login.json5",
      profileData: data, seeds: .init(from: 1, to: 2), jobs: 2)
    #expect(study.points.map(\.meetsAll) == [false, true])
    #expect(study.knee == "8" && study.bottleneck == "server.login")
    #expect(study.points[0].utilisation["server.login"]!.value > 0.8)
    #expect(study.points[1].busiest == "server.login")
  }

  @Test func intervalsCoverWhatTheyShould() {
    let all = CapacityStudy.Interval.wilson(successes: 10, of: 10)
    #expect(all.value == 1 && all.high == 1 && abs(all.low - 0.7225) < 0.001)
    let half = CapacityStudy.Interval.wilson(successes: 50, of: 100)
    #expect(abs(half.low - 0.4038) < 0.001 && abs(half.high - 0.5962) < 0.001)
    let m = CapacityStudy.Interval.mean([1, 2, 3, 4, 5])
    #expect(m.value == 3 && abs((m.high - m.value) - 2.776 * (2.5 / 5).squareRoot()) < 1e-9)
  }

  /// Seats as an M/M/c/c loss system: applications arrive as a Poisson process, a seat is held for
  /// an exponential time, and an attempt that finds every seat taken is refused. The share refused
  /// must match Erlang's B formula.
  @Test(arguments: [(5, 5.0), (8, 4.0), (3, 6.0)])
  func seatBlockingMatchesErlangB(seats: Int, offeredLoad: Double) throws {
    let holdSeconds = 5.0
    let attempts = 12_000
    let window = Double(attempts) * holdSeconds / offeredLoad  // λ = A / S
    let text = """
      {
        name: "erlang", duration: "\(Int(window) + 600)s",
        population: { rooms: 1, audiencePerRoom: \(attempts) },
        arrival: { pattern: "poisson", over: "\(Int(window))s" },
        seats: { maxSeatCount: \(seats), packageLimit: \(seats), mode: "free" },
        audience: { stay: "1000h", applyProbability: 1, applyAfter: "1us", maxApplies: 1,
                    seatTime: "exponential(\(holdSeconds)s)" },
        host: { thinkTime: "1s" },
        devices: { openTime: "0s" },
        network: { clientServer: "1us" },
      }
      """
    let (world, _) = try runProfile(text, seed: 11)
    let c = world.metrics.counters
    let refused = Double(c.value("seat.rejected.seat_limit")! + c.value("seat.rejected.all_taken")!)
    let taken = Double(c.value("seat.free_takes")!)
    #expect(refused + taken == Double(attempts))
    let blocking = refused / (refused + taken)
    // Erlang B by the stable recurrence B(0) = 1, B(k) = A·B(k−1) / (k + A·B(k−1)).
    var b = 1.0
    for k in 1...seats { b = offeredLoad * b / (Double(k) + offeredLoad * b) }
    let standardError = (b * (1 - b) / Double(attempts)).squareRoot()
    #expect(abs(blocking - b) < 5 * standardError + 0.005, "measured \(blocking), Erlang B \(b)")
    #expect(world.checker.log.total == 0)
  }

  /// The capacity question of `bench seats` (profiles/bench-mmcc.json5) with the answer at once:
  /// applications filed by viewers and accepted by their host in apply mode, seats held
  /// exponential(20s), 0.2 applications a second a room (4 Erlang on 6 seats). With no delay
  /// between the apply and the host's accept the package limit is checked once, and the share
  /// refused with -2340 must be Erlang B's, within four standard errors of six independent seeds
  /// (less the warm-up of rooms that start empty: at most B times the mean hold over the hour).
  @Test(.long) func appliedSeatsAnsweredAtOnceBlockAsErlangBPredicts() throws {
    let base = TestProfile(try String(contentsOf: repositoryRoot.appendingPathComponent("profiles/bench-mmcc.json5")))
    let text = base.with("population.rooms", json5: "10").with("host.thinkTime", "constant(0ms)")
      .with("network.clientServer", "constant(0ms)").with("devices", json5: "{ openTime: \"constant(0ms)\" }").text
    var shares: [Double] = []
    for seed in UInt64(1)...6 {
      let (world, _) = try runProfile(text, seed: seed)
      let c = world.metrics.counters
      let refused = Double(c.value("seat.rejected.seat_limit") ?? 0)
      let filed = Double(c.value("seat.applications") ?? 0)
      #expect(refused + filed == 10 * 720)
      #expect(world.checker.log.total == 0)
      shares.append(refused / (refused + filed))
    }
    var b = 1.0
    for k in 1...6 { b = 4.0 * b / (Double(k) + 4.0 * b) }
    let mean = shares.reduce(0, +) / Double(shares.count)
    let variance = shares.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(shares.count - 1)
    let standardError = (variance / Double(shares.count)).squareRoot()
    let warmUp = b * 20.0 / 3600.0
    #expect(mean > b - warmUp - 4 * standardError && mean < b + 4 * standardError, "measured \(shares), Erlang B \(b)")
    #expect(standardError < 0.01)
  }
}
