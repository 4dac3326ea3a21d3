import LiveStack
import SimKernel

/// The faults that an event opens a chance for and that act later: what fires, and when it acts.
/// Chaos decides (drawing from the fault stream); the world carries out the effect.
extension Chaos {
  /// A successful login of `user`: for each session fault that fires, when the server ends the
  /// session (10 s to 10 min later) and how.
  public mutating func sessionEnds(user: UInt32, _ now: SimInstant) -> [(after: SimDuration, event: LoginEvent)] {
    var ends: [(SimDuration, LoginEvent)] = []
    for kind in [FaultKind.loginKickedOffline, .loginExpired] where isOn(kind) && fires(kind, user: user, now) {
      let after = SimDuration(nanoseconds: 10_000_000_000 + Int64(draw(below: 590_000_000_000)))
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
    return .seconds(5 + Int64(draw(below: 115)))
  }

  /// A host or admin entered its room (`host.reenter`): when its app leaves and enters again (30 s
  /// to 10 min later), if the fault fires.
  public mutating func reenter(host: UInt32, _ now: SimInstant) -> SimDuration? {
    guard active, layout.role(of: host) != .audience, !layout.isPhone(host), fires(.hostReenter, user: host, now)
    else { return nil }
    return .seconds(30 + Int64(draw(below: 570)))
  }

  /// An answer to an application on its way to `user` (`seat.response_late`): how late it is (3 to
  /// 10 s), if the fault fires.
  public mutating func lateAnswer(to user: UInt32, _ now: SimInstant) -> SimDuration? {
    guard active, fires(.seatResponseLate, user: user, now) else { return nil }
    return .milliseconds(3000 + Int64(draw(below: 7000)))
  }

  /// A VoIP push to `user` (`push.delay`): how much later it arrives (20 s to 1 min), if the fault
  /// fires.
  public mutating func pushDelay(to user: UInt32, _ now: SimInstant) -> SimDuration? {
    guard active, fires(.pushDelay, user: user, now) else { return nil }
    return .seconds(20 + Int64(draw(below: 40)))
  }
}
