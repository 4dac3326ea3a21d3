import Chaos
import Foundation
import Metrics
import Testing

@testable import Clients
@testable import LiveStack
@testable import Oracles
@testable import Profiles
@testable import Runner
@testable import Scenario
@testable import SimKernel

/// The phone-side fault kinds, on the staged phones (pushes take 500 ms, cold starts 1 s).
extension FaultEffectTests {
  @Test func aHostSendsItsCancelAgainUntilAnInvitationItGotNoAnswerForIsGone() throws {
    // The host invites every 2 s with no timeout; for 30 s every request of its own or answer to
    // it is lost. Invitations the server filed but whose answers were lost are cancelled, and a
    // cancel that is lost too is sent again, until the server answers it after the window.
    let text = TestProfile(
      chaosStaged("{ kind: \"network.loss\", rate: 1, target: \"user:0\", at: \"2s\", for: \"30s\" }")
    ).with("host", json5: "{ thinkTime: \"1s\", inviteEvery: \"constant(2s)\", inviteTimeout: \"0s\" }").text
    let silent = ScriptedClient()  // viewers leave invitations unanswered
    var s = try Staged(text, audience: silent, admin: ScriptedClient())
    s.run(untilMs: 120_000)
    #expect(s.counter("fault.network.loss") > 10)
    let filed = s.world.server.seats.requests.filter { $0.state == .pending && $0.kind == .invitation && $0.host == 0 }
      .map(\.guest)
    let known = s.world.runtime.invitees[Int(s.world.runtime.clients[0].staffSlot)]
    #expect(Set(filed) == Set(known), "server \(filed), host's SDK \(known)")
    s.world.judgeLiveness(now: s.sim.now)
    #expect(s.violations == 0)
  }
}

extension FaultEffectTests {
  @Test func theSDKGivesUpAtItsTimeoutOnACallHeldInAPartitionWhoseAnswerIsLost() throws {
    // Viewer 2 is cut off both ways from 4 s to 60 s, and every call it makes from 5.5 s to 7.5 s
    // is lost (its request or its answer, drawn per call). It logs in again five times from 6 s:
    // its SDK fails each at its request timeout, 10 s after the call, as the SDK's own timer does,
    // not when the partition heals (a lost answer used to wait for the request to get through).
    let text = chaosStaged(
      """
      { kind: "network.partition", target: "user:2", at: "4s", for: "56s" },
      { kind: "network.loss", rate: 1, target: "user:2", at: "5500ms", for: "2s" }
      """)
    let viewer = ScriptedClient()
    var sent: [SimInstant] = []
    var failed: [SimInstant] = []
    viewer.onTimer = { _, c in
      sent.append(c.runtime.now)
      c.login.login { c, r in if case .failure(.failed) = r { failed.append(c.runtime.now) } }
    }
    var s = try Staged(text, audience: viewer, admin: ScriptedClient())
    for k in 0..<5 { s.timer(2, atMs: 6000 + 100 * Int64(k)) }
    s.run(untilMs: 59_000)
    #expect(s.counter("fault.network.loss") == 5)
    #expect(sent.count == 5)
    #expect(failed == sent.map { $0 + .seconds(10) })
    // The requests whose answers were to be lost reach the server when the partition heals; their
    // answers are lost, and the SDK hears nothing more.
    s.run(untilMs: 120_000)
    #expect(failed.count == 5)
  }
}

extension FaultEffectTests {
  @Test func aJoinAnsweredAfterTheSDKLeftTheRoomDoesNotPutItBack() throws {
    // Viewer 2 joins again at 5 s; the answer is held (partition down, 4 s to 60 s), so the SDK
    // gives up on the join at its request timeout (15 s), though the server let it in. It leaves
    // at 6 s and that leave gets no answer (network.loss): its SDK leaves at 16 s whatever the
    // server did. The server, hearing no heartbeat, drops it.
    let text = chaosStaged(
      """
      { kind: "network.partition", target: "user:2", direction: "down", at: "4s", for: "56s" },
      { kind: "network.loss", rate: 1, target: "user:2", at: "5500ms", for: "1s" }
      """)
    let viewer = ScriptedClient()
    viewer.onTimer = { tag, c in
      if tag == 1 { c.liveList.joinLive(completion: viewer.logged("join")) }
      if tag == 2 { c.liveList.leaveLive(completion: viewer.logged("leave")) }
    }
    var s = try Staged(text, audience: viewer, admin: ScriptedClient())
    s.timer(2, atMs: 5000, tag: 1)
    s.timer(2, atMs: 6000, tag: 2)
    s.run(untilMs: 14_000)
    #expect(viewer.log.filter { $0.hasPrefix("2 join") || $0.hasPrefix("2 leave") } == [])
    s.run(untilMs: 59_000)
    #expect(viewer.log.filter { $0.hasPrefix("2 join") || $0.hasPrefix("2 leave") } == ["2 join -1", "2 leave -1"])
    s.run(untilMs: 61_000)
    #expect(viewer.log.filter { $0.hasPrefix("2 join") } == ["2 join -1"])
    #expect(s.world.runtime.clients[2].joinedRoom == 0)
    s.run(untilMs: 120_000)
    #expect(s.world.server.seats.room(of: 2) == nil)
    s.world.judgeLiveness(now: s.sim.now)
    #expect(s.violations == 0)
  }
}

