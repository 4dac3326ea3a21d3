import Foundation
import Metrics
import Testing

@testable import Clients
@testable import LiveStack
@testable import Oracles
@testable import Profiles
@testable import Scenario
@testable import SimKernel

@Suite struct LiveWorldTests {
  @Test func twoHostsAcceptingOneApplicationSeatTheGuestOnceAndTheLoserGetsAlreadyProcessed() throws {
    let hosts = ScriptedClient()
    hosts.onHost = { e, c in
      if case .onGuestApplicationReceived(let guest) = e {
        c.coGuest.acceptApplication(userID: guest, completion: hosts.logged("accept"))
      }
    }
    let audience = ScriptedClient()
    audience.onApply = { c in c.coGuest.applyForSeat(timeout: .seconds(30), completion: audience.logged("apply")) }
    var s = try Staged(audience: audience, host: hosts, admin: hosts)
    s.apply(2, atMs: 1000)
    s.run(untilMs: 5000)
    #expect(hosts.log.filter { $0.hasSuffix("accept ok") }.count == 1)
    #expect(hosts.log.filter { $0.hasSuffix("accept -2311") }.count == 1)
    #expect(hosts.log.contains("1 onGuestApplicationProcessedByOtherHost(guest: 2, host: 0)"))
    #expect(audience.log.filter { $0.contains("onGuestApplicationResponded(isAccept: true") }.count == 1)
    #expect(audience.log.contains("2 seat 0 +2"))
    #expect(s.world.server.seats.seat(of: 2) == 0)
    #expect(s.counter("seat.already_processed") == 1)
    #expect(s.counter("probe.accept_lost_to_other_host") == 1)
    #expect(s.violations == 0)
  }

  /// The host accepts as soon as it hears of the application; its accept reaches the server 30 ms
  /// after the application did. A cancel sent 15 ms after the apply arrives first and wins; one
  /// sent 25 ms after arrives later and loses.
  @Test(arguments: [(15, true), (25, false)])
  func cancelRacingAcceptHasExactlyOneWinner(cancelAfterMs: Int, cancelWins: Bool) throws {
    let host = ScriptedClient()
    host.onHost = { e, c in
      if case .onGuestApplicationReceived(let guest) = e {
        c.coGuest.acceptApplication(userID: guest, completion: host.logged("accept"))
      }
    }
    let audience = ScriptedClient()
    audience.onApply = { c in
      c.coGuest.applyForSeat(timeout: .seconds(30))
      c.schedule(after: .milliseconds(Int64(cancelAfterMs)), tag: 1)
    }
    audience.onTimer = { _, c in c.coGuest.cancelApplication(completion: audience.logged("cancel")) }
    var s = try Staged(audience: audience, host: host, admin: ScriptedClient())
    s.apply(2, atMs: 1000)
    s.run(untilMs: 5000)
    let request = s.world.server.seats.requests[0]
    if cancelWins {
      #expect(request.state == .cancelled)
      #expect(audience.log.contains("2 cancel ok"))
      #expect(host.log.contains("0 accept -2311"))
      #expect(host.log.contains("0 onGuestApplicationCancelled(guest: 2)"))
      #expect(s.world.server.seats.seat(of: 2) == nil)
    } else {
      #expect(request.state == .accepted)
      #expect(audience.log.contains("2 cancel -2311"))
      #expect(host.log.contains("0 accept ok"))
      #expect(s.world.server.seats.seat(of: 2) == 0)
    }
    #expect(audience.log.filter { $0.contains("onGuestApplicationResponded") }.count == (cancelWins ? 0 : 1))
    #expect(s.counter("probe.accept_after_cancel") == (cancelWins ? 1 : 0))
    #expect(s.counter("probe.cancel_lost_to_accept") == (cancelWins ? 0 : 1))
    #expect(s.violations == 0)
  }

