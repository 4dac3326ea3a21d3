import Foundation
import Testing

@testable import Clients
@testable import Metrics
@testable import Profiles
@testable import Scenario
@testable import SimKernel

/// Hosts and admins are people: each reviews one application at a time, for an exponential think
/// time, so a room's staff are a queue with its own wait. Checked against queueing theory.
@Suite struct ReviewerQueueTests {
  /// Rooms whose viewers each apply once, on arrival (a Poisson stream of `perRoomRate`
  /// applications a second per room over three hours), to `reviewers` staff who think for an
  /// exponential time of mean `1/mu` and reject everything, so seats never matter. Messages take
  /// exactly 10 ms.
  static func profile(reviewers: Int, perRoomRate: Double, mu: Double, rooms: Int, claims: Bool) -> String {
    let hours = 3.0
    let viewers = Int((perRoomRate * hours * 3600).rounded())
    return """
      {
        name: "review-queue", duration: "190m",
        population: { rooms: \(rooms), audiencePerRoom: \(viewers), adminsPerRoom: \(reviewers - 1) },
        arrival: { pattern: "poisson", over: "3h" },
        seats: { maxSeatCount: 8, packageLimit: 8, mode: "apply", applyTimeout: "5h" },
        audience: { stay: "100h", applyProbability: 1, applyAfter: "constant(0ms)", maxApplies: 1 },
        host: {
          thinkTime: "exponential(\(Int((1000 / mu).rounded()))ms)", acceptProbability: 0, rejectWhenFull: false,
          reviewAtOnce: 1, reviewOrder: "oldest", reviewClaims: \(claims),
        },
        network: { clientServer: "constant(10ms)" },
        devices: { openTime: "constant(100ms)" },
      }
      """
  }

  static func run(_ text: String, seed: UInt64) throws -> LiveWorld { try runUnchecked(text, seed: seed) }

  /// The mean wait for review (seconds) of each seed's run, less the 10 ms the application takes to
  /// reach the reviewers, with how many applications it covers.
  static func waits(_ text: String, seeds: ClosedRange<UInt64>) throws -> (means: [Double], count: UInt64) {
    var means: [Double] = []
    var count: UInt64 = 0
    for seed in seeds {
      let h = try run(text, seed: seed).metrics.latencies[LiveMetrics.waitForReview]
      means.append(h.mean! / 1e9 - 0.010)
      count += h.count
    }
    return (means, count)
  }

  /// Erlang's C formula: the probability that an arrival waits, with `c` servers and offered load
  /// `a = λ/μ` (< c).
  static func erlangC(servers c: Int, load a: Double) -> Double {
    var term = 1.0
    var sum = 0.0
    for k in 0..<c {
      if k > 0 { term *= a / Double(k) }
      sum += term
    }
    let top = term * a / Double(c) * Double(c) / (Double(c) - a)
    return top / (sum + top)
  }

  /// Mean and standard error of `xs`.
  static func meanAndError(_ xs: [Double]) -> (mean: Double, error: Double) {
    let m = xs.reduce(0, +) / Double(xs.count)
    let v = xs.map { ($0 - m) * ($0 - m) }.reduce(0, +) / Double(xs.count - 1)
    return (m, (v / Double(xs.count)).squareRoot())
  }

  @Test func oneReviewerIsAnMM1Queue() throws {
    // λ = 0.25/s, μ = 0.5/s: ρ = 0.5, and the mean wait before service is 1/(μ−λ) − 1/μ = 2 s.
    let lambda = 0.25
    let mu = 0.5
    let text = Self.profile(reviewers: 1, perRoomRate: lambda, mu: mu, rooms: 2, claims: false)
    let (means, count) = try Self.waits(text, seeds: 1...4)
    let expected = 1 / (mu - lambda) - 1 / mu
    let (mean, error) = Self.meanAndError(means)
    #expect(count > 20_000)
    // Within four standard errors of the four independent runs (and a sanity bound of 15%).
    #expect(abs(mean - expected) < 4 * error, "mean wait \(mean) s ± \(error), M/M/1 says \(expected) s")
    #expect(abs(mean - expected) < 0.15 * expected, "mean wait \(mean) s, M/M/1 says \(expected) s")
  }

