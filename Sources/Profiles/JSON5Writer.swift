/// Writes a JSON document as JSON5 text with sorted keys: the same document always gives the same
/// bytes, so the text of a resolved profile is its canonical form (its sha256 is the profile's).
public enum JSON5Writer {
  /// `value` as indented text.
  public static func write(_ value: JSONValue, indent: String = "") -> String {
    write(value, indent: indent, path: "", comment: nil)
  }

  /// `value` as indented text with a comment line above each key for which `comment` gives one
  /// (called with the key's dotted path, list indexes as `[i]`).
  public static func write(
    _ value: JSONValue, indent: String, path: String, comment: ((String) -> String?)?
  ) -> String {
    switch value {
    case .null: return "null"
    case .bool(let b): return b ? "true" : "false"
    case .integer(let i): return String(i)
    case .number(let d): return d.isFinite ? "\(d)" : "null"
    case .string(let s): return quote(s)
    case .array(let items):
      if items.isEmpty { return "[]" }
      let inner = indent + "  "
      return "[\n"
        + items.enumerated().map { i, item in
          inner + write(item, indent: inner, path: "\(path)[\(i)]", comment: comment) + ",\n"
        }.joined() + indent + "]"
    case .object(let fields):
      if fields.isEmpty { return "{}" }
      let inner = indent + "  "
      var out = "{\n"
      for key in fields.keys.sorted() {
        let child = path.isEmpty ? key : path + "." + key
        if let note = comment?(child) {
          for line in note.split(separator: "\n", omittingEmptySubsequences: false) {
            out += inner + "// " + line + "\n"
          }
        }
        out += inner + name(key) + ": " + write(fields[key]!, indent: inner, path: child, comment: comment) + ",\n"
      }
      return out + indent + "}"
    }
  }

  /// `value` as indented JSON (quoted keys, sorted; no trailing commas), for JSON tools.
  public static func json(_ value: JSONValue, indent: String = "") -> String {
    switch value {
    case .array(let items):
      if items.isEmpty { return "[]" }
      let inner = indent + "  "
      return "[\n" + items.map { inner + json($0, indent: inner) }.joined(separator: ",\n") + "\n" + indent + "]"
    case .object(let fields):
      if fields.isEmpty { return "{}" }
      let inner = indent + "  "
      return "{\n"
        + fields.keys.sorted().map { inner + quote($0) + ": " + json(fields[$0]!, indent: inner) }.joined(
          separator: ",\n")
        + "\n" + indent + "}"
    default:
      return write(value)
    }
  }

  /// A key as written: bare when it is an identifier, quoted otherwise.
  static func name(_ key: String) -> String {
    guard let first = key.unicodeScalars.first, first == "_" || first == "$" || first.properties.isAlphabetic,
      key.unicodeScalars.allSatisfy({
        $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" || $0 == "$")
      })
    else { return quote(key) }
    return key
  }

  /// A JSON string literal.
  public static func quote(_ s: String) -> String { "\"" + escape(s) + "\"" }

  /// `s` escaped for the inside of a JSON string: quotes, backslashes and control characters.
  public static func escape(_ s: String) -> String {
    var out = ""
    for u in s.unicodeScalars {
      switch u {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      case "\n": out += "\\n"
      default:
        if u.value < 0x20 {
          let hex = String(u.value, radix: 16)
          out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        } else {
          out.unicodeScalars.append(u)
        }
      }
    }
    return out
  }
}
