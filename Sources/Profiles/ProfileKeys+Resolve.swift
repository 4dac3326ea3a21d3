import Foundation

extension ProfileKeys {
  /// The tree with every default written in: each key left out (or `null` where `null` means the
  /// default) takes its ``ProfileKey/Fallback``: a value, `null` for off, or another key's resolved
  /// value. Sections that are there by default are written in with their keys; sections whose
  /// absence switches something off are written as `null`. Fault entries stay as written.
  ///
  /// Parsing reads the resolved tree, so a profile's defaults are the table's. Resolving a resolved
  /// tree changes nothing.
  public static func resolve(_ root: JSONValue) -> JSONValue {
    let filled = fill(root, table: "", sameAs: nil)
    return fill(filled, table: "", sameAs: filled)
  }

  /// Fills the keys of the object `value` (at table path `table`) whose fallback is a value or off;
  /// with `sameAs`, fills the keys that take another key's value from it instead.
  static func fill(_ value: JSONValue, table: String, sameAs: JSONValue?) -> JSONValue {
    guard case .object(var fields) = value else { return value }
    for kid in children[table] ?? [] {
      var v = fields[kid.name]
      if v == nil || (v == .null && !kid.nullIsOff) {
        switch kid.fallback {
        case .value(let d) where sameAs == nil: v = d
        case .off where sameAs == nil: v = .null
        case .sameAs(let other):
          if let sameAs, let d = sameAs.value(at: other) { v = d }
        default: break
        }
      }
      guard var present = v else { continue }
      switch kid.kind {
      case .section: present = fill(present, table: kid.path, sameAs: sameAs)
      case .objects:
        if case .array(let items) = present {
          present = .array(items.map { fill($0, table: kid.path + "[]", sameAs: sameAs) })
        }
      default: break
      }
      fields[kid.name] = present
    }
    return .object(fields)
  }

  /// The resolved profile as canonical text (sorted keys, one spelling per value): what
  /// `stampede profile show` prints without its comments, and what the profile's sha256 covers.
  public static func canonicalText(_ resolved: JSONValue) -> String { JSON5Writer.write(resolved) + "\n" }
}

extension ProfileKey {
  /// Whether an explicit `null` switches the key off (rather than asking for its default).
  var nullIsOff: Bool {
    switch kind {
    case .optionalDistribution: return true
    default:
      if case .off = fallback { return true }
      return false
    }
  }
}
