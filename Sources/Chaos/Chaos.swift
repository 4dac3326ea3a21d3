import LiveStack
import SimKernel

/// The faults of one run, resolved, and the one place that decides whether a fault fires.
///
/// The plan's entries are sorted by kind (swarm draws done at construction). Every decision draws
/// from the stream of its fault kind and user (`faults.<kind>`, one generator per user identity),
/// and only when its kind is configured, so faults never shift the clients' streams, and dropping
/// one kind or one unrelated user leaves every other kind's decisions for every other user as
/// they were. Chaos decides *whether*; the components carry out the effect through their
/// own verbs (the network holds or delays a message, the server refuses a request, the phone OS
/// kills an app), as FoundationDB's fault workloads act through the simulator.
public struct Chaos {
  /// Entries by kind index.
  @usableFromInline let entries: [[FaultEntry]]
  /// Each entry's span, when it can act (nanoseconds, `[start, end)`, the end no later than
  /// ``chaosEnd``): entry `j` of kind index `k` at `spans[spanStart[k] + j]`. Kept flat and apart
  /// from the entries, so that the test at every message reads two integers per entry instead
  /// of copying entries out of nested arrays.
  let spans: [FaultSpan]
  /// Per kind index, where its entries' spans begin in ``spans``.
  let spanStart: [Int]
  /// Per kind index, a stretch of time `[from, until)` in which none of its entries can act,
  /// found at the last opportunity that fell outside every span: an opportunity inside it
  /// (nearly every message, outside the fault windows) is answered without looking at the
  /// entries. Reading it changes no decision; it is rebuilt whenever an opportunity falls outside.
  var quiet: [FaultSpan]
  /// The configured kinds.
  public let kinds: FaultKindSet
  /// Whether any kind is configured (the hot paths test this first).
  public let active: Bool
  /// Whether a kind that acts on every message (delay, partition) is configured.
  public let actsOnMessages: Bool
  /// Faults act only before this instant (nanoseconds): the heal phase follows.
  public let chaosEnd: Int64
  /// A salt for fraction targets.
  let salt: UInt64
  /// Who is who, for targets.
  let layout: Layout
  /// The fault streams, one generator per configured kind and user: slot `kindSlot[k] * users + u`.
  var random: [SplitMix64]
  /// Per kind index: its slot among the configured kinds, or -1.
  let kindSlot: [Int]
  /// Users in the layout (the stride of ``random``).
  let users: Int
  /// Injections so far, by kind index: each time a rate fault fired or a window applied.
  public private(set) var injected = [UInt64](repeating: 0, count: FaultKind.allCases.count)
  /// Whether outcomes are steered toward (`explore`).
  public let steers: Bool
  /// The steered outcomes, grouped by call kind: those of raw kind `k` at
  /// `steerStart[k]..<steerStart[k + 1]`.
  let steering: [SteeredOutcome]
  let steerStart: [UInt16]
  /// Each user's `explore` stream (empty unless steering).
  var steerRandom: [SplitMix64] = []
  /// Requests and answers the steering lost so far.
  public internal(set) var steeredLosses: UInt64 = 0

  /// Resolves `plan` for a run of `duration` over `layout`, drawing swarm rates from the
  /// `fault-swarm` stream and seeding one `faults.<kind>` generator per configured kind and user for
  /// every later decision.
  public init(plan: FaultPlan, duration: SimDuration, layout: Layout, streams: RandomStreams) {
    var swarmRandom = streams.stream("fault-swarm")
    let resolved = Chaos.resolve(plan, &swarmRandom)
    var entries = [[FaultEntry]](repeating: [], count: FaultKind.allCases.count)
    var kinds = FaultKindSet()
    for e in resolved where e.rate != .zero {
      entries[e.kind.index].append(e)
      kinds.insert(e.kind)
    }
    self.entries = entries
    self.kinds = kinds
    active = !kinds.isEmpty
    actsOnMessages = kinds.contains(.networkDelay) || kinds.contains(.networkPartition)
    let chaosEnd = plan.isEmpty ? 0 : duration.nanoseconds - plan.heal.nanoseconds
    self.chaosEnd = chaosEnd
    var spans: [FaultSpan] = []
    var spanStart: [Int] = []
    for kindEntries in entries {
      spanStart.append(spans.count)
      for entry in kindEntries {
        let start = entry.at?.nanoseconds ?? 0
        let end = min(entry.duration.map { start + $0.nanoseconds } ?? chaosEnd, chaosEnd)
        spans.append(FaultSpan(start: start, end: end))
      }
    }
    self.spans = spans
    self.spanStart = spanStart
    quiet = [FaultSpan](repeating: FaultSpan(start: 0, end: 0), count: entries.count)
    var saltRandom = swarmRandom
    salt = saltRandom.next()
    self.layout = layout
    users = layout.totalUsers
    var slots = [Int](repeating: -1, count: FaultKind.allCases.count)
    var generators: [SplitMix64] = []
    for (n, kind) in FaultKind.allCases.filter({ kinds.contains($0) }).enumerated() {
      slots[kind.index] = n
      generators += streams.entities("faults.\(kind.rawValue)", layout.identities)
    }
    kindSlot = slots
    random = generators
    let steered = plan.steered.enumerated().sorted { ($0.1.call, $0.0) < ($1.1.call, $1.0) }.map(\.1)
    var starts = [UInt16](repeating: 0, count: 257)
    for e in steered { starts[Int(e.call) + 1] += 1 }
    for k in 1..<starts.count { starts[k] += starts[k - 1] }
    steering = steered
    steerStart = starts
    steers = !steered.isEmpty
    if steers { steerRandom = streams.entities("explore", layout.identities) }
  }

