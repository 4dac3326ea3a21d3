import Foundation
import Testing

@testable import Chaos
@testable import Clients
@testable import LiveStack
@testable import Profiles
@testable import Scenario
@testable import SimKernel

/// The SDK's channels (co-guest signalling, seat lists, calls) reordered against one another, the
/// SDK's request timeout and device re-opens as settings: staged to the millisecond.
@Suite struct FidelityTests {
  /// Viewer 2 applies at 1 s; the host accepts as soon as it hears. What reaches viewer 2, with
  /// the time, in order.
  func applyAndAccept(_ text: String) throws -> [String] {
    var heard: [String] = []
    let viewer = ScriptedClient()
    viewer.onTimer = { _, c in
      c.coGuest.applyForSeat(seatIndex: -1, timeout: .seconds(30)) { c, r in
        heard.append("\(c.now.nanoseconds / 1_000_000) reply \(r)")
      }
    }
    viewer.onGuest = { e, c in heard.append("\(c.now.nanoseconds / 1_000_000) \(e)") }
    viewer.onSeat = { e, c in if e.user == c.user { heard.append("\(c.now.nanoseconds / 1_000_000) seat +\(e.user)") } }
    var s = try Staged(text, audience: viewer, host: ScriptedClient.acceptingHost(), admin: ScriptedClient())
    s.timer(2, atMs: 1000)
    s.run(untilMs: 3000)
    return heard
  }

