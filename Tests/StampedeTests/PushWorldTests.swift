import Foundation
import Metrics
import Testing

@testable import Clients
@testable import LiveStack
@testable import Oracles
@testable import Profiles
@testable import Scenario
@testable import SimKernel

@Suite struct PushWorldTests {
  func staged(_ text: String = stagedPush, _ configure: (HookedPhone) -> Void = { _ in }) throws -> (
    Staged, HookedPhone
  ) {
    let phone = HookedPhone(try Profile.parse(Data(text.utf8)))
    configure(phone)
    let s = try Staged(text, audience: ScriptedClient(), host: ScriptedClient(), admin: ScriptedClient(), phone: phone)
    return (s, phone)
  }

  /// Phone `user` runs timer `tag` at `ms`.
  func at(_ s: inout Staged, _ user: UInt32, ms: Int64, tag: UInt32 = 100) { s.timer(user, atMs: ms, tag: tag) }

  func dial(_ callees: [UInt32], timeout: SimDuration = .seconds(30)) -> (UInt32, inout Client) -> Void {
    { tag, c in
      if tag == 100 { c.callStore.calls(participantIds: callees, mediaType: .audio, timeout: timeout) }
      if tag == 101 { c.callStore.hangup() }
    }
  }

  func count(_ s: Staged, _ id: String) -> Int { s.world.checker.log.count(id) }

  /// Runs to 2 s (everyone logged in, tokens uploaded), kills phone 6's app, has phone 5 dial at
  /// 3 s (its `onTimer` tag 100), and runs on to `untilMs`.
  func dialKilledCallee(_ s: inout Staged, untilMs: Int64) {
    s.run(untilMs: 2000)
    s.world.killProcess(6, &s.sim.scheduler)
    at(&s, 5, ms: 3000)
    s.run(untilMs: untilMs)
  }

  @Test func theTokenIsUploadedOnlyAfterBothLoginsAndTheLatencyIsExact() throws {
    var (s, _) = try staged()
    s.run(untilMs: 2000)
    // login 0 → IM answer 20 ms → TUILogin answer 40 ms; the token arrives at 100 ms and is
    // uploaded at once, reaching the backend at 110 ms.
    for u in UInt32(5)...7 {
      #expect(s.world.server.push.registeredCertificate(of: u) == 7)
      #expect(s.world.server.push.registeredToken(of: u) == 1)
    }
    let upload = s.world.metrics.latencies[LiveMetrics.loginToTokenUpload]
    #expect(upload.count == 3 && upload.min == 110_000_000 && upload.max == 110_000_000)
    #expect(s.violations == 0)
  }

  @Test func aKilledCalleeIsWokenByAPushAndAnswersFromTheSystemUI() throws {
    var (s, phone) = try staged()
    phone.onTimer = dial([6])
    s.run(untilMs: 2000)
    s.world.killProcess(6, &s.sim.scheduler)
    at(&s, 5, ms: 3000)
    at(&s, 5, ms: 20_000, tag: 101)
    s.run(untilMs: 40_000)
    // Server 3.010 s: 6 is not connected, so a push goes out; it arrives 3.510 s; the cold start
    // ends 4.510 s and the app reports at once; the user taps answer at 6.510 s.
    #expect(s.counter("push.sent") == 1 && s.counter("app.cold_starts") == 1)
    let delivery = s.world.metrics.latencies[LiveMetrics.pushSendToDelivery]
    let report = s.world.metrics.latencies[LiveMetrics.pushDeliveryToReport]
    #expect(delivery.count == 1 && delivery.max == 500_000_000)
    #expect(report.count == 1 && report.max == 1_000_000_000)
    let ring = s.world.metrics.latencies[LiveMetrics.dialToRing]
    #expect(ring.count == 1 && ring.max == 1_510_000_000)
    #expect(phone.actions.map(\.kind) == [.join])
    // accept reaches the server at 6.520 s and the caller hears it at 6.530 s.
    let connected = s.world.metrics.latencies[LiveMetrics.dialToConnected]
    #expect(connected.count == 1 && connected.max == 3_530_000_000)
    #expect(s.counter("conversation.actions_fulfilled") == 1)
    #expect(s.counter("call.ended.hangup") == 1)
    #expect(s.world.phoneOS!.activeConversations(6) == 0)
    s.world.judgeLiveness(now: s.sim.now)
    #expect(s.violations == 0)
  }

