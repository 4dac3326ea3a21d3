import Foundation
import Metrics
import Testing

@testable import Clients
@testable import LiveStack
@testable import Oracles
@testable import Profiles
@testable import Scenario
@testable import SimKernel

/// Calls that reach viewers in live rooms: phones and seats in one world.
@Suite struct CrossStackTests {
  /// Free seats, and phones that may call viewers.
  let text = TestProfile(stagedPush).without("seats.applyTimeout").with("seats.mode", "free")
    .with("calls.liveCallees", "1%").text

  func world(greedy: Bool) throws -> (Staged, HookedPhone) {
    let profile = try Profile.parse(Data(text.utf8))
    let phone = HookedPhone(profile)
    var s = try Staged(text)
    let viewers = StandardAudience(settings: profile.audience, userCount: s.world.layout.totalUsers)
    viewers.callSettings = profile.calls!.phone
    s.world = LiveWorld(
      profile: profile, streams: RandomStreams(rootSeed: 1),
      audience: greedy ? CallGreedyViewer(viewers) : viewers, phone: phone)
    s.sim = Simulation()
    s.world.start(&s.sim.scheduler)
    return (s, phone)
  }

  func call(_ s: inout Staged, _ phone: HookedPhone, from: UInt32, to: UInt32, atMs: Int64, hangUpMs: Int64) {
    phone.onTimer = { tag, c in
      if tag == 100 { c.callStore.calls(participantIds: [to], mediaType: .audio) } else { c.callStore.hangup() }
    }
    for (ms, tag) in [(atMs, UInt32(100)), (hangUpMs, UInt32(101))] {
      let slot = s.world.backend.inFlight.addTimer(tag: tag, arg: 0)
      s.sim.scheduler.schedule(
        at: .zero + .milliseconds(ms), Event(kind: LiveEvent.clientTimer.rawValue, a: from, b: slot))
    }
  }

  @Test func aSeatedViewerDeclinesAndAnIdleOneTalksWithTheMicrophoneOn() throws {
    var (s, phone) = try world(greedy: false)
    s.apply(2, atMs: 1000)
    s.run(untilMs: 3000)
    #expect(s.world.server.seats.seat(of: 2) != nil && s.world.runtime.isOn(.microphone, user: 2))
    call(&s, phone, from: 5, to: 2, atMs: 4000, hangUpMs: 60_000)
    s.run(untilMs: 5000)
    #expect(s.counter("call.ended.reject") == 1)
    call(&s, phone, from: 5, to: 3, atMs: 6000, hangUpMs: 20_000)
    s.run(untilMs: 10_000)
    // Rings 6.020 s, answered after 2 s, connected; the viewer's microphone is on for the call.
    #expect(s.world.server.calls.state(of: 3) == .accept && s.world.runtime.isOn(.microphone, user: 3))
    s.run(untilMs: 30_000)
    #expect(s.counter("call.ended.hangup") == 1 && !s.world.runtime.isOn(.microphone, user: 3))
    s.world.judgeLiveness(now: s.sim.now)
    #expect(s.violations == 0)
  }

  @Test func aCallAnsweredOnASeatFindsTheMicrophoneTaken() throws {
    var (s, phone) = try world(greedy: true)
    s.apply(2, atMs: 1000)
    s.run(untilMs: 3000)
    call(&s, phone, from: 5, to: 2, atMs: 4000, hangUpMs: 60_000)
    s.run(untilMs: 10_000)
    #expect(s.world.server.calls.state(of: 2) == .accept)
    #expect(s.counter("errors.microphoneOccupied") == 1)
  }
}

/// The built-in viewer, except that it answers every call at once, even on a seat.
final class CallGreedyViewer: ClientBehavior {
  let inner: StandardAudience
  init(_ inner: StandardAudience) { self.inner = inner }
  func start(_ c: inout Client) { inner.start(&c) }
  func applyIntent(_ c: inout Client) { inner.applyIntent(&c) }
  func timer(tag: UInt32, arg: UInt32, _ c: inout Client) { inner.timer(tag: tag, arg: arg, &c) }
  func guestEvent(_ e: GuestEvent, _ c: inout Client) { inner.guestEvent(e, &c) }
  func seatListChanged(_ e: SeatChangeEvent, _ c: inout Client) { inner.seatListChanged(e, &c) }
  func liveEnded(_ c: inout Client) { inner.liveEnded(&c) }
  func loginEvent(_ e: LoginEvent, _ c: inout Client) { inner.loginEvent(e, &c) }
  func callEvent(_ e: CallEvent, _ c: inout Client) {
    switch e {
    case .received: c.callStore.accept()
    case .started: c.device.openLocalMicrophone()
    case .ended: inner.callEvent(e, &c)
    }
  }
}
