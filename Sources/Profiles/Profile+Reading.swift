import Chaos
import Clients
import Foundation
import LiveStack
import Metrics
import Oracles
import SimKernel

extension Profile {
  /// Reads and validates a profile file. Throws ``ProfileError`` naming the file and key path.
  public static func load(path: String) throws(ProfileError) -> (profile: Profile, data: Data) {
    try load(path: path, sets: [])
  }

  /// Reads and validates a profile file, with the profiles it `extends` merged in and `--set`
  /// overrides (`key.path=value`, in order) applied. Throws ``ProfileError`` naming the file and
  /// key path, with every other error of the file in ``ProfileError/others``. `data` is the
  /// merged profile's canonical text, before overrides and defaults: what ``parse(_:overrides:)``
  /// and ``resolvedText(_:sets:)`` take.
  public static func load(path: String, sets: [String]) throws(ProfileError) -> (profile: Profile, data: Data) {
    let merged = try ProfileSource.tree(path: path)
    let data = Data(ProfileKeys.canonicalText(merged).utf8)
    do {
      return (try parse(tree: merged, overrides: try sets.map(parseSet)), data)
    } catch var e {
      e.setFile(path)
      throw e
    }
  }

  /// The resolved profile of a file (its bases merged, overrides applied, every default written
  /// in), after checking it as ``load(path:sets:)`` does.
  public static func resolved(path: String, sets: [String] = []) throws(ProfileError) -> JSONValue {
    let merged = try ProfileSource.tree(path: path)
    let tree: JSONValue
    do {
      tree = try applying(sets, to: merged)
      _ = try parse(tree: tree, overrides: [])
    } catch var e {
      e.setFile(path)
      throw e
    }
    return ProfileKeys.resolve(tree)
  }

  /// The text the profile's sha256 covers: its resolved text (bases merged, `sets` applied,
  /// every default written in), so the same profile has the same fingerprint however it is
  /// spelled, and `stampede profile show`'s output has its source's. `nil` for text that does
  /// not parse.
  public static func resolvedText(_ data: Data, sets: [String]) -> String? {
    guard var tree = try? JSONValue.parse(json5: data) else { return nil }
    do {
      tree = try applying(sets, to: try ProfileSource.extending(tree, file: nil))
    } catch {
      return nil
    }
    return ProfileKeys.canonicalText(ProfileKeys.resolve(tree))
  }

  /// `tree` with the `--set` overrides `sets` (`key.path=value`, in order) applied.
  public static func applying(_ sets: [String], to tree: JSONValue) throws(ProfileError) -> JSONValue {
    var t = tree
    for o in try sets.map(parseSet) { t = try t.setting(o.path, to: o.value) }
    return t
  }

  /// Reads one `--set key.path=value`: the value is JSON5 when it starts with `{`, `[` or a
  /// quote, else a number, `true`, `false`, `null` or a plain string (`90s`, `"swarm"` alike).
  public static func parseSet(_ text: String) throws(ProfileError) -> (path: String, value: JSONValue) {
    guard let eq = text.firstIndex(of: "="), eq != text.startIndex else {
      throw ProfileError(path: "", message: "--set: expected key.path=value, got '\(text)'")
    }
    let path = String(text[..<eq])
    let raw = String(text[text.index(after: eq)...])
    guard let first = raw.first, "{[\"'".contains(first) else { return (path, JSONValue.literal(raw)) }
    do {
      return (path, try JSONValue.parse(json5: Data(raw.utf8)))
    } catch {
      throw ProfileError(path: path, message: "--set: the value is not valid JSON5: \(raw)")
    }
  }

  /// Parses and validates profile text.
  public static func parse(_ data: Data) throws(ProfileError) -> Profile { try parse(data, overrides: []) }

  /// Parses profile text with `overrides` (dotted key path, value) applied first; an override
  /// that makes the profile invalid fails like any profile error. An `extends` in the text is
  /// read relative to the current directory.
  public static func parse(_ data: Data, overrides: [(path: String, value: JSONValue)]) throws(ProfileError) -> Profile
  {
    let root: JSONValue
    do {
      root = try JSONValue.parse(json5: data)
    } catch {
      throw ProfileError.syntax(error)
    }
    return try parse(tree: try ProfileSource.extending(root, file: nil), overrides: overrides)
  }

  /// Checks a profile tree against ``ProfileKeys`` (every error at once: the first is thrown, the
  /// rest are in its ``ProfileError/others``), then reads it with every default written in.
  public static func parse(tree: JSONValue, overrides: [(path: String, value: JSONValue)]) throws(ProfileError)
    -> Profile
  {
    var root = tree
    // The sections an override made, which the profile does not have (by the override's path).
    var made: [(section: String, by: String)] = []
    for o in overrides {
      let keys = o.path.split(separator: ".")
      let sections = (1..<max(1, keys.count)).map { keys[..<$0].joined(separator: ".") }
      if let missing = sections.first(where: { root.value(at: $0) == nil }) { made.append((missing, o.path)) }
      root = try root.setting(o.path, to: o.value)
    }
    var errors = ProfileKeys.check(root)
    for (i, e) in errors.enumerated() where e.message == "required key is missing" {
      // A key missing from a section an override made: say so, rather than blame the profile.
      if let m = made.first(where: { e.path.hasPrefix($0.section + ".") }) {
        errors[i].message +=
          " (the profile has no \(m.section) section: --set \(m.by) starts one, which needs this key too)"
      }
    }
    if var first = errors.first {
      first.others = Array(errors.dropFirst())
      throw first
    }
    return try read(ProfileNode(path: "", value: ProfileKeys.resolve(root)))
  }

