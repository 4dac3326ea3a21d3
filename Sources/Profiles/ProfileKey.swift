import SimKernel

/// One key of a profile: where it is, what it holds, what it is when left out, and what it means.
///
/// ``ProfileKeys`` lists them all. Parsing fills every default from it, `validate` checks a file
/// against it (reporting every error), and `stampede profile show`, `profile schema`, `profile
/// keys` and the key tables of docs/PROFILES.md are written from it.
public struct ProfileKey: Sendable {
  /// The dotted path, with `[]` for the items of a list (`calls.push.certificates[].id`) and
  /// `<service>` for each of `seats`, `login`, `calls` and `push` (`server.<service>.workers`).
  public let path: String
  /// What the value must be.
  public let kind: Kind
  /// What leaving the key out means.
  public let fallback: Fallback
  /// One line on what it does.
  public let meaning: String

  /// What a key's value must be.
  public indirect enum Kind: Sendable {
    /// Any string.
    case string
    /// 1 to 64 letters, digits, `-` or `_`.
    case name
    /// `true` or `false`.
    case bool
    /// A 64-bit seed: a whole number or a string in decimal or `0x` hex.
    case seed
    /// A whole number in the range.
    case whole(ClosedRange<Int64>)
    /// A whole number in the range, or `"unlimited"`.
    case wholeOrUnlimited(ClosedRange<Int64>)
    /// A whole number in the range, or `"drawn"` (the seed picks one).
    case wholeOrDrawn(ClosedRange<Int64>)
    /// A duration string, at least `minimum`.
    case duration(minimum: SimDuration = .zero)
    /// An exact probability: `0.05`, `"5%"`, `"1/20"`.
    case probability
    /// A distribution of durations.
    case distribution
    /// A distribution of durations, or `null`/`"never"` for off.
    case optionalDistribution
    /// Viewers per room: a whole number from 0 to 10,000,000, or a distribution without units.
    case countDistribution
    /// One of these strings.
    case choice([String])
    /// A list of values of the kind (`nonEmpty`: at least one).
    case list(Kind, nonEmpty: Bool = false)
    /// A threshold expression.
    case threshold
    /// An invariant ID of the catalogue.
    case invariantID
    /// A path to a base profile, relative to the profile that names it.
    case profilePath
    /// An object whose keys are listed under it; `filled`: left out, it is there with its
    /// defaults (otherwise leaving it out switches what it configures off).
    case section(filled: Bool)
    /// A list of objects whose keys are listed under `path[]`.
    case objects
    /// The fault plan: a list of entries (nested lists stack), `"swarm"`, or `{heal, plan}`.
    case faults
    /// Fault entries: a list (nested lists stack) or `"swarm"`.
    case faultList
    /// A fault's target: `all`, `user:N`, `users[A..B]`, `room:N`, `rooms[A..B]`, `role:R`, `fraction:P`.
    case faultTarget
    /// A fault's rate: a probability, or `"swarm"`.
    case faultRate
  }

  /// What leaving a key out means.
  public enum Fallback: Sendable {
    /// It must be given.
    case required
    /// It must be given in the case described (`"for poisson and ramp"`); otherwise unused.
    case requiredWhen(String)
    /// This value.
    case value(JSONValue)
    /// Off (`null` in the resolved profile).
    case off
    /// The resolved value of another key.
    case sameAs(String)
    /// Worked out from other keys, as described; not written into the resolved profile.
    case derived(String)
  }

  init(_ path: String, _ kind: Kind, _ fallback: Fallback, _ meaning: String) {
    self.path = path
    self.kind = kind
    self.fallback = fallback
    self.meaning = meaning
  }

  /// The same key at another path.
  func moved(to path: String, fallback: Fallback? = nil) -> ProfileKey {
    ProfileKey(path, kind, fallback ?? self.fallback, meaning)
  }

  /// The last component of the path (`workers`, `id`).
  public var name: String {
    let afterDot = path.split(separator: ".").last.map(String.init) ?? path
    return afterDot.hasSuffix("[]") ? String(afterDot.dropLast(2)) : afterDot
  }

  /// The path of the object holding the key: `server.seats` for `server.seats.workers`,
  /// `calls.push.certificates[]` for `calls.push.certificates[].id`, `""` at the top.
  public var parent: String {
    guard let dot = path.lastIndex(of: ".") else { return "" }
    return String(path[..<dot])
  }
}

extension ProfileKeys {
  /// Every key: the documented ones with `server.<service>` expanded for each service, the
  /// general ones, and `admin`, which takes the host's keys (each defaulting to the host's value,
  /// except `endLiveAfter`, which only owners use).
  public static let all: [ProfileKey] = {
    var out: [ProfileKey] = []
    for (_, keys) in documented {
      for k in keys {
        if k.path.hasPrefix("server.<service>") {
          for s in services { out.append(k.moved(to: k.path.replacingOccurrences(of: "<service>", with: s))) }
        } else {
          out.append(k)
        }
        if k.path == "host" {
          out.append(
            ProfileKey(
              "admin", .section(filled: true), .value([:]),
              "room admins: the host's keys, each defaulting to the host's value"))
        }
      }
    }
    let hostKeys = out.filter { $0.parent == "host" }
    for k in hostKeys {
      let path = "admin." + k.name
      out.append(k.moved(to: path, fallback: k.name == "endLiveAfter" ? .off : .sameAs(k.path)))
    }
    return out + general
  }()

  /// Keys by path.
  public static let byPath: [String: ProfileKey] = Dictionary(
    all.map { ($0.path, $0) }, uniquingKeysWith: { a, _ in a })

  /// The keys of each object, by the object's path (`""` for the top level), in table order.
  public static let children: [String: [ProfileKey]] = Dictionary(grouping: all, by: \.parent)

  /// The table path of a profile node's path: list indexes become `[]` (`faults.plan[2][0]`
  /// stays a fault entry: `faults[]`).
  public static func tablePath(_ nodePath: String) -> String {
    var out = ""
    var inIndex = false
    for c in nodePath {
      if c == "[" {
        inIndex = true
        out.append("[")
      } else if c == "]" {
        inIndex = false
        out.append("]")
      } else if !inIndex {
        out.append(c)
      }
    }
    return out
  }
}
