import Chaos
import Foundation
import Metrics
import Testing

@testable import Clients
@testable import LiveStack
@testable import Oracles
@testable import Profiles
@testable import Scenario
@testable import SimKernel

/// Each room-side fault kind fires where it should and has its documented effect, to the
/// millisecond where the staged room makes that possible.
@Suite struct FaultEffectTests {
  /// A viewer that applies (timeout 30 s) when told, logging the completion with its time.
  final class Applier {
    let client = ScriptedClient()
    var answers: [(ms: Int64, event: String)] = []
    var completions: [(ms: Int64, code: Int32)] = []

    init() {
      client.onApply = { [unowned self] c in
        c.coGuest.applyForSeat(timeout: .seconds(30)) { [unowned self] c, r in
          let code: Int32
          switch r {
          case .success: code = 0
          case .failure(let e): code = e.rawValue
          }
          self.completions.append((c.now.nanoseconds / 1_000_000, code))
        }
      }
      client.onGuest = { [unowned self] e, c in
        if e.isApplicationAnswer { self.answers.append((c.now.nanoseconds / 1_000_000, "\(e)")) }
      }
    }
  }

  /// Viewer 2 applies (30 s timeout) at 1 s in the staged room under `plan`, with `host` as the
  /// room's owner; runs until `untilMs`.
  func applyUnder(
    _ plan: String, host: ScriptedClient = .acceptingHost(), untilMs: Int64 = 5000,
    _ configure: (Applier) -> Void = { _ in }
  ) throws -> (Staged, Applier) {
    let a = Applier()
    configure(a)
    var s = try Staged(chaosStaged(plan), audience: a.client, host: host, admin: ScriptedClient())
    s.apply(2, atMs: 1000)
    s.run(untilMs: untilMs)
    return (s, a)
  }

  @Test func aSeatLimitHitRefusesTheApplicationWithThePackageLimitCode() throws {
    let (s, a) = try applyUnder("{ kind: \"seat.limit_hit\", rate: 1 }")
    #expect(a.completions.map(\.code) == [SeatError.seatLimitExceeded.rawValue])
    #expect(a.completions.first?.ms == 1020)
    #expect(s.counter("seat.applications") == 0 && s.world.server.seats.seat(of: 2) == nil)
    #expect(s.counter("fault.seat.limit_hit") == 1 && s.violations == 0)
  }

  @Test func aForcedRejectionComesFromTheOwnerAsSoonAsTheApplicationArrives() throws {
    let (s, a) = try applyUnder("{ kind: \"seat.rejection\", rate: 1 }", host: ScriptedClient())
    // Filed at 1.010 s; the owner's reject reaches the server at 1.020 s and the guest at 1.030 s.
    #expect(a.answers.map(\.event) == ["onGuestApplicationResponded(isAccept: false, host: 0)"])
    #expect(a.answers.first?.ms == 1030)
    #expect(s.counter("seat.rejected_by_host") == 1 && s.counter("fault.seat.rejection") == 1)
    #expect(s.violations == 0)
  }

  @Test func aLostResponseLeavesOnlyTheSeatListToTellTheGuest() throws {
    let (s, a) = try applyUnder("{ kind: \"seat.response_lost\", rate: 1 }")
    #expect(a.answers.isEmpty)
    #expect(a.client.log.contains("2 seat 0 +2"))
    #expect(s.world.server.seats.seat(of: 2) == 0)
    #expect(s.counter("fault.seat.response_lost") == 1)
  }

  @Test func aLateResponseArrivesSecondsAfterTheSeatListShowedTheGuestSeated() throws {
    var seatListAt: Int64 = -1
    let (s, a) = try applyUnder("{ kind: \"seat.response_late\", rate: 1 }", untilMs: 20_000) { a in
      a.client.onSeat = { e, c in if e.user == 2 && e.seated { seatListAt = c.now.nanoseconds / 1_000_000 } }
    }
    // Normally at 1.040 s; late by 3 to 10 s. The seat list (sent just before it) tells the guest
    // first, on time.
    #expect(a.answers.count == 1)
    let at = a.answers.first?.ms ?? 0
    #expect(at >= 4040 && at < 11_040)
    #expect(seatListAt == 1040)
    #expect(s.counter("fault.seat.response_late") == 1 && s.violations == 0)
  }