  @Test func seatsLockedBetweenApplyAndAcceptFailTheAcceptAndTheApplicationTimesOut() throws {
    let host = ScriptedClient()
    host.onHost = { e, c in
      if case .onGuestApplicationReceived(let guest) = e {
        c.liveSeat.lockSeat(index: 0)
        c.liveSeat.lockSeat(index: 1)
        c.coGuest.acceptApplication(userID: guest, completion: host.logged("accept"))
      }
    }
    let audience = ScriptedClient()
    audience.onApply = { c in c.coGuest.applyForSeat(timeout: .seconds(30)) }
    var s = try Staged(audience: audience, host: host, admin: ScriptedClient())
    s.apply(2, atMs: 1000)
    s.run(untilMs: 40_000)
    #expect(host.log.contains("0 accept \(SeatError.allSeatsTaken.rawValue)"))
    #expect(audience.log == ["2 onGuestApplicationNoResponse(reason: LiveStack.NoResponseReason.timeout)"])
    #expect(s.world.server.seats.requests[0].state == .timedOut)
    #expect(s.counter("seat.rejected.all_taken") == 1)
    #expect(s.violations == 0)
  }

  @Test func aRejoinWhileSeatedSucceedsAndKeepsTheSeat() throws {
    let host = ScriptedClient.acceptingHost()
    let audience = ScriptedClient()
    audience.onApply = { c in c.coGuest.applyForSeat(timeout: .seconds(30)) }
    audience.onTimer = { _, c in c.liveList.joinLive(completion: audience.logged("rejoin")) }
    audience.onSeat = { change, c in if change.seated { c.schedule(after: .seconds(1), tag: 1) } }
    var s = try Staged(audience: audience, host: host, admin: ScriptedClient())
    s.apply(2, atMs: 1000)
    s.run(untilMs: 5000)
    #expect(audience.log.contains("2 rejoin ok"))
    #expect(s.world.server.seats.seat(of: 2) == 0)
    #expect(s.world.runtime.clients[2].seenSeat == 0)
    #expect(s.violations == 0)
  }

