import Foundation
import Testing

@testable import Clients
@testable import LiveStack
@testable import Metrics
@testable import Profiles
@testable import Reports
@testable import Runner

/// Outcome coverage: what each SDK call got, what it can get and never did, and the events each
/// role heard, in report.json, report.html and sweep summaries.
@Suite struct CoverageTests {
  /// Every error but `.failed` is counted in the column that names it, and only there.
  @Test func eachErrorIsCountedInItsOwnColumn() {
    for e in SeatError.allCases where e != .failed {
      #expect(OutcomeCoverage.outcomes[OutcomeCoverage.errorColumn(e)] == .error(e), "\(e)")
      var c = OutcomeCoverage()
      c.answered(.takeSeat, e, carriedOut: true)
      for o in OutcomeCoverage.outcomes {
        #expect(c.count(.takeSeat, o) == (o == .error(e) ? 1 : 0), "\(e): \(o.name)")
      }
    }
  }

  @Test func answersAreCountedByOutcomeAndTheGapsAreWhatTheCallCanGetAndNeverGot() {
    var c = OutcomeCoverage()
    c.answered(.applyForSeat, nil, carriedOut: true)
    c.answered(.applyForSeat, nil, carriedOut: true)
    c.answered(.applyForSeat, .failed, carriedOut: true)
    c.answered(.applyForSeat, .failed, carriedOut: false)
    c.answered(.applyForSeat, .alreadyInQueue, carriedOut: true)
    c.answered(.applyForSeat, nil, carriedOut: true, late: true)
    c.answered(.applyForSeat, .alreadyInQueue, carriedOut: true, late: true)
    c.answered(.openLocalMicrophone, .microphoneOccupied, carriedOut: true)
    #expect(c.count(.applyForSeat, .ok) == 2)
    #expect(c.count(.applyForSeat, .noAnswerCarriedOut) == 1)
    #expect(c.count(.applyForSeat, .noAnswerNotCarriedOut) == 1)
    #expect(c.count(.applyForSeat, .error(.alreadyInQueue)) == 2, "a late refusal is a refusal")
    #expect(c.count(.applyForSeat, .okLate) == 1)
    let table = c.table
    #expect(table.map(\.call) == [.applyForSeat, .openLocalMicrophone], "only calls made, most gaps first")
    let apply = table[0]
    #expect(!apply.neverSeen.contains(.ok) && !apply.neverSeen.contains(.error(.alreadyInQueue)))
    #expect(apply.neverSeen.contains(.error(.alreadyOnSeat)) && apply.neverSeen.contains(.error(.seatLocked)))
    // A device open is answered by the phone: "no answer" is not among what it can get.
    #expect(table[1].neverSeen == [.ok, .error(.microphoneNotAuthorized)])
    // Events, by role.
    c.heard(.guestEvent(.onGuestApplicationResponded(isAccept: false, host: 1)), role: 0)
    c.heard(.timer(tag: 1, arg: 0), role: 0)
    #expect(c.heardCount(role: "audience", "onGuestApplicationResponded(reject)") == 1)
    #expect(c.events.reduce(0, +) == 1, "a timer is not an event")
  }

