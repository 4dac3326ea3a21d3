import SimKernel

/// The capacity of one server service (`server.<service>` in a profile): workers, the time each
/// request takes, how many may wait, and rate limits per second.
public struct ServiceSettings: Sendable, Equatable {
  /// Requests served at once; `nil`: as many as arrive.
  public var workers: Int?
  /// How long serving one request takes.
  public var serviceTime: Distribution
  /// Requests that may wait for a worker; `nil`: no limit. A full queue refuses with -1.
  public var queueLimit: Int?
  /// Requests one user may make per second; beyond it the service refuses with -2 (frequency
  /// limit).
  public var perUser: Int?
  /// Requests per second from the users of one room.
  public var perRoom: Int?
  /// Requests per second from the whole application.
  public var perApp: Int?
  /// Room messaging only: the time a broadcast takes per recipient, on top of ``serviceTime``.
  public var perRecipient: SimDuration = .zero

  /// A service with the given capacity.
  public init(
    workers: Int?, serviceTime: Distribution, queueLimit: Int?, perUser: Int?, perRoom: Int?, perApp: Int?
  ) {
    self.workers = workers
    self.serviceTime = serviceTime
    self.queueLimit = queueLimit
    self.perUser = perUser
    self.perRoom = perRoom
    self.perApp = perApp
  }

  /// The default: every request served at once, no limits (the server as a pure function; the
  /// latency is the network's).
  public static let unlimited = ServiceSettings(
    workers: nil, serviceTime: .constant(0), queueLimit: nil, perUser: nil, perRoom: nil, perApp: nil)

  /// Whether the service ever delays or refuses a request.
  public var isLimited: Bool { self != .unlimited }
}

/// Why a service turned a request away.
public enum ServiceRefusal: String, Sendable, CaseIterable {
  /// Every worker busy and the queue full (-1).
  case queueFull = "queue_full"
  /// The user's rate limit (-2).
  case rateUser = "rate_user"
  /// The room's rate limit (-2).
  case rateRoom = "rate_room"
  /// The application's rate limit (-2).
  case rateApp = "rate_app"
  /// Still waiting for a worker when the SDK's request timeout passed: the client got -1 and the
  /// request left the queue.
  case clientTimeout = "client_timeout"
}

/// One service's workers and queue at run time: admits, queues or refuses each request, and keeps
/// the figures of the `server.<service>` resource.
public struct ServiceQueue: Sendable {
  /// The settings.
  public let settings: ServiceSettings
  /// Busy workers over time.
  public private(set) var busy = LevelGauge()
  /// Requests waiting for a worker over time.
  public private(set) var queued = LevelGauge()
  /// The waiting requests (operation slots with their arrival time), oldest first.
  var waiting: [(slot: UInt32, arrivedNs: Int64)] = []
  var head = 0
  /// How many entries have been dropped from the front of `waiting`: the request at
  /// `waiting[p]` is the `removed + p`-th ever queued (its place).
  var removed = 0
  /// Refusals by reason (index of ``ServiceRefusal/allCases``).
  public private(set) var refused = [UInt64](repeating: 0, count: ServiceRefusal.allCases.count)
  /// Requests served, and their total wait for a worker (nanoseconds).
  public private(set) var served: UInt64 = 0
  public private(set) var waitedNs: Int64 = 0
  /// A rate limit's one-second window: the second of the last request, plus one (0: none yet), and
  /// how many came in it. (One 8-byte record, so that a user's check reads one cache line and the
  /// per-user windows of ten million users take 80 MB. Seconds wrap after 136 years of simulated
  /// time, which would only merge two windows exactly 2^32 s apart.)
  struct Window {
    var second: UInt32 = 0
    var count: UInt32 = 0
  }
  /// Per user, per room and for the whole app: the current window.
  var userWindow: [Window] = []
  var roomWindow: [Window] = []
  var appWindow = Window()

  /// Hints that `user`'s rate window is about to be read (when the service limits users' rates).
  /// Changes nothing; `mutating` only so that a call on an element of an array of services works
  /// in place instead of on a copy of the whole queue.
  public mutating func prefetchWindow(of user: UInt32) { userWindow.prefetch(Int(user)) }

  /// A service for `users` users in `rooms` rooms (one more for phones).
  public init(settings: ServiceSettings, users: Int, rooms: Int) {
    self.settings = settings
    if settings.perUser != nil {
      userWindow = [Window](table: Window(), count: users)
    }
    if settings.perRoom != nil {
      roomWindow = [Window](repeating: Window(), count: rooms + 1)
    }
  }

