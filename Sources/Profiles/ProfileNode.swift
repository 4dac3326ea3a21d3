import SimKernel

/// A value inside a profile together with its key path, with typed readers that fail with a
/// ``ProfileError`` naming that path.
public struct ProfileNode: Sendable {
  /// The dotted key path of this value.
  public let path: String
  /// The raw value.
  public let value: JSONValue

  /// Wraps `value` found at `path`.
  public init(path: String, value: JSONValue) {
    self.path = path
    self.value = value
  }

  /// An error at this node.
  public func error(_ message: String) -> ProfileError { ProfileError(path: path, message: message) }

  func expected(_ what: String) -> ProfileError { error("expected \(what), got \(value.shortDescription)") }

  /// Reads an object whose keys must all be consumed (see ``ProfileObject/finish()``).
  public func object() throws(ProfileError) -> ProfileObject {
    guard case .object(let dict) = value else { throw expected("an object") }
    return ProfileObject(path: path, fields: dict)
  }

  /// Reads an array.
  public func array() throws(ProfileError) -> [ProfileNode] {
    guard case .array(let items) = value else { throw expected("an array") }
    return items.enumerated().map { ProfileNode(path: "\(path)[\($0.offset)]", value: $0.element) }
  }

  /// Reads a string.
  public func string() throws(ProfileError) -> String {
    guard case .string(let s) = value else { throw expected("a string") }
    return s
  }

  /// Reads a boolean.
  public func bool() throws(ProfileError) -> Bool {
    guard case .bool(let b) = value else { throw expected("true or false") }
    return b
  }

  /// Reads a whole number in `range`.
  public func int(_ range: ClosedRange<Int64> = 0...Int64.max) throws(ProfileError) -> Int {
    let what: String
    if range.upperBound == Int64.max {
      what = "a whole number ≥ \(range.lowerBound)"
    } else {
      what = "a whole number from \(range.lowerBound) to \(range.upperBound)"
    }
    let i: Int64
    switch value {
    case .integer(let v): i = v
    case .number(let d) where d == d.rounded() && abs(d) < 9e15: i = Int64(d)
    default: throw expected(what)
    }
    guard range.contains(i) else { throw expected(what) }
    return Int(i)
  }

  /// Reads a 64-bit seed: a whole number or a string in decimal or `0x` hex.
  public func seed() throws(ProfileError) -> UInt64 {
    switch value {
    case .integer(let v) where v >= 0: return UInt64(v)
    case .string(let s):
      if let v = SeedFormat.parse(s) { return v }
    default: break
    }
    throw expected("a seed (a whole number ≥ 0, or a string such as \"0x1f\")")
  }

  /// Reads a duration string such as `"250ms"` or `"30m"`, at least `minimum`.
  public func duration(minimum: SimDuration = .zero) throws(ProfileError) -> SimDuration {
    let what = "a duration such as \"250ms\", \"1.5s\" or \"30m\""
    guard case .string(let s) = value, let d = DurationFormat.parse(s) else { throw expected(what) }
    guard d >= minimum else { throw error("must be at least \(minimum), got \(d)") }
    return d
  }

  /// Reads an exact probability: `0.05`, `"5%"` or `"1/20"`.
  public func ratio() throws(ProfileError) -> Ratio {
    let what = "a probability from 0 to 1 (0.05, \"5%\" or \"1/20\")"
    switch value {
    case .integer(let i):
      guard i == 0 || i == 1 else { throw expected(what) }
      return i == 0 ? .zero : .one
    case .number(let d):
      // Swift prints the shortest decimal that reads back as `d`: the digits the author wrote.
      guard let r = Ratio.parse(String(d)) else { throw expected(what) }
      return r
    case .string(let s):
      guard let r = Ratio.parse(s) else { throw expected(what) }
      return r
    default:
      throw expected(what)
    }
  }