  @Test func anAcceptRaceSendsASecondAcceptThatLosesWithAlreadyProcessed() throws {
    let (s, a) = try applyUnder("{ kind: \"seat.accept_race\", rate: 1 }")
    #expect(s.counter("seat.accepted") == 1 && s.counter("seat.already_processed") == 1)
    #expect(s.counter("probe.accept_lost_to_other_host") == 1)
    #expect(a.answers.map(\.event) == ["onGuestApplicationResponded(isAccept: true, host: 0)"])
    #expect(s.world.server.seats.seat(of: 2) == 0)
    #expect(s.counter("fault.seat.accept_race") == 1 && s.violations == 0)
  }

  @Test func aHostReenteringLeavesAndJoinsItsRoomAgain() throws {
    let host = ScriptedClient()
    var s = try Staged(
      chaosStaged("{ kind: \"host.reenter\", rate: 1, target: \"user:0\" }"), audience: ScriptedClient(),
      host: host, admin: ScriptedClient())
    s.run(untilMs: 1000)
    #expect(s.counter("fault.host.reenter") == 1)
    #expect(s.world.server.seats.room(of: 0) == 0)
    s.run(untilMs: 700_000)
    // The re-entry (30 s to 10 min later) went through: the owner is in its room again and the
    // admin, untargeted, never left.
    #expect(s.world.server.seats.room(of: 0) == 0 && s.world.server.seats.room(of: 1) == 0)
    #expect(s.counter("fault.host.reenter") >= 2)  // each new join is another opportunity
    #expect(s.violations == 0)
  }

  @Test func aReentryWithNoAnswerIsTriedAgainUntilTheOwnerIsBackInItsRoom() throws {
    // The owner's way to the server is cut from 5 s to 15 min 5 s; its re-entry (30 s to 10 min
    // after its join) waits behind the cut, and the SDK times the join out.
    let profile = TestProfile(stagedProfile).with("duration", json5: "\"30m\"").with(
      "faults",
      json5: """
        { heal: "1m", plan: [
          { kind: "host.reenter", rate: 1, target: "user:0" },
          { kind: "network.partition", target: "user:0", direction: "up", at: "5s", for: "15m" },
        ] }
        """)
    var s = try Staged(profile.text, audience: ScriptedClient(), host: ScriptedClient(), admin: ScriptedClient())
    s.run(untilMs: 14 * 60_000)
    #expect(s.world.runtime.clients[0].joinedRoom == 0)  // out, and still trying
    s.run(untilMs: 16 * 60_000)
    // After the cut heals, a retry is answered: the SDK is in its room, as the server has it.
    #expect(s.world.runtime.clients[0].joinedRoom == 1 && s.world.server.seats.room(of: 0) == 0)
    #expect(s.world.runtime.clients[1].joinedRoom == 1)
    #expect(s.violations == 0)
  }

  @Test(arguments: [("login.kicked_offline", "kickedOffline"), ("login.expired", "loginExpired")])
  func aSessionFaultLogsTheUserOutLater(kind: String, event: String) throws {
    let viewer = ScriptedClient()
    var s = try Staged(
      chaosStaged("{ kind: \"\(kind)\", rate: 1, target: \"user:2\" }"), audience: viewer, host: ScriptedClient(),
      admin: ScriptedClient())
    s.run(untilMs: 9000)
    #expect(s.world.server.login.isLoggedIn(2) && s.world.server.seats.room(of: 2) == 0)
    s.run(untilMs: 620_000)
    // Between 10 s and 10 min after the login: the server logged user 2 out and told it.
    #expect(viewer.log.filter { $0.hasPrefix("2 login") } == ["2 login \(event)"])
    #expect(!s.world.server.login.isLoggedIn(2) && s.world.server.seats.room(of: 2) == nil)
    #expect(s.world.server.login.isLoggedIn(3))
    #expect(s.counter("fault.\(kind)") == 1)
  }