  /// What becomes of a request arriving now.
  public enum Admission: Equatable, Sendable {
    /// A worker takes it: serve it after the service time.
    case serve
    /// It waits for a worker.
    case queued
    /// It is turned away.
    case refused(ServiceRefusal)
  }

  /// Counts one request in a one-second window; whether it stays within `limit`.
  static func within(_ limit: Int?, second: Int64, _ window: inout Window) -> Bool {
    guard let limit else { return true }
    let mark = UInt32(truncatingIfNeeded: second &+ 1)
    if window.second != mark {
      window.second = mark
      window.count = 0
    }
    window.count &+= 1
    return window.count <= UInt32(limit)
  }

  /// A request in operation slot `slot` from `user` of `room` arrives at `now`.
  public mutating func arrive(slot: UInt32, user: UInt32, room: UInt32, now: SimInstant) -> Admission {
    let second = now.nanoseconds / 1_000_000_000
    var refusal: ServiceRefusal?
    if settings.perApp != nil && !ServiceQueue.within(settings.perApp, second: second, &appWindow) {
      refusal = .rateApp
    } else if settings.perRoom != nil
      && !ServiceQueue.within(settings.perRoom, second: second, &roomWindow[Int(room)])
    {
      refusal = .rateRoom
    } else if settings.perUser != nil
      && !ServiceQueue.within(settings.perUser, second: second, &userWindow[Int(user)])
    {
      refusal = .rateUser
    }
    if refusal == nil {
      if settings.workers.map({ busy.level < $0 }) ?? true {
        busy.add(1, at: now.nanoseconds)
        served &+= 1
        return .serve
      }
      if settings.queueLimit.map({ queued.level < $0 }) ?? true {
        waiting.append((slot, now.nanoseconds))
        queued.add(1, at: now.nanoseconds)
        return .queued
      }
      refusal = .queueFull
    }
    refused[ServiceRefusal.allCases.firstIndex(of: refusal!)!] &+= 1
    return .refused(refusal!)
  }

  /// The request in `slot`, if it still waits for a worker, leaves the queue (its client gave up
  /// at the SDK's timeout). Returns whether it was waiting.
  public mutating func cancel(slot: UInt32, now: SimInstant) -> Bool {
    guard let i = waiting[head...].firstIndex(where: { $0.slot == slot }) else { return false }
    gaveUp(at: i, now: now)
    return true
  }

  /// The request at `waiting[i]` leaves the queue: its client gave up.
  mutating func gaveUp(at i: Int, now: SimInstant) {
    waiting[i].slot = .max
    queued.add(-1, at: now.nanoseconds)
    refused[ServiceRefusal.allCases.firstIndex(of: .clientTimeout)!] &+= 1
  }

  /// The place of the request queued last (see ``cancel(place:slot:now:)``), in 30 bits.
  public var lastQueuedPlace: UInt32 {
    UInt32(truncatingIfNeeded: removed + waiting.count - 1) & ServiceQueue.placeMask
  }

  /// Places are kept in 30 bits (an event carries one beside a service index): a place is told
  /// apart from the others while fewer than 2^29 requests wait at once.
  public static let placeMask: UInt32 = 1 << 30 - 1

  /// ``cancel(slot:now:)`` for the request queued at `place` (``lastQueuedPlace`` when it was
  /// queued): found without a search, and without reading anything of a request that has
  /// already left the queue.
  public mutating func cancel(place: UInt32, slot: UInt32, now: SimInstant) -> Bool {
    let tail = removed + waiting.count - 1
    let back = Int((UInt32(truncatingIfNeeded: tail) &- place) & ServiceQueue.placeMask)
    let p = tail - back - removed
    guard p >= head, waiting[p].slot == slot else { return false }
    gaveUp(at: p, now: now)
    return true
  }

  /// A worker finished at `now`: the next waiting request it takes, if any (the worker stays
  /// busy), or the worker goes idle.
  public mutating func finished(now: SimInstant) -> UInt32? {
    // Requests whose client gave up left the queue.
    while head < waiting.count && waiting[head].slot == .max { head += 1 }
    guard head < waiting.count else {
      busy.add(-1, at: now.nanoseconds)
      return nil
    }
    let next = waiting[head]
    head += 1
    if head > 1024 && head * 2 > waiting.count {
      waiting.removeFirst(head)
      removed += head
      head = 0
    }
    queued.add(-1, at: now.nanoseconds)
    served &+= 1
    waitedNs &+= now.nanoseconds - next.arrivedNs
    return next.slot
  }

  /// The mean wait for a worker of the requests served so far (seconds).
  public var meanWaitSeconds: Double { served == 0 ? 0 : Double(waitedNs) / Double(served) / 1e9 }
}
