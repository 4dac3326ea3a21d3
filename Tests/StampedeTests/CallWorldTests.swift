import Foundation
import Metrics
import Testing

@testable import Clients
@testable import LiveStack
@testable import Oracles
@testable import Profiles
@testable import Scenario
@testable import SimKernel

@Suite struct CallWorldTests {
  func staged(_ phone: ScriptedPhone) throws -> Staged {
    try Staged(stagedCalls, audience: ScriptedClient(), host: ScriptedClient(), admin: ScriptedClient(), phone: phone)
  }

  @Test func aCallRingsConnectsAndEndsWithExactLatencies() throws {
    let phone = ScriptedPhone()
    phone.onTimer = { tag, c in
      if tag == 1 { c.callStore.calls(participantIds: [6], mediaType: .video) } else { c.callStore.hangup() }
    }
    phone.onCall = { e, c in if case .received = e { c.callStore.accept() } }
    var s = try staged(phone)
    #expect(s.world.layout.phones == 5..<8)
    s.timer(5, atMs: 1000, tag: 1)
    s.timer(5, atMs: 5000, tag: 2)
    s.run(untilMs: 10_000)
    #expect(phone.log.contains("6 received(user: 6, call: 0)"))
    #expect(phone.log.contains("5 started(user: 5, call: 0)") && phone.log.contains("6 started(user: 6, call: 0)"))
    #expect(phone.log.contains("6 ended(user: 6, call: 0, reason: LiveStack.CallEndReason.hangup, other: 5)"))
    let ring = s.world.metrics.latencies[LiveMetrics.dialToRing]
    let connected = s.world.metrics.latencies[LiveMetrics.dialToConnected]
    #expect(ring.count == 1 && ring.max == 20_000_000)
    // dial 1.000 s, server 1.010, callee rings 1.020 and accepts, server 1.030, caller 1.040.
    #expect(connected.count == 1 && connected.max == 40_000_000)
    #expect(s.counter("call.placed") == 1 && s.counter("call.ended.hangup") == 1)
    #expect(s.world.runtime.clients[5].callState == .none && s.world.runtime.clients[6].call == 0)
    s.world.judgeLiveness(now: s.sim.now)
    #expect(s.violations == 0)
  }