  @Test(arguments: [
    ("device.mic_denied", false, SeatError.microphoneNotAuthorized),
    ("device.mic_occupied", false, SeatError.microphoneOccupied),
    ("device.camera_denied", true, SeatError.cameraNotAuthorized),
  ])
  func aDeviceFaultFailsTheOpenWithItsCode(kind: String, camera: Bool, code: SeatError) throws {
    let viewer = ScriptedClient()
    var results: [String] = []
    viewer.onTimer = { _, c in
      let done: Completion = { c, r in results.append("\(c.now) \(r)") }
      if camera { c.device.openLocalCamera(completion: done) } else { c.device.openLocalMicrophone(completion: done) }
    }
    var s = try Staged(
      chaosStaged("{ kind: \"\(kind)\", rate: 1 }"), audience: viewer, host: ScriptedClient(),
      admin: ScriptedClient())
    s.timer(2, atMs: 1000)
    s.run(untilMs: 3000)
    #expect(results == ["t=1.1s failure(LiveStack.SeatError.\(code))"])
    #expect(!s.world.runtime.isOn(camera ? .camera : .microphone, user: 2))
    #expect(s.counter("fault.\(kind)") == 1)
  }

  /// Windows act from `at` to `at + for` and not a moment outside.
  @Test func aSlowdownWindowDelaysRequestsOnlyWhileItLasts() throws {
    let (host, viewer, heard) = applicationListeners()
    var s = try Staged(
      chaosStaged(
        "{ kind: \"server.slowdown\", target: \"role:audience\", at: \"2s\", for: \"3s\", extra: \"700ms\" }"),
      audience: viewer, host: host, admin: ScriptedClient())
    // Sent at 1.990 s (before the window), 2.000 s (its first instant) and 5.000 s (its end).
    s.apply(2, atMs: 1990)
    s.apply(3, atMs: 2000)
    s.apply(4, atMs: 5000)
    s.run(untilMs: 10_000)
    #expect(heard.at == [2: 2010, 3: 2720, 4: 5020])
    #expect(s.counter("fault.server.slowdown") == 1)
    #expect(s.violations == 0)
  }

  /// An outage fails the requests of its service with -1 while it lasts; other services carry on.
  @Test(arguments: [("seats", [SeatError.failed.rawValue, 0]), ("calls", [0, SeatError.alreadyInQueue.rawValue])])
  func anOutageWindowFailsRequestsOfItsServiceWithAServerError(service: String, codes: [Int32]) throws {
    let a = Applier()
    var s = try Staged(
      chaosStaged("{ kind: \"server.outage\", at: \"2s\", for: \"2s\", service: \"\(service)\" }"),
      audience: a.client, host: ScriptedClient(), admin: ScriptedClient())
    s.apply(2, atMs: 2500)
    s.apply(2, atMs: 3990)  // reaches the server at 4.000 s, the window's end
    s.run(untilMs: 6000)
    #expect(a.completions.map(\.code) == codes)
    #expect(s.counter("seat.applications") == 1)
    #expect(s.counter("fault.server.outage") == (service == "seats" ? 1 : 0))
  }

  @Test func aVanishingOutageLetsTheSDKTimeOutAndTheServerNeverHears() throws {
    let a = Applier()
    var s = try Staged(
      chaosStaged("{ kind: \"server.outage\", mode: \"vanish\", at: \"2s\", for: \"2s\", service: \"seats\" }"),
      audience: a.client, host: ScriptedClient(), admin: ScriptedClient())
    s.apply(2, atMs: 2500)
    s.run(untilMs: 20_000)
    #expect(a.completions.map(\.code) == [SeatError.failed.rawValue])
    #expect(a.completions.first?.ms == 12_500)  // the SDK's 10 s request timeout
    #expect(s.counter("seat.applications") == 0 && s.counter("fault.server.outage") == 1)
  }

  @Test func aRateFaultWithAWindowFiresOnlyInsideIt() throws {
    var codes: [UInt32: Int32] = [:]
    let viewer = ScriptedClient()
    viewer.onApply = { c in
      c.coGuest.applyForSeat(timeout: .seconds(30)) { c, r in
        if case .failure(let e) = r { codes[c.user] = e.rawValue } else { codes[c.user] = 0 }
      }
    }
    var s = try Staged(
      chaosStaged("{ kind: \"seat.limit_hit\", rate: 1, at: \"2s\", for: \"1s\" }"), audience: viewer,
      host: ScriptedClient(), admin: ScriptedClient())
    // They reach the server at 1.990 s, 2.010 s and 3.000 s (the window's end).
    s.apply(2, atMs: 1980)
    s.apply(3, atMs: 2000)
    s.apply(4, atMs: 2990)
    s.run(untilMs: 5000)
    #expect(codes == [2: 0, 3: SeatError.seatLimitExceeded.rawValue, 4: 0])
    #expect(s.counter("fault.seat.limit_hit") == 1)
  }