  @Test func anUnreportedPushKillsTheAppAndRepeatedKillsSuppressItsPushes() throws {
    // The handler finishes without reporting: with `reportBeforeReturn` off only the 5 s
    // deadline judges it.
    let text = TestProfile(stagedPush).with("calls.push.reportBeforeReturn", json5: "false").text
    var (s, phone) = try staged(text) { p in
      p.onPush = { _, _ in }
      p.onCall = { e, _ in if case .received = e { return true } else { return false } }
    }
    phone.onTimer = dial([6], timeout: .seconds(10))
    s.run(untilMs: 2000)
    s.world.killProcess(6, &s.sim.scheduler)
    at(&s, 5, ms: 3000)
    at(&s, 5, ms: 40_000)
    at(&s, 5, ms: 80_000)
    s.run(untilMs: 120_000)
    // Each push: delivered 0.5 s after the call, cold start 1 s, killed 5 s later.
    #expect(s.counter("push.sent") == 3)
    #expect(s.counter("push.app_killed") == 2)
    #expect(s.counter("push.suppressed_apps") == 1)
    #expect(s.counter("push.lost.suppressed") == 1)
    #expect(s.world.phoneOS!.isSuppressed(6) && s.world.phoneOS!.reportFailures(6) == 2)
    #expect(count(s, "push.reported-within-deadline") == 2)
    let v = try #require(s.world.checker.log.first(.pushReported))
    #expect(v.at == .zero + .milliseconds(9510) && v.entities == ["user:6", "call:0"])
    #expect(s.counter("call.ended.noResponse") == 3)
  }

  @Test func aHandlerThatReturnsWithoutReportingIsKilledAsItReturns() throws {
    var (s, phone) = try staged { p in
      p.onPush = { _, _ in }
      p.onCall = { e, _ in if case .received = e { return true } else { return false } }
    }
    phone.onTimer = dial([6], timeout: .seconds(10))
    dialKilledCallee(&s, untilMs: 20_000)
    // Delivered at 3.510 s, the cold start ends at 4.510 s and the handler returns then: killed
    // at once, not when the 5 s deadline passes.
    #expect(s.counter("push.app_killed") == 1)
    let v = try #require(s.world.checker.log.first(.pushReported))
    #expect(v.at == .zero + .milliseconds(4510) && v.entities == ["user:6", "call:0"])
    #expect(v.message.contains("push handler finished without reporting"))
    // The deadline that follows has nothing left to judge.
    #expect(count(s, "push.reported-within-deadline") == 1)
  }

  @Test func aReportFromAnUnawaitedTaskComesAfterTheHandlerReturnedAndIsTooLate() throws {
    var (s, phone) = try staged { p in
      p.onPush = { push, c in c.schedule(after: .milliseconds(1), tag: 102, arg: push.call) }
    }
    phone.onTimer = { tag, c in
      if tag == 100 { c.callStore.calls(participantIds: [6], mediaType: .audio, timeout: .seconds(10)) }
      if tag == 102 { _ = try? c.conversations.reportNewIncomingConversation(uuid: c.conversations.makeUUID()) }
    }
    dialKilledCallee(&s, untilMs: 20_000)
    let v = try #require(s.world.checker.log.first(.pushReported))
    #expect(v.at == .zero + .milliseconds(4510))
    // The task belonged to the killed process: nothing rings.
    #expect(s.counter("conversation.reported") == 0)
    #expect(s.counter("push.app_killed") == 1)
  }