  @Test func aHostJoiningLateGetsTheSeatListAsItStands() throws {
    // The admin (user 1) logs in only at 3 s, after user 2 took seat 0.
    let host = ScriptedClient.acceptingHost()
    let admin = ScriptedClient()
    admin.logsIn = false
    admin.onApply = { c in
      c.liveSeat.subscribe()
      c.login.login { c, _ in c.liveList.joinLive() }
    }
    let audience = ScriptedClient()
    audience.onApply = { c in c.coGuest.applyForSeat(timeout: .seconds(30)) }
    var s = try Staged(audience: audience, host: host, admin: admin)
    s.apply(2, atMs: 1000)
    s.apply(1, atMs: 3000)
    s.run(untilMs: 5000)
    #expect(s.world.server.seats.seat(of: 2) == 0)
    #expect(admin.log == ["1 seat 0 +2"])
    #expect(
      Client(user: 1, room: 0, role: .admin, runtime: s.world.runtime, random: SplitMix64(seed: 0)).coGuest
        .connected == [2])
  }

  @Test func aRequestThatOutlivesItsTimeoutIsALivenessViolation() throws {
    let audience = ScriptedClient()
    audience.onApply = { c in c.coGuest.applyForSeat(timeout: .seconds(30)) }
    var s = try Staged(audience: audience, host: ScriptedClient(), admin: ScriptedClient())
    s.apply(2, atMs: 1000)
    s.run(untilMs: 60_000)
    s.world.judgeLiveness(now: s.sim.now)
    #expect(s.violations == 0)
    // Plant: the server behaves as if the timeout had been 1 s, yet ended it only at 31 s.
    s.world.server.requestTimeoutsNs[0] = 1_000_000_000
    s.world.judgeLiveness(now: s.sim.now)
    #expect(s.world.checker.log.count("request.terminal-within-timeout") == 1)
    #expect(s.world.checker.log.first(.terminalWithinTimeout)?.message.contains("timedOut only at") == true)
  }

  @Test func aClientWhoseStatusIgnoresAKickDisagreesWithTheServer() throws {
    let host = ScriptedClient()
    host.onHost = { e, c in
      if case .onGuestApplicationReceived(let guest) = e {
        c.coGuest.acceptApplication(userID: guest)
        c.schedule(after: .seconds(3), tag: guest)
      }
    }
    host.onTimer = { guest, c in c.liveSeat.kickUserOutOfSeat(userID: guest) }
    // Status from the response callback only: kicks are not heard (no seat-list subscription).
    var s = try Staged(audience: InvariantTests.CallbackOnlyStatus(), host: host, admin: ScriptedClient())
    s.apply(2, atMs: 1000)
    s.run(untilMs: 20_000)
    #expect(s.world.server.seats.seat(of: 2) == nil)
    s.world.judgeLiveness(now: s.sim.now)
    #expect(s.world.checker.log.count("client.view-matches-server") == 1)
    #expect(
      s.world.checker.log.first(.viewMatchesServer)?.message.contains(
        "status connected but the server has it off a seat") == true)
  }

  @Test func aGuestStillCapturingAfterItsSeatIsGoneIsCaught() throws {
    let host = ScriptedClient()
    host.onHost = { e, c in
      if case .onGuestApplicationReceived(let guest) = e {
        c.coGuest.acceptApplication(userID: guest)
        c.schedule(after: .seconds(3), tag: guest)
      }
    }
    host.onTimer = { guest, c in c.liveSeat.kickUserOutOfSeat(userID: guest) }
    // Opens the microphone on the accept and keeps its status "connecting" (a state in which
    // capturing is allowed) whatever happens next.
    let audience = ScriptedClient()
    audience.onApply = { c in
      c.status = .applying
      c.coGuest.applyForSeat(timeout: .seconds(30))
    }
    audience.onGuest = { e, c in
      if case .onGuestApplicationResponded(true, _) = e {
        c.status = .connecting
        c.device.openLocalMicrophone()
      }
    }
    var s = try Staged(audience: audience, host: host, admin: ScriptedClient())
    s.apply(2, atMs: 1000)
    s.run(untilMs: 20_000)
    #expect(s.world.runtime.anyDeviceOn(user: 2) && s.world.server.seats.seat(of: 2) == nil)
    s.world.judgeLiveness(now: s.sim.now)
    let message = s.world.checker.log.first(.viewMatchesServer)?.message ?? ""
    #expect(message.contains("a capture device is on but the server has it on no seat"))
  }

  @Test func aClientShowingApplyingWithNoApplicationOnTheServerIsCaught() throws {
    let audience = ScriptedClient()
    audience.onApply = { c in c.status = .applying }  // the UI changes; no call is made
    var s = try Staged(audience: audience, host: ScriptedClient(), admin: ScriptedClient())
    s.apply(3, atMs: 1000)
    s.run(untilMs: 3000)
    s.world.judgeLiveness(now: s.sim.now)
    #expect(s.world.checker.log.count("client.view-matches-server") == 1)
    #expect(
      s.world.checker.log.first(.viewMatchesServer)?.message.contains(
        "status applying but the server has no application") == true)
  }

  @Test func invitationsRoundTripAndTheInviterHearsTheAnswer() throws {
    let host = ScriptedClient()
    host.onTimer = { _, c in c.coGuest.inviteToSeat(userID: 3, timeout: .seconds(30), completion: host.logged("invite"))
    }
    let audience = ScriptedClient()
    audience.onGuest = { e, c in
      if case .onHostInvitationReceived(let inviter) = e {
        c.coGuest.acceptInvitation(inviterID: inviter, completion: audience.logged("accept-invitation"))
      }
    }
    var s = try Staged(audience: audience, host: host, admin: ScriptedClient())
    s.timer(0, atMs: 1000)
    s.run(untilMs: 5000)
    #expect(host.log.contains("0 invite ok"))
    #expect(audience.log.contains("3 onHostInvitationReceived(host: 0)"))
    #expect(audience.log.contains("3 accept-invitation ok"))
    #expect(host.log.contains("0 onHostInvitationResponded(isAccept: true, guest: 3)"))
    #expect(s.world.server.seats.seat(of: 3) == 0)
    #expect(s.world.metrics.latencies[LiveMetrics.inviteToResponse].count == 1)
    #expect(s.world.runtime.invitees[0].isEmpty)
    #expect(s.violations == 0)
  }

  @Test func callsBeforeLoginFailWithNotLoggedIn() throws {
    let audience = ScriptedClient()
    audience.logsIn = false
    var s = try Staged(audience: audience, host: ScriptedClient(), admin: ScriptedClient())
    audience.onApply = { c in c.coGuest.applyForSeat(timeout: .zero, completion: audience.logged("apply")) }
    s.apply(2, atMs: 0)
    s.run(untilMs: 1000)
    #expect(audience.log.first == "2 apply \(SeatError.notLoggedIn.rawValue)")
  }

  @Test func withApplyCompletionAtTheOutcomeTheCompletionWaitsForTheAnswer() throws {
    let text = TestProfile(stagedProfile).with("seats.applyCompletion", "outcome").text
    let host = ScriptedClient()
    host.onHost = { e, c in
      if case .onGuestApplicationReceived(let guest) = e { c.schedule(after: .seconds(2), tag: guest) }
    }
    host.onTimer = { guest, c in c.coGuest.rejectApplication(userID: guest) }
    let audience = ScriptedClient()
    var completedAt: SimInstant?
    audience.onApply = { c in
      c.coGuest.applyForSeat(timeout: .seconds(30)) { c, r in
        completedAt = c.now
        audience.log.append("completion \(r)")
      }
    }
    var s = try Staged(text, audience: audience, host: host, admin: ScriptedClient())
    s.apply(2, atMs: 1000)
    s.run(untilMs: 10_000)
    // Sent at 1.000 s, filed at 1.010 s, heard by the host at 1.020 s, rejected at 3.020 s, which
    // reaches the server at 3.030 s and the client at 3.040 s.
    #expect(completedAt == .zero + .milliseconds(3040))
    #expect(audience.log.contains("completion failure(LiveStack.SeatError.failed)"))
  }

  @Test func beingLoggedOutByTheServerEndsTheSessionAndLaterCallsFail() throws {
    let text = TestProfile(stagedProfile).with("audience.applyProbability", 1).with("audience.applyAfter", "1s").text
    var s = try Staged(text)
    s.run(untilMs: 20_000)
    let seated = (2...4).compactMap { u -> UInt32? in s.world.server.seats.seat(of: UInt32(u)) == nil ? nil : UInt32(u)
    }
    let guest = try #require(seated.first)
    #expect(s.world.runtime.anyDeviceOn(user: guest))
    s.sim.scheduler.schedule(
      at: .zero + .seconds(21),
      Event(kind: LiveEvent.loginEnded.rawValue, a: guest, b: UInt32(LoginEvent.kickedOffline.rawValue)))
    s.run(untilMs: 22_000)
    #expect(s.world.server.seats.seat(of: guest) == nil)
    #expect(s.world.server.seats.room(of: guest) == nil)
    #expect(!s.world.server.login.isLoggedIn(guest))
    #expect(s.world.runtime.clients[Int(guest)].status == .left)
    #expect(!s.world.runtime.anyDeviceOn(user: guest))
    #expect(s.violations == 0)
  }
}

