import SimKernel

/// The server's services as queues: seats, login, calls and the push backend, each with the
/// capacity its profile section gives (`server.seats`, `server.login`, `server.calls`,
/// `server.push`), and the VoIP pushes waiting for the push backend.
///
/// The world hands a request here when it reaches the server; the desk admits it to a worker
/// (with the service time it takes), queues it, or turns it away with the SDK's error, and hands
/// out the next request when a worker finishes. A service without a capacity never sees a
/// request: the world carries those out at once. Service times are drawn from the requesting
/// user's own `service` stream, which the caller passes in.
public struct ServiceDesk: Sendable {
  /// The services, by their index in the desk.
  public enum Service: Int, Sendable, CaseIterable {
    case seats = 0
    case login
    case calls
    case push
  }

  /// Each service's queue (a placeholder without capacity where ``isLimited(_:)`` is false).
  /// (Not optionals: reading one through `!` copied the whole queue, retaining each of its tables.)
  public private(set) var queues: [ServiceQueue]
  /// Which services have a capacity: bit `i` for `queues[i]` (zero: none has).
  public private(set) var limited: UInt8 = 0
  /// VoIP pushes waiting for or being sent by the push backend, by slot.
  public private(set) var pushes: [(user: UInt32, call: UInt32)] = []
  var freePushSlots: [UInt32] = []

  /// A desk with `settings` per service (in ``Service`` order; fewer leave the rest unlimited).
  public init(settings: [ServiceSettings], users: Int, rooms: Int) {
    precondition(settings.count <= Service.allCases.count, "\(settings.count) services, the desk has four")
    queues = [ServiceQueue](
      repeating: ServiceQueue(settings: .unlimited, users: 0, rooms: 0), count: Service.allCases.count)
    for (i, s) in settings.enumerated() where s.isLimited {
      queues[i] = ServiceQueue(settings: s, users: users, rooms: rooms)
      limited |= 1 << i
    }
  }

  /// Whether any service has a capacity.
  public var hasCapacity: Bool { limited != 0 }

  /// Whether service `i` has a capacity, and so a queue.
  @inline(__always)
  public func isLimited(_ i: Int) -> Bool { limited & 1 << i != 0 }

  /// What becomes of a request that reaches a service with a capacity.
  public enum Outcome: Equatable, Sendable {
    /// A worker takes it now, for this long.
    case serve(for: SimDuration)
    /// It waits for a worker (until the SDK gives up on it, at its request timeout).
    case queued
    /// Turned away: a full queue fails with the generic error, a rate limit with the frequency
    /// limit.
    case refused(SeatError)
  }

  /// A request in `slot`, of `user` in `room`, reaches service `i` (which has a capacity).
  public mutating func arrive(
    _ i: Int, slot: UInt32, user: UInt32, room: UInt32, now: SimInstant, service random: inout SplitMix64
  ) -> Outcome {
    assert(isLimited(i), "service \(i) has no capacity")
    switch queues[i].arrive(slot: slot, user: user, room: room, now: now) {
    case .serve: return .serve(for: serviceTime(i, &random))
    case .queued: return .queued
    case .refused(let why): return .refused(why == .queueFull ? .failed : .frequencyLimited)
    }
  }

  /// How long service `i` takes for one request, drawn from the requester's `service` stream.
  @inline(__always)
  public func serviceTime(_ i: Int, _ random: inout SplitMix64) -> SimDuration {
    queues[i].settings.serviceTime.sampleDuration(&random)
  }

  /// A worker of service `i` finished: the slot of the request it takes next, if one waits.
  public mutating func finished(_ i: Int, now: SimInstant) -> UInt32? { queues[i].finished(now: now) }

  /// The SDK gave up on the request in `slot` while it waited for service `i`: whether it was
  /// still waiting (and so leaves the queue now).
  public mutating func cancel(_ i: Int, slot: UInt32, now: SimInstant) -> Bool {
    queues[i].cancel(slot: slot, now: now)
  }

  /// The place in service `i`'s queue of the request queued last there (see
  /// ``cancel(_:place:slot:now:)``).
  public func lastQueuedPlace(_ i: Int) -> UInt32 { queues[i].lastQueuedPlace }

  /// ``cancel(_:slot:now:)`` for the request in `slot` queued at `place` in service `i`'s queue:
  /// a request that has left the queue is known as such from the queue's own counts.
  public mutating func cancel(_ i: Int, place: UInt32, slot: UInt32, now: SimInstant) -> Bool {
    queues[i].cancel(place: place, slot: slot, now: now)
  }

  /// Hints what a request of `user` reaching service `i` reads when the service has a capacity:
  /// the user's rate-limit window there and its home room.
  @inline(__always)
  public mutating func prefetchArrival(_ i: Int, of user: UInt32, layout: Layout) {
    guard isLimited(i) else { return }
    queues[i].prefetchWindow(of: user)
    layout.homeRoom.prefetch(Int(user))
  }

  // MARK: - The push backend

  /// A VoIP push to `user` for `call` reaches the push backend (which has a capacity): its slot,
  /// and whether a worker sends it now, it waits, or it is turned away (its slot then free again).
  public mutating func arrivePush(
    user: UInt32, call: UInt32, room: UInt32, now: SimInstant, service random: inout SplitMix64
  ) -> (slot: UInt32, outcome: Outcome) {
    let slot: UInt32
    if let free = freePushSlots.popLast() {
      slot = free
      pushes[Int(slot)] = (user, call)
    } else {
      slot = UInt32(pushes.count)
      pushes.append((user, call))
    }
    let outcome = arrive(Service.push.rawValue, slot: slot, user: user, room: room, now: now, service: &random)
    if case .refused = outcome { freePushSlots.append(slot) }
    return (slot, outcome)
  }

  /// The push backend sends the push in `slot`: its recipient and call; the slot is free again.
  public mutating func takePush(_ slot: UInt32) -> (user: UInt32, call: UInt32) {
    freePushSlots.append(slot)
    return pushes[Int(slot)]
  }
}
