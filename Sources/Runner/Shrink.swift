import Chaos
import Foundation
import Profiles
import Reports
import Scenario
import SimKernel

/// `stampede shrink`: makes a failing profile smaller while it keeps failing the same way, by
/// greedy delta debugging over its size (duration with its heal, rooms, audience, admins, phone
/// users) and its features (faults one kind at a time, workloads, host actions, calls, device
/// failures, patience), then by trying nearby seeds. A `faults: "swarm"` plan is first written out
/// as the plan the seed drew, so that its kinds can be dropped one by one.
public struct Shrinker {
  /// What a failure is, for "the same failure": the earliest violated invariant, or else the first
  /// failed threshold.
  public static func signature(_ r: RunReport) -> String? {
    let firsts = r.invariants.compactMap { i in i.first.map { (i.id, $0.atMs) } }
    if let earliest = firsts.min(by: { $0.1 < $1.1 }) { return "invariant " + earliest.0 }
    if let t = r.failedThresholds.first { return "threshold " + t.expression }
    return nil
  }

  /// The outcome.
  public struct Outcome: Sendable {
    /// The smaller profile's document.
    public var tree: JSONValue
    /// The seed it fails with.
    public var seed: UInt64
    /// The failure kept.
    public var signature: String
    /// Runs spent (as one at a time would spend them).
    public var runs: Int
    /// Runs made beside those, side by side with `--jobs`, that the outcome did not need.
    public var alongside: Int = 0
    /// Size before and after, as "rooms × users per room, duration".
    public var before: String
    /// Size after.
    public var after: String
    /// Reductions that were kept, in order.
    public var steps: [String]
  }

  /// Why shrinking could not start.
  public struct ShrinkError: Error, CustomStringConvertible {
    /// One line.
    public let description: String
  }

  let original: JSONValue
  let profilePath: String
  let budget: Int
  var runs = 0
  /// The registered app run instead of the built-in clients, if any.
  public var app: ClientApp?
  /// Runs a candidate elsewhere (app code, in a worker process that follows its crashes) and
  /// gives its report, or `nil` if none came; `nil`: each candidate runs in this process.
  public var runner: (@Sendable (_ document: String, _ seed: UInt64) -> RunReport?)?
  /// Why the ``runner`` gave no report, if it did not, for the message when the failing seed's own
  /// run gave none.
  public var lostReason: (@Sendable () -> String?)?
  /// The invariant to keep violated (`shrink --invariant ID`), instead of the earliest one: a bug
  /// behind another that comes first (a crash before a UI race) can be shrunk on its own.
  public var invariant: String?
  /// Candidates run side by side (`shrink --jobs N`); the outcome is the same for any number.
  public var jobs = 1
  /// Runs made beside the one that kept the failure, which the outcome did not need.
  public private(set) var alongside = 0

  /// The failure `report` shows, as this shrink keeps it: ``signature(_:)``, or with
  /// ``invariant`` set, that invariant violated.
  func failure(of report: RunReport) -> String? {
    guard let invariant else { return Shrinker.signature(report) }
    return report.invariants.contains { $0.id == invariant && $0.violations > 0 } ? "invariant " + invariant : nil
  }

  /// A shrinker for the profile document `tree` (from `profilePath`), allowed `budget` runs.
  public init(tree: JSONValue, profilePath: String, budget: Int) {
    original = tree
    self.profilePath = profilePath
    self.budget = budget
  }

  /// The signature of `tree` run with `seed`, or `nil` if it passes or is not a valid profile.
  mutating func failure(_ tree: JSONValue, seed: UInt64) -> String? {
    runs += 1
    return evaluate(tree, seed: seed)
  }

  /// The index of the first of `candidates` that fails as `target` with `seed`, if one does
  /// within the budget. With ``jobs`` above 1 the next candidates run side by side, and the first
  /// in order that fails is taken: the same one, and the same count of runs, as one at a time
  /// (the runs beside it that were not needed are counted in ``alongside``).
  mutating func firstFailing(_ candidates: [JSONValue], seed: UInt64, target: String) -> Int? {
    var i = 0
    while i < candidates.count && runs < budget {
      let n = min(max(1, jobs), candidates.count - i, budget - runs)
      let results: [String?]
      if n == 1 {
        results = [evaluate(candidates[i], seed: seed)]
      } else {
        let batch = Array(candidates[i..<i + n])
        let found = Locked([String?](repeating: nil, count: n))
        nonisolated(unsafe) let shrinker = self
        DispatchQueue.concurrentPerform(iterations: n) { k in
          let failure = shrinker.evaluate(batch[k], seed: seed)
          found.update { $0[k] = failure }
        }
        results = found.current
      }
      for (k, failure) in results.enumerated() {
        runs += 1
        if failure == target {
          alongside += n - k - 1
          return i + k
        }
      }
      i += n
    }
    return nil
  }