  @Test(arguments: [true, false])
  func aHandlerThatSaysItFinishesLaterIsJudgedWhenItDoes(reports: Bool) throws {
    // PushKit's completion-handler and `async` shapes: the report may follow the callback's
    // return, as long as it comes before the handler says it finished.
    var serial: UInt32 = 0
    var (s, phone) = try staged { p in
      p.onPush = { push, c in
        serial = c.pushRegistry.deferHandlerReturn()
        c.schedule(after: .milliseconds(300), tag: 102)
        c.schedule(after: .milliseconds(200), tag: 103)
      }
      // Only the push handler reports (the SDK's ring after login does not).
      p.onCall = { e, _ in if case .received = e { return true } else { return false } }
    }
    phone.onTimer = { tag, c in
      if tag == 100 { c.callStore.calls(participantIds: [6], mediaType: .audio, timeout: .seconds(10)) }
      if tag == 103 && reports {
        _ = try? c.conversations.reportNewIncomingConversation(uuid: c.conversations.makeUUID())
      }
      if tag == 102 { c.pushRegistry.handlerReturned(serial: serial) }
    }
    dialKilledCallee(&s, untilMs: 9000)
    #expect(serial == 1)
    if reports {
      #expect(s.counter("conversation.reported") == 1)
      #expect(count(s, "push.reported-within-deadline") == 0)
    } else {
      // Handed at 4.510 s, finished 300 ms later with nothing reported: killed then.
      let v = try #require(s.world.checker.log.first(.pushReported))
      #expect(v.at == .zero + .milliseconds(4810))
      #expect(s.counter("push.app_killed") == 1)
    }
  }

  @Test func aMalformedPushStillRingsTheBuiltInPhoneAndItsPayloadSaysWhatIsMissing() throws {
    let text = TestProfile(stagedPush).with("calls.push.malformedRate", "1").text
    var pushes: [VoIPPush] = []
    var (s, phone) = try staged(text)
    phone.onPush = { push, c in
      pushes.append(push)
      phone.inner.incomingPush(push, &c)
    }
    phone.onTimer = dial([6], timeout: .seconds(10))
    s.run(untilMs: 2000)
    for (i, ms) in [3000, 20_000, 37_000, 54_000, 71_000, 88_000].enumerated() {
      s.world.killProcess(6, &s.sim.scheduler)
      at(&s, 5, ms: Int64(ms))
      at(&s, 5, ms: Int64(ms) + 10_000, tag: 101)
      s.run(untilMs: Int64(ms) + 15_000)
      #expect(pushes.count == i + 1)
    }
    #expect(s.counter("push.malformed") == 6)
    #expect(pushes.allSatisfy { $0.callerName == nil || !$0.extReadable })
    #expect(pushes.contains { $0.callerName == nil } && pushes.contains { !$0.extReadable })
    #expect(pushes.filter { !$0.extReadable }.allSatisfy { $0.mediaType == .audio })
    // Each rang and was answered from the system UI.
    #expect(s.counter("conversation.reported") == 6 && s.counter("conversation.actions_fulfilled") == 6)
    #expect(s.violations == 0)
  }

  @Test func twoConversationsOnScreenLetTheUserTapMergeAndTheBuiltInPhoneFailsIt() throws {
    // Phone 6 is killed; 5 calls it at 3 s and 7 at 3.2 s (6 is busy, so the second call comes as
    // a second push). Its app shows both; the user taps "merge" 2 s after the second report.
    let text = TestProfile(stagedPush).with("calls.conversations.mergeActionProbability", "1")
      .with("calls.conversations.maximumConversationsPerConversationGroup", json5: "2").text
    var (s, phone) = try staged(text) { p in
      p.onPush = { _, c in _ = try? c.conversations.reportNewIncomingConversation(uuid: c.conversations.makeUUID()) }
      p.onCall = { e, _ in if case .received = e { return true } else { return false } }
    }
    // Joins are left pending (both conversations stay on screen); a Merge goes to the built-in phone.
    phone.onAction = { a, c in if a.kind == .merge { phone.inner.conversationAction(a, &c) } }
    phone.onTimer = dial([6], timeout: .seconds(20))
    s.run(untilMs: 2000)
    s.world.killProcess(6, &s.sim.scheduler)
    at(&s, 5, ms: 3000)
    at(&s, 7, ms: 3200)
    s.run(untilMs: 10_000)
    let merges = phone.actions.filter { $0.kind == .merge }
    #expect(merges.count == 1)
    // It names the first conversation on screen, and the built-in phone, which does not merge,
    // fails it at once.
    #expect(merges.first?.uuid == s.world.phoneOS!.activeUUIDs(of: 6).first)
    #expect(s.counter("conversation.actions_failed") == 1)
    #expect(count(s, "conversation.action-completed-in-time") == 0)
  }