extension FaultEffectTests {
  @Test func aSeatThatReturnsWhileTheMicrophoneOpensWaitsForThatOpen() throws {
    // Everything to viewer 2 is held from 0.5 s to 5 s: its seat (accepted at once), the kick at
    // 2 s and the invitation at 3 s all reach it at 5 s. The seat starts a microphone open (100 ms),
    // the kick ends the session, the invitation is accepted 10 ms later and the seat comes back at
    // 5.03 s while the first open is still under way: the viewer waits for it, and opens nothing twice.
    let text = TestProfile(
      chaosStaged(
        "{ kind: \"network.partition\", target: \"user:2\", direction: \"down\", at: \"500ms\", for: \"4500ms\" }")
    ).with("audience", json5: "{ stay: \"1h\", invitationThink: \"constant(10ms)\", acceptInvitation: 1 }").text
    let host = ScriptedClient.acceptingHost()
    host.onTimer = { tag, c in
      if tag == 1 { c.liveSeat.kickUserOutOfSeat(userID: 2) }
      if tag == 2 { c.coGuest.inviteToSeat(userID: 2, seatIndex: -1, timeout: .seconds(30)) }
    }
    var s = try Staged(text, host: host, admin: ScriptedClient())
    s.apply(2, atMs: 1000)
    s.timer(0, atMs: 2000, tag: 1)
    s.timer(0, atMs: 3000, tag: 2)
    s.run(untilMs: 10_000)
    #expect(s.world.server.seats.seat(of: 2) != nil)
    #expect(s.world.runtime.clients[2].status == .connected)
    #expect(s.world.runtime.isOn(.microphone, user: 2) && s.world.runtime.isOn(.camera, user: 2))
    #expect(s.world.checker.log.count("device.opened-once") == 0)
    #expect(s.violations == 0)
  }
}

extension FaultEffectTests {
  /// The staged room with `plan`, viewers that apply once when told, wait an hour for an answer
  /// and retry only after a minute.
  func viewerApplies(_ plan: String) -> String {
    TestProfile(chaosStaged(plan)).with(
      "audience",
      json5: """
        { stay: "1h", applyProbability: 0, patience: "constant(1h)", maxApplies: 4,
          retry: { rejected: "constant(1m)", timedOut: "constant(1m)", other: "constant(1m)" } }
        """
    ).text
  }

  @Test func aViewerWithdrawsAnApplicationThatGotNoAnswer() throws {
    // Viewer 2's apply at 1 s reaches the server, but the answer is lost: the SDK reports -1 at
    // 11 s. The server holds the application (30 s timeout), so the viewer cancels it.
    var s = try Staged(
      viewerApplies("{ kind: \"network.loss\", rate: 1, target: \"user:2\", at: \"900ms\", for: \"200ms\" }"),
      host: ScriptedClient(), admin: ScriptedClient(), seed: 1)
    s.apply(2, atMs: 1000)
    s.run(untilMs: 10_000)
    #expect(s.world.server.seats.pendingApplication(of: 2) != nil, "the answer, not the request, was lost")
    s.run(untilMs: 12_000)
    #expect(s.world.server.seats.pendingApplication(of: 2) == nil)
    #expect(s.world.runtime.clients[2].status == .idle)
    s.run(untilMs: 50_000)
    #expect(s.violations == 0)
  }
}

extension PushWorldTests {
  /// The staged phones with `plan` as the fault list.
  func chaosPhones(_ plan: String) -> String {
    chaosStaged(plan, base: stagedPush)
  }

  /// Phone 5 calls phone 6, whose app was killed, at 3 s (a push is due at 3.510 s).
  func callKilledCallee(_ plan: String, hangUpMs: Int64 = 20_000) throws -> (Staged, HookedPhone) {
    var (s, phone) = try staged(chaosPhones(plan))
    phone.onTimer = dial([6])
    s.run(untilMs: 2000)
    s.world.killProcess(6, &s.sim.scheduler)
    at(&s, 5, ms: 3000)
    at(&s, 5, ms: hangUpMs, tag: 101)
    s.run(untilMs: 60_000)
    s.world.judgeLiveness(now: s.sim.now)
    return (s, phone)
  }

  @Test func aDroppedPushNeverWakesTheCalleeAndTheCallTimesOut() throws {
    let (s, phone) = try callKilledCallee("{ kind: \"push.drop\", rate: 1, target: \"user:6\" }", hangUpMs: 50_000)
    #expect(s.counter("push.sent") == 1 && s.counter("push.lost.dropped") == 1)
    #expect(s.counter("app.cold_starts") == 0 && phone.actions.isEmpty)
    #expect(s.counter("call.ended.noResponse") == 1)
    #expect(s.counter("fault.push.drop") == 1 && s.violations == 0)
  }