  /// The signature of `tree` run with `seed` (see ``failure(_:seed:)``), counting no run.
  func evaluate(_ tree: JSONValue, seed: UInt64) -> String? {
    guard let profile = try? Profile.parse(tree: tree, overrides: []) else { return nil }
    let document = JSON5Writer.write(tree)
    if let runner { return runner(document, seed).flatMap { failure(of: $0) } }
    let data = Data(document.utf8)
    var run = SimulationRun(profile: profile, profilePath: profilePath, profileData: data, seed: seed)
    run.app = app
    return failure(of: run.report(run.execute(), startedAt: Date()))
  }

  /// Shrinks, keeping the failure `seed` shows now.
  public mutating func shrink(seed: UInt64, nearbySeeds: Int = 8) throws(ShrinkError) -> Outcome {
    guard let target = failure(original, seed: seed) else {
      if let why = lostReason?() { throw ShrinkError(description: "seed \(seed) gave no report: \(why)") }
      if let invariant {
        throw ShrinkError(description: "seed \(seed) does not violate \(invariant): nothing to shrink")
      }
      throw ShrinkError(description: "seed \(seed) does not fail: nothing to shrink")
    }
    var best = (tree: original, seed: seed, steps: [String]())
    if let explicit = Shrinker.explicitSwarm(original, seed: seed), failure(explicit, seed: seed) == target {
      best.tree = explicit
      best.steps.append("swarm → the plan seed \(seed) drew")
    }
    greedy(&best.tree, seed: seed, target: target, steps: &best.steps)
    // Nearby seeds can fail the same way with a smaller profile.
    for k in 0..<UInt64(max(0, nearbySeeds)) where runs < budget {
      let s = seed &+ k &+ 1
      guard failure(best.tree, seed: s) == target else { continue }
      var tree = best.tree
      var steps = best.steps + ["seed \(s)"]
      greedy(&tree, seed: s, target: target, steps: &steps)
      if Shrinker.size(tree) < Shrinker.size(best.tree) { best = (tree, s, steps) }
    }
    // The shrunk profile carries the seed it fails with: running it alone reproduces.
    if let seeded = try? best.tree.setting("seed", to: .string(SeedFormat.format(best.seed))) { best.tree = seeded }
    return Outcome(
      tree: best.tree, seed: best.seed, signature: target, runs: runs, alongside: alongside,
      before: Shrinker.describe(original), after: Shrinker.describe(best.tree), steps: best.steps)
  }

  /// Applies reductions while any keeps the failure, until none does or the budget is spent.
  mutating func greedy(_ tree: inout JSONValue, seed: UInt64, target: String, steps: inout [String]) {
    while runs < budget {
      let candidates = Shrinker.candidates(tree)
      guard let k = firstFailing(candidates.map(\.1), seed: seed, target: target) else { return }
      tree = candidates[k].1
      steps.append(candidates[k].0)
    }
  }

  // MARK: - Reductions

  /// `tree` with a swarm-only fault plan (`faults: "swarm"` or `{heal, plan: "swarm"}`) replaced by
  /// the entries seed `seed` draws for it, and the delivery order it draws (`network.ties` and
  /// `network.pct`, where the profile leaves them to the swarm) written out, which run the same
  /// faults in the same order; `nil` for any other plan.
  static func explicitSwarm(_ tree: JSONValue, seed: UInt64) -> JSONValue? {
    let faults = tree.value(at: "faults")
    let planPath: String
    switch faults {
    case .string("swarm")?: planPath = "faults"
    case .object(let o)? where o["plan"] == .string("swarm"): planPath = "faults.plan"
    default: return nil
    }
    guard let profile = try? Profile.read(ProfileNode(path: "", value: tree)) else { return nil }
    let entries = Chaos.swarmPlan(profile.faults, seed: seed).map { e -> JSONValue in
      .object(["kind": .string(e.kind.rawValue), "rate": .string("\(e.rate.numerator)/\(e.rate.denominator)")])
    }
    var plan: JSONValue = .object(["plan": .array(entries)])
    if planPath == "faults.plan", case .object(let o)? = faults {
      var o = o
      o["plan"] = .array(entries)
      plan = .object(o)
    }
    guard var explicit = try? tree.setting("faults", to: plan) else { return nil }
    let (seededTies, depth) = profile.ordering(seed: seed)
    if profile.network.ties == nil {
      explicit = (try? explicit.setting("network.ties", to: .string(seededTies ? "seeded" : "fifo"))) ?? explicit
    }
    if profile.network.pctDepth == nil {
      explicit = (try? explicit.setting("network.pct", to: .integer(Int64(depth)))) ?? explicit
    }
    return explicit
  }