  /// Phone 5's app starts an outgoing conversation at 3 s (`startOutgoing`, as LiveCommunicationKit's
  /// `perform` with a Start): the system hands the Start back at once; the app dials 6 and
  /// fulfils it when `calls()` succeeds, reports it connected when the call starts, and (if
  /// `endsIt`) ended when the call ends. 6 answers 2 s after ringing; 5 hangs up at 10 s.
  @Test(arguments: [true, false])
  func anOutgoingConversationTheAppStartsIsBoundToItsCallAndMustEndWithIt(endsIt: Bool) throws {
    var (s, phone) = try staged()
    var log: [String] = []
    var uuid: UInt32 = 0
    phone.onTimer = { tag, c in
      if tag == 100 {
        uuid = c.conversations.makeUUID()
        do { _ = try c.conversations.startOutgoing(uuid: uuid) } catch { log.append("threw \(error)") }
      }
      if tag == 101 { c.callStore.hangup() }
    }
    phone.onAction = { a, c in
      guard c.user == 5, a.kind == .start else { return phone.inner.conversationAction(a, &c) }
      log.append("start \(a.uuid) at \(c.now.nanoseconds / 1_000_000)")
      c.callStore.calls(participantIds: [6], mediaType: .audio, timeout: .seconds(20)) { c, r in
        guard case .success = r else { return c.conversations.fail(a) }
        c.conversations.fulfill(a)
        log.append("fulfilled at \(c.now.nanoseconds / 1_000_000)")
      }
    }
    phone.onCall = { e, c in
      guard c.user == 5 else { return false }
      if case .started = e { c.conversations.reportConnected(uuid: uuid) }
      if case .ended = e, endsIt { c.conversations.reportEnded(uuid: uuid, reason: .remoteEnded) }
      return true
    }
    s.run(untilMs: 2000)
    at(&s, 5, ms: 3000)
    at(&s, 5, ms: 10_000, tag: 101)
    s.run(untilMs: 6000)
    // Start handed back at 3.000 s; calls() answered at 3.020 s, which binds it to call 0; 6
    // answers at 5.020, the caller hears it started at 5.040 and reports it connected.
    #expect(log == ["start \(uuid) at 3000", "fulfilled at 3020"])
    let conv = try #require(s.world.phoneOS!.conversation(5, uuid))
    #expect(conv.outgoing && conv.call == 1 && conv.connected)
    #expect(s.counter("conversation.started_outgoing") == 1 && s.counter("conversation.reported") == 0)
    s.run(untilMs: 30_000)
    if endsIt {
      #expect(s.world.phoneOS!.activeConversations(5) == 0)
      #expect(s.counter("conversation.ended.remote_ended") == 1)
      #expect(count(s, "conversation.ended-with-call") == 0)
    } else {
      // The server ends the call at 10.010 s; 10 s of grace later its conversation still shows.
      let v = try #require(s.world.checker.log.first(.conversationEndedWithCall))
      #expect(v.at == .zero + .milliseconds(20_010))
      #expect(v.message == "user 5 still shows conversation \(uuid) for call 0, which ended at t=10.01s")
    }
  }

  @Test func anOutgoingStartCountsAgainstTheLimitAndAFailedOrTimedOutStartEndsItsConversation() throws {
    let text = TestProfile(stagedPush).with("calls.conversations.maximumConversationGroups", json5: "1").text
    var (s, phone) = try staged(text)
    var log: [String] = []
    var first: UInt32 = 0
    phone.onTimer = { tag, c in
      let uuid = c.conversations.makeUUID()
      if tag == 100 { first = uuid }
      do { _ = try c.conversations.startOutgoing(uuid: uuid) } catch { log.append("\(tag) threw \(error)") }
    }
    // The first Start is failed at once (its conversation goes); the second is left to time out.
    phone.onAction = { a, c in
      guard c.user == 5 else { return phone.inner.conversationAction(a, &c) }
      if a.uuid == first { c.conversations.fail(a) }
    }
    s.run(untilMs: 2000)
    at(&s, 5, ms: 3000, tag: 100)
    at(&s, 5, ms: 4000, tag: 102)
    at(&s, 5, ms: 4500, tag: 103)
    s.run(untilMs: 5000)
    #expect(log == ["103 threw limitExceeded"])
    #expect(s.world.phoneOS!.activeConversations(5) == 1)
    #expect(s.counter("conversation.started_outgoing") == 2 && s.counter("conversation.start_failed") == 1)
    s.run(untilMs: 40_000)
    // The second Start timed out at 34 s uncompleted: the system ends its conversation.
    #expect(s.world.phoneOS!.activeConversations(5) == 0)
    let v = try #require(s.world.checker.log.first(.actionInTime))
    #expect(v.at == .zero + .milliseconds(34_000) && v.message.contains("its start action"))
  }