  /// The generator slot of `kind` (configured) for `user`.
  @inline(__always) func slot(_ kind: FaultKind, _ user: UInt32) -> Int { kindSlot[kind.index] * users + Int(user) }

  /// The entries of `plan` with every swarm draw made (from `swarmRandom`, the `fault-swarm`
  /// stream): what the run's faults are. `shrink` writes them out as an explicit plan.
  public static func resolve(_ plan: FaultPlan, _ swarmRandom: inout Xoshiro256) -> [FaultEntry] {
    var resolved = plan.entries.filter { !$0.swarm }
    if plan.swarm { resolved += FaultPlan.swarmEntries(&swarmRandom, from: []) }
    let perEntry = plan.entries.filter(\.swarm)
    if !perEntry.isEmpty { resolved += FaultPlan.swarmEntries(&swarmRandom, from: perEntry) }
    return resolved
  }

  /// The plan `faults: "swarm"` draws for the run seeded `seed`.
  public static func swarmPlan(_ plan: FaultPlan, seed: UInt64) -> [FaultEntry] {
    var swarmRandom = RandomStreams(rootSeed: seed).stream("fault-swarm")
    return resolve(plan, &swarmRandom)
  }

  /// The kinds configured, in catalogue order.
  public var configured: [FaultKind] { FaultKind.allCases.filter { kinds.contains($0) } }

  /// Whether fault `kind` is configured at all (a bit test; no draw).
  @inlinable public func isOn(_ kind: FaultKind) -> Bool { active && kinds.contains(kind) }

  /// Whether `target` covers `user`.
  func covers(_ target: FaultTarget, _ user: UInt32) -> Bool {
    switch target {
    case .all: return true
    case .users(let r): return r.contains(user)
    case .rooms(let r): return r.contains(layout.homeRoom[Int(user)])
    case .role(let role):
      if role == .phone { return layout.isPhone(user) }
      if layout.isPhone(user) { return false }
      switch layout.role(of: user) {
      case .audience: return role == .audience
      case .owner: return role == .owner
      case .admin: return role == .admin
      }
    case .fraction(let f):
      var mix = SplitMix64(seed: salt ^ (UInt64(user) &* 0x9E37_79B9_7F4A_7C15))
      // Below numerator/denominator of the 32-bit range, compared exactly in integers.
      return (mix.next() >> 32) &* f.denominator < f.numerator << 32
    }
  }

  /// A rate fault at an opportunity for `user`: whether it fires now (drawn from the stream of
  /// `kind` and `user`).
  public mutating func fires(_ kind: FaultKind, user: UInt32, _ now: SimInstant) -> Bool {
    firing(kind, user: user, now) != nil
  }

  /// The entry of rate fault `kind` that fires at an opportunity for `user` now, if one does:
  /// entries in their window, covering `user` and (`channel`) acting on the message's channel
  /// each draw in turn.
  @inline(__always)
  mutating func firing(_ kind: FaultKind, user: UInt32, _ now: SimInstant, channel: FaultChannel? = nil) -> Int? {
    guard isOn(kind), now.nanoseconds < chaosEnd else { return nil }
    let k = kind.index
    let t = now.nanoseconds
    // A rate fault may also be limited to a window.
    guard let from = firstActive(k, t) else { return nil }
    for i in from..<entries[k].count where spans[spanStart[k] &+ i].contains(t) {
      let entry = entries[k][i]
      if let channel, entry.channel != .all && entry.channel != channel { continue }
      guard covers(entry.target, user) else { continue }
      if random[slot(kind, user)].chance(entry.rate) {
        injected[k] &+= 1
        return i
      }
    }
    return nil
  }

