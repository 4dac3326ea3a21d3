/// The handle a world uses to read the clock and schedule events while it handles one.
@frozen
public struct Scheduler: Sendable {
  @usableFromInline var queue: EventQueue
  @usableFromInline var _now: SimInstant
  /// The current simulated time: the time of the event being handled.
  @inlinable public var now: SimInstant { _now }

  @inlinable
  init(capacity: Int) {
    queue = EventQueue(reservingCapacity: capacity)
    _now = .zero
  }

  /// Schedules `event` at `instant`, which must not be in the past.
  @inlinable
  public mutating func schedule(at instant: SimInstant, _ event: Event) {
    precondition(instant >= _now, "cannot schedule into the past")
    queue.push(time: instant.nanoseconds, event)
  }

  /// Schedules `event` after `delay` (clamped at zero: a negative delay runs now, after what is due).
  @inlinable
  public mutating func schedule(after delay: SimDuration, _ event: Event) {
    let d = delay.nanoseconds > 0 ? delay.nanoseconds : 0
    queue.push(time: _now.nanoseconds &+ d, event)
  }

  /// Events waiting to run.
  @inlinable public var pendingCount: Int { queue.count }
  /// Events scheduled since the start of the run.
  @inlinable public var scheduledCount: UInt64 { queue.scheduledCount }
}

/// A simulated world: everything that reacts to events.
///
/// The world is a value handed to the run loop `inout`, so that its state lives in plain
/// arrays without per-access exclusivity checks.
public protocol World {
  /// Handles `event` at `scheduler.now`, scheduling whatever follows from it.
  mutating func handle(_ event: Event, scheduler: inout Scheduler)

  /// Whether the run loop hands the world a guess at the next event (``prefetch(_:)``) before each
  /// event it handles (read once per event). `false` by default, which compiles the guess out of
  /// the world's loop.
  var prefetchesNextEvent: Bool { get }

  /// Starts loading the records `next` will use, while the current event runs. A hint: it must
  /// change nothing (`next` is a guess, and may run later than another event or not at all), so
  /// a world computes the same trace with and without it. Declared `mutating` only so that the
  /// loop calls it on the world in place: a large world would otherwise be copied for each call.
  mutating func prefetch(_ next: Event)
}

extension World {
  /// No prefetching by default.
  @inlinable public var prefetchesNextEvent: Bool { false }
  /// No prefetching by default.
  @inlinable public mutating func prefetch(_ next: Event) {}
}

/// Why `Simulation.run` returned.
public enum StopReason: String, Sendable, Codable {
  /// Simulated time reached the end instant; events due later stay queued.
  case endTime
  /// The event budget given to this call was used up.
  case eventBudget
  /// No event is pending: the world is quiescent.
  case quiescent
}

/// The discrete-event kernel: pops events in `(time, seq)` order and hands them to the world.
///
/// `run` can be called repeatedly (in slices) and gives the same trace as one long call.
public struct Simulation: Sendable {
  /// The queue and the clock.
  public var scheduler: Scheduler
  @usableFromInline var _traceHash = TraceHash()
  @usableFromInline var _executedCount: Int64 = 0
  /// The rolling hash of every executed event.
  @inlinable public var traceHash: TraceHash { _traceHash }
  /// How many events have been executed.
  @inlinable public var executedCount: Int64 { _executedCount }

  /// Creates an empty simulation at time zero.
  public init(expectedPending: Int = 1024) {
    scheduler = Scheduler(capacity: expectedPending)
  }

  /// The current simulated time.
  @inlinable public var now: SimInstant { scheduler.now }

  /// Executes events until the next one is due after `end`, `maxEvents` have run in this call, or no
  /// event is pending.
  /// Never inlined into its caller, so that its specialization for each world stays one function
  /// (which `scripts/count-instructions` measures by name).
  @inlinable @inline(never)
  public mutating func run<W: World>(_ world: inout W, until end: SimInstant, maxEvents: Int64 = .max) -> StopReason {
    precondition(maxEvents >= 0, "maxEvents must not be negative")
    var local = scheduler
    scheduler = Scheduler(capacity: 0)
    var hash = _traceHash
    var executed: Int64 = 0
    var reason = StopReason.quiescent
    while true {
      if executed == maxEvents {
        reason = .eventBudget
        break
      }
      guard let head = local.queue.peekFirst() else {
        reason = .quiescent
        break
      }
      if head.time > end.nanoseconds {
        reason = .endTime
        break
      }
      let entry = local.queue.popFirst().unsafelyUnwrapped
      local._now = SimInstant(nanoseconds: entry.time)
      let event = entry.event
      hash.add(time: entry.time, kind: event.kind, a: event.a, b: event.b)
      if world.prefetchesNextEvent, let next = local.queue.upcomingGuess() { world.prefetch(next.event) }
      world.handle(event, scheduler: &local)
      executed += 1
    }
    if reason == .endTime && local._now < end { local._now = end }
    scheduler = local
    _traceHash = hash
    _executedCount += executed
    return reason
  }
}