  /// Phone 6 shows two calls (as in the test above, with room for two groups). A Merge the app
  /// fulfils joins them in one group: a third report, refused before at the limit of two groups,
  /// then goes through. With one conversation a group, "merge" is never offered.
  @Test(arguments: [2, 1])
  func aFulfilledMergeJoinsTwoGroupsInOne(perGroup: Int) throws {
    let text = TestProfile(stagedPush).with("calls.conversations.mergeActionProbability", "1")
      .with("calls.conversations.maximumConversationGroups", json5: "2")
      .with("calls.conversations.maximumConversationsPerConversationGroup", json5: "\(perGroup)").text
    var thrown: [String] = []
    var (s, phone) = try staged(text) { p in
      p.onPush = { _, c in _ = try? c.conversations.reportNewIncomingConversation(uuid: c.conversations.makeUUID()) }
      p.onCall = { e, _ in if case .received = e { return true } else { return false } }
    }
    phone.onAction = { a, c in if a.kind == .merge { c.conversations.fulfill(a) } }
    phone.onTimer = { tag, c in
      if tag == 100 { return c.callStore.calls(participantIds: [6], mediaType: .audio, timeout: .seconds(20)) }
      do {
        try c.conversations.reportNewIncomingConversation(uuid: c.conversations.makeUUID())
      } catch { thrown.append("\(tag) \(error)") }
    }
    s.run(untilMs: 2000)
    s.world.killProcess(6, &s.sim.scheduler)
    at(&s, 5, ms: 3000)
    at(&s, 7, ms: 3200)
    // Both calls are on screen by 4.9 s (a cold start, then the second push); the app tries a
    // third report at 5 s, before the merge, and at 8 s, after it (timers of the new process).
    s.run(untilMs: 4900)
    #expect(s.world.phoneOS!.activeConversations(6) == 2)
    at(&s, 6, ms: 5000, tag: 102)
    at(&s, 6, ms: 8000, tag: 103)
    s.run(untilMs: 9000)
    let os = s.world.phoneOS!
    let merges = phone.actions.filter { $0.kind == .merge }
    if perGroup == 2 {
      let shown = os.activeUUIDs(of: 6)
      #expect(merges.count == 1 && merges.first?.other == shown[1] && merges.first?.uuid == shown[0])
      #expect(thrown == ["102 limitExceeded"])
      #expect(os.activeConversations(6) == 3 && os.groups(6) == 2)
      #expect(os.conversation(6, shown[1])?.group == shown[0])
    } else {
      #expect(merges.isEmpty)
      #expect(thrown == ["102 limitExceeded", "103 limitExceeded"])
      #expect(os.activeConversations(6) == 2 && os.groups(6) == 2)
    }
    #expect(count(s, "conversation.within-limits") == 0)
  }

  @Test func aTokenUploadedBeforeLoginIsCaughtAndItsPushesAreLost() throws {
    let text = TestProfile(stagedPush).with("calls.push.tokenDelay", "constant(1ms)").text
    var (s, phone) = try staged(text) { p in
      p.onToken = { token, c in c.timPush.setVOIP(certificateID: 7, token: token) }
    }
    phone.onTimer = dial([6], timeout: .seconds(10))
    s.run(untilMs: 2000)
    #expect(count(s, "push.token-upload-when-logged-in") == 3)
    let v = try #require(s.world.checker.log.first(.tokenUploadWhenLoggedIn))
    #expect(v.message.contains("before IM login") && v.at == .zero + .milliseconds(1))
    #expect(s.world.server.push.registeredCertificate(of: 6) == 0)
    s.world.killProcess(6, &s.sim.scheduler)
    at(&s, 5, ms: 3000)
    s.run(untilMs: 20_000)
    #expect(s.counter("push.lost.no_token") == 1 && s.counter("push.sent") == 0)
    #expect(s.counter("call.ended.noResponse") == 1)
  }

