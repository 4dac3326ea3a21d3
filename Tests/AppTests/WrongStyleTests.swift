import ExampleSuites
import Foundation
import Reports
import SimKernel
import StampedeHarness
import Testing

/// The wrong variants in today's styles (Examples/ExampleApps/WrongStyles.swift): a main-actor
/// view model with async/await, an `@Observable` call screen, Dispatch from a Foundation file (a
/// watchdog, a group), and UIKit's lifecycle notifications. Each compiles as written and is caught by the invariant that
/// names its mistake; the correct examples pass the same seeds (``ExampleTests``).
@Suite(.serialized) struct WrongStyleTests {
  /// The presenter follows the model's first change only: the call screen it opened stays up.
  @Test func aCallScreenTrackedOnceStaysUpAfterItsCall() throws {
    let report = try runExample("one-shot-observation", seed: 1)
    #expect(violated(report) == ["ui.call-screen-matches-call"])
    let first = report.invariants.first { $0.id == "ui.call-screen-matches-call" }?.first
    #expect(first?.message.contains("call screen") == true, "\(first?.message ?? "")")
    // The causal excerpt shows the user's own print lines among its events, in order: the model
    // closed its screen ("[Call] screen none"), and the presenter never heard.
    let excerpt = first?.excerpt ?? []
    let printed = excerpt.filter { $0.contains(" print user:") }
    #expect(printed.contains { $0.hasSuffix("[Call] screen none") }, "\(excerpt)")
    #expect(excerpt.firstIndex { $0.contains(" print user:") } ?? 0 > 0, "printed lines sit among the events")
    // The app's deferred work (its main-queue hops) is named as such, not by the harness's tag.
    #expect(excerpt.contains { $0.contains("app work (a queued block") }, "\(excerpt)")
    #expect(!excerpt.contains { $0.contains("timer tag \(0xFFFF_FF01 as UInt32)") }, "\(excerpt)")
  }

  /// A watchdog from an application that ended early fires during the next one.
  @Test func aWatchdogNeverCancelledShowsIdleWhileAnApplicationWaits() throws {
    // (Smoke seeds 13, 16 and 18 of 1 to 20 catch it; seed 1 does not.)
    let report = try runExample("stale-watchdog", seed: 13)
    #expect(violated(report) == ["ui.idle-means-nothing-pending"])
  }

  /// A batch's group entered once and left by every accept: with two applications waiting, the
  /// second leave would stop the app on a phone. The run goes on and names the host; the correct
  /// panel passes the same seed (``ExampleTests``).
  @Test func aGroupLeftMoreOftenThanEnteredIsCaughtAsABrokenContract() throws {
    let report = try runExample("accept-all", seed: 1)
    #expect(violated(report) == ["app.platform-contract"])
    let first = report.invariants.first { $0.id == "app.platform-contract" }?.first
    #expect(
      first?.message.hasSuffix(
        "'s code broke a platform contract: DispatchGroup.leave() without a matching enter() (a phone's app stops here: \"Unbalanced call to dispatch_group_leave()\")"
      )
        == true, "\(first?.message ?? "")")
    #expect(first?.entities.first?.hasPrefix("user:") == true)
  }

  /// Checked before the `await`, set after it: a double tap racing a slow answer sends two
  /// applications (smoke seed 8 is the first of 1 to 120 where the answer is slower than the
  /// second tap; 13 of those 120 seeds catch it).
  @Test func aMainActorApplySetOnlyAfterItsAwaitIsCaughtWhenTheAnswerIsSlow() throws {
    let report = try runExample("await-then-set", seed: 8)
    #expect(violated(report) == ["ui.idle-means-nothing-pending"])
    #expect(try violated(runExample("await-then-set", seed: 1)) == [], "a fast answer hides it")
  }

  /// Viewers who leave the app come back with their camera opened, seated or not (nightly-chaos
  /// sends viewers to the background; smoke does not).
  @Test func aCameraReopenedOnEveryForegroundIsCaughtCapturingOffSeat() throws {
    let report = try runExample("foreground-camera", profile: "nightly-chaos.json5", seed: 1, duration: .minutes(20))
    #expect(violated(report).contains("device.capture-only-while-seated"), "\(violated(report))")
    #expect(try violated(runExample("examples", profile: "nightly-chaos.json5", seed: 1, duration: .minutes(20))) == [])
  }

  /// `bench catch` runs a suite whose mistake smoke cannot reach on the profile it names.
  @Test func aSuiteNamesTheProfileWhereItsMistakeIsReached() {
    let suites = Dictionary(uniqueKeysWithValues: exampleSuites.map { ($0.name, $0) })
    #expect(suites["foreground-camera"]?.catchProfile == "nightly-chaos")
    #expect(suites["await-then-set"]?.catchProfile == nil)
    for name in ["await-then-set", "one-shot-observation", "stale-watchdog", "accept-all", "foreground-camera"] {
      #expect(suites[name]?.summary.hasPrefix("wrong:") == true, "\(name) is a bench catch subject")
    }
  }
}
