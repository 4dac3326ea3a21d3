import Foundation

/// A JSON5 syntax error: where it is (line and column from 1, counted in characters) and what was
/// expected, with the line and a caret under the spot.
public struct JSON5SyntaxError: Error, Equatable, Sendable, CustomStringConvertible {
  /// Line, from 1.
  public var line: Int
  /// Column, from 1.
  public var column: Int
  /// What was wrong.
  public var reason: String
  /// The offending line of the text, and a caret under the column.
  public var excerpt: String

  public var description: String { "line \(line), column \(column): \(reason)\n\(excerpt)" }
}

/// A JSON5 parser (json5.org: comments, trailing commas, unquoted and single-quoted keys and
/// strings, hexadecimal, leading or trailing decimal points, `+`, `Infinity`, `NaN`, escaped line
/// breaks) that says where an error is, and refuses a key given twice in one object, which a
/// dictionary-based decoder would silently let the last one win.
///
/// A number without a fraction or an exponent that fits an `Int64` (hexadecimal too) is
/// ``JSONValue/integer(_:)``; any other is ``JSONValue/number(_:)``.
struct JSON5Parser {
  let bytes: [UInt8]
  var i = 0
  /// Nesting depth, bounded so that a hostile file cannot exhaust the stack.
  var depth = 0
  static let maxDepth = 200

  init(_ data: Data) { bytes = [UInt8](data) }

  static func parse(_ data: Data) throws(JSON5SyntaxError) -> JSONValue {
    var p = JSON5Parser(data)
    if p.bytes.starts(with: [0xEF, 0xBB, 0xBF]) { p.i = 3 }  // a UTF-8 byte-order mark
    try p.skipSpace()
    let value = try p.value()
    try p.skipSpace()
    guard p.i == p.bytes.count else { throw p.error("expected the end of the file after the top-level value") }
    return value
  }

  // MARK: - Errors

  func error(_ reason: String, at position: Int? = nil) -> JSON5SyntaxError {
    let at = min(position ?? i, bytes.count)
    var lineStart = 0
    var line = 1
    for k in 0..<at where bytes[k] == 0x0A {
      line += 1
      lineStart = k + 1
    }
    var lineEnd = at
    while lineEnd < bytes.count && bytes[lineEnd] != 0x0A && bytes[lineEnd] != 0x0D { lineEnd += 1 }
    let before = String(decoding: bytes[lineStart..<at], as: UTF8.self)
    let text = String(decoding: bytes[lineStart..<lineEnd], as: UTF8.self)
    let column = before.count + 1
    let caret = String(before.map { $0 == "\t" ? "\t" : " " }) + "^"
    return JSON5SyntaxError(
      line: line, column: column, reason: reason, excerpt: "  \(text.prefix(200))\n  \(caret)")
  }

  var current: String {
    guard i < bytes.count else { return "the end of the file" }
    let b = bytes[i]
    if b >= 0x20 && b < 0x7F { return "'\(Character(UnicodeScalar(b)))'" }
    return String(format: "byte 0x%02X", b)
  }

  // MARK: - Space and comments

  mutating func skipSpace() throws(JSON5SyntaxError) {
    while i < bytes.count {
      let b = bytes[i]
      if b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D || b == 0x0B || b == 0x0C {
        i += 1
      } else if b == 0xC2 && i + 1 < bytes.count && bytes[i + 1] == 0xA0 {
        i += 2  // no-break space
      } else if b == 0xE2 && i + 2 < bytes.count && bytes[i + 1] == 0x80
        && (bytes[i + 2] == 0xA8 || bytes[i + 2] == 0xA9)
      {
        i += 3  // line and paragraph separators
      } else if b == 0xEF && i + 2 < bytes.count && bytes[i + 1] == 0xBB && bytes[i + 2] == 0xBF {
        i += 3  // byte-order mark
      } else if b == UInt8(ascii: "/") && i + 1 < bytes.count && bytes[i + 1] == UInt8(ascii: "/") {
        while i < bytes.count && bytes[i] != 0x0A { i += 1 }
      } else if b == UInt8(ascii: "/") && i + 1 < bytes.count && bytes[i + 1] == UInt8(ascii: "*") {
        let start = i
        i += 2
        while i + 1 < bytes.count && !(bytes[i] == UInt8(ascii: "*") && bytes[i + 1] == UInt8(ascii: "/")) { i += 1 }
        guard i + 1 < bytes.count else { throw error("a /* comment is never closed", at: start) }
        i += 2
      } else {
        return
      }
    }
  }

  // MARK: - Values