  /// Validates a parsed document.
  public static func read(_ node: ProfileNode) throws(ProfileError) -> Profile {
    var o = try node.object()
    let name = try o.required("name").profileName()
    let description = try o.get("description", default: "") { n throws(ProfileError) in try n.string() }
    let duration = try o.required("duration").duration(minimum: .nanoseconds(1))
    let seed = try o.get("seed", default: 1) { n throws(ProfileError) in try n.seed() }
    var maxEvents: Int64 = 2_000_000_000
    if var limits = try o.optional("limits")?.object() {
      maxEvents = Int64(
        try limits.get("maxEvents", default: Int(maxEvents)) { n throws(ProfileError) in try n.int(1...Int64.max) })
      try limits.finish()
    }
    let population = try readPopulation(o.required("population"))
    let arrival = try o.get("arrival", default: Arrival.closed) { n throws(ProfileError) in try readArrival(n) }
    let seats = try readSeats(o.required("seats"))
    let audience = try readAudience(o.required("audience"), seats: seats)
    let host = try readHost(o.required("host"), base: nil)
    var adminBase = host
    adminBase.endLiveAfter = nil
    let admin = try o.get("admin", default: adminBase) { n throws(ProfileError) in try readHost(n, base: adminBase) }
    let devices = try o.get(
      "devices", default: Devices(openTime: .lognormal(median: 150e6, sigma: 0.3), failures: .none)
    ) {
      n throws(ProfileError) in try readDevices(n)
    }
    let network = try o.get("network", default: Network(clientServer: .lognormal(median: 40e6, sigma: 0.4))) {
      n throws(ProfileError) in try readNetwork(n)
    }
    let server = try o.get("server", default: ServerCapacity()) { n throws(ProfileError) in try readServer(n) }
    let workload = try o.get("workload", default: Workload(flashCrowd: nil, coHosting: nil)) {
      n throws(ProfileError) in try readWorkload(n)
    }
    var sampleEvery = SimDuration.seconds(10)
    if var ts = try o.optional("timeSeries")?.object() {
      sampleEvery = try ts.get("interval", default: sampleEvery) { n throws(ProfileError) in
        try n.duration(minimum: .milliseconds(1))
      }
      try ts.finish()
    }
    var thresholds: [Threshold] = []
    if let list = try o.optional("thresholds")?.array() {
      for item in list {
        guard case .string(let text) = item.value else {
          throw item.expected("a threshold such as \"seat.apply_to_response.p99 < 3s\"")
        }
        do {
          thresholds.append(try Threshold.parse(text))
        } catch {
          throw item.error("\(error.message) in \"\(text)\"")
        }
      }
    }
    let calls = try o.optional("calls").map { n throws(ProfileError) in try readCalls(n) }
    var invariantsOff = Set<String>()
    var livenessSlack = SimDuration.seconds(5)
    if var inv = try o.optional("invariants")?.object() {
      livenessSlack = try inv.get("livenessSlack", default: livenessSlack) { n throws(ProfileError) in
        try n.duration()
      }
      if let list = try inv.optional("off")?.array() {
        let known = Checker.catalogue.map(\.id)
        for item in list {
          guard case .string(let id) = item.value, known.contains(id) else {
            throw item.error(
              "expected an invariant ID (\(known.joined(separator: ", "))), got \(item.value.shortDescription)")
          }
          invariantsOff.insert(id)
        }
      }
      try inv.finish()
    }
    var quirks = Set<SDKQuirk>()
    if let list = try o.optional("quirks")?.array() {
      for item in list { quirks.insert(try item.oneOf(SDKQuirk.self)) }
    }
    var faults = try o.optional("faults").map { n throws(ProfileError) in try readFaults(n) } ?? FaultPlan()
    if let list = try o.optional("explore")?.array() {
      for item in list { faults.steered.append(try readSteered(item)) }
    }
    var mistakes = Set<ClientMistake>()
    if let list = try o.optional("mistakes")?.array() {
      for item in list { mistakes.insert(try item.oneOf(ClientMistake.self)) }
    }
    try o.finish()
    var profile = Profile(
      name: name, description: description, duration: duration, defaultSeed: seed, maxEvents: maxEvents,
      population: population, arrival: arrival, seats: seats, audience: audience, host: host, admin: admin,
      devices: devices, network: network, workload: workload, sampleEvery: sampleEvery)
    profile.thresholds = thresholds
    profile.server = server
    profile.quirks = quirks
    profile.mistakes = mistakes
    profile.faults = faults
    if !faults.healGiven { profile.faults.heal = min(.minutes(2), SimDuration(nanoseconds: duration.nanoseconds / 5)) }
    if faults.healGiven && faults.heal >= duration {
      throw ProfileError(path: "faults.heal", message: "must be shorter than the duration (\(duration))")
    }
    profile.invariantsOff = invariantsOff
    profile.livenessSlack = livenessSlack
    profile.calls = calls
    let expected =
      Double(population.rooms) * (1 + Double(population.adminsPerRoom) + population.audiencePerRoom.mean)
      + Double(calls?.users ?? 0)
    guard expected < Double(Layout.maxUsers) else {
      throw ProfileError(
        path: "population",
        message: "about \(Int(expected.rounded())) users expected in total; a run holds fewer than \(Layout.maxUsers)")
    }
    return profile
  }
}