/// The hints a large world gives the processor about its next event change nothing it computes.
@Suite struct PrefetchTests {
  /// capacity-1m scaled down (server capacities with rate limits, calls and pushes, UI checks),
  /// run with the hints off and forced on: the same trace, metrics and verdicts.
  @Test func hintingTheNextEventLeavesTheRunUnchanged() throws {
    let path = repositoryRoot.appendingPathComponent("profiles/capacity-1m.json5").path
    var profile = try Profile.load(path: path).profile
    profile.population.rooms = 30
    profile.calls!.users = 600
    profile.duration = .minutes(25)
    func run(hinting: Bool) -> (hash: TraceHash, events: Int64, connected: UInt64?, violations: Int) {
      var world = LiveWorld(profile: profile, streams: RandomStreams(rootSeed: 1))
      #expect(!world.prefetchesNextEvent, "a small world gives no hints by itself")
      world.prefetchesNextEvent = hinting
      var sim = Simulation()
      world.start(&sim.scheduler)
      _ = sim.run(&world, until: .zero + profile.duration)
      return (sim.traceHash, sim.executedCount, world.metrics.counters.value("seat.connected"), world.checker.log.total)
    }
    let plain = run(hinting: false)
    let hinted = run(hinting: true)
    #expect(plain.events > 50_000)
    #expect((plain.connected ?? 0) > 0)
    #expect(hinted.hash == plain.hash)
    #expect(hinted.events == plain.events)
    #expect(hinted.connected == plain.connected)
    #expect(hinted.violations == plain.violations)
  }

