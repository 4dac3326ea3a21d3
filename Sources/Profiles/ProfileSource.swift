import Foundation

/// Reading a profile file with the profiles it `extends`: `extends: "base.json5"` (relative to the
/// file naming it) deep-merges this profile onto its base, which may extend another in turn.
public enum ProfileSource {
  /// The most profiles one chain of `extends` may hold.
  public static let maxDepth = 16

  /// The tree of the file at `path` merged onto the profiles it extends, without `extends`.
  /// Syntax errors name the file they are in; a missing base or a cycle is an error at `extends`.
  public static func tree(path: String) throws(ProfileError) -> JSONValue {
    try tree(path: path, chain: [])
  }

  static func tree(path: String, chain: [String]) throws(ProfileError) -> JSONValue {
    let data: Data
    do {
      data = try Data(contentsOf: URL(fileURLWithPath: path))
    } catch {
      throw ProfileError(path: "", message: "cannot read the file (\(error.localizedDescription))", file: path)
    }
    let root: JSONValue
    do {
      root = try JSONValue.parse(json5: data)
    } catch {
      var e = ProfileError.syntax(error)
      e.file = path
      throw e
    }
    return try extending(root, file: path, chain: chain)
  }

  /// `root` (read from `file`) merged onto the profile it extends, if any.
  public static func extending(_ root: JSONValue, file: String?, chain: [String] = []) throws(ProfileError)
    -> JSONValue
  {
    guard case .object(var fields) = root, let ext = fields["extends"] else { return root }
    fields["extends"] = nil
    if ext == .null { return .object(fields) }
    guard case .string(let relative) = ext, !relative.isEmpty else {
      throw ProfileError(
        path: "extends", message: "expected the path of a base profile, got \(ext.shortDescription)", file: file)
    }
    let directory = file.map { URL(fileURLWithPath: $0).deletingLastPathComponent().path } ?? "."
    let basePath = relative.hasPrefix("/") ? relative : directory + "/" + relative
    let here = file.map(canonical) ?? "(profile)"
    let seen = chain + [here]
    let target = canonical(basePath)
    if seen.contains(target) {
      let names = (seen + [target]).map { URL(fileURLWithPath: $0).lastPathComponent }
      throw ProfileError(
        path: "extends", message: "profiles extend each other in a cycle: \(names.joined(separator: " → "))", file: file
      )
    }
    guard seen.count < maxDepth else {
      throw ProfileError(path: "extends", message: "more than \(maxDepth) profiles in one chain of extends", file: file)
    }
    guard FileManager.default.fileExists(atPath: basePath) else {
      throw ProfileError(path: "extends", message: "no base profile at \(basePath)", file: file)
    }
    let base = try tree(path: basePath, chain: seen)
    return merge(base, .object(fields))
  }

  /// `top` deep-merged onto `base`: objects merge key by key (`top` wins), anything else (lists
  /// included) is replaced by `top`'s value.
  public static func merge(_ base: JSONValue, _ top: JSONValue) -> JSONValue {
    guard case .object(var b) = base, case .object(let t) = top else { return top }
    for (key, value) in t { b[key] = b[key].map { merge($0, value) } ?? value }
    return .object(b)
  }

  static func canonical(_ path: String) -> String {
    URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
  }
}