  @Test func aDelayedPushArrivesTensOfSecondsLateAndTheAppCopes() throws {
    let (s, _) = try callKilledCallee("{ kind: \"push.delay\", rate: 1 }", hangUpMs: 100_000)
    let delivery = s.world.metrics.latencies[LiveMetrics.pushSendToDelivery]
    #expect(delivery.count == 1)
    #expect(delivery.min >= 20_500_000_000 && delivery.max < 60_500_000_000)
    #expect(s.counter("conversation.reported") == 1 && s.world.phoneOS!.activeConversations(6) == 0)
    #expect(s.counter("fault.push.delay") == 1 && s.violations == 0)
  }

  @Test func aDuplicatedPushIsReportedTwiceAndTheSecondEndedAtOnce() throws {
    let (s, phone) = try callKilledCallee("{ kind: \"push.duplicate\", rate: 1 }")
    #expect(s.counter("push.sent") == 1 && s.counter("conversation.reported") == 2)
    #expect(phone.actions.map(\.kind) == [.join] && s.counter("conversation.actions_fulfilled") == 1)
    #expect(s.counter("call.ended.hangup") == 1 && s.world.phoneOS!.activeConversations(6) == 0)
    #expect(s.counter("fault.push.duplicate") == 1 && s.violations == 0)
  }

  @Test func anInvalidatedTokenLosesThePushItWasFor() throws {
    let (s, _) = try callKilledCallee("{ kind: \"token.invalidated\", rate: 1, target: \"user:6\" }", hangUpMs: 50_000)
    #expect(s.counter("push.token_rotations") == 1 && s.counter("push.lost.token_invalidated") == 1)
    #expect(s.counter("conversation.reported") == 0 && s.counter("call.ended.noResponse") == 1)
    #expect(s.counter("fault.token.invalidated") == 1 && s.violations == 0)
  }

  @Test func anAppKilledAsThePushArrivesColdStartsAndStillAnswers() throws {
    var (s, phone) = try staged(chaosPhones("{ kind: \"app.killed\", rate: 1, target: \"user:6\" }"))
    phone.onTimer = dial([6])
    s.run(untilMs: 2000)
    s.world.phoneOS!.setApp(6, .background)  // suspended: the call comes as a push
    at(&s, 5, ms: 3000)
    at(&s, 5, ms: 20_000, tag: 101)
    s.run(untilMs: 40_000)
    // The push arrives at 3.510 s, the process dies, and the cold start ends at 4.510 s.
    #expect(s.counter("fault.app.killed") == 1 && s.counter("app.cold_starts") == 1)
    let report = s.world.metrics.latencies[LiveMetrics.pushDeliveryToReport]
    #expect(report.count == 1 && report.max == 1_000_000_000)
    #expect(s.counter("conversation.actions_fulfilled") == 1 && s.counter("call.ended.hangup") == 1)
    s.world.judgeLiveness(now: s.sim.now)
    #expect(s.violations == 0)
  }

  @Test func aBackgroundedAppGetsThePushInsteadOfTheSignal() throws {
    var (s, phone) = try staged(chaosPhones("{ kind: \"app.backgrounded\", rate: 1, target: \"user:6\" }"))
    phone.onTimer = dial([6])
    s.run(untilMs: 2000)
    at(&s, 5, ms: 3000)
    at(&s, 5, ms: 20_000, tag: 101)
    s.run(untilMs: 40_000)
    #expect(s.world.phoneOS!.appState(6) == .background)
    // The push wakes the app; its SDK catches up first (the ring shows the system UI), then the
    // handler reports the push again and ends that one at once, as the system requires.
    #expect(s.counter("push.sent") == 1, "\(s.counter("conversation.reported"))")
    #expect(s.counter("conversation.reported") == 2)
    #expect(s.counter("conversation.actions_fulfilled") == 1 && s.counter("call.ended.hangup") == 1)
    #expect(s.counter("fault.app.backgrounded") == 1)
    s.world.judgeLiveness(now: s.sim.now)
    #expect(s.violations == 0)
  }

  @Test func aLateCancelEndsTheCallAsTheCalleeStartsRinging() throws {
    var (s, phone) = try staged(chaosPhones("{ kind: \"call.cancel_late\", rate: 1, target: \"user:6\" }"))
    phone.onTimer = dial([6])
    s.run(untilMs: 2000)
    at(&s, 5, ms: 3000)
    s.run(untilMs: 10_000)
    // Rings at 3.020 s; the caller's hang-up reaches the server at 3.030 s, before the answer (5 s).
    #expect(s.counter("call.ended.canceled") == 1 && s.counter("fault.call.cancel_late") == 1)
    #expect(s.world.metrics.latencies[LiveMetrics.dialToConnected].count == 0)
    #expect(s.world.server.calls.call(of: 6) == nil && s.violations == 0)
  }