  @Test(arguments: [
    ("calls.push.certificateID", "0", "push.lost.no_token"),
    ("calls.push.certificates", "[{ id: 8 }]", "push.lost.unknown_certificate"),
    ("calls.push.certificates", "[{ id: 7, environment: \"development\" }]", "push.lost.environment_mismatch"),
    ("calls.push.certificates", "[{ id: 7, type: \"apns\" }]", "push.apns_alert"),
  ])
  func certificateProblemsLosePushesTheWayTheyDoForReal(key: String, value: String, counter: String) throws {
    let text = TestProfile(stagedPush).with(key, json5: value).text
    var (s, phone) = try staged(text)
    phone.onTimer = dial([6], timeout: .seconds(10))
    dialKilledCallee(&s, untilMs: 20_000)
    #expect(s.counter(counter) == 1)
    #expect(s.counter("push.sent") == 0 && s.counter("app.cold_starts") == 0)
    #expect(s.counter("call.ended.noResponse") == 1)
    // The clients did nothing wrong: a zero certificate is skipped, not uploaded.
    #expect(s.violations == 0)
  }

  @Test func anInvalidatedTokenLosesPushesUntilTheAppUploadsTheNewOne() throws {
    var (s, phone) = try staged()
    phone.onTimer = dial([6], timeout: .seconds(10))
    s.run(untilMs: 2000)
    s.world.killProcess(6, &s.sim.scheduler)
    s.world.tokenRotated(user: 6, &s.sim.scheduler)
    at(&s, 5, ms: 3000)
    s.run(untilMs: 20_000)
    #expect(s.counter("push.lost.token_invalidated") == 1)
    // The user opens the app: it registers, gets token 2 and uploads it; the next push arrives.
    s.world.launch(6, foreground: true, &s.sim.scheduler)
    s.run(untilMs: 21_000)
    #expect(s.world.server.push.registeredToken(of: 6) == 2)
    s.world.killProcess(6, &s.sim.scheduler)
    at(&s, 5, ms: 22_000)
    s.run(untilMs: 40_000)
    #expect(s.counter("push.sent") == 1 && s.counter("conversation.reported") == 1)
    #expect(s.violations == 0)
  }

  @Test func aJoinFulfilledBeforeAcceptAndAgainIsCaught() throws {
    var (s, phone) = try staged { p in
      p.onAction = { a, c in
        c.callStore.accept()
        c.conversations.fulfill(a)
        c.conversations.fulfill(a)
      }
    }
    phone.onTimer = dial([6])
    dialKilledCallee(&s, untilMs: 10_000)
    #expect(count(s, "conversation.join-after-accept") == 1)
    #expect(count(s, "conversation.action-completed-once") == 1)
    let v = try #require(s.world.checker.log.first(.joinAfterAccept))
    #expect(v.entities == ["user:6", "call:0"] && v.at == .zero + .milliseconds(6510))
  }

  @Test func aCompletionAfterTheActionTimedOutIsCaughtAndTheSystemEndsTheConversation() throws {
    var (s, phone) = try staged { p in
      p.onAction = { a, c in c.schedule(after: .seconds(40), tag: 102, arg: a.id) }
    }
    phone.onTimer = { tag, c in
      if tag == 100 { c.callStore.calls(participantIds: [6], mediaType: .audio, timeout: .seconds(60)) }
      if tag == 102 { c.conversations.fulfill(phone.actions[0]) }
    }
    dialKilledCallee(&s, untilMs: 30_000)
    #expect(s.world.phoneOS!.activeConversations(6) == 1)
    s.run(untilMs: 60_000)
    // Tapped at 6.510 s: timed out at 36.510 s, fulfilled at 46.510 s.
    #expect(s.counter("conversation.action_timeout") == 1)
    #expect(s.world.phoneOS!.activeConversations(6) == 0)
    let v = try #require(s.world.checker.log.first(.actionCompletedOnce))
    #expect(v.at == .zero + .milliseconds(46_510) && v.message.contains("after it had timed out"))
  }