  static func number(_ v: JSONValue?) -> Double? {
    switch v {
    case .integer(let i): return Double(i)
    case .number(let d): return d
    default: return nil
    }
  }

  /// Smaller variants of `tree`, most shrinking first.
  static func candidates(_ tree: JSONValue) -> [(String, JSONValue)] {
    // In order: the big cuts (whole populations halved), the duration, the fault kinds one at a
    // time, the features, then the small cuts (one room, viewer or phone at a time).
    var big: [(String, JSONValue)] = []
    var faults: [(String, JSONValue)] = []
    var features: [(String, JSONValue)] = []
    var small: [(String, JSONValue)] = []
    func add(_ list: inout [(String, JSONValue)], _ label: String, _ path: String, _ v: JSONValue) {
      if let t = try? tree.setting(path, to: v), t != tree { list.append((label, t)) }
    }
    // Leaves out the first `leaveOut` of `count` entities: the count drops and the first
    // identity moves on, so those left keep theirs.
    func addLeavingOut(
      _ list: inout [(String, JSONValue)], _ label: String, _ countPath: String, _ firstPath: String,
      count: Int64, leaveOut: Int64, first: Int64
    ) {
      guard leaveOut > 0, count - leaveOut >= 1,
        let t = try? tree.setting(countPath, to: .integer(count - leaveOut))
          .setting(firstPath, to: .integer(first + leaveOut))
      else { return }
      list.append((label, t))
    }
    if let calls = tree.value(at: "calls"), calls != .null {
      add(&big, "no calls", "calls", .null)
      if let phones = number(tree.value(at: "calls.users")).map({ Int64($0) }), phones > 2 {
        let first = number(tree.value(at: "calls.firstUser")).map { Int64($0) } ?? 0
        add(&big, "phones \(phones) → \(phones / 2)", "calls.users", .integer(max(2, phones / 2)))
        // The later half (ddmin's complement): every phone left keeps its identity, and so its draws.
        addLeavingOut(
          &big, "phones \(phones) → the last \(phones - phones / 2)", "calls.users", "calls.firstUser",
          count: phones, leaveOut: phones / 2, first: first)
        add(&small, "phones \(phones) → \(phones - 1)", "calls.users", .integer(phones - 1))
        addLeavingOut(
          &small, "phones \(phones) → \(phones - 1), without the first", "calls.users", "calls.firstUser",
          count: phones, leaveOut: 1, first: first)
      }
      if let v = tree.value(at: "calls.liveCallees"), v != .null, number(v) != 0 {
        add(&features, "no calls.liveCallees", "calls.liveCallees", .integer(0))
      }
      if let v = tree.value(at: "calls.groupProbability"), v != .null, number(v) != 0 {
        add(&features, "no group calls", "calls.groupProbability", .integer(0))
      }
      if let v = tree.value(at: "calls.app.closeProbability"), number(v) != 0 {
        add(&features, "no app closes", "calls.app.closeProbability", .integer(0))
      }
    }
    // The delivery order: PCT change points, then seeded ties, off.
    if let depth = number(tree.value(at: "network.pct")), depth > 0 {
      add(&features, "no PCT change points", "network.pct", .integer(0))
    }
    if tree.value(at: "network.ties") == .string("seeded") {
      add(&features, "ties in the order sent", "network.ties", .string("fifo"))
    }
    if let rooms = number(tree.value(at: "population.rooms")).map({ Int64($0) }), rooms > 1 {
      let first = number(tree.value(at: "population.firstRoom")).map { Int64($0) } ?? 0
      add(&big, "rooms \(rooms) → \(rooms / 2)", "population.rooms", .integer(rooms / 2))
      addLeavingOut(
        &big, "rooms \(rooms) → the last \(rooms - rooms / 2)", "population.rooms", "population.firstRoom",
        count: rooms, leaveOut: rooms / 2, first: first)
      add(&small, "rooms \(rooms) → \(rooms - 1)", "population.rooms", .integer(rooms - 1))
      addLeavingOut(
        &small, "rooms \(rooms) → \(rooms - 1), without the first", "population.rooms",
        "population.firstRoom", count: rooms, leaveOut: 1, first: first)
    }
    let audience = tree.value(at: "population.audiencePerRoom")
    if let n = number(audience) {
      if n > 1 {
        add(&big, "audience \(Int(n)) → \(Int(n) / 2)", "population.audiencePerRoom", .integer(Int64(n) / 2))
        add(&small, "audience \(Int(n)) → \(Int(n) - 1)", "population.audiencePerRoom", .integer(Int64(n) - 1))
      }
    } else if let audience, let d = try? ProfileNode(path: "", value: audience).distribution(.number) {
      let mean = d.mean.isFinite ? max(0, min(10_000_000, d.mean.rounded())) : 1000
      add(
        &big, "audience \(audience.shortDescription) → \(Int(mean))", "population.audiencePerRoom",
        .integer(Int64(mean)))
    }
    if let admins = number(tree.value(at: "population.adminsPerRoom")), admins > 0 {
      add(&big, "admins \(Int(admins)) → 0", "population.adminsPerRoom", .integer(0))
    }
    if case .string(let d)? = tree.value(at: "duration"), let dur = DurationFormat.parse(d), dur > .seconds(2) {
      // Halved to a tenth of a second, so that a shrunk profile reads `1.7s`, not `1757812.5us`.
      let half = SimDuration(nanoseconds: dur.nanoseconds / 2).rounded(to: .milliseconds(100))
      var shorter = try? tree.setting("duration", to: .string(half.description))
      // The heal moves with it: the same share of the run stays fault-free.
      if case .string(let h)? = tree.value(at: "faults.heal"), let heal = DurationFormat.parse(h) {
        shorter = try? shorter?.setting(
          "faults.heal",
          to: .string(SimDuration(nanoseconds: heal.nanoseconds / 2).rounded(to: .milliseconds(100)).description))
      }
      // Windows the shorter run has no room for could not act in it: they go.
      shorter = shorter.map(ProfileKeys.fittingWindows)
      if let shorter, shorter != tree { big.append(("duration \(dur) → \(half)", shorter)) }
    }
    // Fault kinds, one at a time (an explicit flat plan: what a swarm plan was written out as).
    let planPath = tree.value(at: "faults.plan") != nil ? "faults.plan" : "faults"
    if case .array(let entries)? = tree.value(at: planPath), entries.count > 0 {
      for (i, e) in entries.enumerated() {
        guard case .object(let o) = e, case .string(let kind)? = o["kind"] else { continue }
        var rest = entries
        rest.remove(at: i)
        add(&faults, "no fault \(kind)", planPath, .array(rest))
      }
    }
    for feature in ["flashCrowd", "coHosting"]
    where tree.value(at: "workload.\(feature)") != nil && tree.value(at: "workload.\(feature)") != .null {
      add(&features, "no \(feature)", "workload.\(feature)", .null)
    }
    for role in ["host", "admin"] {
      for key in ["inviteEvery", "kickEvery", "lockEvery", "moveEvery", "endLiveAfter"] {
        if let v = tree.value(at: "\(role).\(key)"), v != .null {
          add(&features, "no \(role).\(key)", "\(role).\(key)", .null)
        }
      }
    }
    for key in ["microphoneDenied", "microphoneOccupied", "cameraDenied", "cameraOccupied"] {
      if let v = tree.value(at: "devices.\(key)"), number(v) != 0 {
        add(&features, "no devices.\(key)", "devices.\(key)", .integer(0))
      }
    }
    if let v = tree.value(at: "audience.patience"), v != .null {
      add(&features, "no audience.patience", "audience.patience", .null)
    }
    return big + faults + features + small
  }