  @Test func theServerDropsAMemberWhoseLeaveNeverArrived() throws {
    let viewer = ScriptedClient()
    var left: [String] = []
    viewer.onTimer = { _, c in c.liveList.leaveLive { c, r in left.append("\(c.now) \(r)") } }
    var s = try Staged(
      chaosStaged("{ kind: \"server.outage\", mode: \"vanish\", at: \"2s\", for: \"2s\", target: \"user:2\" }"),
      audience: viewer, host: ScriptedClient(), admin: ScriptedClient())
    s.timer(2, atMs: 2500)
    // The SDK gives up at 12.5 s and is out of the room; the server drops user 2 30 s later.
    s.run(untilMs: 42_400)
    #expect(left == ["t=12.5s failure(LiveStack.SeatError.failed)"])
    #expect(s.world.server.seats.room(of: 2) == 0)
    s.run(untilMs: 42_600)
    #expect(s.world.server.seats.room(of: 2) == nil && s.world.server.seats.room(of: 3) == 0)
    s.world.judgeLiveness(now: s.sim.now)
    #expect(s.violations == 0)
  }

  @Test func aDuplicatedEventReachesTheClientTwiceAndTheOraclesOnce() throws {
    let (s, a) = try applyUnder("{ kind: \"network.duplicate\", rate: 1, target: \"user:2\" }")
    #expect(a.answers.map(\.ms) == [1040, 1040])
    #expect(s.world.metrics.latencies[LiveMetrics.applyToResponse].count == 1)
    #expect(s.counter("fault.network.duplicate") == 1)
    #expect(s.violations == 0)
  }

  @Test(arguments: [false, true])
  func aSeatedViewerRejoiningKeepsItsSeatUnlessTheSDKQuirkTakesItOff(quirk: Bool) throws {
    let a = Applier()
    var text = chaosStaged("{ kind: \"audience.rejoin\", rate: 1, target: \"user:2\" }")
    if quirk {
      text = TestProfile(text).with("quirks", ["auto-disconnect-on-join"]).text
    }
    var s = try Staged(text, audience: a.client, host: ScriptedClient.acceptingHost(), admin: ScriptedClient())
    s.apply(2, atMs: 1000)
    s.run(untilMs: 200_000)
    // Seated at 1.030 s; 5 s to 2 min later its SDK enters the room again and hears the seats afresh.
    #expect(s.counter("fault.audience.rejoin") == 1)
    #expect(a.client.log.filter { $0 == "2 seat 0 +2" }.count == 2)
    #expect(s.world.server.seats.room(of: 2) == 0)
    #expect(s.world.server.seats.seat(of: 2) == (quirk ? nil : 0))
  }

  @Test func anApplicationFiledWithoutATimeoutWaitsForAnAnswer() throws {
    var (s, a) = try applyUnder("{ kind: \"seat.no_timeout\", rate: 1 }", host: ScriptedClient(), untilMs: 300_000)
    // Asked for 30 s; filed with none: no timeout event, still pending after five minutes.
    #expect(a.answers.isEmpty && s.counter("seat.timed_out") == 0)
    #expect(s.world.server.seats.pendingApplication(of: 2) != nil)
    #expect(s.counter("fault.seat.no_timeout") == 1)
    s.world.judgeLiveness(now: s.sim.now)
    #expect(s.violations == 0)
  }

  @Test func aDelayWindowAddsItsExtraToTheTargetedUsersMessagesOnly() throws {
    let (host, viewer, heard) = applicationListeners()
    var s = try Staged(
      chaosStaged("{ kind: \"network.delay\", target: \"user:2\", at: \"1s\", for: \"10s\", extra: \"250ms\" }"),
      audience: viewer, host: host, admin: ScriptedClient())
    s.apply(2, atMs: 2000)
    s.apply(3, atMs: 2000)
    s.run(untilMs: 5000)
    // User 2's request takes 260 ms; the host's downlink is not targeted.
    #expect(heard.at[2] == 2270 && heard.at[3] == 2020)
    #expect(s.counter("fault.network.delay") >= 1)
  }
}