  @Test func theBuiltInPhoneFailsActionsItDoesNotSupport() throws {
    var (s, phone) = try staged()
    phone.onTimer = dial([6])
    dialKilledCallee(&s, untilMs: 5000)
    let os = s.world.phoneOS!
    let uuid = try #require(os.conversations.values.first { $0.phone == 6 }).uuid
    for kind in [ConversationActionKind.start, .merge] {
      let action = os.makeAction(6, uuid: uuid, kind: kind)
      s.world.withClient(6, &s.sim.scheduler) { b, c in b.conversationAction(action, &c) }
    }
    #expect(s.counter("conversation.actions_failed") == 2)
    #expect(os.activeConversations(6) == 1)
    #expect(s.violations == 0)
  }

  @Test func aConversationLeftRingingAfterItsCallEndedIsCaught() throws {
    var (s, phone) = try staged { p in
      p.onCall = { e, _ in if case .ended = e { return true } else { return false } }
      p.onAction = { _, _ in }
    }
    phone.onTimer = dial([6])
    s.run(untilMs: 2000)
    s.world.killProcess(6, &s.sim.scheduler)
    at(&s, 5, ms: 3000)
    // The caller cancels once the callee has cold-started, logged in and shown the call (a
    // cancel before the login would be settled by the login: the SDK then knows no such call).
    at(&s, 5, ms: 6000, tag: 101)
    s.run(untilMs: 30_000)
    // Cancelled at 6.010 s: the grace period ends 16.010 s.
    let v = try #require(s.world.checker.log.first(.conversationEndedWithCall))
    #expect(v.at == .zero + .milliseconds(16_010), "\(v.at)")
    #expect(v.entities.contains("call:0") && v.entities.contains("user:6"))
    s.world.judgeLiveness(now: s.sim.now)
    #expect(count(s, "conversation.ends") == 1)
    #expect(s.counter("call.ended.canceled") == 1)
  }

  @Test func aCancelDuringTheColdStartEndsTheConversationAtLogin() throws {
    var (s, phone) = try staged()
    phone.onTimer = dial([6])
    s.run(untilMs: 2000)
    s.world.killProcess(6, &s.sim.scheduler)
    at(&s, 5, ms: 3000)
    at(&s, 5, ms: 4000, tag: 101)
    s.run(untilMs: 30_000)
    #expect(s.counter("conversation.reported") == 1 && s.counter("call.ended.canceled") == 1)
    #expect(s.world.phoneOS!.activeConversations(6) == 0)
    s.world.judgeLiveness(now: s.sim.now)
    #expect(s.violations == 0)
  }

  @Test func aJoinTappedDuringAColdStartAfterTheCallTimedOutIsFailed() throws {
    // The call times out at 3.010 + 2 s; the callee's cold start takes 3 s, so the app starts after
    // the timeout, reports, and the user taps answer before its login finishes.
    let text = TestProfile(stagedPush).with("calls.app.coldStart", "constant(3s)")
      .with("calls.answerAfter", "constant(5ms)").text
    var (s, phone) = try staged(text)
    phone.onTimer = dial([6], timeout: .seconds(2))
    dialKilledCallee(&s, untilMs: 30_000)
    #expect(s.counter("call.ended.noResponse") == 1)
    #expect(phone.actions.map(\.kind) == [.join])
    #expect(s.counter("conversation.actions_failed") == 1 && s.counter("conversation.actions_fulfilled") == 0)
    #expect(s.world.phoneOS!.activeConversations(6) == 0)
    s.world.judgeLiveness(now: s.sim.now)
    #expect(s.violations == 0)
  }

