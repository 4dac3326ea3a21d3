import ExampleSuites
import Foundation
import Reports
import SimKernel
import StampedeCLI
import StampedeHarness
import Testing

@testable import Runner
@testable import Scenario

let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
  .deletingLastPathComponent()

/// Runs `profile` (a shipped profile's file name) with the example suite `app`.
func runExample(_ app: String, profile: String = "smoke.json5", seed: UInt64, duration: SimDuration? = nil) throws
  -> RunReport
{
  let path = repositoryRoot.appendingPathComponent("profiles/\(profile)").path
  let data = try Data(contentsOf: URL(fileURLWithPath: path))
  var run = SimulationRun(
    profile: try Profile.parse(data), profilePath: "profiles/\(profile)", profileData: data, seed: seed,
    duration: duration)
  run.program = "stampede-examples"
  run.app = exampleSuites.first { $0.name == app }!.clientApp
  return run.report(run.execute(), startedAt: Date())
}

func violated(_ report: RunReport) -> [String] { report.invariants.filter { $0.violations > 0 }.map(\.id) }

/// The example view models run as virtual users: the correct ones pass, each wrong variant is
/// caught by the invariant that names its mistake.
@Suite(.serialized) struct ExampleTests {
  @Test(arguments: [1, 2, 3] as [UInt64])
  func theCorrectExamplesPass(seed: UInt64) throws {
    let report = try runExample("examples", seed: seed)
    #expect(violated(report) == [], "seed \(seed)")
    #expect(report.counters["seat.connected", default: 0] > 0)
    #expect(report.counters["conversation.reported", default: 0] > 0)
    #expect(report.counters["call.placed", default: 0] > 0)
    #expect(report.repro.hasPrefix("stampede-examples run profiles/smoke.json5 --seed"))
    #expect(report.repro.hasSuffix("--app examples"))
  }

  @Test func aDoubleTappedApplyIsCaughtOnEverySeedOneToFive() throws {
    for seed: UInt64 in 1...5 {
      let report = try runExample("double-tap", seed: seed)
      #expect(violated(report) == ["ui.idle-means-nothing-pending"], "seed \(seed)")
    }
  }

  @Test func aGuestConnectedWithItsMicrophoneClosedIsCaughtOnEverySeedOneToFive() throws {
    for seed: UInt64 in 1...5 {
      let report = try runExample("seat-list-guest", seed: seed)
      #expect(violated(report) == ["ui.connected-means-seated"], "seed \(seed)")
    }
  }

  @Test func anAppRunIsTheSameTwiceInOneProcess() throws {
    let a = try runExample("examples", seed: 9, duration: .seconds(120))
    let b = try runExample("examples", seed: 9, duration: .seconds(120))
    #expect(a.traceHash == b.traceHash)
    #expect(a.events == b.events)
  }
}
