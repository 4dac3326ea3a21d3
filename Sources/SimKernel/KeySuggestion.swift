/// Suggests the known key closest to a misspelt one.
public enum KeySuggestion {
  /// The candidate within a few edits of `key` (case-insensitive), the closest first; nil if none.
  public static func closest(to key: String, among candidates: [String]) -> String? {
    var best: (String, Int)?
    for c in candidates {
      let d = distance(Array(key.lowercased()), Array(c.lowercased()))
      if d <= max(2, c.count / 3), best == nil || d < best!.1 { best = (c, d) }
    }
    return best?.0
  }

  /// The Levenshtein distance between `a` and `b`.
  static func distance(_ a: [Character], _ b: [Character]) -> Int {
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var previous = Array(0...b.count)
    for i in 1...a.count {
      var current = [i] + [Int](repeating: 0, count: b.count)
      for j in 1...b.count {
        current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
      }
      previous = current
    }
    return previous[b.count]
  }
}
