import Foundation
import Testing

@testable import Clients
@testable import LiveStack
@testable import Oracles
@testable import Profiles
@testable import Scenario
@testable import SimKernel

/// Each SDK quirk, off and on, in the staged room of `LiveWorldTests` (owner 0, admin 1, viewers
/// 2–4, 10 ms per message).
@Suite struct QuirkTests {
  func staged(
    _ quirks: [SDKQuirk], audience: ScriptedClient, host: ScriptedClient, admin: ScriptedClient = ScriptedClient()
  )
    throws -> Staged
  {
    let list = quirks.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
    let text = TestProfile(stagedProfile).with("quirks", json5: "[\(list)]").text
    return try Staged(text, audience: audience, host: host, admin: admin)
  }

  /// The host's timer `tag` runs `action`.
  func hostTimer(_ host: ScriptedClient, atMs: Int64, tag: UInt32, _ s: inout Staged) {
    let slot = s.world.backend.inFlight.addTimer(tag: tag, arg: 0)
    s.sim.scheduler.schedule(
      at: .zero + .milliseconds(atMs), Event(kind: LiveEvent.clientTimer.rawValue, a: 0, b: slot))
  }

  @Test(arguments: [false, true])
  func aStaleInvitationStaysInTheSDK(on: Bool) throws {
    let host = ScriptedClient()
    host.onTimer = { tag, c in
      if tag == 1 {
        c.coGuest.inviteToSeat(userID: 3, timeout: .seconds(30))
      } else {
        c.coGuest.cancelInvitation(inviteeID: 3)
      }
    }
    let audience = ScriptedClient()
    var s = try staged(on ? [.staleInvitation] : [], audience: audience, host: host)
    hostTimer(host, atMs: 1000, tag: 1, &s)
    hostTimer(host, atMs: 2000, tag: 2, &s)
    s.run(untilMs: 5000)
    #expect(audience.log.contains("3 onHostInvitationCancelled(host: 0)"))
    #expect(s.world.runtime.clients[3].invitation == (on ? 1 : 0))
    s.world.judgeLiveness(now: s.sim.now)
    #expect(s.world.checker.log.count("client.view-matches-server") == (on ? 1 : 0))
  }

  @Test(arguments: [false, true])
  func acceptingWithTheWrongInviterIDWorksOnlyWithTheQuirk(on: Bool) throws {
    let host = ScriptedClient()
    host.onTimer = { _, c in c.coGuest.inviteToSeat(userID: 3, timeout: .seconds(30)) }
    let audience = ScriptedClient()
    audience.onGuest = { e, c in
      // Seed mistake 6: the admin's ID instead of the inviter's.
      if case .onHostInvitationReceived = e {
        c.coGuest.acceptInvitation(inviterID: 1, completion: audience.logged("accept"))
      }
    }
    var s = try staged(on ? [.acceptIgnoresInviter] : [], audience: audience, host: host)
    hostTimer(host, atMs: 1000, tag: 1, &s)
    s.run(untilMs: 5000)
    #expect(audience.log.contains(on ? "3 accept ok" : "3 accept -2311"))
    #expect((s.world.server.seats.seat(of: 3) != nil) == on)
  }

  @Test(arguments: [false, true])
  func cancellingAnInvitationThatDoesNotExistReportsSuccessOnlyWithTheQuirk(on: Bool) throws {
    let host = ScriptedClient()
    host.onTimer = { _, c in c.coGuest.cancelInvitation(inviteeID: 4, completion: host.logged("cancel")) }
    var s = try staged(on ? [.cancelInvitationFalseSuccess] : [], audience: ScriptedClient(), host: host)
    hostTimer(host, atMs: 1000, tag: 1, &s)
    s.run(untilMs: 3000)
    #expect(host.log == [on ? "0 cancel ok" : "0 cancel -2311"])
  }

  /// Viewer 2 applies and nobody answers; then the owner enters its room again.
  func reentry(_ quirks: [SDKQuirk]) throws -> Staged {
    let host = ScriptedClient()
    host.onTimer = { _, c in c.liveList.joinLive() }
    let audience = ScriptedClient()
    audience.onApply = { c in c.coGuest.applyForSeat(timeout: .zero) }
    var s = try staged(quirks, audience: audience, host: host)
    s.apply(2, atMs: 1000)
    hostTimer(host, atMs: 2000, tag: 1, &s)
    s.run(untilMs: 4000)
    return s
  }

  @Test func anOwnerReenteringListsItsApplicantsOnce() throws {
    let s = try reentry([])
    #expect(s.world.runtime.applicants[0] == [2])
    #expect(s.world.runtime.invitees[0].isEmpty)
    #expect(s.violations == 0)
  }

