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
  public static func parse(json5 data: Data) throws -> JSONValue {
    let decoder = JSONDecoder()
    decoder.allowsJSON5 = true
    return try decoder.decode(JSONValue.self, from: data)
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
  /// A copy with the value at the dotted `path` (`seats.packageLimit`) replaced by `value`,
  /// creating objects along the way. Fails if the path crosses something that is not an object.
  public func setting(_ path: String, to value: JSONValue) throws(ProfileError) -> JSONValue {
    let keys = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    guard !keys.isEmpty, keys.allSatisfy({ !$0.isEmpty }) else {
      throw ProfileError(path: path, message: "expected a dotted key path such as seats.packageLimit")
    }
    return try set(keys[...], value, walked: "")
  }

  func set(_ keys: ArraySlice<String>, _ value: JSONValue, walked: String) throws(ProfileError) -> JSONValue {
    guard let key = keys.first else { return value }
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