  mutating func value() throws(JSON5SyntaxError) -> JSONValue {
    guard i < bytes.count else { throw error("expected a value, found the end of the file") }
    switch bytes[i] {
    case UInt8(ascii: "{"): return try object()
    case UInt8(ascii: "["): return try array()
    case UInt8(ascii: "\""), UInt8(ascii: "'"): return .string(try string())
    case UInt8(ascii: "t"): return try word("true", .bool(true))
    case UInt8(ascii: "f"): return try word("false", .bool(false))
    case UInt8(ascii: "n"): return try word("null", .null)
    default: return try number()
    }
  }

  mutating func word(_ w: String, _ v: JSONValue) throws(JSON5SyntaxError) -> JSONValue {
    let u = Array(w.utf8)
    guard bytes.count - i >= u.count, Array(bytes[i..<i + u.count]) == u, !isIdentifierPart(at: i + u.count) else {
      throw error("expected a value (a string must be quoted), found \(current)")
    }
    i += u.count
    return v
  }

  mutating func nest() throws(JSON5SyntaxError) {
    depth += 1
    guard depth <= JSON5Parser.maxDepth else { throw error("nested more than \(JSON5Parser.maxDepth) levels deep") }
  }

  mutating func object() throws(JSON5SyntaxError) -> JSONValue {
    try nest()
    i += 1
    var fields: [String: JSONValue] = [:]
    var firstAt: [String: Int] = [:]
    while true {
      try skipSpace()
      guard i < bytes.count else { throw error("an object is never closed: expected '}'") }
      if bytes[i] == UInt8(ascii: "}") {
        i += 1
        depth -= 1
        return .object(fields)
      }
      let keyAt = i
      let key = try objectKey()
      if let first = firstAt[key] {
        throw error(
          "the key \"\(key)\" is given twice in one object (first on line \(error("", at: first).line))", at: keyAt)
      }
      firstAt[key] = keyAt
      try skipSpace()
      guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else {
        throw error("expected ':' after the key \"\(key)\", found \(current)")
      }
      i += 1
      try skipSpace()
      fields[key] = try value()
      try skipSpace()
      guard i < bytes.count else { throw error("an object is never closed: expected ',' or '}'") }
      if bytes[i] == UInt8(ascii: ",") {
        i += 1
      } else if bytes[i] != UInt8(ascii: "}") {
        throw error("expected ',' or '}' after the value of \"\(key)\", found \(current)")
      }
    }
  }

  mutating func objectKey() throws(JSON5SyntaxError) -> String {
    if bytes[i] == UInt8(ascii: "\"") || bytes[i] == UInt8(ascii: "'") { return try string() }
    guard isIdentifierStart(at: i) else { throw error("expected a key or '}', found \(current)") }
    let start = i
    while i < bytes.count && isIdentifierPart(at: i) { i += 1 }
    return String(decoding: bytes[start..<i], as: UTF8.self)
  }

