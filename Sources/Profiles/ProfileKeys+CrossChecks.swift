import Chaos
import SimKernel

/// Checks across keys: each reads only values that are valid on their own (the others have their
/// own errors already), and reports at the key that goes beyond the other.
enum CrossChecks {
  static func run(_ root: JSONValue, into c: inout TreeChecker) {
    let tree = Tree(root: root)
    let duration = tree.node("duration").flatMap { try? $0.duration(minimum: .nanoseconds(1)) }

    // Limits that contradict each other.
    if let max = tree.int("seats.maxSeatCount"), let limitNode = tree.node("seats.packageLimit"),
      let limit = try? limitNode.int(0...Int64(Int16.max)), limit > max
    {
      c.add(limitNode.error("must not exceed maxSeatCount (\(max)), got \(limit)"))
    }
    if let users = tree.int("calls.users"), let node = tree.node("calls.maxGroupCallees"),
      let most = try? node.int(2...8), most > users - 1
    {
      c.add(node.error("a call has at most \(users - 1) callees among \(users) phone users, got \(most)"))
    }
    if let applies = tree.node("audience.maxApplies"), (try? applies.int(0...255)) == 0,
      let p = tree.node("audience.applyProbability").flatMap({ try? $0.ratio() }), p != Ratio.zero
    {
      c.add(applies.error("is 0 while audience.applyProbability is \(p): no viewer could apply"))
    }
    if let fraction = tree.node("workload.coHosting.fraction").flatMap({ try? $0.ratio() }), fraction != Ratio.zero,
      let rooms = tree.int("population.rooms"), rooms < 2
    {
      c.add(
        ProfileError(
          path: "workload.coHosting.fraction", message: "co-hosting pairs rooms, and there is \(rooms) room"))
    }

    // Windows within the duration.
    guard let duration else { return }
    // Arrivals may spread beyond the end (a run cut short sees only the first of them).
    if case .string(let pattern)? = tree.node("arrival.pattern")?.value, pattern == "poisson" || pattern == "ramp",
      tree.node("arrival.over") == nil
    {
      c.add(ProfileError(path: "arrival.over", message: "required key is missing (for the \(pattern) pattern)"))
    }
    if let at = tree.node("workload.flashCrowd.at").flatMap({ try? $0.duration() }) {
      if at >= duration {
        c.add(
          ProfileError(
            path: "workload.flashCrowd.at",
            message: "the flash crowd at \(at) is not before the run's end (\(duration))"
          ))
      }
    }
    if let h = tree.node("faults.heal"), let d = try? h.duration(), d >= duration {
      c.add(h.error("must be shorter than the duration (\(duration))"))
    }
    let (chaosEnds, heal) = chaosPeriod(tree, duration: duration)
    let population = Population(tree)
    for entry in faultEntries(tree) {
      guard case .object(let fields) = entry.value else { continue }
      let at = fields["at"].flatMap { try? ProfileNode(path: entry.path + ".at", value: $0).duration() }
      if let at, at >= chaosEnds {
        c.add(
          ProfileError(
            path: entry.path + ".at",
            message:
              "the window opens at \(at), when faults have healed (they act until \(chaosEnds): the run's \(duration) less heal \(heal))"
          ))
      } else if let length = fields["for"].flatMap({
        try? ProfileNode(path: entry.path + ".for", value: $0).duration(minimum: .nanoseconds(1))
      }) {
        let end = (at ?? .zero) + length
        if end > duration {
          c.add(
            ProfileError(
              path: entry.path + ".for", message: "the window ends at \(end), after the run's end (\(duration))"))
        }
      }
      if case .string(let text)? = fields["target"], let target = FaultTarget.parse(text),
        let problem = population.miss(target)
      {
        c.add(ProfileError(path: entry.path + ".target", message: "\"\(text)\" \(problem)"))
      }
    }
  }

  /// When faults stop acting (the duration less the heal), and the heal.
  static func chaosPeriod(_ tree: Tree, duration: SimDuration) -> (ends: SimDuration, heal: SimDuration) {
    var heal = min(.minutes(2), SimDuration(nanoseconds: duration.nanoseconds / 5))
    if let d = tree.node("faults.heal").flatMap({ try? $0.duration() }), d < duration { heal = d }
    return (duration >= heal ? SimDuration(nanoseconds: duration.nanoseconds - heal.nanoseconds) : .zero, heal)
  }