  @Test func aPushForASessionTheServerEndedIsReportedAndEndedAtOnce() throws {
    // Phone 6 is suspended; it is called at 3 s (the server rings it at 3.010 s) and kicked offline at 3.015 s, before the push
    // (3.510 s) wakes it. Its SDK learns of the kick as it reconnects: the push rings for nothing.
    var (s, phone) = try staged()
    phone.onTimer = dial([6])
    s.run(untilMs: 2000)
    s.world.phoneOS!.setApp(6, .background)
    at(&s, 5, ms: 3000)
    s.sim.scheduler.schedule(
      at: .zero + .milliseconds(3015),
      Event(kind: LiveEvent.loginEnded.rawValue, a: 6, b: UInt32(LoginEvent.kickedOffline.rawValue)))
    s.run(untilMs: 3600)
    #expect(s.counter("conversation.reported") == 1 && s.world.phoneOS!.activeConversations(6) == 0)
    s.run(untilMs: 60_000)
    #expect(phone.actions.isEmpty)
    s.world.judgeLiveness(now: s.sim.now)
    #expect(s.violations == 0)
  }

  @Test func aPhoneKickedOfflineInACallShowsNoCallAfterwards() throws {
    // 5 calls 6 at 3 s; 6 answers at 5.020 s and the call starts. At 8 s 6 is kicked offline: the
    // server hangs its call up, and its SDK, which hears of the kick, is in no call either
    // (`CallStore.state` shows none, as no "ended" event can reach a logged-out SDK).
    var (s, phone) = try staged()
    phone.onTimer = dial([6])
    s.run(untilMs: 2000)
    at(&s, 5, ms: 3000)
    s.run(untilMs: 7000)
    #expect(s.world.runtime.clients[6].callState == .accept)
    s.sim.scheduler.schedule(
      at: .zero + .milliseconds(8000),
      Event(kind: LiveEvent.loginEnded.rawValue, a: 6, b: UInt32(LoginEvent.kickedOffline.rawValue)))
    s.run(untilMs: 9000)
    #expect(s.world.server.calls.call(of: 6) == nil)
    #expect(!s.world.runtime.clients[6].loggedIn)
    #expect(s.world.runtime.clients[6].call == 0 && s.world.runtime.clients[6].callState == .none)
  }

  @Test(arguments: [false, true])
  func aCallScreenDownIsNotJudgedWhileTheSDKIsLoggedOut(loggedIn: Bool) throws {
    // 5 calls 6 at 3 s; 6 answers and the call connects. Then 6's SDK is logged out (a relaunched
    // app whose login keeps failing) while the server still has it in the call: an app cannot
    // show a call its SDK was not told of, so its screen being down is not a finding then; with
    // its SDK logged in, it is. (The built-in viewers keep the UI checks running.)
    let phone = HookedPhone(try Profile.parse(Data(stagedPush.utf8)))
    var s = try Staged(stagedPush, host: ScriptedClient(), admin: ScriptedClient(), phone: phone)
    phone.onTimer = dial([6])
    s.run(untilMs: 2000)
    at(&s, 5, ms: 3000)
    s.run(untilMs: 7000)
    #expect(s.world.server.calls.state(of: 6) == .accept)
    s.world.phoneOS!.setApp(6, .foreground)
    s.world.runtime.clients[6].loggedIn = loggedIn
    s.world.runtime.ui.setCallScreen(6, shown: false)
    s.world.observers.uiWatch.watch(6, until: .zero + .seconds(7) + UIWatch.window)
    s.run(untilMs: 20_000)
    #expect(s.world.server.calls.state(of: 6) == .accept)
    #expect(s.world.checker.log.count("ui.call-screen-matches-call") == (loggedIn ? 1 : 0))
  }

  @Test(arguments: [false, true])
  func aSuspendedAppsCallScreenIsNotJudgedUntilItRuns(suspended: Bool) throws {
    // Phone 6's call screen is up with no call (it missed the end): while its app is suspended
    // nobody sees the screen and its code cannot change it; while it runs, it is a finding.
    // (The built-in viewers, whose status is their UI, keep the UI checks running.)
    var s = try Staged(
      stagedPush, host: ScriptedClient(), admin: ScriptedClient(),
      phone: HookedPhone(try Profile.parse(Data(stagedPush.utf8))))
    s.run(untilMs: 2000)
    s.world.phoneOS!.setApp(6, suspended ? .background : .foreground)
    s.world.runtime.ui.setCallScreen(6, shown: true)
    s.world.observers.uiWatch.watch(6, until: .zero + .seconds(2))
    s.run(untilMs: 20_000)
    #expect(s.world.checker.log.count("ui.call-screen-matches-call") == (suspended ? 0 : 1))
  }