  /// The active window of `kind` covering `user` now, if any (drawing its rate when below 1).
  public mutating func window(_ kind: FaultKind, user: UInt32, _ now: SimInstant, service: FaultService = .all)
    -> FaultWindow?
  {
    guard isOn(kind), now.nanoseconds < chaosEnd else { return nil }
    let k = kind.index
    let t = now.nanoseconds
    guard let from = firstActive(k, t) else { return nil }
    for i in from..<entries[k].count where spans[spanStart[k] &+ i].contains(t) {
      let entry = entries[k][i]
      if entry.service != .all && service != .all && entry.service != service { continue }
      guard covers(entry.target, user) else { continue }
      if entry.rate != .one && !random[slot(kind, user)].chance(entry.rate) { continue }
      injected[k] &+= 1
      let end = spans[spanStart[k] &+ i].end
      return FaultWindow(extra: entry.extra, direction: entry.direction, endNs: end, vanish: entry.vanish)
    }
    return nil
  }

  /// The first of kind index `k`'s entries whose span contains `t`, or nil when none does. Inside
  /// the last quiet stretch found it answers nil at once; outside every span it keeps the stretch
  /// from `t` to the next span's start (or to the end of chaos) as the new one: a span that could
  /// act anywhere in it would have to contain `t` or start inside it, and neither holds.
  @inline(__always)
  mutating func firstActive(_ k: Int, _ t: Int64) -> Int? {
    if quiet[k].contains(t) { return nil }
    var next = chaosEnd
    let first = spanStart[k]
    for i in 0..<entries[k].count {
      let span = spans[first &+ i]
      if span.contains(t) { return i }
      if span.start > t { next = min(next, span.start) }
    }
    quiet[k] = FaultSpan(start: t, end: next)
    return nil
  }

  /// A server message of `channel` to `user` (`network.reorder`): how long it is held back (1 ms
  /// up to the entry's `extra`), letting later messages of other channels overtake it, if the
  /// fault fires.
  public mutating func reorder(to user: UInt32, channel: FaultChannel, _ now: SimInstant) -> SimDuration? {
    guard let i = firing(.networkReorder, user: user, now, channel: channel) else { return nil }
    let extra = entries[FaultKind.networkReorder.index][i].extra
    let spread = UInt64(max(1, extra.nanoseconds / 1_000_000))
    return .milliseconds(1 + Int64(draw(below: spread, .networkReorder, user: user)))
  }

  /// A uniform draw below `bound` from the stream of `kind` (configured) and `user`: a fault's own
  /// timing or choice.
  public mutating func draw(below bound: UInt64, _ kind: FaultKind, user: UInt32) -> UInt64 {
    random[slot(kind, user)].next(below: bound)
  }
}

/// When a fault entry can act: `[start, end)` in nanoseconds of simulated time.
struct FaultSpan {
  var start: Int64
  var end: Int64
  /// Whether `t` falls in `[start, end)`.
  @inline(__always) func contains(_ t: Int64) -> Bool { t >= start && t < end }
}

/// An active fault window, as it applies to one opportunity.
public struct FaultWindow: Sendable {
  /// The extra latency of a delay or slowdown.
  public var extra: SimDuration
  /// For a partition: which way it cuts.
  public var direction: FaultDirection
  /// When the window ends (nanoseconds), or chaos ends if sooner.
  public var endNs: Int64
  /// For an outage: whether requests vanish rather than fail.
  public var vanish: Bool
}

/// A set of fault kinds, sized from `FaultKind.allCases`: a new kind can never fall off the end.
public struct FaultKindSet: Sendable, Equatable {
  /// One bit per kind index, 64 to a word.
  @usableFromInline var words: [UInt64]

  /// The empty set.
  public init() { words = [UInt64](repeating: 0, count: (FaultKind.allCases.count + 63) / 64) }

  /// Adds `kind`.
  public mutating func insert(_ kind: FaultKind) {
    let i = kind.index
    words[i >> 6] |= 1 << UInt64(i & 63)
  }

  /// Whether `kind` is in the set.
  @inlinable
  public func contains(_ kind: FaultKind) -> Bool {
    let i = kind.index
    return words[i >> 6] & (1 << UInt64(i & 63)) != 0
  }

  /// Whether no kind is in the set.
  public var isEmpty: Bool { words.allSatisfy { $0 == 0 } }

  /// How many kinds are in the set.
  public var count: Int { words.reduce(0) { $0 + $1.nonzeroBitCount } }
}