  /// Reads a distribution, written as a string (`"lognormal(40ms, 0.6)"`, `"5s"`) or as an object
  /// (`{lognormal: {median: "40ms", sigma: 0.6}}`).
  public func distribution(_ quantity: Distribution.Quantity = .duration) throws(ProfileError) -> Distribution {
    switch value {
    case .string(let s):
      do {
        return try Distribution.parse(s, quantity: quantity)
      } catch {
        throw self.error(error.message)
      }
    case .integer, .number:
      if quantity == .number, let d = numberValue { return .constant(d) }
      throw expected("a distribution such as \"lognormal(40ms, 0.6)\" or a duration such as \"2s\"")
    case .object:
      return try DistributionObject.read(self, quantity: quantity)
    default:
      throw expected("a distribution such as \"lognormal(40ms, 0.6)\"")
    }
  }

  /// Reads a distribution that may be switched off with `null` or `"never"` (giving `nil`).
  public func optionalDistribution(_ quantity: Distribution.Quantity = .duration) throws(ProfileError) -> Distribution?
  {
    if case .null = value { return nil }
    if case .string("never") = value { return nil }
    return try distribution(quantity)
  }

  /// Reads a profile name: 1 to 64 letters, digits, `-` or `_`.
  public func profileName() throws(ProfileError) -> String {
    let name = try string()
    guard !name.isEmpty, name.count <= 64,
      name.unicodeScalars.allSatisfy({
        $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "_")
      })
    else {
      throw error("expected 1 to 64 letters, digits, '-' or '_', got \(value.shortDescription)")
    }
    return name
  }

  /// Reads a whole number in `range`, or `"unlimited"` (giving `nil`).
  public func wholeOrUnlimited(_ range: ClosedRange<Int64>) throws(ProfileError) -> Int? {
    if case .string("unlimited") = value { return nil }
    let what = "a whole number from \(range.lowerBound) to \(range.upperBound) or \"unlimited\""
    if case .string = value { throw expected(what) }
    guard case .integer(let i) = value, range.contains(i) else {
      if case .number(let d) = value, d == d.rounded(), abs(d) < 9e15, range.contains(Int64(d)) { return Int(d) }
      throw expected(what)
    }
    return Int(i)
  }

  /// Reads a whole number in `range`, or `"drawn"` (`nil`: the seed picks one).
  public func wholeOrDrawn(_ range: ClosedRange<Int64>) throws(ProfileError) -> Int? {
    if case .string("drawn") = value { return nil }
    guard case .string = value else {
      if let i = try? int(range) { return i }
      throw expected("a whole number from \(range.lowerBound) to \(range.upperBound) or \"drawn\"")
    }
    throw expected("a whole number from \(range.lowerBound) to \(range.upperBound) or \"drawn\"")
  }

  /// Reads a count per room: a whole number from 0 to 10,000,000 (a constant), or a
  /// distribution without units drawn per room.
  public func countDistribution() throws(ProfileError) -> Distribution {
    let what = "a whole number from 0 to 10000000 or a distribution such as \"lognormal(200, 1)\""
    switch value {
    case .integer(let n):
      guard (0...10_000_000).contains(n) else { throw expected(what) }
      return .constant(Double(n))
    case .string, .object:
      do {
        return try distribution(.number)
      } catch {
        throw self.error("expected \(what), got \(value.shortDescription) (\(error.message))")
      }
    default:
      throw expected(what)
    }
  }

  /// The value as a `Double`, if it is a number.
  var numberValue: Double? {
    switch value {
    case .integer(let i): return Double(i)
    case .number(let d): return d
    default: return nil
    }
  }

  /// Reads one of `T`'s raw values.
  public func oneOf<T: RawRepresentable & CaseIterable>(_ type: T.Type) throws(ProfileError) -> T
  where T.RawValue == String {
    let names = T.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
    guard case .string(let s) = value, let v = T(rawValue: s) else { throw expected("one of \(names)") }
    return v
  }
}

/// An object being read: every key must be read before ``finish()``, or it is reported as unknown.
public struct ProfileObject: Sendable {
  /// The object's key path.
  public let path: String
  let fields: [String: JSONValue]
  var read: [String] = []

  init(path: String, fields: [String: JSONValue]) {
    self.path = path
    self.fields = fields
  }

  func childPath(_ key: String) -> String { path.isEmpty ? key : path + "." + key }

  /// The value at `key`, if present (and not `null`).
  public mutating func optional(_ key: String) -> ProfileNode? {
    read.append(key)
    guard let v = fields[key], v != .null else { return nil }
    return ProfileNode(path: childPath(key), value: v)
  }