  @Test func aConnectedParticipantInvitesAPhoneWhoRingsForTheCallsTimeoutFromTheInvitation() throws {
    // Phones 5..8. 5 calls 6 and 7 at 1 s (20 s timeout); 6 answers at once, 7 lets it ring; at
    // 5 s 6 invites 8, who does not answer either.
    let phone = ScriptedPhone()
    var answers: [String] = []
    phone.onTimer = { tag, c in
      switch tag {
      case 1: c.callStore.calls(participantIds: [6, 7], mediaType: .audio, timeout: .seconds(20))
      case 2:
        c.callStore.invite(participantIds: [8]) { c, r in answers.append("\(c.user) invite \(r)") }
        c.callStore.invite(participantIds: [5]) { c, r in answers.append("\(c.user) invite 5 \(r)") }
      default: c.callStore.invite(participantIds: [8]) { c, r in answers.append("\(c.user) invite \(r)") }
      }
    }
    var heardAt: [String] = []
    phone.onCall = { e, c in
      let ms = c.now.nanoseconds / 1_000_000
      switch e {
      case .received: heardAt.append("\(c.user) rings \(ms)")
      case .ended: heardAt.append("\(c.user) ended \(ms)")
      default: break
      }
      if case .received = e, c.user == 6 { c.callStore.accept() }
    }
    var s = try Staged(
      TestProfile(stagedCalls).with("calls.users", json5: "4"), audience: ScriptedClient(), host: ScriptedClient(),
      admin: ScriptedClient(), phone: phone)
    s.timer(5, atMs: 1000, tag: 1)
    s.timer(7, atMs: 2000, tag: 3)  // ringing, not in the call yet: refused
    s.timer(6, atMs: 5000, tag: 2)
    s.run(untilMs: 60_000)
    #expect(
      answers == [
        "7 invite failure(LiveStack.SeatError.callRefusedInState)", "6 invite success()",
        "6 invite 5 failure(LiveStack.SeatError.invalidCallParticipant)",
      ])
    // Invited at the server at 5.010 s, 8 rings at 5.020; its ring stops at 25.010 (the call's 20 s
    // from the invitation), as 7's stopped at 21.010; the call goes on for 5 and 6.
    #expect(phone.log.contains("8 received(user: 8, call: 0)"))
    let ended = phone.log.filter { $0.contains("ended") }
    #expect(
      ended == [
        "7 ended(user: 7, call: 0, reason: LiveStack.CallEndReason.noResponse, other: 7)",
        "8 ended(user: 8, call: 0, reason: LiveStack.CallEndReason.noResponse, other: 8)",
      ])
    #expect(s.world.server.calls.calls[0].ringingSince(8) == .zero + .milliseconds(5010))
    #expect(heardAt == ["6 rings 1020", "7 rings 1020", "8 rings 5020", "7 ended 21020", "8 ended 25020"])
    #expect(s.world.server.calls.state(of: 5) == .accept && s.world.server.calls.state(of: 6) == .accept)
    #expect(s.counter("call.invites") == 1)
    // 7's invite from a call that still rang is a misuse of the SDK, caught as it is made.
    #expect(s.violations == 1)
    let v = try #require(s.world.checker.log.first(.callValidUse))
    #expect(v.at == .zero + .milliseconds(2000))
    #expect(v.message == "user 7 called invite() while its SDK shows a call that still rings, not a connected one")
  }

  @Test func theCallersUserDataReachesEveryCalleeWithTheInvitation() throws {
    let phone = ScriptedPhone()
    phone.onTimer = { tag, c in
      if tag == 1 {
        c.callStore.calls(participantIds: [6, 7], mediaType: .audio, userData: "order 42")
      } else {
        c.callStore.calls(participantIds: [7], mediaType: .audio)
      }
    }
    var heard: [String] = []
    phone.onCall = { e, c in
      switch e {
      case .received(_, let call):
        heard.append("\(c.user) call \(call) \"\(c.callStore.userData(of: call))\"")
        c.callStore.reject()
      default: break
      }
    }
    var s = try staged(phone)
    s.timer(5, atMs: 1000, tag: 1)
    s.timer(6, atMs: 5000, tag: 2)
    s.run(untilMs: 10_000)
    // Both callees of the first call hear its data; a call placed without any carries "".
    #expect(heard == ["6 call 0 \"order 42\"", "7 call 0 \"order 42\"", "7 call 1 \"\""])
    #expect(s.world.runtime.callUserData == [0: "order 42"])
    // The slot that carried it is free and clean for the next call.
    #expect(s.world.runtime.callLists.userData.isEmpty)
  }

  @Test(arguments: [
    ("ringsOut", "5 ended(user: 5, call: 0, reason: LiveStack.CallEndReason.noResponse, other: 6)", Int64(31_020)),
    ("endsAtOnce", "5 ended(user: 5, call: 0, reason: LiveStack.CallEndReason.offline, other: 6)", Int64(1_020)),
  ])
  func aCalleeWhoLoggedOutRingsOutOrEndsTheCallAsConfigured(setting: String, heard: String, atMs: Int64) throws {
    let phone = ScriptedPhone()
    var endedAt: Int64 = 0
    phone.onTimer = { tag, c in
      if tag == 1 { c.login.logout() } else { c.callStore.calls(participantIds: [6], mediaType: .audio) }
    }
    phone.onCall = { e, c in if case .ended = e { endedAt = c.now.nanoseconds / 1_000_000 } }
    let text = TestProfile(stagedCalls).with("calls.offlineCallee", json5: "\"\(setting)\"").text
    var s = try Staged(text, audience: ScriptedClient(), host: ScriptedClient(), admin: ScriptedClient(), phone: phone)
    s.timer(6, atMs: 500, tag: 1)
    s.timer(5, atMs: 1000, tag: 2)
    s.run(untilMs: 40_000)
    // Called at 1.000 s (server 1.010 s): the caller hears the end 10 ms after the server ends it,
    // at once or when the 30 s timeout passes.
    #expect(phone.log == [heard])
    #expect(endedAt == atMs)
    #expect(s.world.runtime.clients[5].callState == .none)
    s.world.judgeLiveness(now: s.sim.now)
    #expect(s.violations == 0)
  }

  @Test(arguments: [
    ("refusedByServer", "5 calls success()", 1),
    ("refusedLocally", "5 calls failure(LiveStack.SeatError.notLoggedIn)", 0),
  ])
  func aCallMadeBeforeTheLoginFinishedFollowsTheSetting(setting: String, heard: String, placed: Int) throws {
    // Phone 5 logs in at 0 (the server has it at 10 ms, its SDK hears so at 20 ms) and dials at
    // 5 ms. Sent, the call reaches the server at 15 ms, logged in by then, and goes through;
    // refused by the SDK itself, it fails at 5 ms.
    let phone = ScriptedPhone()
    var at: Int64 = -1
    phone.onTimer = { _, c in
      c.callStore.calls(participantIds: [6], mediaType: .audio) { c, r in
        phone.log.append("\(c.user) calls \(r)")
        at = c.now.nanoseconds / 1_000_000
      }
    }
    let text = TestProfile(stagedCalls).with("calls.beforeLogin", json5: "\"\(setting)\"").text
    var s = try Staged(text, audience: ScriptedClient(), host: ScriptedClient(), admin: ScriptedClient(), phone: phone)
    s.timer(5, atMs: 5, tag: 1)
    s.run(untilMs: 1000)
    #expect(phone.log.contains(heard))
    #expect(at == (placed == 1 ? 25 : 5))
    #expect(s.counter("call.placed") == UInt64(placed))
    // Either way, calls() before login is the app's mistake.
    #expect(s.world.checker.log.count("call.valid-use") == 1)
  }

  @Test(arguments: [("rejectedByCallee", Int64(2040)), ("rejectedByServer", Int64(2020))])
  func aBusyCalleeEndsTheNewCallWithLineBusy(setting: String, endsAtMs: Int64) throws {
    let phone = ScriptedPhone()
    var endedAt: Int64 = 0
    phone.onTimer = { tag, c in
      c.callStore.calls(
        participantIds: [6], mediaType: .audio, completion: { c, r in phone.log.append("\(c.user) calls \(r)") })
    }
    phone.onCall = { e, c in if case .ended = e, c.user == 7 { endedAt = c.now.nanoseconds / 1_000_000 } }
    let text = TestProfile(stagedCalls).with("calls.busyCallee", json5: "\"\(setting)\"").text
    var s = try Staged(text, audience: ScriptedClient(), host: ScriptedClient(), admin: ScriptedClient(), phone: phone)
    s.timer(5, atMs: 1000, tag: 1)
    s.timer(7, atMs: 2000, tag: 1)
    s.run(untilMs: 3000)
    #expect(phone.log.contains("7 ended(user: 7, call: 1, reason: LiveStack.CallEndReason.lineBusy, other: 6)"))
    // Decided by the callee: the invitation reaches 6's SDK at 2.020 s, which declines it; the
    // decline reaches the server at 2.030 s and caller 7 at 2.040 s. By the server: at once.
    #expect(endedAt == endsAtMs)
    // 6's app never hears of the second call.
    #expect(!phone.log.contains { $0.hasPrefix("6 received(user: 6, call: 1") })
    #expect(s.counter("call.ended.lineBusy") == 1)
    #expect(s.world.runtime.clients[7].callState == .none)
    #expect(s.world.runtime.clients[5].callState == .waiting)
    #expect(s.violations == 0)
  }

  @Test func anotherDeviceOfTheCalleeAnswersOrDeclinesFirst() throws {
    // 5 calls 6 at 1 s and at 31 s, hanging up 19 s after each call; 6 is logged in on a second
    // device too, which acts 1 to 5 s after the server rang (drawn from 6's fault stream).
    let phone = ScriptedPhone()
    var heard: [String] = []
    phone.onTimer = { tag, c in
      if tag == 1 { c.callStore.calls(participantIds: [6], mediaType: .audio) } else { c.callStore.hangup() }
    }
    phone.onCall = { e, c in heard.append("\(c.now.nanoseconds / 1_000_000) \(e)") }
    let text = chaosStaged(#"{ kind: "login.other_device", rate: 1, target: "user:6" }"#, base: stagedCalls)
    var s = try Staged(text, audience: ScriptedClient(), host: ScriptedClient(), admin: ScriptedClient(), phone: phone)
    for k: Int64 in 0..<2 {
      s.timer(5, atMs: 1000 + 30_000 * k, tag: 1)
      s.timer(5, atMs: 20_000 + 30_000 * k, tag: 2)
    }
    s.run(untilMs: 60_000)
    let r = "LiveStack.CallEndReason."
    #expect(
      heard == [
        // The other device declines at 2.519 s: this one's part ends, and the caller hears a decline.
        "1020 received(user: 6, call: 0)", "2529 ended(user: 6, call: 0, reason: \(r)otherDeviceReject, other: 6)",
        "2529 ended(user: 5, call: 0, reason: \(r)reject, other: 6)",
        // It answers at 33.633 s: the caller talks with it until hanging up at 50 s.
        "31020 received(user: 6, call: 1)", "33643 ended(user: 6, call: 1, reason: \(r)otherDeviceAccepted, other: 6)",
        "33643 started(user: 5, call: 1)", "50020 ended(user: 5, call: 1, reason: \(r)hangup, other: 5)",
      ])
    #expect(s.counter("fault.login.other_device") == 2)
    #expect(s.world.server.calls.calls[1].answeredElsewhere == 1)
    s.world.judgeLiveness(now: s.sim.now)
    #expect(s.violations == 0)
  }

  @Test func theServerEndsAConnectedCallForEveryone() throws {
    let phone = ScriptedPhone()
    var heard: [String] = []
    phone.onTimer = { _, c in c.callStore.calls(participantIds: [6], mediaType: .audio) }
    phone.onCall = { e, c in
      heard.append("\(c.user) \(e)")
      if case .received = e { c.callStore.accept() }
    }
    let text = chaosStaged(#"{ kind: "call.end_by_server", rate: 1 }"#, base: stagedCalls)
    var s = try Staged(text, audience: ScriptedClient(), host: ScriptedClient(), admin: ScriptedClient(), phone: phone)
    s.timer(5, atMs: 1000, tag: 1)
    s.run(untilMs: 700_000)
    #expect(s.counter("fault.call.end_by_server") == 1 && s.counter("call.ended.endByServer") == 1)
    let call = s.world.server.calls.calls[0]
    let length = call.endedAt!.nanoseconds - call.startedAt!.nanoseconds
    #expect(length >= 10_000_000_000 && length < 600_000_000_000)
    #expect(heard.contains("5 ended(user: 5, call: 0, reason: LiveStack.CallEndReason.endByServer, other: 5)"))
    #expect(heard.contains("6 ended(user: 6, call: 0, reason: LiveStack.CallEndReason.endByServer, other: 5)"))
    #expect(s.violations == 0)
  }

  @Test func aSecondCallToAKilledRingingPhoneSendsASecondPushTheAppMustReport() throws {
    // 5 calls 6, whose app is killed: a push wakes it and it rings. 7 calls 6 as well: 6 is busy,
    // but the invitation goes out and, the app not being connected, as a second VoIP push. The
    // built-in phone reports it (as iOS requires) and ends it at once; 7 rings on to its timeout.
    var (s, phone) = try PushWorldTests().staged()
    phone.onTimer = { tag, c in
      if tag == 100 { c.callStore.calls(participantIds: [6], mediaType: .audio, timeout: .seconds(20)) }
    }
    s.run(untilMs: 2000)
    s.world.killProcess(6, &s.sim.scheduler)
    s.timer(5, atMs: 3000, tag: 100)
    s.timer(7, atMs: 3200, tag: 100)
    s.run(untilMs: 30_000)
    #expect(s.counter("push.sent") == 2)
    #expect(s.counter("conversation.reported") == 2)
    #expect(s.counter("probe.push_after_call_ended") == 0)
    #expect(s.world.server.calls.calls[1].endReason == .noResponse)
    s.world.judgeLiveness(now: s.sim.now)
    #expect(s.violations == 0)
  }

  @Test func anUnansweredCallTimesOutAndASecondCallWhileCallingIsRefused() throws {
    let phone = ScriptedPhone()
    phone.onTimer = { tag, c in
      c.callStore.calls(participantIds: [tag == 1 ? 6 : 7], mediaType: .audio, timeout: .seconds(5)) { c, r in
        phone.log.append("\(c.user) calls \(r)")
      }
    }
    var s = try staged(phone)
    s.timer(5, atMs: 1000, tag: 1)
    s.timer(5, atMs: 2000, tag: 2)
    s.run(untilMs: 10_000)
    #expect(phone.log.contains("5 calls failure(LiveStack.SeatError.callRefusedInState)"))
    #expect(phone.log.contains("5 ended(user: 5, call: 0, reason: LiveStack.CallEndReason.noResponse, other: 6)"))
    #expect(s.counter("call.ended.noResponse") == 1)
  }

  /// The smoke profile (with `edit`) run to its end with seed 2 and its liveness judged.
  func smokeWorld(_ edit: (TestProfile) -> TestProfile = { $0 }) throws -> LiveWorld {
    let path = repositoryRoot.appendingPathComponent("profiles/smoke.json5").path
    let profile = try Profile.parse(
      Data(edit(TestProfile(try String(contentsOfFile: path, encoding: .utf8))).text.utf8))
    var world = LiveWorld(profile: profile, streams: RandomStreams(rootSeed: 2))
    var sim = Simulation()
    world.start(&sim.scheduler)
    _ = sim.run(&world, until: .zero + profile.duration)
    world.judgeLiveness(now: sim.now)
    return world
  }

  @Test func phonesRunCleanAndSeveralEndReasonsOccur() throws {
    let world = try smokeWorld()
    #expect(world.checker.log.total == 0, "\(world.checker.log.first.compactMap { $0 })")
    let c = world.metrics.counters
    #expect(c.value("call.placed")! > 100)
    let reasons = CallEndReason.allCases.filter { c.value("call.ended.\($0.rawValue)")! > 0 }
    #expect(reasons.count >= 3, "\(reasons)")
    #expect(world.metrics.latencies[LiveMetrics.dialToConnected].count > 50)
  }

  @Test func builtInCallersInviteIntoTheirGroupCallsAndStayClean() throws {
    let world = try smokeWorld { $0.with("calls.groupProbability", "60%").with("calls.inviteProbability", "100%") }
    #expect(world.checker.log.total == 0, "\(world.checker.log.first.compactMap { $0 })")
    let c = world.metrics.counters
    #expect(c.value("call.invites")! > 20)
    // Whom a caller invites is never someone already in its call.
    #expect((c.value("errors.invalidCallParticipant") ?? 0) == 0)
    let invited = world.server.calls.calls.filter { !$0.invitedLater.isEmpty }
    #expect(invited.contains { c in c.invitedLater.contains { u in c.startedAt.map { u.at > $0 } ?? false } })
  }

  @Test func aCallReachingAPhoneStillInAnotherIsCaught() throws {
    let phone = ScriptedPhone()
    phone.onTimer = { _, c in c.callStore.calls(participantIds: [6], mediaType: .audio) }
    var s = try staged(phone)
    s.run(untilMs: 500)
    // Plant: user 6's SDK still believes it is in an old call.
    s.world.runtime.clients[6].call = 99
    s.world.runtime.clients[6].callState = .accept
    s.timer(5, atMs: 1000, tag: 1)
    s.run(untilMs: 2000)
    #expect(s.world.checker.log.count("call.one-active-per-user") == 1)
    #expect(
      s.world.checker.log.first(.oneActiveCall)?.message == "call 0 reached user 6 while it was in call 98")
  }

  @Test func aCallLeftRingingPastItsTimeoutIsALivenessViolation() throws {
    let phone = ScriptedPhone()
    phone.onTimer = { _, c in c.callStore.calls(participantIds: [6], mediaType: .audio, timeout: .seconds(5)) }
    var s = try staged(phone)
    s.timer(5, atMs: 1000, tag: 1)
    s.run(untilMs: 20_000)
    s.world.judgeLiveness(now: s.sim.now)
    #expect(s.violations == 0)
    // Plant: the server behaves as if the timeout had been 1 s, yet ended the call at 6.01 s
    // (judged without slack).
    s.world.server.callTimeoutsNs[0] = 1_000_000_000
    s.world.judgeLiveness(now: s.sim.now, slack: .zero)
    #expect(s.world.checker.log.count("call.released-within-timeout") == 1)
  }

  @Test func aPhoneWhoseSDKDisagreesWithTheServerIsCaught() throws {
    var s = try staged(ScriptedPhone())
    s.run(untilMs: 1000)
    s.world.runtime.clients[6].call = 1
    s.world.runtime.clients[6].callState = .accept
    s.world.judgeLiveness(now: s.sim.now)
    #expect(
      s.world.checker.log.first(.viewMatchesServer)?.message.contains("user 6's SDK shows call 0") == true)
  }
}