  @Test func aWorldOfTheThresholdsSizeHintsByItself() throws {
    var profile = try Profile.parse(Data(minimalProfile.utf8))
    profile.population.rooms = 2
    profile.population.audiencePerRoom = .constant(Double(LiveWorld.prefetchFromRoomUsers / 2))
    #expect(LiveWorld(profile: profile, streams: RandomStreams(rootSeed: 1)).prefetchesNextEvent)
    profile.population.audiencePerRoom = .constant(Double(LiveWorld.prefetchFromRoomUsers / 2 - 10))
    #expect(!LiveWorld(profile: profile, streams: RandomStreams(rootSeed: 1)).prefetchesNextEvent)
  }

  @Test func phoneUsersDoNotCountTowardsTheThreshold() throws {
    let path = repositoryRoot.appendingPathComponent("profiles/call-storm.json5").path
    var profile = try Profile.load(path: path).profile
    profile.calls!.users = LiveWorld.prefetchFromRoomUsers + 1
    let world = LiveWorld(profile: profile, streams: RandomStreams(rootSeed: 1))
    #expect(world.layout.totalUsers > LiveWorld.prefetchFromRoomUsers)
    #expect(!world.prefetchesNextEvent)
  }

  /// A request's events and its answer's name the caller (and the service, or the answer) beside
  /// the slot, for the next-event hint: every answer and every user a run can hold come back out.
  @Test func anEventCarriesItsCallerAndItsAnswerExactly() {
    #expect(SeatError.allCases.enumerated().allSatisfy { $0.offset == $0.element.ordinal })
    let users: [UInt32] = [0, 1, 10_559_904, UInt32(Layout.maxUsers - 1)]
    // The errors leave the code of a room entered free.
    #expect(SeatError.allCases.count < Int(WireTag.enteredRoom))
    for error in [nil] + SeatError.allCases.map(Optional.some) {
      for user in users {
        for entersRoom in [false, true] {
          let tag = WireTag.reply(user: user, error, entersRoom: entersRoom)
          #expect(
            WireTag.user(ofReply: tag) == user && WireTag.error(ofReply: tag) == error,
            "\(user) \(String(describing: error))")
          // Only a success of a call that enters the room says so.
          #expect(WireTag.entersRoom(ofReply: tag) == (entersRoom && error == nil))
        }
      }
    }
    for kind in OperationKind.allCases {
      for user in users {
        let tag = kind.tag(for: user)
        #expect(WireTag.user(ofRequest: tag) == user && WireTag.service(ofRequest: tag) == kind.deskService)
        #expect(WireTag.entersOrLeavesRoom(tag) == kind.isRoomEntryOrExit)
      }
    }
  }
}
