import Foundation
import Metrics
import Testing

@testable import Clients
@testable import LiveStack
@testable import Profiles
@testable import Scenario
@testable import SimKernel

/// Runs `text` for its duration with the built-in clients.
func workload(_ extra: String, population: String = "rooms: 2, audiencePerRoom: 400", seats: String = "") -> String {
  """
  {
    name: "w", duration: "10m",
    population: { \(population) },
    seats: { maxSeatCount: 8, packageLimit: 6\(seats) },
    audience: { stay: "1h", applyProbability: 0.5, applyAfter: "exponential(1m)" },
    host: { thinkTime: "lognormal(2s, 0.5)" },
    \(extra)
  }
  """
}

@Suite struct WorkloadTests {
  @Test func aRampBringsThreeTimesAsManyViewersInItsSecondHalfAsInItsFirst() throws {
    let (first, _) = try runProfile(workload("arrival: { pattern: \"ramp\", over: \"10m\" },"), untilMs: 300_000)
    let (all, _) = try runProfile(workload("arrival: { pattern: \"ramp\", over: \"10m\" },"), untilMs: 600_000)
    let early = Double(first.metrics.counters.value("viewers.joined")!)
    let total = Double(all.metrics.counters.value("viewers.joined")!)
    // With a rate growing linearly from zero, a quarter of the arrivals land in the first half.
    #expect(total == 800)
    #expect(abs(early / total - 0.25) < 0.05)
  }

  @Test func poissonArrivalsSpreadEvenlyOverTheirWindow() throws {
    let (half, _) = try runProfile(workload("arrival: { pattern: \"poisson\", over: \"10m\" },"), untilMs: 300_000)
    let early = Double(half.metrics.counters.value("viewers.joined")!)
    #expect(abs(early / 800 - 0.5) < 0.06)
  }

  @Test func roomsDrawnFromADistributionDifferAndTheSeedFixesThem() throws {
    let text = workload("", population: "rooms: 50, audiencePerRoom: \"lognormal(100, 1)\"")
    let profile = try Profile.parse(Data(text.utf8))
    let a = Layout(profile: profile, streams: RandomStreams(rootSeed: 1))
    let b = Layout(profile: profile, streams: RandomStreams(rootSeed: 1))
    let c = Layout(profile: profile, streams: RandomStreams(rootSeed: 2))
    let sizes = (0..<50).map { a.audience(of: UInt32($0)).count }
    #expect(a.roomBase == b.roomBase)
    #expect(a.roomBase != c.roomBase)
    #expect(sizes.max()! > 4 * sizes.min()!)
    #expect(a.totalUsers == a.audienceCount + 50 * 1)
    #expect(a.role(of: a.roomBase[7]) == .owner && a.role(of: a.roomBase[7] + 1) == .audience)
  }

  /// A user's role follows from its place in its room: the owner first, then the admins, then the
  /// viewers (rooms with no viewers too); phones are audience. Checked user by user against the
  /// layout's own lists.
  @Test func eachUsersRoleFollowsFromItsPlaceInItsRoom() {
    for staff in [1, 2, 3] {
      let layout = Layout(viewers: [3, 0, 5, 1], staffPerRoom: staff, phoneCount: 4)
      var roles: [RoomRole] = []
      for r in 0..<layout.rooms {
        let owner = layout.staff(of: UInt32(r)).lowerBound
        roles += layout.staff(of: UInt32(r)).map { $0 == owner ? .owner : .admin }
        roles += layout.audience(of: UInt32(r)).map { _ in .audience }
      }
      roles += layout.phones.map { _ in .audience }
      #expect(roles.count == layout.totalUsers)
      #expect((0..<UInt32(layout.totalUsers)).map { layout.role(of: $0) } == roles, "\(staff) staff per room")
    }
  }

  @Test func aFlashCrowdOpensLockedSeatsAndAShareOfViewersApplyInTheWindow() throws {
    let text = """
      {
        name: "flash", duration: "3m",
        population: { rooms: 1, audiencePerRoom: 2000, adminsPerRoom: 1 },
        seats: { maxSeatCount: 8, packageLimit: 6 },
        audience: { stay: "1h", maxApplies: 1 },
        host: { thinkTime: "1s" },
        workload: { flashCrowd: { at: "1m", fraction: "30%", within: "2s" } },
        timeSeries: { interval: "1s" },
      }
      """
    let (world, _) = try runProfile(text)
    let occupied = try #require(world.series.column("seats.occupied"))
    let applying = try #require(world.series.column("clients.applying"))
    #expect(occupied.prefix(60).allSatisfy { $0 == 0 })
    #expect(applying.prefix(60).allSatisfy { $0 == 0 })
    #expect(applying[61] > 200)
    #expect(occupied.max()! == 6)
    let applied =
      world.metrics.counters.value("seat.applications")! + world.metrics.counters.value("seat.rejected.seat_limit")!
      + world.metrics.counters.value("seat.rejected.all_taken")!
    #expect(abs(Double(applied) / 2000 - 0.3) < 0.04)
    #expect(world.checker.log.total == 0)
  }

  @Test func coHostingTrimsGuestsBeyondSixSeatsAndRefusesApplications() throws {
    let text = TestProfile(
      workload(
        """
        workload: { coHosting: { fraction: 1, after: "5m", duration: "2m" } },
        """)
    ).with("seats.packageLimit", 8).text
    let (world, _) = try runProfile(text)
    #expect(world.metrics.counters.value("live.co_host_sessions") == 1)
    #expect(world.metrics.counters.value("seat.removed_by_server")! > 0)
    #expect(world.metrics.counters.value("errors.refused")! > 0)
    #expect(world.checker.log.total == 0)
  }

  @Test func freeModeViewersTakeSeatsWithoutAsking() throws {
    let (world, _) = try runProfile(workload("", seats: ", mode: \"free\""))
    #expect(world.metrics.counters.value("seat.free_takes")! > 6)
    #expect(world.metrics.counters.value("seat.applications") == 0)
    #expect(world.checker.log.total == 0)
  }

  @Test func timeSeriesAreSampledAtTheConfiguredInterval() throws {
    let (world, _) = try runProfile(workload("timeSeries: { interval: \"30s\" },"))
    #expect(world.series.names == LiveMetrics.gaugeNames)
    #expect(world.series.times == (0...20).map { Int64($0) * 30_000_000_000 })
    let idle = try #require(world.series.column("clients.idle"))
    #expect(idle.last! > 0)
  }

  @Test func theSameSeedGivesTheSameWorldAndAnotherSeedAnother() throws {
    let text = workload("arrival: { pattern: \"poisson\", over: \"2m\" },")
    let (_, a) = try runProfile(text, seed: 9)
    let (_, b) = try runProfile(text, seed: 9)
    let (_, c) = try runProfile(text, seed: 10)
    #expect(a.traceHash == b.traceHash)
    #expect(a.executedCount == b.executedCount)
    #expect(a.traceHash != c.traceHash)
  }
}
