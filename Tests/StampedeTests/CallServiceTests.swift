import Testing

@testable import LiveStack
@testable import SimKernel

@Suite struct CallServiceTests {
  let t0 = SimInstant.zero
  func service() -> CallService { CallService(userCount: 20) }
  func place(_ s: inout CallService, _ caller: UInt32, _ callees: [UInt32], reachable: Set<UInt32>? = nil) -> Result<
    UInt32, CallError
  > {
    s.placeCall(caller: caller, callees: callees, mediaType: .audio, loggedIn: true, now: t0) {
      reachable?.contains($0) ?? true
    }
  }

  @Test func inviteRingsMoreCalleesIntoARunningGroupCallEachForItsOwnTimeout() throws {
    var s = service()
    let reachable: (UInt32) -> Bool = { $0 != 9 }
    // Not in a call, and a one-to-one call: refused in state.
    do {
      let r = s.invite(by: 1, callees: [5], now: t0, reachable: reachable)
      #expect(r == .refusedInState)
    }
    let solo = try place(&s, 10, [11]).get()
    _ = s.accept(user: 11, now: t0)
    do {
      let r = s.invite(by: 10, callees: [5], now: t0, reachable: reachable)
      #expect(r == .refusedInState)
    }
    _ = s.hangup(user: 10, now: t0)
    let id = try place(&s, 1, [2, 3]).get()
    #expect(id == solo + 1)
    // Ringing, not yet connected: refused in state.
    do {
      let r = s.invite(by: 1, callees: [5], now: t0, reachable: reachable)
      #expect(r == .refusedInState)
    }
    _ = s.accept(user: 2, now: t0 + .seconds(2))
    s.drain()
    // Someone in the call, a repeated callee, nobody, or more than nine in all: a bad list.
    do {
      let r = s.invite(by: 2, callees: [3], now: t0 + .seconds(5), reachable: reachable)
      #expect(r == .invalidParticipant)
    }
    do {
      let r = s.invite(by: 2, callees: [5, 5], now: t0 + .seconds(5), reachable: reachable)
      #expect(r == .invalidParticipant)
    }
    do {
      let r = s.invite(by: 2, callees: [], now: t0 + .seconds(5), reachable: reachable)
      #expect(r == .invalidParticipant)
    }
    do {
      let r = s.invite(by: 2, callees: Array(4...10), now: t0 + .seconds(5), reachable: reachable)
      #expect(r == .invalidParticipant)
    }
    // A callee who is connected invites 5 at 10 s, the caller invites 6 at 20 s.
    do {
      let r = s.invite(by: 2, callees: [5], now: t0 + .seconds(10), reachable: reachable)
      #expect(r == nil)
    }
    do {
      let r = s.invite(by: 1, callees: [6], now: t0 + .seconds(20), reachable: reachable)
      #expect(r == nil)
    }
    #expect(s.events == [.received(user: 5, call: id), .received(user: 6, call: id)])
    #expect(s.state(of: 5) == .waiting && s.calls[Int(id)].ringingSince(6) == t0 + .seconds(20))
    s.drain()
    // The call's own timeout (30 s) stops 3, whose ring began at 0; 5 rings until 40 s, 6 until 50 s.
    do {
      let r = s.timeOut(call: id, now: t0 + .seconds(30), after: .seconds(30))
      #expect(r)
    }
    #expect(s.events == [.ended(user: 3, call: id, reason: .noResponse, other: 3)])
    s.drain()
    do {
      let r = s.timeOut(call: id, now: t0 + .seconds(40), after: .seconds(30))
      #expect(r)
    }
    #expect(s.events == [.ended(user: 5, call: id, reason: .noResponse, other: 5)])
    _ = s.accept(user: 6, now: t0 + .seconds(45))
    s.drain()
    do {
      let r = s.timeOut(call: id, now: t0 + .seconds(50), after: .seconds(30))
      #expect(!r)
    }
    #expect(Set(s.participants(of: id)) == [1, 2, 6] && !s.calls[Int(id)].isOver)
  }