  @Test func aPushIsNamedByItsCallAndItsMalformation() throws {
    // The push word carries a malformation in its top bits: a trace names the call, not the word.
    let (s, _) = try staged()
    func detail(_ word: UInt32) -> String {
      s.world.describe(Event(kind: LiveEvent.pushDelivered.rawValue, a: 6, b: word)).detail
    }
    #expect(detail(983) == "VoIP push for call 983 reaches the phone")
    #expect(
      detail(PushMalformation.badExt.word(call: 983))
        == "VoIP push for call 983 reaches the phone (its ext is not JSON)")
    #expect(
      detail(PushMalformation.noCallerName.word(call: 7))
        == "VoIP push for call 7 reaches the phone (its payload lacks voip_caller_name)")
  }

  @Test func aLifecycleStepSaysWhatHappened() throws {
    // Traces describe a lifecycle step once handled, from the state before it to the state after.
    let (s, _) = try staged()
    let step = Event(kind: LiveEvent.appLifecycle.rawValue, a: 6, b: 0)
    let cases: [(AppState, AppState, String)] = [
      (.foreground, .background, "app left the foreground (the user went to the home screen)"),
      (.foreground, .killed, "app swiped away by the user: its process ended"),
      (.background, .foreground, "app came to the foreground"),
      (.background, .killed, "app killed by the system (suspended too long)"),
      (.background, .background, "app stays in the background, kept running by its call"),
      (.killed, .foreground, "app opened again by the user (a cold start)"),
      (.foreground, .foreground, "app lifecycle step superseded by a later one: nothing happened"),
    ]
    for (before, after, wording) in cases {
      s.world.phoneOS!.setApp(6, after)
      #expect(s.world.describeLifecycle(step, before: before).detail == wording, "\(before) -> \(after)")
    }
    // Before it is handled, nothing is claimed.
    #expect(s.world.describe(step).detail == "app lifecycle step")
  }

  @Test func aTraceSaysWhatEachLifecycleStepDid() throws {
    let folder = Tool.temporaryFolder()
    let trace = folder.appendingPathComponent("trace.jsonl")
    let r = try Tool.run([
      "run", "profiles/call-storm.json5", "--duration", "3m", "--quiet", "--out", folder.path, "--trace", trace.path,
    ])
    #expect(r.status == 0, "\(r.stderr)")
    let lines = try String(contentsOf: trace, encoding: .utf8).split(separator: "\n").filter {
      $0.contains("\"kind\":\"appLifecycle\"")
    }
    #expect(lines.contains { $0.contains("app left the foreground") })
    #expect(lines.contains { $0.contains("app came to the foreground") })
    #expect(!lines.contains { $0.contains("\"detail\":\"app lifecycle step\"") })
    // In event order: each line's index is above the one before.
    let indexes = lines.compactMap { line -> Int? in
      guard let r = line.range(of: "\"i\":") else { return nil }
      return Int(line[r.upperBound...].prefix { $0.isNumber })
    }
    #expect(indexes == indexes.sorted() && indexes.count == lines.count)
  }

  @Test func aSecondStartWhileTheMicrophoneOpensDoesNotOpenItAgain() throws {
    var (s, phone) = try staged()
    phone.onTimer = dial([7])
    s.run(untilMs: 2000)
    at(&s, 5, ms: 3000)
    // 7 answers in the app at 5.020 s; the call starts for it at 5.040 s and its microphone opens
    // until 5.140 s. A repeated start (a message replayed after a reconnect) comes at 5.050 s.
    s.run(untilMs: 5050)
    let call = try #require(s.world.server.calls.call(of: 7))
    s.world.deliver(7, .started(user: 7, call: call), &s.sim.scheduler)
    s.run(untilMs: 6000)
    #expect(s.world.runtime.isOn(.microphone, user: 7))
    #expect(count(s, "device.opened-once") == 0 && s.violations == 0)
  }

  @Test func aPushBackendOutageLosesThePushAndASlowdownDelaysIt() throws {
    let (down, _) = try callKilledCallee(
      "{ kind: \"server.outage\", service: \"push\", at: \"2s\", for: \"5s\" }", hangUpMs: 50_000)
    #expect(down.counter("push.lost.outage") == 1 && down.counter("app.cold_starts") == 0)
    #expect(down.counter("call.ended.noResponse") == 1 && down.violations == 0)
    // Another service's outage leaves pushes alone.
    let (calls, _) = try callKilledCallee(
      "{ kind: \"server.outage\", service: \"login\", at: \"2900ms\", for: \"200ms\" }")
    #expect(calls.counter("push.lost.outage") == 0 && calls.counter("conversation.actions_fulfilled") == 1)
    let (slow, _) = try callKilledCallee(
      "{ kind: \"server.slowdown\", service: \"push\", extra: \"3s\", at: \"2s\", for: \"5s\" }")
    let delivery = slow.world.metrics.latencies[LiveMetrics.pushSendToDelivery]
    #expect(delivery.count == 1 && delivery.max == 3_500_000_000)
    #expect(slow.counter("conversation.actions_fulfilled") == 1 && slow.violations == 0)
  }

  @Test func aPhoneWhoseLoginGotNoAnswerLogsInAgain() throws {
    // Every request of phone 6 in its first second is lost: its login fails after 10 s, and it
    // is sent again 5 s later; then the token goes up.
    var (s, _) = try staged(chaosPhones("{ kind: \"network.loss\", rate: 1, target: \"user:6\", for: \"1s\" }"))
    s.run(untilMs: 14_000)
    #expect(s.world.server.push.registeredToken(of: 6) == 0)
    #expect(s.world.server.push.registeredToken(of: 5) == 1)
    s.run(untilMs: 16_000)
    #expect(s.world.server.push.registeredToken(of: 6) == 1)
    #expect(s.counter("fault.network.loss") == 1 && s.violations == 0)
  }

  @Test func aJoinOnAConversationReplacedByANewerPushIsFailed() throws {
    // Phone 6 cold-starts for 5's call (reported at 4.510 s); 5 cancels at 4 s; 6's user taps
    // answer at 4.515 s, before the login answer (4.530 s). 7's call pushes at 4.520 s and replaces
    // the first conversation: the Join waiting on it must still be answered.
    let text = TestProfile(stagedPush).with("calls.answerAfter", "constant(5ms)").text
    var (s, phone) = try staged(text)
    phone.onTimer = dial([6])
    s.run(untilMs: 2000)
    s.world.killProcess(6, &s.sim.scheduler)
    at(&s, 5, ms: 3000)
    at(&s, 5, ms: 4000, tag: 101)  // 5 gives up: 6 is free for 7's call
    at(&s, 7, ms: 4010)
    s.run(untilMs: 60_000)
    #expect(s.counter("conversation.reported") == 2)
    #expect(phone.actions.first?.kind == .join && s.counter("conversation.actions_failed") >= 1)
    #expect(count(s, "conversation.action-completed-in-time") == 0)
    s.world.judgeLiveness(now: s.sim.now)
    #expect(s.violations == 0)
  }

  @Test func aJoinWaitsThroughALoginSentAgainWhenTheDeadlineAllows() throws {
    // Phone 6 cold-starts for a call (done at 4.510 s); its login is lost (the SDK gives up at
    // 14.510 s); the user tapped answer at 6.510 s. The login is sent again at 19.510 s, before the
    // Join's deadline (36.510 s): the call connects instead of being dropped.
    var (s, phone) = try staged(
      chaosPhones("{ kind: \"network.loss\", rate: 1, target: \"user:6\", at: \"4s\", for: \"600ms\" }"))
    phone.onTimer = dial([6])
    s.run(untilMs: 2000)
    s.world.killProcess(6, &s.sim.scheduler)
    at(&s, 5, ms: 3000)
    at(&s, 5, ms: 25_000, tag: 101)
    s.run(untilMs: 60_000)
    #expect(s.counter("fault.network.loss") == 1 && s.counter("probe.join_during_cold_start") == 1)
    #expect(phone.actions.map(\.kind) == [.join] && s.counter("conversation.actions_fulfilled") == 1)
    let connected = s.world.metrics.latencies[LiveMetrics.dialToConnected]
    #expect(connected.count == 1 && connected.max > 16_000_000_000 && connected.max < 17_000_000_000)
    s.world.judgeLiveness(now: s.sim.now)
    #expect(s.violations == 0)
  }

  @Test func anAnswerThatMeetsACancelIsProbed() throws {
    // 6 rings at 3.020 s and answers at 5.020 s; 5 gives up at 5.015 s, so the cancel reaches the
    // server (5.025 s) just before the answer (5.030 s), which fails.
    var (s, phone) = try staged()
    phone.onTimer = dial([6])
    s.run(untilMs: 2000)
    at(&s, 5, ms: 3000)
    at(&s, 5, ms: 5015, tag: 101)
    s.run(untilMs: 10_000)
    #expect(s.counter("call.ended.canceled") == 1 && s.counter("probe.answer_after_cancel") == 1)
    #expect(s.counter("errors.callRefusedInState") == 1)
    s.world.judgeLiveness(now: s.sim.now)
    #expect(s.violations == 0)
  }

  @Test func aJoinForACallAnsweredBeforeTheAppRestartedIsFulfilledWhenItStarts() throws {
    // 6 answers 5's call in the app (connected at 3.045 s), then its app is killed. A late push
    // for the same call cold-starts it (reported at 8 s); the user taps answer at 8.005 s, before
    // the login: the SDK then says the call is going on, and the Join is done.
    let text = TestProfile(stagedPush).with("calls.answerAfter", "constant(5ms)").text
    var (s, phone) = try staged(text)
    phone.onTimer = dial([6])
    s.run(untilMs: 2000)
    at(&s, 5, ms: 3000)
    s.run(untilMs: 6000)
    let call = try #require(s.world.server.calls.call(of: 6))
    s.world.killProcess(6, &s.sim.scheduler)
    s.sim.scheduler.schedule(
      at: .zero + .milliseconds(7000), Event(kind: LiveEvent.pushDelivered.rawValue, a: 6, b: call))
    s.run(untilMs: 60_000)
    #expect(phone.actions.map(\.kind) == [.join])
    #expect(s.counter("conversation.actions_fulfilled") == 1 && count(s, "conversation.action-completed-in-time") == 0)
    #expect(s.violations == 0)
  }

  @Test func aDeclineTappedDuringAColdStartRejectsTheCallOnceLoggedIn() throws {
    let text = TestProfile(stagedPush).with("calls.answerProbability", 0).with("calls.answerAfter", "constant(5ms)")
      .text
    var (s, phone) = try staged(text)
    phone.onTimer = dial([6])
    s.run(untilMs: 2000)
    s.world.killProcess(6, &s.sim.scheduler)
    at(&s, 5, ms: 3000)
    s.run(untilMs: 60_000)
    // Reported at 4.510 s, declined at 4.515 s, before the login (4.530 s): the SDK rejects it as
    // soon as it learns of the call, instead of leaving the caller ringing until the timeout.
    #expect(phone.actions.map(\.kind) == [.end])
    #expect(s.counter("call.ended.reject") == 1 && s.counter("call.ended.noResponse") == 0)
    s.world.judgeLiveness(now: s.sim.now)
    #expect(s.violations == 0)
  }

  @Test func aCallerWhoseAppRestartedTakesItsCallUpAgainWithoutARing() throws {
    var (s, phone) = try staged()
    phone.onTimer = dial([6])
    var heard: [String] = []
    phone.onCall = { e, c in
      heard.append("\(c.user) \(e)")
      if case .received = e, c.user == 6 { return true }  // 6 lets it ring
      return false
    }
    s.run(untilMs: 2000)
    at(&s, 5, ms: 3000)
    s.run(untilMs: 3500)
    let call = try #require(s.world.server.calls.call(of: 5))
    s.world.killProcess(5, &s.sim.scheduler)
    s.world.launch(5, foreground: true, &s.sim.scheduler)
    s.run(untilMs: 5000)
    // The new process logs in and its SDK learns it is still calling: no incoming ring for its own call.
    #expect(!heard.contains { $0.hasPrefix("5 received") })
    #expect(s.world.runtime.clients[5].call == call + 1 && s.world.runtime.clients[5].callState == .waiting)
    #expect(s.counter("conversation.reported") == 0 && s.violations == 0)
  }

  @Test func aCallerWhoseAppIsSuspendedWhenItsLoginIsAnsweredStillHearsTheAnswer() throws {
    var (s, phone) = try staged()
    phone.onTimer = { tag, c in
      if tag == 100 { c.callStore.calls(participantIds: [6], mediaType: .audio, timeout: .seconds(30)) }
      if tag == 102 { c.callStore.accept() }
    }
    phone.onCall = { e, c in
      if case .received = e, c.user == 6 { return true }  // 6 lets it ring until 6 s
      return false
    }
    s.run(untilMs: 2000)
    at(&s, 5, ms: 3000)
    s.run(untilMs: 3500)
    let call = try #require(s.world.server.calls.call(of: 5))
    // A new process of 5 starts and the user leaves it before its login is answered: it is
    // suspended while its SDK knows of no call.
    s.world.killProcess(5, &s.sim.scheduler)
    s.world.launch(5, foreground: true, &s.sim.scheduler)
    s.world.phones!.leaveApp(5)
    #expect(!s.world.phoneOS!.isRunning(5))
    at(&s, 6, ms: 6000, tag: 102)
    s.run(untilMs: 8000)
    // The login's answer tells the SDK it is calling: the outgoing call's audio session keeps the
    // app running, so it hears the callee answer instead of showing a ringing call for ever.
    #expect(s.world.phoneOS!.isRunning(5))
    #expect(s.world.runtime.clients[5].call == call + 1 && s.world.runtime.clients[5].callState == .accept)
    s.world.judgeLiveness(now: s.sim.now)
    #expect(s.violations == 0)
  }

  @Test func aViewerWhoseSeatAndCallBothArriveKeepsTheSeatAndHangsUp() throws {
    // Viewer 2 accepts an invitation at 2.02 s and answers phone 5's call (ringing from 2.52 s) at
    // 4.52 s; everything it sends from 2 s to 5 s is held, so the seat and the call both begin at
    // 5 s. The seat came first: the viewer opens its devices once for it and hangs up the call.
    let text = TestProfile(
      chaosPhones("{ kind: \"network.partition\", target: \"user:2\", direction: \"up\", at: \"2s\", for: \"3s\" }")
    ).with("calls.liveCallees", "1%").with(
      "audience", json5: "{ stay: \"1h\", invitationThink: \"constant(1s)\", acceptInvitation: 1 }"
    ).text
    let phone = HookedPhone(try Profile.parse(Data(text.utf8)))
    phone.onTimer = dial([2])
    let host = ScriptedClient()
    host.onTimer = { _, c in c.coGuest.inviteToSeat(userID: 2, seatIndex: -1, timeout: .seconds(30)) }
    var s = try Staged(text, host: host, admin: ScriptedClient(), phone: phone)
    s.timer(0, atMs: 1000, tag: 1)
    at(&s, 5, ms: 2500)
    s.run(untilMs: 10_000)
    #expect(s.world.server.seats.seat(of: 2) != nil && s.world.runtime.clients[2].status == .connected)
    #expect(s.counter("call.ended.hangup") == 1 && s.world.server.calls.call(of: 2) == nil)
    #expect(s.world.checker.log.count("device.opened-once") == 0)
    s.world.judgeLiveness(now: s.sim.now)
    #expect(s.violations == 0)
  }

  @Test func aCallerOutOfItsGroupCallByTheTimeCallsIsAnsweredDoesNotTakeItUp() throws {
    // Phone 5 calls 6 and 7 at 3 s; everything to 5 is held from 2.5 s to 30 s. 6 answers at
    // 5.02 s, 7 lets it ring. 5's user leaves the app and opens it again at 6 s: its SDK reconnects
    // and learns the call is connected; 5 hangs up at 8 s and the call goes on between 6 and 7.
    // Reopened at 10 s, the SDK learns it is out of the call. When the answer to calls() reaches it
    // at 30 s, it must not take up the call again.
    let text = chaosPhones(
      "{ kind: \"network.partition\", target: \"user:5\", direction: \"down\", at: \"2500ms\", for: \"27500ms\" }")
    var (s, phone) = try staged(text)
    phone.onTimer = dial([6, 7])
    phone.onCall = { e, c in
      if case .received = e, c.user == 7 { return true }
      return false
    }
    s.run(untilMs: 2000)
    at(&s, 5, ms: 3000)
    s.run(untilMs: 4000)
    s.world.leaveApp(5)
    s.run(untilMs: 6000)
    s.world.reopenApp(5, &s.sim.scheduler)
    #expect(s.world.runtime.clients[5].callState == .accept)
    at(&s, 5, ms: 8000, tag: 101)
    s.run(untilMs: 9000)
    s.world.leaveApp(5)
    s.run(untilMs: 10_000)
    s.world.reopenApp(5, &s.sim.scheduler)
    let call = try #require(s.world.server.calls.call(of: 6))
    #expect(s.world.server.calls.call(of: 5) == nil && !s.world.server.calls.calls[Int(call)].isOver)
    #expect(s.world.runtime.clients[5].call == 0)
    s.run(untilMs: 35_000)
    #expect(s.world.runtime.clients[5].call == 0, "\(s.world.runtime.clients[5])")
    s.world.judgeLiveness(now: s.sim.now)
    #expect(s.violations == 0)
  }

  @Test func aConversationForACallThatEndedBeforeTheLoginIsEndedOnceBothLoginsSucceed() throws {
    // Phone 5 calls the killed phone 6 at 3 s and hangs up at 4 s; the push is 20–60 s late. 6's
    // app is opened at 10 s: its IM login succeeds, but everything to it is held from 10.015 s to
    // 100 s, so its TUI login waits. The late push finds an SDK that cannot tell the call is
    // over: the app reports it. When the TUI login's answer comes (at 100 s, the answer was held),
    // both logins stand and the SDK would know a ringing call: the conversation is over.
    let text = TestProfile(
      chaosPhones(
        """
        { kind: "push.delay", rate: 1 },
        { kind: "network.partition", target: "user:6", direction: "down", at: "10015ms", for: "90s" }
        """)
    ).with("calls.answerAfter", "constant(200s)").text  // nobody taps the system UI meanwhile
    var (s, phone) = try staged(text)
    phone.onTimer = dial([6])
    s.run(untilMs: 2000)
    s.world.killProcess(6, &s.sim.scheduler)
    at(&s, 5, ms: 3000)
    at(&s, 5, ms: 4000, tag: 101)
    s.run(untilMs: 10_000)
    #expect(s.world.server.calls.call(of: 6) == nil)
    s.world.launch(6, foreground: true, &s.sim.scheduler)
    s.run(untilMs: 100_000)
    #expect(s.counter("conversation.reported") == 1 && s.world.phoneOS!.activeConversations(6) == 1)
    #expect(s.world.runtime.clients[6].loggedIn && !s.world.phoneOS!.isTUILoggedIn(6))
    s.run(untilMs: 130_000)
    #expect(s.world.phoneOS!.isTUILoggedIn(6))
    #expect(s.world.phoneOS!.activeConversations(6) == 0)
  }

  @Test func aCallEndWithAnUnknownReasonStillEndsTheConversation() throws {
    var (s, phone) = try staged(chaosPhones("{ kind: \"call.end_reason_unknown\", rate: 1, target: \"user:6\" }"))
    var ends: [String] = []
    phone.onCall = { e, c in
      if case .ended(_, _, let reason, _) = e { ends.append("\(c.user) \(reason)") }
      return false
    }
    phone.onTimer = dial([6])
    s.run(untilMs: 2000)
    s.world.killProcess(6, &s.sim.scheduler)
    at(&s, 5, ms: 3000)
    at(&s, 5, ms: 20_000, tag: 101)
    s.run(untilMs: 40_000)
    // The caller hears "hangup"; the callee, targeted, "unknown", and its system UI ends all the same.
    #expect(ends == ["5 hangup", "6 unknown"])
    #expect(s.counter("call.ended.hangup") == 1 && s.counter("fault.call.end_reason_unknown") == 1)
    #expect(s.world.phoneOS!.activeConversations(6) == 0)
    s.world.judgeLiveness(now: s.sim.now)
    #expect(s.violations == 0)
  }
}