  /// A rough size for comparing shrunk profiles: users × simulated seconds.
  static func size(_ tree: JSONValue) -> Double {
    var seconds = 1.0
    if case .string(let d)? = tree.value(at: "duration"), let dur = DurationFormat.parse(d) {
      seconds = Double(dur.nanoseconds) / 1e9
    }
    return users(tree) * seconds
  }

  /// The users of `tree`: every room's host, admins and viewers, and the phone users.
  public static func users(_ tree: JSONValue) -> Double {
    let rooms = number(tree.value(at: "population.rooms")) ?? 1
    let audience = number(tree.value(at: "population.audiencePerRoom")) ?? 1000
    let admins = number(tree.value(at: "population.adminsPerRoom")) ?? 0
    let calls = tree.value(at: "calls")
    let phones = calls == nil || calls == .null ? 0 : number(tree.value(at: "calls.users")) ?? 0
    return rooms * (1 + admins + audience) + phones
  }

  static func describe(_ tree: JSONValue) -> String {
    let rooms = number(tree.value(at: "population.rooms")).map { String(Int($0)) } ?? "?"
    let audience =
      tree.value(at: "population.audiencePerRoom").map { number($0).map { String(Int($0)) } ?? $0.shortDescription }
      ?? "?"
    let admins = number(tree.value(at: "population.adminsPerRoom")).map { String(Int($0)) } ?? "0"
    var duration = "?"
    if case .string(let d)? = tree.value(at: "duration") { duration = d }
    let calls = tree.value(at: "calls")
    let phones =
      calls == nil || calls == .null ? "" : number(tree.value(at: "calls.users")).map { " + \(Int($0)) phones" } ?? ""
    return "\(rooms) room(s) × (1 host + \(admins) admin(s) + \(audience) viewers)\(phones), \(duration)"
  }
}