  @Test func aOneToOneCallRingsStartsAndEndsForBoth() throws {
    var s = service()
    let id = try place(&s, 1, [2]).get()
    #expect(s.events == [.received(user: 2, call: id)])
    #expect(s.state(of: 1) == .waiting && s.state(of: 2) == .waiting)
    s.drain()
    do {
      let r = s.accept(user: 2, now: .zero + .seconds(3))
      #expect(r == nil)
    }
    #expect(s.events == [.started(user: 1, call: id), .started(user: 2, call: id)])
    #expect(s.calls[Int(id)].startedAt == .zero + .seconds(3))
    s.drain()
    do {
      let r = s.hangup(user: 1, now: .zero + .seconds(60))
      #expect(r == nil)
    }
    #expect(
      Set(s.events.map { "\($0)" }) == [
        "ended(user: 1, call: 0, reason: LiveStack.CallEndReason.hangup, other: 1)",
        "ended(user: 2, call: 0, reason: LiveStack.CallEndReason.hangup, other: 1)",
      ])
    #expect(s.state(of: 1) == .none && s.state(of: 2) == .none)
    #expect(s.calls[Int(id)].endReason == .hangup && s.activeCount == 0)
  }

  @Test func errorsCarryTheSDKCodes() throws {
    var s = service()
    do {
      let r = failureCode(
        s.placeCall(caller: 1, callees: [2], mediaType: .video, loggedIn: false, now: t0) { _ in true })
      #expect(r == .notLoggedIn)
    }
    do {
      let r = failureCode(place(&s, 1, []))
      #expect(r == .invalidParticipant)
    }
    do {
      let r = failureCode(place(&s, 1, [1]))
      #expect(r == .invalidParticipant)
    }
    do {
      let r = failureCode(place(&s, 1, [2, 2]))
      #expect(r == .invalidParticipant)
    }
    do {
      let r = failureCode(place(&s, 1, [99]))
      #expect(r == .invalidParticipant)
    }
    do {
      let r = failureCode(place(&s, 0, Array(1...9)))
      #expect(r == .invalidParticipant)
    }
    _ = try place(&s, 0, Array(1...8)).get()
    do {
      let r = failureCode(place(&s, 0, [9]))
      #expect(r == .refusedInState)
    }
    do {
      let r = s.accept(user: 9, now: t0)
      #expect(r == .refusedInState)
    }
    do {
      let r = s.accept(user: 0, now: t0)
      #expect(r == .refusedInState)
    }
    do {
      let r = s.accept(user: 1, now: t0)
      #expect(r == nil)
    }
    do {
      let r = s.accept(user: 1, now: t0)
      #expect(r == .repeated)
    }
    do {
      let r = s.reject(user: 1, now: t0)
      #expect(r == .refusedInState)
    }
    do {
      let r = s.hangup(user: 12, now: t0)
      #expect(r == .refusedInState)
    }
    #expect(CallError.allCases.map(\.rawValue) == [-1201, -1202, -1203, -1204])
  }

  @Test func aBusyCalleeEndsTheCallWithLineBusyAndAnUnreachableOneWithOffline() throws {
    var s = service()
    _ = try place(&s, 1, [2]).get()
    s.drain()
    let busy = try place(&s, 3, [2]).get()
    #expect(s.events == [.ended(user: 3, call: busy, reason: .lineBusy, other: 2)])
    #expect(s.state(of: 2) == .waiting && s.call(of: 2) == 0)
    s.drain()
    let off = try place(&s, 4, [5], reachable: []).get()
    #expect(s.events == [.ended(user: 4, call: off, reason: .offline, other: 5)])
    #expect(s.state(of: 4) == .none)
  }

  @Test func anOfflineCalleeRingsOutUntilTheTimeoutWhenSoConfigured() throws {
    var s = service()
    s.offlineRingsOut = true
    // One-to-one: the caller rings on, and hears noResponse at the timeout.
    let off = try place(&s, 4, [5], reachable: []).get()
    #expect(s.events.isEmpty && s.state(of: 4) == .waiting && s.state(of: 5) == .none)
    #expect(s.calls[Int(off)].invitedOutside == [5])
    let timedOut = s.timeOut(call: off, now: t0 + .seconds(30))
    #expect(timedOut)
    #expect(s.events == [.ended(user: 4, call: off, reason: .noResponse, other: 5)])
    s.drain()
    // A group: the online callee declines, the offline one keeps the call ringing to the timeout.
    let group = try place(&s, 1, [2, 3], reachable: [2]).get()
    s.drain()
    let rejected = s.reject(user: 2, now: t0)
    #expect(rejected == nil)
    #expect(!s.calls[Int(group)].isOver && s.state(of: 1) == .waiting)
    let groupTimedOut = s.timeOut(call: group, now: t0 + .seconds(30))
    #expect(groupTimedOut)
    #expect(s.calls[Int(group)].endReason == .noResponse && s.state(of: 1) == .none)
    // Cancelled before the timeout: the call ends at once, and the timeout finds nothing to do.
    let cancelled = try place(&s, 6, [7], reachable: []).get()
    let hungUp = s.hangup(user: 6, now: t0)
    #expect(hungUp == nil && s.calls[Int(cancelled)].endReason == .canceled)
    let late = s.timeOut(call: cancelled, now: t0 + .seconds(30))
    #expect(!late)
  }

  @Test func theCallerCancelsOrTheCalleeRejectsOrNobodyAnswers() throws {
    var s = service()
    let a = try place(&s, 1, [2]).get()
    s.drain()
    do {
      let r = s.hangup(user: 1, now: t0)
      #expect(r == nil)
    }
    #expect(s.calls[Int(a)].endReason == .canceled)
    #expect(s.events.contains(.ended(user: 2, call: a, reason: .canceled, other: 1)))
    let b = try place(&s, 1, [2]).get()
    do {
      let r = s.reject(user: 2, now: t0)
      #expect(r == nil)
    }
    #expect(s.calls[Int(b)].endReason == .reject)
    let c = try place(&s, 1, [2]).get()
    s.drain()
    do {
      let r = s.timeOut(call: c, now: .zero + .seconds(30))
      #expect(r)
    }
    #expect(s.calls[Int(c)].endReason == .noResponse)
    #expect(s.events.contains(.ended(user: 1, call: c, reason: .noResponse, other: 2)))
    do {
      let r = s.timeOut(call: c, now: .zero + .seconds(31))
      #expect(!r)
    }
    // A ringing callee hanging up declines.
    let d = try place(&s, 1, [2]).get()
    do {
      let r = s.hangup(user: 2, now: t0)
      #expect(r == nil)
    }
    #expect(s.calls[Int(d)].endReason == .reject)
  }

  @Test func aGroupCallGoesOnUntilOneIsLeft() throws {
    var s = service()
    let id = try place(&s, 1, [2, 3, 4]).get()
    do {
      let r = s.reject(user: 2, now: t0)
      #expect(r == nil)
    }
    #expect(s.calls[Int(id)].endedAt == nil)
    do {
      let r = s.accept(user: 3, now: t0)
      #expect(r == nil)
    }
    s.drain()
    do {
      let r = s.timeOut(call: id, now: .zero + .seconds(30))
      #expect(r)
    }
    #expect(s.events == [.ended(user: 4, call: id, reason: .noResponse, other: 4)])
    do {
      let r = s.join(user: 5, call: id, now: t0)
      #expect(r == nil)
    }
    #expect(s.participants(of: id) == [1, 3, 5])
    do {
      let r = s.hangup(user: 3, now: t0)
      #expect(r == nil)
    }
    #expect(s.calls[Int(id)].endedAt == nil)
    do {
      let r = s.hangup(user: 5, now: t0)
      #expect(r == nil)
    }
    #expect(s.calls[Int(id)].endReason == .hangup)
    #expect(s.participants(of: id).isEmpty && s.activeCount == 0)
    do {
      let r = s.join(user: 6, call: id, now: t0)
      #expect(r == .refusedInState)
    }
  }

  @Test func theServerCanEndACallForEveryone() throws {
    var s = service()
    let id = try place(&s, 1, [2, 3]).get()
    _ = s.accept(user: 2, now: t0)
    s.drain()
    s.endByServer(call: id, now: t0)
    #expect(Set(s.events.map { "\($0)" }).count == 3)
    #expect(s.calls[Int(id)].endReason == .endByServer)
    #expect([1, 2, 3].allSatisfy { s.state(of: $0) == .none })
  }

  @Test func everyUserIsInAtMostOneCallWhateverHappens() {
    var rng = Xoshiro256(seed: 11)
    var s = CallService(userCount: 12)
    for step in 0..<20_000 {
      let u = UInt32(rng.next(below: 12))
      let now = SimInstant.zero + .milliseconds(Int64(step))
      switch rng.next(below: 6) {
      case 0:
        let v = UInt32(rng.next(below: 12))
        let w = UInt32(rng.next(below: 12))
        _ = s.placeCall(caller: u, callees: v == w ? [v] : [v, w], mediaType: .audio, loggedIn: true, now: now) { _ in
          rng.next(below: 10) > 0
        }
      case 1: _ = s.accept(user: u, now: now)
      case 2: _ = s.reject(user: u, now: now)
      case 3: _ = s.hangup(user: u, now: now)
      case 4: if !s.calls.isEmpty { _ = s.timeOut(call: UInt32(rng.next(below: UInt64(s.calls.count))), now: now) }
      default:
        if !s.calls.isEmpty { _ = s.join(user: u, call: UInt32(rng.next(below: UInt64(s.calls.count))), now: now) }
      }
      s.drain()
    }
    // Bookkeeping agrees with the call list: members of live calls only, and the active count.
    for u in 0..<12 as Range<UInt32> {
      if let c = s.call(of: u) {
        #expect(!s.calls[Int(c)].isOver)
        #expect(s.participants(of: c).contains(u))
      } else {
        #expect(s.state(of: u) == .none)
      }
    }
    #expect(s.activeCount == s.calls.filter { !$0.isOver }.count)
    #expect(s.calls.filter(\.isOver).allSatisfy { $0.endReason != nil })
  }
}

func failureCode(_ r: Result<UInt32, CallError>) -> CallError? {
  if case .failure(let e) = r { return e }
  return nil
}