  /// The fault entries of the plan, each with its node path.
  static func faultEntries(_ tree: Tree) -> [ProfileNode] {
    guard let faults = tree.node("faults") else { return [] }
    var plan = faults
    if case .object(let fields) = faults.value {
      guard let p = fields["plan"] else { return [] }
      plan = ProfileNode(path: "faults.plan", value: p)
    }
    var out: [ProfileNode] = []
    func walk(_ n: ProfileNode) {
      guard case .array = n.value, let items = try? n.array() else { return }
      for item in items {
        if case .array = item.value { walk(item) } else { out.append(item) }
      }
    }
    walk(plan)
    return out
  }

  /// Reads values of a tree by dotted path.
  struct Tree {
    let root: JSONValue

    func node(_ path: String) -> ProfileNode? {
      guard let v = root.value(at: path), v != .null else { return nil }
      return ProfileNode(path: path, value: v)
    }

    func int(_ path: String) -> Int? { node(path).flatMap { try? $0.int(0...Int64.max) } }
  }

  /// Who there is to target: rooms, and the users when every room's size is fixed.
  struct Population {
    var rooms: Int?
    var admins: Int
    var users: Int?
    var phones: Int

    init(_ tree: Tree) {
      rooms = tree.node("population.rooms").flatMap { try? $0.int(1...1_000_000) }
      admins = tree.int("population.adminsPerRoom") ?? 0
      phones = tree.node("calls.users").flatMap { try? $0.int(2...10_000_000) } ?? 0
      if let rooms, let n = tree.node("population.audiencePerRoom"), case .integer(let audience) = n.value {
        users = rooms * (1 + admins + Int(audience)) + phones
      }
    }

    /// Why `target` reaches no one, or part of it reaches no one; `nil` when it is within.
    func miss(_ target: FaultTarget) -> String? {
      switch target {
      case .rooms(let r):
        guard let rooms, Int(r.upperBound) >= rooms else { return nil }
        return "names room \(r.upperBound), beyond the \(rooms) room\(rooms == 1 ? "" : "s") (0 to \(rooms - 1))"
      case .users(let r):
        guard let users, Int(r.upperBound) >= users else { return nil }
        return "names user \(r.upperBound), beyond the \(users) users (0 to \(users - 1))"
      case .role(.admin) where admins == 0:
        return "targets admins, and population.adminsPerRoom is 0"
      case .role(.phone) where phones == 0:
        return "targets phone users, and there are none (no calls section)"
      default:
        return nil
      }
    }
  }
}

extension ProfileKeys {
  /// `tree` without the windows its duration leaves no room for, for a run made shorter (as
  /// `shrink` does): fault entries whose window opens after the faults heal and a flash crowd at
  /// or after the end are dropped, and windows are cut at the end. None of them could act in the
  /// shorter run, so it runs as before; the result passes the window checks.
  public static func fittingWindows(_ tree: JSONValue) -> JSONValue {
    let t = CrossChecks.Tree(root: tree)
    guard let duration = t.node("duration").flatMap({ try? $0.duration(minimum: .nanoseconds(1)) }) else { return tree }
    var out = tree
    if let at = t.node("workload.flashCrowd.at").flatMap({ try? $0.duration() }), at >= duration {
      out = (try? out.setting("workload.flashCrowd", to: .null)) ?? out
    }
    let chaosEnds = CrossChecks.chaosPeriod(t, duration: duration).ends
    func fit(_ list: JSONValue) -> JSONValue {
      guard case .array(let items) = list else { return list }
      return .array(
        items.compactMap { item -> JSONValue? in
          if case .array = item { return fit(item) }
          guard case .object(var fields) = item else { return item }
          let at = fields["at"].flatMap { try? ProfileNode(path: "", value: $0).duration() }
          if let at, at >= chaosEnds { return nil }
          if let length = fields["for"].flatMap({ try? ProfileNode(path: "", value: $0).duration() }),
            (at ?? .zero) + length > duration
          {
            fields["for"] = .string((duration - (at ?? .zero)).description)
          }
          return .object(fields)
        })
    }
    if let plan = out.value(at: "faults.plan") {
      out = (try? out.setting("faults.plan", to: fit(plan))) ?? out
    } else if case .object(var fields) = out, let faults = fields["faults"], case .array = faults {
      fields["faults"] = fit(faults)
      out = .object(fields)
    }
    return out
  }
}