  /// `explore` with `answer-late`: the steered calls succeed with their answers late, inside the
  /// SDK's timeout; unsteered, smoke's applications are never answered so late.
  @Test func aCallSteeredLateSucceedsWithItsAnswerLateAndTheBuiltInClientsStayCorrect() throws {
    let path = repositoryRoot.appendingPathComponent("profiles/smoke.json5").path
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    func run(_ sets: [String]) throws -> (RunReport, OutcomeCoverage) {
      let profile = try Profile.parse(data, overrides: try sets.map(Profile.parseSet))
      let run = SimulationRun(
        profile: profile, profilePath: "profiles/smoke.json5", profileData: data, seed: 3, duration: .minutes(4),
        overrides: sets)
      let result = run.execute()
      return (run.report(result, startedAt: Date()), result.world.metrics.coverage)
    }
    let (plain, plainCoverage) = try run([])
    let (late, lateCoverage) = try run([#"explore=[{call:"applyForSeat",outcome:"answer-late",rate:"1/2"}]"#])
    #expect(plainCoverage.count(.applyForSeat, .okLate) == 0)
    #expect(lateCoverage.count(.applyForSeat, .okLate) > 5)
    // Late, not lost: no more applications end unanswered than without the steering.
    #expect(
      lateCoverage.count(.applyForSeat, .noAnswerCarriedOut) == plainCoverage.count(.applyForSeat, .noAnswerCarriedOut))
    // Each late success was one the steering delayed (some steered applications were refused).
    let steered = late.counters["fault.explore", default: 0]
    #expect(steered >= lateCoverage.count(.applyForSeat, .okLate))
    #expect(plain.counters["fault.explore"] == nil)
    #expect(late.violationCount == 0, "\(late.failures)")
  }

  @Test func everyPossibleErrorIsOneTheModelCanGiveAndEveryCallbackKindHasAName() {
    for kind in OperationKind.allCases {
      #expect(!kind.possibleErrors.contains(.failed), "\(kind): -1 is counted as no answer")
      #expect(Set(kind.possibleErrors).count == kind.possibleErrors.count, "\(kind)")
    }
    #expect(Set(ClientCallback.coverageNames).count == ClientCallback.coverageNames.count)
    let samples: [ClientCallback] = [
      .guestEvent(.onKickedOffSeat(seatIndex: 1, host: 0)), .hostEvent(.onGuestApplicationReceived(guest: 3)),
      .callEvent(.ended(user: 1, call: 2, reason: .hangup, other: 3)), .loginEvent(.loginExpired), .liveEnded,
      .appStateChanged(foreground: true),
    ]
    let names = samples.map { ClientCallback.coverageNames[$0.coverageIndex!] }
    #expect(
      names == [
        "onKickedOffSeat", "onGuestApplicationReceived", "onCallEnded", "onLoginExpired", "onLiveEnded",
        "app state changed",
      ])
  }

  @Test func aRunsReportCarriesItsCoverageAndSeedsMergeIntoTheSweepsCoverage() throws {
    let path = repositoryRoot.appendingPathComponent("profiles/nightly-chaos.json5")
    let data = try Data(contentsOf: path)
    let profile = try Profile.parse(data)
    var reports: [RunReport] = []
    for seed: UInt64 in [1, 2] {
      let run = SimulationRun(profile: profile, profilePath: "p", profileData: data, seed: seed, duration: .minutes(10))
      reports.append(run.report(run.execute(), startedAt: Date()))
    }
    let coverage = try #require(reports[0].coverage)
    let apply = try #require(coverage.calls.first { $0.call == "applyForSeat" })
    #expect(apply.outcomes["ok", default: 0] > 0)
    #expect(apply.outcomes["seatLimitExceeded (-2340)", default: 0] > 0, "nightly-chaos hits the seat limit")
    #expect(apply.neverSeen.contains("alreadyOnSeat (100203)"), "the built-in viewers never apply while seated")
    #expect(coverage.events["owner"]?["onGuestApplicationReceived", default: 0] ?? 0 > 0)
    // Round trip through JSON.
    let encoded = try JSONEncoder().encode(reports[0])
    #expect(try JSONDecoder().decode(RunReport.self, from: encoded).coverage == coverage)
    // The sweep adds the seeds up: counts add, and a gap stays only if both seeds have it.
    let summary = SweepSummary.build(
      tool: reports[0].tool, profile: reports[0].profile, seeds: .init(from: 1, to: 2), shard: nil,
      results: reports.map(SweepSummary.SeedResult.init), meta: .init(wallSeconds: 1, jobs: 1))
    let merged = try #require(summary.coverage)
    let second = try #require(reports[1].coverage?.calls.first { $0.call == "applyForSeat" })
    let total = try #require(merged.calls.first { $0.call == "applyForSeat" })
    #expect(total.outcomes["ok"] == apply.outcomes["ok"]! + second.outcomes["ok"]!)
    #expect(Set(total.neverSeen) == Set(apply.neverSeen).intersection(second.neverSeen))
    // The pages show it, the gaps first.
    let page = HTMLReport.render(reports[0])
    #expect(page.contains("<h2>Outcome coverage</h2>"))
    let first = try #require(coverage.calls.first)
    #expect(page.range(of: "<code>\(first.call)</code>")!.lowerBound < page.range(of: "<code>login</code>")!.lowerBound)
  }
}