  @Test func withoutReorderingTheChannelsStayInStep() throws {
    let heard = try applyAndAccept(stagedProfile)
    // Apply reaches the server at 1.010 s (its answer at 1.020 s), the host hears it at 1.020 s
    // and its accept reaches the server at 1.030 s: the seat and the accept event leave together.
    #expect(
      heard == [
        "1020 reply success()", "1040 seat +2", "1040 onGuestApplicationResponded(isAccept: true, host: 0)",
      ])
  }

  @Test func aSeatListHeldBackArrivesAfterTheAcceptThatExplainsIt() throws {
    let text = chaosStaged(#"{ kind: "network.reorder", rate: 1, target: "user:2", channel: "seats", extra: "1ms" }"#)
    let heard = try applyAndAccept(text)
    #expect(
      heard == [
        "1020 reply success()", "1040 onGuestApplicationResponded(isAccept: true, host: 0)", "1041 seat +2",
      ])
  }

  @Test func signallingHeldBackLetsTheSeatListOvertakeItButKeepsItsOwnOrder() throws {
    let text = chaosStaged(
      #"{ kind: "network.reorder", rate: 1, target: "user:2", channel: "signalling", extra: "1ms" }"#)
    let heard = try applyAndAccept(text)
    // The answer to applyForSeat travels on co-guest signalling too: it is held back 1 ms, and
    // the application's answer still comes after it.
    #expect(
      heard == [
        "1021 reply success()", "1040 seat +2", "1041 onGuestApplicationResponded(isAccept: true, host: 0)",
      ])
  }

  @Test func theNetworkKeepsEachClassInOrderAndAPartitionHoldsEveryClass() {
    var n = Network(latency: .constant(10e6), random: [SplitMix64(seed: 1)])
    let t0 = SimInstant.zero
    // A seat-list message (class 2) held back 500 ms: a signalling one (class 1) overtakes it, a
    // later seat-list one waits behind it.
    #expect(n.sendHeldBack(0, t0, channelClass: 2, by: .milliseconds(500)) == t0 + .milliseconds(510))
    #expect(n.send(downlink: true, 0, t0, channelClass: 1) == t0 + .milliseconds(10))
    #expect(n.send(downlink: true, 0, t0, channelClass: 2) == t0 + .milliseconds(510))
    #expect(n.holdsBack(0, channelClass: 2, at: t0 + .milliseconds(509)))
    #expect(!n.isQuiet(0, at: t0 + .milliseconds(509)) && n.isQuiet(0, at: t0 + .milliseconds(510)))
    // A partition holds a message until 2 s: held back 1 ms more, it still makes every class wait
    // for the partition.
    let held = n.sendHeldBack(0, t0, channelClass: 1, by: .milliseconds(1), holdUntilNs: 2_000_000_000)
    #expect(held == t0 + .milliseconds(2001))
    #expect(n.send(downlink: true, 0, t0, channelClass: 3) == t0 + .seconds(2))
    #expect(n.send(downlink: true, 0, t0, channelClass: 1) == t0 + .milliseconds(2001))
  }

  @Test func passedHoldsAreForgottenAndNoOtherUsersMessagesWaitForThem() {
    var n = Network(latency: .constant(10e6), random: [SplitMix64(seed: 1), SplitMix64(seed: 2)])
    let t0 = SimInstant.zero
    #expect(n.sendHeldBack(0, t0, channelClass: 2, by: .milliseconds(500)) == t0 + .milliseconds(510))
    // User 1 holds nothing back: its seat-list messages go in their place.
    #expect(n.send(downlink: true, 1, t0, channelClass: 2) == t0 + .milliseconds(10))
    #expect(!n.holdsBack(1, channelClass: 2, at: t0))
    #expect(n.isQuiet(1, at: t0 + .milliseconds(10)))
    // Once user 0's hold has passed it holds nothing back, and the next send forgets it.
    let later = t0 + .seconds(1)
    #expect(!n.holdsBack(0, channelClass: 2, at: later))
    #expect(n.isQuiet(0, at: later))
    #expect(n.send(downlink: true, 0, later, channelClass: 2) == later + .milliseconds(10))
    #expect(n.classHolds.isEmpty)
    #expect(n.heldUntil == [0, 0])
  }

  @Test(arguments: [("3s", 4000), ("10s", 11000)] as [(String, Int64)])
  func theSDKsRequestTimeoutIsASetting(timeout: String, failsAtMs: Int64) throws {
    var text = chaosStaged(#"{ kind: "network.loss", rate: 1, target: "user:2" }"#)
    if timeout != "10s" { text = TestProfile(text).with("network.requestTimeout", json5: "\"\(timeout)\"").text }
    var answers: [String] = []
    let viewer = ScriptedClient()
    viewer.onTimer = { _, c in
      c.coGuest.applyForSeat(seatIndex: -1, timeout: .seconds(30)) { c, r in
        answers.append("\(c.now.nanoseconds / 1_000_000) \(r)")
      }
    }
    var s = try Staged(text, audience: viewer, host: ScriptedClient(), admin: ScriptedClient())
    s.timer(2, atMs: 1000)
    s.run(untilMs: 20_000)
    #expect(answers == ["\(failsAtMs) failure(LiveStack.SeatError.failed)"])
  }

  @Test(arguments: [
    ("", false, "failure(LiveStack.SeatError.microphoneOccupied)"),
    ("microphoneReopen: \"succeeds\"", false, "success()"),
    ("", true, "success()"),
    ("cameraReopen: \"occupied\"", true, "failure(LiveStack.SeatError.cameraOccupied)"),
  ])
  func openingAnOpenDeviceFollowsItsSetting(setting: String, camera: Bool, second: String) throws {
    let text = TestProfile(stagedProfile).with(
      "devices", json5: "{ openTime: \"constant(100ms)\"\(setting.isEmpty ? "" : ", " + setting) }"
    ).text
    var results: [String] = []
    let viewer = ScriptedClient()
    viewer.onTimer = { _, c in
      let done: Completion = { c, r in results.append("\(c.now.nanoseconds / 1_000_000) \(r)") }
      if camera { c.device.openLocalCamera(completion: done) } else { c.device.openLocalMicrophone(completion: done) }
    }
    var s = try Staged(text, audience: viewer, host: ScriptedClient(), admin: ScriptedClient())
    s.timer(2, atMs: 1000)
    s.timer(2, atMs: 2000)
    s.run(untilMs: 3000)
    #expect(results == ["1100 success()", "2100 \(second)"])
    #expect(s.world.runtime.isOn(camera ? .camera : .microphone, user: 2))
  }

  @Test func aReopenSettingOtherThanTheTwoIsRefusedWithItsKeyPath() {
    let text = TestProfile(stagedProfile).with("devices", json5: "{ microphoneReopen: \"twice\" }").text
    #expect(throws: ProfileError.self) { try Profile.parse(Data(text.utf8)) }
    do {
      _ = try Profile.parse(Data(text.utf8))
    } catch {
      #expect("\(error)".contains("devices.microphoneReopen") && "\(error)".contains("\"occupied\" or \"succeeds\""))
    }
  }

  @Test(arguments: [false, true])
  func aGuestsCameraMustCloseWhenItsAppEntersTheBackground(closes: Bool) throws {
    // Viewer 2 opens its camera at 1 s (on at 1.1 s); every viewer's app goes to the background
    // at 5 s and comes back at 8 s. The camera must be closed by 7 s.
    let text = TestProfile(stagedProfile).with(
      "audience", json5: #"{ stay: "1h", background: { every: "constant(5s)", for: "constant(3s)" } }"#
    ).text
    let viewer = ScriptedClient()
    var states: [String] = []
    viewer.onTimer = { _, c in c.device.openLocalCamera() }
    viewer.onAppState = { foreground, c in
      if c.user == 2 { states.append("\(c.now.nanoseconds / 1_000_000) \(c.app.state)") }
      if !foreground && closes { c.device.closeLocalCamera() }
    }
    var s = try Staged(text, audience: viewer, host: ScriptedClient(), admin: ScriptedClient())
    s.timer(2, atMs: 1000)
    s.run(untilMs: 9000)
    #expect(states == ["5000 background", "8000 foreground"])
    #expect(s.counter("viewers.backgrounded") == 3)
    // (The camera is on off any seat, which another invariant judges: only this one is counted.)
    if closes {
      #expect(s.world.checker.log.count("device.camera-off-in-background") == 0)
    } else {
      let v = try #require(s.world.checker.log.first(.cameraOffInBackground))
      #expect(v.at == .zero + .seconds(7) && v.entities == ["user:2"])
      #expect(s.world.checker.log.count("device.camera-off-in-background") == 1)
    }
  }

  /// App code that used the platform outside every virtual user (recorded by the app host, see
  /// AppTests' TeardownTests) is a finding of the run, at its time; a run without any has none.
  @Test(arguments: [false, true])
  func appCodeOutsideEveryUserIsAFindingAtItsTime(planted: Bool) throws {
    let viewer = ScriptedClient()
    viewer.onTimer = { _, c in
      if planted { c.runtime.appOutsideUser.append((c.now.nanoseconds, "NotificationCenter.default")) }
    }
    var s = try Staged(stagedProfile, audience: viewer, host: ScriptedClient(), admin: ScriptedClient())
    s.timer(2, atMs: 1500)
    s.run(untilMs: 4000)
    s.world.judgeLiveness(now: .zero + .seconds(4))
    if planted {
      let v = try #require(s.world.checker.log.first(.appInsideUser))
      #expect(v.at == .zero + .milliseconds(1500))
      #expect(v.message.hasPrefix("app code outside a virtual user: NotificationCenter.default ("))
      #expect(s.world.checker.log.count("app.inside-virtual-user") == 1)
      #expect(s.world.runtime.appOutsideUser.isEmpty, "each use is judged once")
    } else {
      #expect(s.world.checker.log.count("app.inside-virtual-user") == 0)
    }
  }
}
