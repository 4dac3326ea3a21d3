import SimKernel

extension ProfileKeys {
  /// The key table under `heading` in docs/PROFILES.md, as Markdown (sections left out; a test
  /// keeps the document equal to it).
  public static func markdownTable(heading: String) -> String? {
    guard let keys = documented.first(where: { $0.heading == heading })?.keys else { return nil }
    var out = "| key | type | default | meaning |\n|---|---|---|---|\n"
    for k in keys {
      if case .section = k.kind { continue }
      out += "| `\(k.path)` | \(k.typeText) | \(k.defaultText) | \(k.meaning) |\n"
    }
    return out
  }

  /// Every key as Markdown tables, one per heading, the general keys last.
  public static func markdown() -> String {
    var out = ""
    for (heading, _) in documented { out += "### \(heading)\n\n" + (markdownTable(heading: heading) ?? "") + "\n" }
    out += "### Lists, checks, faults and bases\n\n| key | type | default | meaning |\n|---|---|---|---|\n"
    for k in general {
      if case .section = k.kind { continue }
      out += "| `\(k.path)` | \(k.typeText) | \(k.defaultText) | \(k.meaning) |\n"
    }
    return out
  }

  /// The comment `stampede profile show` writes above the key at `path` (a node path).
  public static func comment(for path: String) -> String? {
    guard let k = byPath[tablePath(path)] else { return nil }
    var meaning = k.meaning
    if meaning.count > 160, let cut = meaning.prefix(160).lastIndex(of: " ") {
      meaning = String(meaning[..<cut]) + " …"
    }
    if case .section = k.kind { return meaning }
    return meaning + " [" + k.typeText.replacingOccurrences(of: "`", with: "") + "; default "
      + k.defaultText.replacingOccurrences(of: "`", with: "") + "]"
  }
}

extension ProfileKey.Kind {
  /// How the docs name the kind.
  var text: String {
    func n(_ v: Int64) -> String {
      let digits = String(v)
      guard digits.count > 4 else { return digits }
      var out = ""
      for (i, c) in digits.reversed().enumerated() {
        if i > 0 && i % 3 == 0 { out.append(",") }
        out.append(c)
      }
      return String(out.reversed())
    }
    switch self {
    case .string: return "string"
    case .name: return "name"
    case .bool: return "boolean"
    case .seed: return "seed"
    case .whole(let r):
      return r.upperBound == Int64.max ? "whole number ≥ \(n(r.lowerBound))" : "\(n(r.lowerBound))–\(n(r.upperBound))"
    case .wholeOrUnlimited(let r): return "whole number \(n(r.lowerBound))–\(n(r.upperBound)), or `\"unlimited\"`"
    case .wholeOrDrawn(let r): return "whole number \(n(r.lowerBound))–\(n(r.upperBound)), or `\"drawn\"`"
    case .duration(let minimum):
      return minimum > .zero && minimum != .nanoseconds(1) ? "duration ≥ \(minimum)" : "duration"
    case .probability: return "probability"
    case .distribution: return "distribution"
    case .optionalDistribution: return "optional distribution"
    case .countDistribution: return "count distribution, 0–10,000,000"
    case .choice(let names):
      let quoted = names.map { "`\"\($0)\"`" }
      return quoted.count == 1 ? quoted[0] : quoted.dropLast().joined(separator: ", ") + " or " + quoted.last!
    case .list(let item, _):
      if case .choice(let names) = item { return "list of " + names.map { "`\"\($0)\"`" }.joined(separator: ", ") }
      return "list of \(item.text)s"
    case .threshold: return "threshold"
    case .invariantID: return "invariant ID"
    case .profilePath: return "path"
    case .section: return "object"
    case .objects: return "list of objects"
    case .faults: return "fault plan"
    case .faultList: return "list of fault entries, or `\"swarm\"`"
    case .faultTarget: return "target"
    case .faultRate: return "probability, or `\"swarm\"`"
    }
  }
}

extension ProfileKey {
  /// The type column of the docs.
  public var typeText: String {
    if case .objects = kind {
      let names = (ProfileKeys.children[path + "[]"] ?? []).map(\.name)
      return "list of `{\(names.joined(separator: ", "))}`"
    }
    if case .list(.choice(let names), _) = kind, names.count > 6 { return "list of names (see below)" }
    return kind.text
  }

  /// The default column of the docs.
  public var defaultText: String {
    switch fallback {
    case .required:
      // Inside a section that is off unless given, the key is required only with its section.
      if let section = ProfileKeys.byPath[parent], case .off = section.fallback { return "required in `\(parent)`" }
      return "required"
    case .requiredWhen(let when): return "required \(when)"
    case .off: return "off"
    case .sameAs(let other): return "`\(other)`"
    case .derived(let text): return text
    case .value(let v):
      switch (kind, v) {
      case (.distribution, .string(let s)), (.optionalDistribution, .string(let s)): return "`\(s)`"
      case (.list(.choice(let names), _), .array(let items)) where !items.isEmpty && items.count == names.count:
        return "all"
      default: return "`" + JSON5Writer.compact(v) + "`"
      }
    }
  }
}

extension JSON5Writer {
  /// `value` on one line: `[{id: 1}]`, `"30s"`.
  public static func compact(_ value: JSONValue) -> String {
    switch value {
    case .array(let items): return "[" + items.map(compact).joined(separator: ", ") + "]"
    case .object(let fields):
      return "{" + fields.keys.sorted().map { name($0) + ": " + compact(fields[$0]!) }.joined(separator: ", ") + "}"
    default: return write(value)
    }
  }
}