  func isIdentifierStart(at k: Int) -> Bool {
    guard k < bytes.count else { return false }
    let b = bytes[k]
    return (b >= UInt8(ascii: "a") && b <= UInt8(ascii: "z")) || (b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z"))
      || b == UInt8(ascii: "_") || b == UInt8(ascii: "$") || b >= 0x80
  }

  func isIdentifierPart(at k: Int) -> Bool {
    guard k < bytes.count else { return false }
    return isIdentifierStart(at: k) || (bytes[k] >= UInt8(ascii: "0") && bytes[k] <= UInt8(ascii: "9"))
  }

  mutating func array() throws(JSON5SyntaxError) -> JSONValue {
    try nest()
    i += 1
    var items: [JSONValue] = []
    while true {
      try skipSpace()
      guard i < bytes.count else { throw error("an array is never closed: expected ']'") }
      if bytes[i] == UInt8(ascii: "]") {
        i += 1
        depth -= 1
        return .array(items)
      }
      items.append(try value())
      try skipSpace()
      guard i < bytes.count else { throw error("an array is never closed: expected ',' or ']'") }
      if bytes[i] == UInt8(ascii: ",") {
        i += 1
      } else if bytes[i] != UInt8(ascii: "]") {
        throw error("expected ',' or ']' after an array item, found \(current)")
      }
    }
  }

  mutating func string() throws(JSON5SyntaxError) -> String {
    let quote = bytes[i]
    let start = i
    i += 1
    var out: [UInt8] = []
    while true {
      guard i < bytes.count else { throw error("a string is never closed", at: start) }
      let b = bytes[i]
      if b == quote {
        i += 1
        return String(decoding: out, as: UTF8.self)
      }
      if b == 0x0A || b == 0x0D {
        throw error("a string runs past the end of its line (close it, or end the line with \\)")
      }
      if b != UInt8(ascii: "\\") {
        out.append(b)
        i += 1
        continue
      }
      i += 1
      guard i < bytes.count else { throw error("a string is never closed", at: start) }
      let e = bytes[i]
      i += 1
      switch e {
      case UInt8(ascii: "n"): out.append(0x0A)
      case UInt8(ascii: "t"): out.append(0x09)
      case UInt8(ascii: "r"): out.append(0x0D)
      case UInt8(ascii: "b"): out.append(0x08)
      case UInt8(ascii: "f"): out.append(0x0C)
      case UInt8(ascii: "v"): out.append(0x0B)
      case UInt8(ascii: "0"): out.append(0)
      case 0x0A: break  // an escaped line break continues the string
      case 0x0D: if i < bytes.count && bytes[i] == 0x0A { i += 1 }
      case UInt8(ascii: "x"):
        let v = try hexDigits(2)
        out.append(contentsOf: Array(String(Character(UnicodeScalar(UInt8(v)))).utf8))
      case UInt8(ascii: "u"):
        var scalar = try hexDigits(4)
        if (0xD800..<0xDC00).contains(scalar), i + 1 < bytes.count, bytes[i] == UInt8(ascii: "\\"),
          bytes[i + 1] == UInt8(ascii: "u")
        {
          i += 2
          let low = try hexDigits(4)
          guard (0xDC00..<0xE000).contains(low) else { throw error("a \\u surrogate pair is not valid") }
          scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
        }
        guard let u = UnicodeScalar(scalar) else { throw error("\\u\(String(scalar, radix: 16)) is not a character") }
        out.append(contentsOf: Array(String(Character(u)).utf8))
      default: out.append(e)  // \" \' \\ \/ and any other character stand for themselves
      }
    }
  }

  mutating func hexDigits(_ n: Int) throws(JSON5SyntaxError) -> UInt32 {
    var v: UInt32 = 0
    for _ in 0..<n {
      guard i < bytes.count, let d = hexValue(bytes[i]) else { throw error("expected \(n) hexadecimal digits") }
      v = v << 4 | UInt32(d)
      i += 1
    }
    return v
  }

  func hexValue(_ b: UInt8) -> UInt8? {
    switch b {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return b - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): return b - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): return b - UInt8(ascii: "A") + 10
    default: return nil
    }
  }

  mutating func number() throws(JSON5SyntaxError) -> JSONValue {
    let start = i
    var negative = false
    if bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") {
      negative = bytes[i] == UInt8(ascii: "-")
      i += 1
    }
    if i < bytes.count && bytes[i] == UInt8(ascii: "I") {
      _ = try word("Infinity", .null)
      return .number(negative ? -.infinity : .infinity)
    }
    if i < bytes.count && bytes[i] == UInt8(ascii: "N") {
      _ = try word("NaN", .null)
      return .number(.nan)
    }
    if i + 1 < bytes.count && bytes[i] == UInt8(ascii: "0") && (bytes[i + 1] | 0x20) == UInt8(ascii: "x") {
      i += 2
      let digitsAt = i
      var v: UInt64 = 0
      while i < bytes.count, let d = hexValue(bytes[i]) {
        guard v <= (UInt64(Int64.max) - UInt64(d)) / 16 else {
          throw error("a hexadecimal number too large", at: start)
        }
        v = v * 16 + UInt64(d)
        i += 1
      }
      guard i > digitsAt else { throw error("expected hexadecimal digits after 0x") }
      guard !isIdentifierPart(at: i) else { throw error("expected a number, found \(current)") }
      return .integer(negative ? -Int64(v) : Int64(v))
    }
    var integral = true
    var digits = 0
    while i < bytes.count && isDigit(bytes[i]) {
      i += 1
      digits += 1
    }
    if i < bytes.count && bytes[i] == UInt8(ascii: ".") {
      integral = false
      i += 1
      while i < bytes.count && isDigit(bytes[i]) {
        i += 1
        digits += 1
      }
    }
    guard digits > 0 else {
      i = start
      throw error("expected a value (a string must be quoted), found \(current)")
    }
    if i < bytes.count && (bytes[i] | 0x20) == UInt8(ascii: "e") {
      integral = false
      i += 1
      if i < bytes.count && (bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-")) { i += 1 }
      let expAt = i
      while i < bytes.count && isDigit(bytes[i]) { i += 1 }
      guard i > expAt else { throw error("expected the digits of an exponent") }
    }
    guard !isIdentifierPart(at: i) else { throw error("expected a number, found \(current)") }
    var text = String(decoding: bytes[start..<i], as: UTF8.self)
    if text.hasPrefix("+") { text.removeFirst() }
    if integral, let v = Int64(text) { return .integer(v) }
    // Swift's Double reads "5." and ".5" only with a digit on both sides.
    if text.hasSuffix(".") { text += "0" }
    if text.hasPrefix(".") { text = "0" + text } else if text.hasPrefix("-.") { text = "-0" + text.dropFirst() }
    text = text.replacingOccurrences(of: ".e", with: ".0e").replacingOccurrences(of: ".E", with: ".0E")
    guard let d = Double(text) else { throw error("not a number: \(text)", at: start) }
    return .number(d)
  }

  func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }
}