  /// The value at `key` if the key is there, even when its value is `null` (for settings where
  /// `null` means "off" rather than "default").
  public mutating func present(_ key: String) -> ProfileNode? {
    read.append(key)
    guard let v = fields[key] else { return nil }
    return ProfileNode(path: childPath(key), value: v)
  }

  /// The value at `key`; missing is an error.
  public mutating func required(_ key: String) throws(ProfileError) -> ProfileNode {
    guard let node = optional(key) else {
      throw ProfileError(path: childPath(key), message: "required key is missing")
    }
    return node
  }

  /// Reads `key` with `reader`, or returns `fallback` when it is absent.
  public mutating func get<T>(_ key: String, default fallback: T, _ reader: (ProfileNode) throws(ProfileError) -> T)
    throws(ProfileError) -> T
  {
    guard let node = optional(key) else { return fallback }
    return try reader(node)
  }

  /// Fails on the first key (in sorted order) that was never read, suggesting the closest known key.
  public func finish() throws(ProfileError) {
    for key in fields.keys.sorted() where !read.contains(key) {
      var message = "unknown key"
      if let near = KeySuggestion.closest(to: key, among: read) { message += "; did you mean \"\(near)\"?" }
      if !read.isEmpty { message += " (known keys here: \(read.joined(separator: ", ")))" }
      throw ProfileError(path: childPath(key), message: message)
    }
  }
}

/// The object spelling of distributions: `{lognormal: {median: "40ms", sigma: 0.6}}`.
enum DistributionObject {
  static func read(_ node: ProfileNode, quantity: Distribution.Quantity) throws(ProfileError) -> Distribution {
    var o = try node.object()
    let kinds = ["constant", "uniform", "exponential", "normal", "lognormal", "pareto", "empirical"]
    let present = kinds.filter { o.fields[$0] != nil }
    guard present.count == 1, let kind = present.first else {
      throw node.error("expected an object with exactly one of \(kinds.joined(separator: ", "))")
    }
    let body = try o.required(kind)
    try o.finish()
    func param(_ p: inout ProfileObject, _ key: String, _ q: Distribution.Quantity) throws(ProfileError) -> Double {
      let n = try p.required(key)
      switch q {
      case .duration:
        return Double(try n.duration().nanoseconds)
      case .number:
        guard let d = n.numberValue else { throw n.expected("a number") }
        return d
      }
    }
    let d: Distribution
    if kind == "empirical" {
      var points: [Distribution.EmpiricalPoint] = []
      for item in try body.array() {
        var p = try item.object()
        let probability = try param(&p, "p", .number)
        let value = try param(&p, "value", quantity)
        try p.finish()
        points.append(.init(probability: probability, value: value))
      }
      d = .empirical(points)
    } else {
      var p = try body.object()
      switch kind {
      case "constant": d = .constant(try param(&p, "value", quantity))
      case "uniform": d = .uniform(low: try param(&p, "low", quantity), high: try param(&p, "high", quantity))
      case "exponential": d = .exponential(mean: try param(&p, "mean", quantity))
      case "normal": d = .normal(mean: try param(&p, "mean", quantity), sd: try param(&p, "sd", quantity))
      case "lognormal":
        d = .lognormal(median: try param(&p, "median", quantity), sigma: try param(&p, "sigma", .number))
      default: d = .pareto(scale: try param(&p, "scale", quantity), shape: try param(&p, "shape", .number))
      }
      try p.finish()
    }
    if let reason = d.validationError() { throw body.error(reason) }
    return d
  }
}

/// Parsing and printing of 64-bit seeds (`42`, `0x2a`).
public enum SeedFormat {
  /// Parses a decimal or `0x`-prefixed hexadecimal seed.
  public static func parse(_ text: String) -> UInt64? {
    let t = text.trimmingSpaces.lowercased()
    if t.hasPrefix("0x") { return UInt64(t.dropFirst(2), radix: 16) }
    return UInt64(t)
  }

  /// The canonical spelling: `0x` followed by lowercase hex.
  public static func format(_ seed: UInt64) -> String { "0x" + String(seed, radix: 16) }
}
