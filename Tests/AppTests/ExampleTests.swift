import ExampleSuites
import Foundation
import Reports
import SimKernel
import StampedeCLI
import StampedeHarness
import Testing
import ToolSupport

@testable import Profiles
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
  /// Seed 4: a push that reaches a logged-in phone after its call was cancelled is reported and
  /// ended at once (it once stayed on screen: `conversation.ended-with-call`).
  @Test(arguments: [1, 2, 3, 4] as [UInt64])
  func theCorrectExamplesPass(seed: UInt64) throws {
    let report = try runExample("examples", seed: seed)
    #expect(violated(report) == [], "seed \(seed)")
    #expect(report.counters["seat.connected", default: 0] > 0)
    #expect(report.counters["conversation.reported", default: 0] > 0)
    #expect(report.counters["call.placed", default: 0] > 0)
    // Calls are placed through the system's UI: every placed call started its conversation first.
    #expect(report.counters["conversation.started_outgoing", default: 0] >= report.counters["call.placed", default: 0])
    #expect(report.counters["conversation.ended.remote_ended", default: 0] > 0)
    // The host's seat taps reach the server through the app, on smoke's kickEvery, lockEvery and
    // moveEvery, as the built-in host's do.
    for counter in ["seat.kicked", "seat.locks", "seat.moved", "seat.invitations"] {
      #expect(report.counters[counter, default: 0] > 0, "seed \(seed): \(counter)")
    }
    #expect(report.repro.hasPrefix("stampede-examples run profiles/smoke.json5 --seed"))
    #expect(report.repro.hasSuffix("--app examples"))
  }

  /// nightly-chaos seeds whose findings were settled (docs/CLIENTS.md, "What a correct app does
  /// under faults"):
  /// - 0x17: a leave after a failed microphone gave up inside an outage, idle on a seat;
  /// - 0x3b: a `calls()` answer held up past the call's end; the SDK learns the call and then its
  ///   end (it once never learnt either, and the screen stayed on "calling");
  /// - 0x7d: two calls pushed at once, the SDK ringing for the one whose conversation was ended;
  /// - 0xb4: an invitation with no answer and no timeout, withdrawn once, and that lost too;
  /// - 0xa78: a kick while the camera opened, and an apply right after: the camera's completion
  ///   showed "connected" for the new application with the microphone closed;
  /// - 0x1125: an admin's unlock sent as its app left the room to enter it again, refused (-3),
  ///   and never sent again: the seat stayed locked;
  /// - 0xd1: swarm-chaos 0x85's finding (an apply's success after its own acceptance, whose seat
  ///   was given up when the microphone failed: "applying" for nothing).
  @Test(arguments: [0x17, 0x3b, 0x7d, 0xb4, 0xa78, 0x1125, 0xd1] as [UInt64])
  func theCorrectExamplesPassTheNightlyChaosSeedsThatTaughtThem(seed: UInt64) throws {
    let report = try runExample("examples", profile: "nightly-chaos.json5", seed: seed)
    #expect(violated(report) == [], "seed \(seed)")
  }

  /// swarm-chaos seeds whose findings were settled (docs/CLIENTS.md, "What a correct app does
  /// under faults"):
  /// - 0x459: a late "login expired" ended a pushed call's conversation; logged in again, the SDK
  ///   rang for the same call while the app ran in the background with nothing on screen;
  /// - 0x6df: an invitation's "already processed" answer put back to idle a viewer whose
  ///   given-up application had been accepted meanwhile, its devices opening for the seat;
  /// - 0x9c: a hang-up's late answer closed the screen of the next dial, and the user dialled
  ///   again: two outgoing conversations, one left on screen;
  /// - 0x5d: a call rung while a dial was being placed was shown, and the dial then took the
  ///   shown conversation's place;
  /// - 0x145: an apply answered after a seat of an earlier application came and went: idle while
  ///   the application stood;
  /// - 0x2e0: a tap on a conversation the app no longer tracked declined the SDK's current call
  ///   and forgot the outgoing conversation;
  /// - 0x915: an earlier application's withdrawal went through while the next apply, refused
  ///   with 100202, waited on it: "applying" with nothing standing;
  /// - 0xa23: a host rejected the next application within a second of the last rejection, and
  ///   the app took the new rejection for a copy of the old;
  /// - 0xc06 (with the delivery order the swarm draws): the standing application's timeout came
  ///   before the next apply's 100202, was taken for an older application's and let pass, and the
  ///   app waited for an end already come;
  /// - 0x1253: a pushed call answered on the system UI while the app logged in again, and the
  ///   SDK, logged in, was in a call of its own (placed just before, its answer lost): the SDK
  ///   never rang for the pushed call, and the answer waited until the system gave up;
  /// - 0x1836: the same, with the push arriving while the SDK was still in its own call, so that
  ///   the check for a ring was never armed; the user answered once that call ended;
  /// - 0x20bb: an apply's success came after its own acceptance, whose microphone had failed and
  ///   whose leave got no answer: the app showed "applying" again, stopped sending the leave, and
  ///   its withdrawal's "already processed" put it to idle on the seat for good;
  /// - 0x8ad: a seat the list showed for a moment came and went while the microphone opened for
  ///   it, the viewer applied, and the opening's failure was taken for the new application's:
  ///   idle while the application stood;
  /// - 0x85: an apply's success came after its own acceptance, whose microphone had failed and
  ///   whose leave was answered by then: the app showed "applying" again for an application the
  ///   server no longer held, until its watchdog withdrew it (found once the UI oracle stopped
  ///   excusing "applying" after the application's answer had reached the SDK).
  @Test(
    arguments: [0x459, 0x6df, 0x9c, 0x5d, 0x145, 0x2e0, 0x915, 0xa23, 0xc06, 0x1253, 0x1836, 0x20bb, 0x8ad, 0x85]
      as [UInt64])
  func theCorrectExamplesPassTheSwarmChaosSeedsThatTaughtThem(seed: UInt64) throws {
    let report = try runExample("examples", profile: "swarm-chaos.json5", seed: seed)
    #expect(violated(report) == [], "seed \(seed)")
  }

  /// call-storm-swarm seeds whose findings were settled:
  /// - 0x64: a `calls()` answer reached an SDK logged out by then (a kick held up in a partition):
  ///   the SDK took up the call and kept it for good, since no message of it reaches a logged-out
  ///   SDK (Stampede's; it now takes up no call while logged out);
  /// - 0x1: a push ended at once while the phone was logged in elsewhere, rung for by the SDK
  ///   once logged in here again, with nothing on screen (long tests);
  /// - 0xa: the same phone's call, after a stale kick (long tests).
  @Test func theCorrectExamplesPassTheCallStormSeedsThatTaughtThem() throws {
    for seed: UInt64 in longTestsEnabled ? [0x64, 0x1, 0xa] : [0x64] {
      let report = try runExample("examples", profile: "call-storm-swarm.json5", seed: seed)
      #expect(violated(report) == [], "seed \(seed)")
    }
  }

  /// swarm-chaos seed 20: a host's join whose answer the SDK gave up on left its applicants on the
  /// server's side, and the host's next join, in the same slot, was handed them (a guest seated by
  /// then listed as an applicant: `coguest.no-duplicate-applicants`).
  @Test func aJoinGivenUpOnHandsItsApplicantsToNoLaterJoin() throws {
    let report = try runExample("examples", profile: "swarm-chaos.json5", seed: 20)
    #expect(violated(report) == [])
  }

  @Test func theAppsHostsReviewOneApplicationAtATimeWhenThePersonDoes() throws {
    // The smoke evening with its staff as people: one application at a time. The example host
    // app's taps now wait for a free hand, the wait is measured, and the correct apps still pass.
    let path = repositoryRoot.appendingPathComponent("profiles/smoke.json5").path
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    func run(_ atOnce: String) throws -> RunReport {
      let profile = try Profile.parse(data, overrides: [("host.reviewAtOnce", JSONValue.literal(atOnce))])
      var run = SimulationRun(profile: profile, profilePath: "profiles/smoke.json5", profileData: data, seed: 1)
      run.app = exampleSuites.first { $0.name == "examples" }!.clientApp
      return run.report(run.execute(), startedAt: Date())
    }
    let person = try run("1")
    let team = try run("unlimited")
    #expect(violated(person) == [])
    let wait = person.latencies["seat.wait_for_review"]!
    #expect(wait.count > 50 && wait.p99Ms! > 1000, "\(wait)")
    let reviewers = person.resources!.first { $0.name == "room.reviewers" }!
    #expect(reviewers.utilisation > team.resources!.first { $0.name == "room.reviewers" }!.utilisation * 0.5)
    #expect(reviewers.queueMean > 0)
    // A team answers every application on its own timer: nothing waits for a hand.
    #expect((team.latencies["seat.wait_for_review"]?.p99Ms ?? 0) < 200)
  }

  /// Seed 1 in `make test`, seeds 1 to 5 in `make test-long`.
  @Test func aDoubleTappedApplyIsCaughtOnEverySeedOneToFive() throws {
    for seed: UInt64 in longTestsEnabled ? 1...5 : 1...1 {
      let report = try runExample("double-tap", seed: seed)
      // The second tap's refusal shows idle while the first application waits, or (refused with
      // 100203) while the guest it made sits on its seat, where the run's end may find it still
      // (its client idle on a seat: seed 5).
      #expect(violated(report).contains("ui.idle-means-nothing-pending"), "seed \(seed)")
      #expect(
        Set(violated(report)).isSubset(of: [
          "ui.idle-means-nothing-pending", "ui.idle-means-off-seat", "client.view-matches-server",
        ]), "seed \(seed): \(violated(report))")
    }
  }

  /// A host panel that keeps one locked seat in one variable leaks a seat whenever two locks
  /// overlap: smoke seeds 1, 2, 5, 7 and 8 of 1 to 8 catch it, with `seat.lock-released` alone.
  @Test func aLeakedSeatLockIsCaught() throws {
    for seed: UInt64 in longTestsEnabled ? [1, 2, 5] : [1] {
      let report = try runExample("lock-leak", seed: seed)
      #expect(violated(report) == ["seat.lock-released"], "seed \(seed)")
    }
  }

  /// A viewer that reads no answer (-1) from `applyForSeat` as a refusal goes idle while its
  /// application stands; the host accepts it, and the idle screen ignores the seat. smoke's own
  /// runs lose no answer, so they never catch it; nightly-chaos loses some (`seat.response_lost`,
  /// `network.loss`), and seed 2 catches guests seated under an idle screen (12 of its seeds 1..40
  /// do; the correct viewer passes the same seeds, as the nightly sweeps of `examples` show).
  @Test func aViewerReadingNoAnswerAsARefusalIsCaughtWhereAnswersGetLost() throws {
    #expect(try violated(runExample("minus-one-refused", seed: 1)) == [], "no answer is lost on smoke")
    let report = try runExample("minus-one-refused", profile: "nightly-chaos.json5", seed: 2)
    let idle = try #require(report.invariants.first { $0.id == "ui.idle-means-off-seat" })
    #expect(idle.violations > 0)
    #expect(idle.first?.message.hasSuffix("'s UI shows idle while the server has it on a seat for 10s or more") == true)
  }

  /// On smoke it takes the sweep's steering: the last seed of each round loses a request's answer
  /// while the other side's answer to it never reaches the server (``Explore/pairs``). Seed 20,
  /// the first round's, loses applies' answers and hosts' accepts together: an apply's -1 comes
  /// while the application still stands, the screen goes idle, and the host's later accept seats
  /// the guest under it. No other seed of 1..20 catches it.
  @Test func aViewerReadingNoAnswerAsARefusalIsCaughtOnceTheSweepSteersPairs() throws {
    let path = repositoryRoot.appendingPathComponent("profiles/smoke.json5").path
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    var sweep = Sweep(
      profile: try Profile.parse(data), profilePath: "profiles/smoke.json5", profileData: data,
      seeds: .init(from: 1, to: 20), shard: nil, jobs: 2)
    sweep.app = exampleSuites.first { $0.name == "minus-one-refused" }!.clientApp
    sweep.program = "stampede-examples"
    sweep.explore = true
    let summary = sweep.execute(finished: { _ in })
    #expect(summary.failing.map(\.seed) == [20])
    let seated = summary.invariants.filter { $0.seeds.contains(20) }.map(\.id)
    #expect(seated.contains("ui.idle-means-off-seat"), "\(seated)")
    let failing = try #require(summary.failing.first)
    #expect(
      failing.repro.contains(
        "{call:\"applyForSeat\",outcome:\"no-answer-carried-out\",rate:\"1/4\"},{call:\"acceptApplication\",outcome:\"no-answer-not-carried-out\",rate:\"1/4\"}]"
      ), "\(failing.repro)")
  }

  /// A host panel that keeps its own applications list from the host events shows rows its SDK
  /// no longer lists (applications that timed out or ended as the viewer left, which raise no
  /// host event) and misses rows its SDK lists (those an entry into the room brought): caught by
  /// the list's probe on nightly-chaos, where the correct panel, which shows
  /// `CoGuestStore.state.applicants`, passes (``theCorrectExamplesPassTheNightlyChaosSeedsThatTaughtThem``).
  @Test func aHostListKeptFromEventsIsCaughtByItsProbe() throws {
    let report = try runExample("event-list", profile: "nightly-chaos.json5", seed: 1)
    let list = try #require(report.invariants.first { $0.id == "ui.applicants-match-sdk" })
    #expect(list.violations > 0)
    let message = list.first?.message ?? ""
    #expect(message.contains("'s applications list shows [") && message.hasSuffix("for 5s or more"), "\(message)")
    #expect(try violated(runExample("examples", profile: "nightly-chaos.json5", seed: 1)) == [])
  }

  /// A call screen whose ring timeout is cancelled on hang-up but not on connect cuts off the
  /// calls still running 45 s after they were placed: `call.no-stale-ring-timer`, alone, at the
  /// timer's own line.
  @Test func aRingTimeoutLeftRunningOnConnectIsCaught() throws {
    let report = try runExample("ring-timeout", seed: 1)
    #expect(violated(report) == ["call.no-stale-ring-timer"])
    let finding = report.invariants.first { $0.id == "call.no-stale-ring-timer" }
    #expect((finding?.violations ?? 0) > 10)
    let message = finding?.first?.message ?? ""
    #expect(message.contains("(RingTimeoutCallScreen.swift:24 hangup)") && message.contains("still rang"), "\(message)")
  }

  /// A host panel that invites whoever is tapped on the room's list (the harness taps any member,
  /// as a real list offers them) is caught by `coguest.invite-idle-only` on smoke seeds 1, 2, 3, 5,
  /// 6 and 8 of 1 to 8; the correct panel, which reads its SDK's state first, never is.
  @Test func aHostInvitingWhomItsOwnListsShowBusyIsCaught() throws {
    for seed: UInt64 in longTestsEnabled ? [1, 2, 3] : [2] {
      let report = try runExample("invite-any", seed: seed)
      #expect(violated(report).contains("coguest.invite-idle-only"), "seed \(seed)")
      let message = report.invariants.first { $0.id == "coguest.invite-idle-only" }?.first?.message ?? ""
      #expect(message.contains("whom its own SDK shows seated") || message.contains("whom its own SDK shows applying"))
      // The message names the app's own line that made the call.
      #expect(message.contains("(WrongVariants.swift:"), "\(message)")
      #expect(message.contains(" inviteToSeat), whom"), "\(message)")
    }
  }

  /// Seed 1 in `make test`, seeds 1 to 5 in `make test-long`.
  @Test func aGuestConnectedWithItsMicrophoneClosedIsCaughtOnEverySeedOneToFive() throws {
    for seed: UInt64 in longTestsEnabled ? 1...5 : 1...1 {
      let report = try runExample("seat-list-guest", seed: seed)
      #expect(violated(report) == ["ui.connected-means-seated"], "seed \(seed)")
    }
  }

  @Test func theExampleViewerClosesItsCameraInTheBackgroundAndOpensItOnReturn() throws {
    // The smoke evening with viewers leaving the app about every 90 s for about 20 s: the view
    // model hears UIApplication's notifications through its NotificationCenter.
    let path = repositoryRoot.appendingPathComponent("profiles/smoke.json5").path
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    let profile = try Profile.parse(
      data,
      overrides: [
        ("audience.background.every", JSONValue.literal("exponential(90s)")),
        ("audience.background.for", JSONValue.literal("exponential(20s)")),
      ])
    var run = SimulationRun(profile: profile, profilePath: "profiles/smoke.json5", profileData: data, seed: 1)
    run.app = exampleSuites.first { $0.name == "examples" }!.clientApp
    let report = run.report(run.execute(), startedAt: Date())
    #expect(violated(report) == [])
    #expect(report.counters["viewers.backgrounded", default: 0] > 100)
    #expect(report.counters["seat.connected", default: 0] > 0)
  }

  @Test func theGuidesPushHandlerIsCaughtOnEverySeedOneToThree() throws {
    // Its report runs in a task nobody awaits: the handler has finished, with nothing reported,
    // when the task runs. The correct manager awaits the report in the `async` variant. (The
    // guide's handler also shows a push that trails its call as ringing; the call screen of a
    // relaunched app may then disagree with the call, as on seed 1.)
    for seed: UInt64 in 1...3 {
      let report = try runExample("guide-push", seed: seed)
      #expect(violated(report).contains("push.reported-within-deadline"), "seed \(seed)")
      #expect(violated(report).allSatisfy { $0.hasPrefix("push.") || $0.hasPrefix("ui.call-screen") }, "seed \(seed)")
      #expect(report.counters["push.app_killed", default: 0] > 0)
    }
  }

  @Test func anAppRunIsTheSameTwiceInOneProcess() throws {
    let a = try runExample("examples", seed: 9, duration: .seconds(120))
    let b = try runExample("examples", seed: 9, duration: .seconds(120))
    #expect(a.traceHash == b.traceHash)
    #expect(a.events == b.events)
  }
}