  @Test func withTheQuirkReentryFilesApplicationsAsInvitations() throws {
    var s = try reentry([.reentryApplicationsAsInvitations])
    #expect(s.world.runtime.invitees[0] == [2])
    s.world.judgeLiveness(now: s.sim.now)
    #expect(
      s.world.checker.log.first(.viewMatchesServer)?.message.contains("invitees [2] but server []") == true)
  }

  @Test func withTheQuirkReentryDuplicatesApplicants() throws {
    let s = try reentry([.duplicateApplicants])
    #expect(s.world.runtime.applicants[0] == [2, 2])
    #expect(s.world.checker.log.count("coguest.no-duplicate-applicants") == 1)
  }

  @Test(arguments: [false, true])
  func aViewerRejoiningWhileSeatedLosesTheSeatOnlyWithTheQuirk(on: Bool) throws {
    let host = ScriptedClient.acceptingHost()
    let audience = ScriptedClient()
    audience.onApply = { c in c.coGuest.applyForSeat(timeout: .seconds(30)) }
    audience.onTimer = { _, c in c.liveList.joinLive() }
    audience.onSeat = { change, c in
      if change.seated && change.user == c.user { c.schedule(after: .seconds(1), tag: 1) }
    }
    var s = try staged(on ? [.autoDisconnectOnJoin] : [], audience: audience, host: host)
    s.apply(2, atMs: 1000)
    s.run(untilMs: 5000)
    #expect((s.world.server.seats.seat(of: 2) == nil) == on)
    #expect(audience.log.contains("2 seat 0 -2") == on)
  }

  @Test func quirksAreProfileKeysCheckedByName() throws {
    #expect(try TestProfile(minimalProfile).with("quirks", ["stale-invitation"]).profile().quirks == [.staleInvitation])
    #expect(try Profile.parse(Data(minimalProfile.utf8)).quirks.isEmpty)
    let e = TestProfile(minimalProfile).with("quirks", ["stale"]).error
    #expect(e?.path == "quirks[0]")
    #expect(e?.message.contains("\"stale-invitation\"") == true)
  }

  @Test(arguments: [false, true])
  func aSecondInvitationOverwritesTheHandleACancelUses(on: Bool) throws {
    let host = ScriptedClient()
    host.onTimer = { tag, c in
      switch tag {
      case 1: c.coGuest.inviteToSeat(userID: 2, timeout: .seconds(30))
      case 2: c.coGuest.inviteToSeat(userID: 3, timeout: .seconds(30))
      default: c.coGuest.cancelInvitation(inviteeID: 2)
      }
    }
    let audience = ScriptedClient()
    var s = try staged(on ? [.secondRequestOverwrites] : [], audience: audience, host: host)
    hostTimer(host, atMs: 1000, tag: 1, &s)
    hostTimer(host, atMs: 1100, tag: 2, &s)
    hostTimer(host, atMs: 2000, tag: 3, &s)
    s.run(untilMs: 5000)
    // With the quirk the cancel meant for 2 cancels 3's invitation; 2's stays pending.
    let cancelled = audience.log.filter { $0.hasSuffix("onHostInvitationCancelled(host: 0)") }
    #expect(cancelled == [on ? "3 onHostInvitationCancelled(host: 0)" : "2 onHostInvitationCancelled(host: 0)"])
    #expect((s.world.server.seats.pendingInvitation(of: 2) != nil) == on)
    #expect((s.world.server.seats.pendingInvitation(of: 3) != nil) == !on)
  }

  @Test(arguments: [false, true])
  func aRefusedSecondApplicationLeavesTheCancelWithoutAHandle(on: Bool) throws {
    let audience = ScriptedClient()
    var results: [String] = []
    audience.onApply = { c in c.coGuest.applyForSeat(timeout: .seconds(30), completion: audience.logged("apply")) }
    audience.onTimer = { _, c in c.coGuest.cancelApplication { c, r in results.append("\(c.now) \(r)") } }
    var s = try staged(on ? [.secondRequestOverwrites] : [], audience: audience, host: ScriptedClient())
    s.apply(2, atMs: 1000)
    s.apply(2, atMs: 1100)  // refused: 100202, one is pending
    s.timer(2, atMs: 2000)
    s.run(untilMs: 5000)
    #expect(audience.log.contains("2 apply 100202"))
    #expect(results == [on ? "t=2s failure(LiveStack.SeatError.invalidParameter)" : "t=2.02s success()"])
    #expect((s.world.server.seats.pendingApplication(of: 2) != nil) == on)
  }
}
