import Foundation
import Testing

@testable import Clients
@testable import LiveStack
@testable import Oracles
@testable import Scenario
@testable import SimKernel

/// `client.events-heard` holds an app to the events its role must hear (a viewer's co-guest events,
/// staff's host events, a phone's calls), not to every stream that reaches it.
@Suite struct EventsHeardTests {
  /// Viewer 2 (subscribed to `viewer`'s streams, maybe also marked `extra`) applies at 1 s; the
  /// owner accepts at once. `then` runs in the viewer's code 35 ms after it applied.
  func applyAndAccept(
    viewer subscribes: Subscriptions, extra: Subscriptions = [], then: ((inout Client) -> Void)? = nil
  ) throws -> Staged {
    let viewer = ScriptedClient()
    viewer.subscribes = subscribes.union(extra)
    viewer.onTimer = { tag, c in
      guard c.user == 2 else { return }
      if tag == 1 { c.coGuest.applyForSeat(seatIndex: -1, timeout: .seconds(30)) } else { then?(&c) }
    }
    var s = try Staged(audience: viewer, host: ScriptedClient.acceptingHost(), admin: ScriptedClient())
    s.timer(2, atMs: 1000)
    // The acceptance leaves the server at 1.03 s and reaches the viewer at 1.04 s: what the viewer
    // does at 1.035 s is on its way, unanswered, when the acceptance arrives.
    s.timer(2, atMs: 1035, tag: 2)
    s.run(untilMs: 5000)
    return s
  }

  func unheard(_ s: Staged) -> Int { s.world.checker.log.count("client.events-heard") }

  @Test func aViewerThatHearsItsGuestEventsAndReadsTheSeatListWhenItWantsIsCorrect() throws {
    let s = try applyAndAccept(viewer: [.guestEvents])
    let seated = (0..<2).compactMap { s.world.server.seats.occupant(room: 0, seat: $0) }
    #expect(seated == [2], "the viewer was seated: seat-list changes reached it unheard")
    #expect(unheard(s) == 0)
  }

  @Test func aViewerThatHearsNoGuestEventsIsCaughtByItsAnswer() throws {
    let s = try applyAndAccept(viewer: [.seatList, .loginEvents, .liveEvents])
    let v = try #require(s.world.checker.log.first(.eventsHeard))
    #expect(v.message == "an event for guestEventPublisher reached user 2, which has no handler subscribed to it")
  }

  @Test func whatReachesAnAppWhoseObjectsAreNotMadeYetIsNotHeldAgainstIt() throws {
    let s = try applyAndAccept(viewer: [], extra: .appStarting)
    #expect(unheard(s) == 0)
  }

  @Test func anAppThatUnsubscribesAsItLeavesItsRoomIsCorrect() throws {
    let leaving = try applyAndAccept(viewer: [.guestEvents]) { c in
      c.coGuest.unsubscribe()
      c.liveList.leaveLive()
    }
    #expect(unheard(leaving) == 0)
    // Unsubscribed while staying in the room: the answer is unheard.
    let staying = try applyAndAccept(viewer: [.guestEvents]) { c in c.coGuest.unsubscribe() }
    #expect(unheard(staying) == 1)
  }

  @Test func onlyTheStreamsARoleMustHearAreRequired() {
    let seats = Notice.seats(2, batch: 0)
    #expect(Checker.requiredStream(seats, audience: true, phone: false) == nil)
    #expect(Checker.requiredStream(.liveEnded(2), audience: true, phone: false) == nil)
    #expect(Checker.requiredStream(.login(2, .kickedOffline), audience: true, phone: false) == nil)
    let guest = Notice.guest(2, .onGuestApplicationResponded(isAccept: true, host: 0), request: 0)
    #expect(Checker.requiredStream(guest, audience: true, phone: false) == .guestEvents)
    #expect(Checker.requiredStream(guest, audience: false, phone: false) == nil)
    let host = Notice.host(0, .onGuestApplicationReceived(guest: 2), request: 0)
    #expect(Checker.requiredStream(host, audience: false, phone: false) == .hostEvents)
    let call = Notice.call(2, .received(user: 2, call: 0))
    #expect(Checker.requiredStream(call, audience: true, phone: false) == nil)
    #expect(Checker.requiredStream(call, audience: false, phone: true) == .callEvents)
  }
}
