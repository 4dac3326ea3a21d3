import Chaos
import Metrics
import Oracles
import SimKernel

extension ProfileKeys {
  /// The most errors ``check(_:limit:)`` reports by default.
  public static let errorLimit = 50

  /// Every error in a profile tree, up to `limit`: unknown keys, required keys left out, values of
  /// the wrong type or out of range anywhere in the tree (inside lists and fault entries too), and
  /// then the checks across keys (targets within the population, windows within the duration,
  /// limits that contradict each other). Each names its key path.
  public static func check(_ root: JSONValue, limit: Int = errorLimit) -> [ProfileError] {
    var checker = TreeChecker(limit: limit)
    checker.object(ProfileNode(path: "", value: root), table: "")
    CrossChecks.run(root, into: &checker)
    return checker.errors
  }
}

/// Walks a profile tree against ``ProfileKeys``, collecting errors instead of stopping at the first.
struct TreeChecker {
  let limit: Int
  var errors: [ProfileError] = []

  init(limit: Int) { self.limit = limit }

  var full: Bool { errors.count >= limit }

  mutating func add(_ e: ProfileError) {
    if !full && !errors.contains(e) { errors.append(e) }
  }

  /// Runs `body`, keeping its error; `true` if it passed.
  @discardableResult
  mutating func attempt(_ body: () throws(ProfileError) -> Void) -> Bool {
    do {
      try body()
      return true
    } catch {
      add(error)
      return false
    }
  }

  mutating func object(_ node: ProfileNode, table: String) {
    guard case .object(let fields) = node.value else {
      add(node.expected("an object"))
      return
    }
    let kids = ProfileKeys.children[table] ?? []
    let names = kids.map(\.name)
    for key in fields.keys.sorted() where !names.contains(key) {
      let path = node.path.isEmpty ? key : node.path + "." + key
      if table == "server.messaging", ["queueLimit", "ratePerUser", "ratePerApp"].contains(key) {
        add(
          ProfileError(
            path: path,
            message: "not a setting of room messaging: a room's waiting broadcast takes in later changes (the newest"
              + " list wins), so at most one per room waits; the limits it has are workers, serviceTime,"
              + " perRecipient and ratePerRoom"))
        continue
      }
      var message = "unknown key"
      if let near = KeySuggestion.closest(to: key, among: names) { message += "; did you mean \"\(near)\"?" }
      if !names.isEmpty { message += " (known keys here: \(names.joined(separator: ", ")))" }
      add(ProfileError(path: path, message: message))
    }
    for kid in kids {
      let path = node.path.isEmpty ? kid.name : node.path + "." + kid.name
      guard let v = fields[kid.name], v != .null else {
        if case .required = kid.fallback { add(ProfileError(path: path, message: "required key is missing")) }
        continue
      }
      value(ProfileNode(path: path, value: v), kid.kind, table: kid.path)
    }
  }

  mutating func value(_ n: ProfileNode, _ kind: ProfileKey.Kind, table: String) {
    switch kind {
    case .string, .profilePath: attempt { () throws(ProfileError) in _ = try n.string() }
    case .name: attempt { () throws(ProfileError) in _ = try n.profileName() }
    case .bool: attempt { () throws(ProfileError) in _ = try n.bool() }
    case .seed: attempt { () throws(ProfileError) in _ = try n.seed() }
    case .whole(let range): attempt { () throws(ProfileError) in _ = try n.int(range) }
    case .wholeOrUnlimited(let range): attempt { () throws(ProfileError) in _ = try n.wholeOrUnlimited(range) }
    case .wholeOrDrawn(let range): attempt { () throws(ProfileError) in _ = try n.wholeOrDrawn(range) }
    case .duration(let minimum): attempt { () throws(ProfileError) in _ = try n.duration(minimum: minimum) }
    case .probability: attempt { () throws(ProfileError) in _ = try n.ratio() }
    case .distribution: attempt { () throws(ProfileError) in _ = try n.distribution() }
    case .optionalDistribution: attempt { () throws(ProfileError) in _ = try n.optionalDistribution() }
    case .countDistribution: attempt { () throws(ProfileError) in _ = try n.countDistribution() }
    case .choice(let names):
      guard case .string(let s) = n.value, names.contains(s) else {
        let quoted = names.map { "\"\($0)\"" }
        add(n.expected(quoted.count == 2 ? "\(quoted[0]) or \(quoted[1])" : "one of " + quoted.joined(separator: ", ")))
        return
      }
    case .list(let item, let nonEmpty):
      guard case .array(let items) = n.value else {
        add(n.expected("a list"))
        return
      }
      if nonEmpty && items.isEmpty { add(n.error("expected at least one item")) }
      for i in (try? n.array()) ?? [] { value(i, item, table: table + "[]") }
    case .threshold:
      guard case .string(let text) = n.value else {
        add(n.expected("a threshold such as \"seat.apply_to_response.p99 < 3s\""))
        return
      }
      do {
        _ = try Threshold.parse(text)
      } catch {
        add(n.error("\(error.message) in \"\(text)\""))
      }
    case .invariantID:
      let known = Checker.catalogue.map(\.id)
      guard case .string(let id) = n.value, known.contains(id) else {
        add(n.error("expected an invariant ID (\(known.joined(separator: ", "))), got \(n.value.shortDescription)"))
        return
      }
    case .section:
      object(n, table: table)
    case .objects:
      guard case .array = n.value else {
        add(n.expected("a list of objects"))
        return
      }
      for item in (try? n.array()) ?? [] { object(item, table: table + "[]") }
    case .faults:
      if case .object = n.value {
        object(n, table: table)
      } else {
        faultList(n)
      }
    case .faultList:
      faultList(n)
    case .faultTarget:
      guard case .string(let text) = n.value, FaultTarget.parse(text) != nil else {
        add(
          n.expected(
            "a target: all, user:N, users[A..B], room:N, rooms[A..B], role:audience|owner|admin|phone or fraction:P"))
        return
      }
    case .faultRate:
      if case .string("swarm") = n.value { return }
      attempt { () throws(ProfileError) in _ = try n.ratio() }
    }
  }

  /// A list of fault entries (nested lists stack) or `"swarm"`.
  mutating func faultList(_ n: ProfileNode) {
    if case .string(let s) = n.value {
      if s != "swarm" { add(n.expected("\"swarm\" or a list of faults")) }
      return
    }
    guard case .array = n.value else {
      add(n.expected("\"swarm\" or a list of faults"))
      return
    }
    for item in (try? n.array()) ?? [] {
      if case .array = item.value {
        faultList(item)
        continue
      }
      let before = errors.count
      object(item, table: "faults[]")
      // What one kind needs or refuses (a rate, parameters of other kinds) is the entry reader's.
      if errors.count == before { attempt { () throws(ProfileError) in _ = try Profile.readFault(item) } }
    }
  }
}
