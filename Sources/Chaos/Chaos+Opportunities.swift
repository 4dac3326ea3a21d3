import LiveStack
import SimKernel

/// The faults that an event opens a chance for and that act later: what fires, and when it acts.
/// Chaos decides (drawing from the stream of the kind and the user); the world carries out the effect.
extension Chaos {
  /// A successful login of `user`: for each session fault that fires, when the server ends the
  /// session (10 s to 10 min later) and how.
  public mutating func sessionEnds(user: UInt32, _ now: SimInstant) -> [(after: SimDuration, event: LoginEvent)] {
    var ends: [(SimDuration, LoginEvent)] = []
    for kind in [FaultKind.loginKickedOffline, .loginExpired] where isOn(kind) && fires(kind, user: user, now) {
      let after = SimDuration(nanoseconds: 10_000_000_000 + Int64(draw(below: 590_000_000_000, kind, user: user)))
      ends.append((after, kind == .loginKickedOffline ? .kickedOffline : .loginExpired))
    }
    return ends
  }

  /// A viewer took a seat (`audience.rejoin`): when its SDK enters the room again (5 s to 2 min
  /// later), if the fault fires. Phone users and staff are not affected.
  public mutating func rejoin(guest: UInt32, _ now: SimInstant) -> SimDuration? {
    guard isOn(.audienceRejoin), layout.role(of: guest) == .audience, !layout.isPhone(guest),
      fires(.audienceRejoin, user: guest, now)
    else { return nil }
    return .seconds(5 + Int64(draw(below: 115, .audienceRejoin, user: guest)))
  }

  /// A host or admin entered its room (`host.reenter`): when its app leaves and enters again (30 s
  /// to 10 min later), if the fault fires.
  public mutating func reenter(host: UInt32, _ now: SimInstant) -> SimDuration? {
    guard active, layout.role(of: host) != .audience, !layout.isPhone(host), fires(.hostReenter, user: host, now)
    else { return nil }
    return .seconds(30 + Int64(draw(below: 570, .hostReenter, user: host)))
  }

  /// An answer to an application on its way to `user` (`seat.response_late`): how late it is (3 to
  /// 10 s), if the fault fires.
  public mutating func lateAnswer(to user: UInt32, _ now: SimInstant) -> SimDuration? {
    guard active, fires(.seatResponseLate, user: user, now) else { return nil }
    return .milliseconds(3000 + Int64(draw(below: 7000, .seatResponseLate, user: user)))
  }

  /// A call started ringing phone user `user` (`login.other_device`): when its other device
  /// answers (`accepts`) or declines it (1 to 5 s later), if the fault fires.
  public mutating func otherDevice(of user: UInt32, _ now: SimInstant) -> (after: SimDuration, accepts: Bool)? {
    guard isOn(.loginOtherDevice), layout.isPhone(user), fires(.loginOtherDevice, user: user, now) else { return nil }
    let after = SimDuration.milliseconds(1000 + Int64(draw(below: 4000, .loginOtherDevice, user: user)))
    return (after, draw(below: 2, .loginOtherDevice, user: user) == 0)
  }

  /// A call of `caller` connected (`call.end_by_server`): when the server ends it (10 s to 10 min
  /// later), if the fault fires.
  public mutating func serverEnds(callOf caller: UInt32, _ now: SimInstant) -> SimDuration? {
    guard isOn(.callEndByServer), fires(.callEndByServer, user: caller, now) else { return nil }
    return .seconds(10 + Int64(draw(below: 590, .callEndByServer, user: caller)))
  }

  /// A VoIP push to `user` (`push.malformed_payload`): what is wrong with its payload, if the fault
  /// fires.
  public mutating func malformedPush(to user: UInt32, _ now: SimInstant) -> PushMalformation? {
    guard isOn(.pushMalformed), fires(.pushMalformed, user: user, now) else { return nil }
    return draw(below: 2, .pushMalformed, user: user) == 0 ? .noCallerName : .badExt
  }

  /// A VoIP push to `user` (`push.delay`): how much later it arrives (20 s to 1 min), if the fault
  /// fires.
  public mutating func pushDelay(to user: UInt32, _ now: SimInstant) -> SimDuration? {
    guard active, fires(.pushDelay, user: user, now) else { return nil }
    return .seconds(20 + Int64(draw(below: 40, .pushDelay, user: user)))
  }
}

/// What a fault does to a message, a request or a device on its way: Chaos decides; the network,
/// the server or the device carries it out.
extension Chaos {
  /// How a `network.loss` fault loses an SDK request.
  public enum RequestLoss: String, Sendable, CaseIterable {
    /// The server never hears of it.
    case request
    /// The server carries it out, but the answer never arrives.
    case answer
    /// The server carries it out; its answer comes late, just inside the SDK's timeout
    /// (steered only: ``lateAnswerNs(user:remainingNs:)``).
    case late
  }