  @Test func aJoinTappedDuringAColdStartBeforeTheTimeoutConnectsOnceLoggedIn() throws {
    let text = TestProfile(stagedPush).with("calls.answerAfter", "constant(5ms)").text
    var (s, phone) = try staged(text)
    phone.onTimer = dial([6])
    dialKilledCallee(&s, untilMs: 10_000)
    // Tapped at 4.515 s, before the IM login answer (4.530 s): the Join waits for the SDK to learn
    // the call, then accepts; the caller connects at 4.550 s.
    #expect(s.counter("conversation.actions_fulfilled") == 1)
    let connected = s.world.metrics.latencies[LiveMetrics.dialToConnected]
    #expect(connected.max == 1_550_000_000)
    #expect(s.violations == 0)
  }

  @Test func aCallReportedWhileSuspendedKeepsTheAppAwakeUntilItEnds() throws {
    // The user opens the app (a cold start in the foreground) and a call comes in before its login
    // finishes: the app is sent to the background at the ring and the push is lost, so the SDK
    // learns of the call when its login completes, with the app suspended. Reporting the call keeps
    // the app running: it hears the call start and end, and ends the conversation.
    let text = chaosStaged(
      """
      { kind: "app.backgrounded", rate: 1, target: "user:6" }, { kind: "push.drop", rate: 1, target: "user:6" }
      """, base: stagedPush)
    var (s, phone) = try staged(text)
    phone.onTimer = dial([6])
    s.run(untilMs: 2000)
    s.world.killProcess(6, &s.sim.scheduler)
    s.world.launch(6, foreground: true, &s.sim.scheduler)
    at(&s, 5, ms: 2000)
    at(&s, 5, ms: 20_000, tag: 101)
    s.run(untilMs: 40_000)
    #expect(s.counter("fault.app.backgrounded") == 1 && s.counter("push.lost.dropped") == 1)
    #expect(s.counter("conversation.reported") == 1 && s.counter("conversation.actions_fulfilled") == 1)
    #expect(s.counter("call.ended.hangup") == 1)
    #expect(s.world.phoneOS!.activeConversations(6) == 0)
    s.world.judgeLiveness(now: s.sim.now)
    #expect(s.violations == 0)
  }

  @Test func closingTheAppFollowsTheCallerAndCalleeRules() throws {
    var (s, phone) = try staged()
    phone.onTimer = dial([6])
    phone.onCall = { e, _ in if case .received = e { return true } else { return false } }  // let it ring
    s.run(untilMs: 2000)
    at(&s, 5, ms: 3000)
    s.run(untilMs: 3500)
    #expect(s.world.server.calls.state(of: 6) == .waiting)
    s.world.closeApp(6, &s.sim.scheduler)  // a ringing callee rejects
    s.run(untilMs: 4000)
    #expect(s.counter("call.ended.reject") == 1)
    at(&s, 5, ms: 5000)
    s.run(untilMs: 5500)
    s.world.closeApp(5, &s.sim.scheduler)  // a caller hangs up (cancels)
    s.run(untilMs: 6000)
    #expect(s.counter("call.ended.canceled") == 1)
    #expect(s.world.server.calls.call(of: 5) == nil && s.world.server.calls.call(of: 6) == nil)
  }

  @Test func theCallStormProfileRunsCleanWithFourEndReasonsAndPushesFlowing() throws {
    let url = repositoryRoot.appendingPathComponent("profiles/call-storm.json5")
    let text = try String(contentsOf: url, encoding: .utf8)
    let profile = try Profile.parse(
      Data(text.utf8),
      overrides: [("calls.users", .integer(600)), ("duration", .string("20m"))])
    for seed: UInt64 in 1...3 {
      var world = LiveWorld(profile: profile, streams: RandomStreams(rootSeed: seed))
      var sim = Simulation()
      world.start(&sim.scheduler)
      _ = sim.run(&world, until: .zero + profile.duration)
      world.judgeLiveness(now: sim.now)
      #expect(world.checker.log.total == 0, "seed \(seed): \(world.checker.log.first.compactMap { $0 })")
      let reasons = CallEndReason.allCases.filter {
        (world.metrics.counters.value("call.ended.\($0.rawValue)") ?? 0) > 0
      }
      #expect(reasons.count >= 4, "seed \(seed): \(reasons)")
      #expect((world.metrics.counters.value("push.sent") ?? 0) > 50)
      #expect((world.metrics.counters.value("conversation.actions_fulfilled") ?? 0) > 10)
    }
  }
}