  @Test func threeReviewersWhoClaimWhatTheyReviewAreAnMMcQueue() throws {
    // λ = 1/s, μ = 0.5/s per reviewer, c = 3: a = 2, C(3, 2) = 4/9, Wq = C / (cμ − λ) ≈ 0.889 s.
    let lambda = 1.0
    let mu = 0.5
    let text = Self.profile(reviewers: 3, perRoomRate: lambda, mu: mu, rooms: 1, claims: true)
    let (means, count) = try Self.waits(text, seeds: 1...4)
    let c = Self.erlangC(servers: 3, load: lambda / mu)
    #expect(abs(c - 4.0 / 9.0) < 1e-12)
    let expected = c / (3 * mu - lambda)
    let (mean, error) = Self.meanAndError(means)
    #expect(count > 40_000)
    #expect(abs(mean - expected) < 4 * error, "mean wait \(mean) s ± \(error), Erlang C says \(expected) s")
    #expect(abs(mean - expected) < 0.15 * expected, "mean wait \(mean) s, Erlang C says \(expected) s")
  }

  @Test func reviewersWhoCannotSeeEachOthersClaimsCollideAndWasteTheirTime() throws {
    // The same load as above, but the three reviewers all take up the oldest application: they
    // keep picking the one another is already reviewing, and the wait grows far beyond the 0.89 s
    // three independent reviewers would give.
    let text = Self.profile(reviewers: 3, perRoomRate: 1.0, mu: 0.5, rooms: 1, claims: false)
    let world = try Self.run(text, seed: 1)
    let reviews = world.metrics.counters.values[world.metrics.reviews]
    let applications = world.metrics.counters.values[world.metrics.applications]
    #expect(reviews > applications * 3 / 2, "\(reviews) reviews of \(applications) applications")
    let wait = world.metrics.latencies[LiveMetrics.waitForReview].mean! / 1e9
    #expect(wait > 5, "mean wait \(wait) s")
  }

  @Test func anUnlimitedReviewerAnswersEveryApplicationOnItsOwnTimer() throws {
    let text = Self.profile(reviewers: 1, perRoomRate: 0.25, mu: 0.5, rooms: 1, claims: false)
      .replacingOccurrences(of: "reviewAtOnce: 1", with: "reviewAtOnce: \"unlimited\"")
    let h = try Self.run(text, seed: 1).metrics.latencies[LiveMetrics.waitForReview]
    // No application ever waits for the reviewer: only the 10 ms it takes to reach it.
    #expect(h.count > 2_000)
    #expect(h.max <= 10_000_000)
  }

  @Test func aReviewerPicksAmongTheOpenApplicationsInTheSDKsOrder() {
    // The pick by position, without building the list of open applications, against the list
    // built with filters, over random desks: with and without claims, every position.
    var random = SplitMix64(seed: 7)
    for claims in [false, true] {
      var settings = HostSettings(
        thinkTime: .constant(1e9), acceptProbability: .one, rejectWhenFull: false, inviteEvery: nil,
        inviteTimeout: .seconds(10), kickEvery: nil, lockEvery: nil, lockFor: .constant(1e9), moveEvery: nil,
        movePolicies: [.abortWhenOccupied], endLiveAfter: nil)
      settings.reviewClaims = claims
      let host = StandardHost(settings: settings)
      host.desk.ensure(slots: 2, room: 3)
      var checked = 0
      var wrong: [String] = []
      for _ in 0..<200 {
        let listed = (0..<Int(random.next(below: 12))).map { _ in UInt32(random.next(below: 20)) }
        func some() -> [UInt32] { (0..<Int(random.next(below: 4))).map { _ in UInt32(random.next(below: 20)) } }
        host.desk.reviewing[1] = some()
        host.desk.answering[1] = some()
        host.desk.claimed[3] = some()
        var open = listed.filter { !host.desk.reviewing[1].contains($0) && !host.desk.answering[1].contains($0) }
        if claims { open.removeAll { host.desk.claimed[3].contains($0) } }
        if host.openCount(listed, slot: 1, room: 3) != open.count { wrong.append("count of \(listed)") }
        for (rank, guest) in open.enumerated() where host.openApplicant(listed, rank: rank, slot: 1, room: 3) != guest {
          wrong.append("position \(rank) of \(listed)")
        }
        if host.openApplicant(listed, rank: open.count, slot: 1, room: 3) != nil { wrong.append("past \(listed)") }
        checked += open.count
      }
      #expect(wrong.count == 0, "first mismatches: \(wrong.prefix(5))")
      #expect(checked > 200)
    }
  }
}
