/// App singletons declared in Swift source: `static let shared = CallManager()` in
/// `class CallManager`, the pattern that gives a phone one object per app process. The virtual
/// users of a Stampede run share one process, so such an object is shared by all of them; the
/// plugin warns at each one, with its file and line.
enum SingletonScan {
  /// A singleton's declaration: its line (from 1), the type and the static property.
  struct Finding: Equatable {
    var line: Int
    var type: String
    var property: String
  }

  /// The singletons declared in `text`: a `static let` or `static var` of a class or an actor
  /// (`classes`: those of the whole module, declared in any of its files), in the type or in an
  /// extension of it, initialised with an instance of that same type (`= T()`, `= T.init(…)`,
  /// `: T = .init(…)`, `: T = T(…)`, or `= { … }()` annotated `: T`).
  static func findings(in text: String, classes: Set<String>? = nil) -> [Finding] {
    let classes = classes ?? classNames(in: text)
    var out: [Finding] = []
    // The types and extensions open around the line, with the depth of braces each was declared at.
    var types: [(name: String, depth: Int)] = []
    var depth = 0
    var number = 0
    var previous: Substring = ""
    for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
      number += 1
      defer { previous = raw }
      let line = code(of: raw)
      let words = identifiers(line)
      if let (_, name) = declaration(words) { types.append((name, depth)) }
      if let enclosing = types.last?.name, classes.contains(enclosing), let s = words.firstIndex(of: "static"),
        s + 2 < words.count,
        words[s + 1] == "let" || words[s + 1] == "var",
        let equals = line.firstIndex(of: "=")
      {
        let property = words[s + 2]
        let declared = line[..<equals]
        let value = line[line.index(after: equals)...].drop { $0 == " " }
        let annotated = declared.contains(":") && identifiers(Substring(declared)).last == enclosing
        let made =
          value.hasPrefix(enclosing + "(") || value.hasPrefix(enclosing + ".init(")
          || (annotated && (value.hasPrefix(".init(") || value.hasPrefix("{")))
        if made && !isMarkedShared(raw) && !isMarkedShared(previous) {
          out.append(Finding(line: number, type: enclosing, property: property))
        }
      }
      for ch in line {
        if ch == "{" { depth += 1 }
        if ch == "}" {
          depth -= 1
          // A type's own closing brace brings the depth back to where it was declared.
          if let last = types.last, last.depth == depth { types.removeLast() }
        }
      }
    }
    return out
  }

  /// Whether `line` says its singleton is meant to be shared by every user of a run
  /// (`// stampede: shared`, on the declaration or the line above it): it keeps nothing of a
  /// user's (a logger, a formatter, counters that only add up).
  static func isMarkedShared(_ line: Substring) -> Bool {
    guard let comment = line.range(of: "//") else { return false }
    let words = identifiers(line[comment.upperBound...]).map { $0.lowercased() }
    guard let k = words.firstIndex(of: "stampede"), k + 1 < words.count else { return false }
    return words[k + 1] == "shared"
  }

  /// The classes and actors `text` declares.
  static func classNames(in text: String) -> Set<String> {
    var out: Set<String> = []
    for raw in text.split(separator: "\n") {
      if let (kind, name) = declaration(identifiers(code(of: raw))), kind == "class" || kind == "actor" {
        out.insert(name)
      }
    }
    return out
  }

  /// The kind and name of a type or extension a line declares (`final class CallManager: NSObject {`).
  static func declaration(_ words: [String]) -> (kind: String, name: String)? {
    let kinds = ["class", "actor", "struct", "enum", "extension"]
    guard let k = words.firstIndex(where: { kinds.contains($0) }), k + 1 < words.count else { return nil }
    let name = words[k + 1]
    if ["func", "var", "let", "subscript", "init"].contains(name) { return nil }
    return (words[k], name)
  }

  /// The line without a trailing `//` comment or string literals' contents.
  static func code(of line: Substring) -> String {
    var out = ""
    var inString = false
    var previous: Character = " "
    for ch in line {
      if inString {
        if ch == "\"" && previous != "\\" { inString = false }
      } else if ch == "\"" {
        inString = true
      } else if ch == "/" && previous == "/" {
        out.removeLast()
        break
      } else {
        out.append(ch)
      }
      previous = ch
    }
    return out
  }

  /// The identifiers and keywords of a line, in order.
  static func identifiers(_ line: Substring) -> [String] {
    var out: [String] = []
    var word = ""
    for ch in line {
      if ch.isLetter || ch.isNumber || ch == "_" {
        word.append(ch)
      } else if !word.isEmpty {
        out.append(word)
        word = ""
      }
    }
    if !word.isEmpty { out.append(word) }
    return out
  }

  static func identifiers(_ line: String) -> [String] { identifiers(Substring(line)) }
}