  /// When a late answer (steered) to `user` arrives, in nanoseconds from now, with `remainingNs`
  /// left before the SDK's timeout: uniformly between half and 99% of the way there, drawn from
  /// the user's `explore` stream.
  public mutating func lateAnswerNs(user: UInt32, remainingNs: Int64) -> Int64 {
    guard remainingNs > 1 else { return 0 }
    let span = UInt64(max(1, remainingNs / 100 * 49))
    return remainingNs / 2 + Int64(steerRandom[Int(user)].next(below: span))
  }

  /// A message to (`downlink`) or from `user` now: the extra delay of a `network.delay` window, and
  /// until when a `network.partition` cutting its way holds it (nanoseconds; 0: neither).
  public mutating func messageFaults(user: UInt32, downlink: Bool, _ now: SimInstant) -> (
    extraNs: Int64, holdUntilNs: Int64
  ) {
    var extra: Int64 = 0
    var hold: Int64 = 0
    if isOn(.networkDelay), let w = window(.networkDelay, user: user, now) { extra = w.extra.nanoseconds }
    if isOn(.networkPartition), let w = window(.networkPartition, user: user, now),
      w.direction == .both || (w.direction == .down) == downlink
    {
      // The transport is reliable: the message waits for the partition to heal.
      hold = w.endNs
    }
    return (extra, hold)
  }

  /// An SDK request of kind `call` (its raw value) of `user` leaves for the server
  /// (`network.loss`, then the outcomes steered toward): what is lost, if a fault fires.
  public mutating func requestLoss(user: UInt32, call: UInt8, _ now: SimInstant) -> RequestLoss? {
    if active && fires(.networkLoss, user: user, now) {
      return draw(below: 2, .networkLoss, user: user) == 0 ? .request : .answer
    }
    guard steers, now.nanoseconds < chaosEnd else { return nil }
    var i = Int(steerStart[Int(call)])
    let end = Int(steerStart[Int(call) + 1])
    while i < end {
      if steerRandom[Int(user)].chance(steering[i].rate) {
        steeredLosses &+= 1
        return steering[i].loss
      }
      i += 1
    }
    return nil
  }

  /// The extra time a `server.slowdown` window adds to a request of `user` to `service`, if any.
  public mutating func slowdown(user: UInt32, service: FaultService, _ now: SimInstant) -> SimDuration? {
    guard isOn(.serverSlowdown) else { return nil }
    return window(.serverSlowdown, user: user, now, service: service)?.extra
  }

  /// The `server.outage` window `service` is down in for `user`, if any.
  public mutating func outage(user: UInt32, service: FaultService, _ now: SimInstant) -> FaultWindow? {
    guard isOn(.serverOutage) else { return nil }
    return window(.serverOutage, user: user, now, service: service)
  }

  /// Opening `user`'s microphone: the error `device.mic_denied` or `device.mic_occupied` makes it
  /// fail with, if one fires.
  public mutating func microphoneFault(user: UInt32, _ now: SimInstant) -> SeatError? {
    guard active else { return nil }
    if fires(.micDenied, user: user, now) { return .microphoneNotAuthorized }
    if fires(.micOccupied, user: user, now) { return .microphoneOccupied }
    return nil
  }

  /// Opening `user`'s camera: the error `device.camera_denied` makes it fail with, if it fires.
  public mutating func cameraFault(user: UInt32, _ now: SimInstant) -> SeatError? {
    guard active, fires(.cameraDenied, user: user, now) else { return nil }
    return .cameraNotAuthorized
  }
}

/// Faults on what reaches a client.
extension Chaos {
  /// An answer to an application on its way to `user` (`seat.response_lost`): whether it is lost.
  public mutating func answerLost(to user: UInt32, _ now: SimInstant) -> Bool {
    active && fires(.seatResponseLost, user: user, now)
  }

  /// A signalling message to `user` (`network.duplicate`): whether it is retransmitted.
  public mutating func duplicates(to user: UInt32, _ now: SimInstant) -> Bool {
    isOn(.networkDuplicate) && fires(.networkDuplicate, user: user, now)
  }

  /// A call's end on its way to `user` (`call.end_reason_unknown`): whether its reason is lost.
  public mutating func endReasonHidden(to user: UInt32, _ now: SimInstant) -> Bool {
    isOn(.callEndReasonUnknown) && fires(.callEndReasonUnknown, user: user, now)
  }

  /// A call rings at `user`'s phone app while it is on screen (`app.backgrounded`): whether the
  /// user leaves the app just then.
  public mutating func backgrounds(_ user: UInt32, _ now: SimInstant) -> Bool {
    active && fires(.appBackgrounded, user: user, now)
  }
}
