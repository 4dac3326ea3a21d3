import Foundation

/// A parsed JSON (or JSON5) document, before any schema is applied.
public indirect enum JSONValue: Decodable, Equatable, Sendable {
  /// `null`.
  case null
  /// `true` or `false`.
  case bool(Bool)
  /// A number written without a fraction or exponent that fits an `Int64`.
  case integer(Int64)
  /// Any other number.
  case number(Double)
  /// A string.
  case string(String)
  /// An array.
  case array([JSONValue])
  /// An object; keys are read through a schema, never iterated in hash order.
  case object([String: JSONValue])

  public init(from decoder: Decoder) throws {
    let c = try decoder.singleValueContainer()
    if c.decodeNil() {
      self = .null
    } else if let b = try? c.decode(Bool.self) {
      self = .bool(b)
    } else if let i = try? c.decode(Int64.self) {
      self = .integer(i)
    } else if let d = try? c.decode(Double.self) {
      self = .number(d)
    } else if let s = try? c.decode(String.self) {
      self = .string(s)
    } else if let a = try? c.decode([JSONValue].self) {
      self = .array(a)
    } else {
      self = .object(try c.decode([String: JSONValue].self))
    }
  }

  /// Parses JSON5 text (comments, trailing commas, unquoted keys, single quotes allowed).
  /// A syntax error is a ``JSON5SyntaxError`` with its line, column and a caret under the spot;
  /// a key given twice in one object is one too.
  public static func parse(json5 data: Data) throws -> JSONValue {
    try JSON5Parser.parse(data)
  }

  /// The value as it would be written, for error messages: `"ten"`, `10.5`, `true`, `[…]`, `{…}`.
  public var shortDescription: String {
    switch self {
    case .null: return "null"
    case .bool(let b): return b ? "true" : "false"
    case .integer(let i): return String(i)
    case .number(let d): return String(d)
    case .string(let s): return "\"" + (s.count > 40 ? String(s.prefix(40)) + "…" : s) + "\""
    case .array: return "an array"
    case .object: return "an object"
    }
  }
}

extension JSONValue {
  /// A copy with the value at the dotted `path` (`seats.packageLimit`; `faults.plan[2].rate` for
  /// an entry of a list) replaced by `value`, creating objects along the way. Fails if the path
  /// crosses something that is not an object (or, at a position, a list that has that entry).
  public func setting(_ path: String, to value: JSONValue) throws(ProfileError) -> JSONValue {
    guard let keys = JSONValue.pathSteps(path) else {
      throw ProfileError(
        path: path, message: "expected a dotted key path such as seats.packageLimit or faults.plan[0].rate")
    }
    return try set(keys[...], value, walked: "")
  }

  /// The steps of a key path: object keys, and list positions written `[N]` after a key
  /// (`faults.plan[2].rate` is `faults`, `plan`, `[2]`, `rate`); nil if a step is empty or a
  /// position is not a whole number.
  static func pathSteps(_ path: String) -> [String]? {
    var steps: [String] = []
    for part in path.split(separator: ".", omittingEmptySubsequences: false) {
      var rest = part
      let name = rest.prefix { $0 != "[" }
      guard !name.isEmpty else { return nil }
      steps.append(String(name))
      rest = rest.dropFirst(name.count)
      while rest.first == "[" {
        guard let close = rest.firstIndex(of: "]"), let n = Int(rest[rest.index(after: rest.startIndex)..<close]),
          n >= 0
        else { return nil }
        steps.append("[\(n)]")
        rest = rest[rest.index(after: close)...]
      }
      guard rest.isEmpty else { return nil }
    }
    return steps.isEmpty ? nil : steps
  }

  func set(_ keys: ArraySlice<String>, _ value: JSONValue, walked: String) throws(ProfileError) -> JSONValue {
    guard let key = keys.first else { return value }
    if key.hasPrefix("[") {
      // A list position: the entry must be there already.
      let here = walked + key
      let n = Int(key.dropFirst().dropLast())!
      guard case .array(var entries) = self else {
        throw ProfileError(path: walked, message: "cannot set \(here): \(walked) is \(shortDescription), not a list")
      }
      guard n < entries.count else {
        throw ProfileError(
          path: walked,
          message:
            "cannot set \(here): \(walked) has \(entries.count) entr\(entries.count == 1 ? "y" : "ies") (positions from 0)"
        )
      }
      entries[n] = try entries[n].set(keys.dropFirst(), value, walked: here)
      return .array(entries)
    }
    let here = walked.isEmpty ? key : walked + "." + key
    var fields: [String: JSONValue]
    switch self {
    case .object(let f): fields = f
    case .null: fields = [:]
    default:
      throw ProfileError(path: walked, message: "cannot set \(here): \(walked) is \(shortDescription), not an object")
    }
    fields[key] = try (fields[key] ?? .null).set(keys.dropFirst(), value, walked: here)
    return .object(fields)
  }

  /// Reads a command-line value: a whole number, a number, `true`/`false`, `null`, or else a string.
  public static func literal(_ text: String) -> JSONValue {
    if let i = Int64(text) { return .integer(i) }
    if let d = Double(text), d.isFinite { return .number(d) }
    switch text {
    case "true": return .bool(true)
    case "false": return .bool(false)
    case "null": return .null
    default: return .string(text)
    }
  }
}

extension JSONValue {
  /// A copy without the key at the dotted `path` (unchanged if it is absent). Fails if the path
  /// crosses something that is not an object.
  public func removing(_ path: String) throws(ProfileError) -> JSONValue {
    let keys = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    guard keys.allSatisfy({ !$0.isEmpty }) else {
      throw ProfileError(path: path, message: "expected a dotted key path such as seats.packageLimit")
    }
    return try remove(keys[...], walked: "")
  }

  func remove(_ keys: ArraySlice<String>, walked: String) throws(ProfileError) -> JSONValue {
    guard case .object(var fields) = self else {
      throw ProfileError(path: walked, message: "cannot remove a key under \(walked): it is \(shortDescription)")
    }
    let key = keys.first!
    guard let child = fields[key] else { return self }
    if keys.count == 1 {
      fields.removeValue(forKey: key)
    } else {
      fields[key] = try child.remove(keys.dropFirst(), walked: walked.isEmpty ? key : walked + "." + key)
    }
    return .object(fields)
  }

  /// The value at the dotted `path`, if every step is an object that has the key.
  public func value(at path: String) -> JSONValue? {
    var here = self
    for key in path.split(separator: ".") {
      guard case .object(let fields) = here, let next = fields[String(key)] else { return nil }
      here = next
    }
    return here
  }
}

/// Literals, for building profiles in code: `tree.setting("seats.packageLimit", to: 8)`.
extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
  ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
  /// A string.
  public init(stringLiteral value: String) { self = .string(value) }
  /// A whole number.
  public init(integerLiteral value: Int64) { self = .integer(value) }
  /// A number.
  public init(floatLiteral value: Double) { self = .number(value) }
  /// `true` or `false`.
  public init(booleanLiteral value: Bool) { self = .bool(value) }
  /// An array.
  public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
  /// An object.
  public init(dictionaryLiteral elements: (String, JSONValue)...) {
    self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
  }
}
