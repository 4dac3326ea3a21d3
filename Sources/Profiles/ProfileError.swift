/// A profile that cannot be used, with the key path of the offending value and the reason.
///
/// Printed as `profiles/x.json5: population.audiencePerRoom: expected a whole number ≥ 0, got "ten"`.
public struct ProfileError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The file, when known.
  public var file: String?
  /// The dotted key path, e.g. `population.audiencePerRoom` or `faults[2].rate`; empty for the root.
  public var path: String
  /// What was wrong and what was expected.
  public var message: String

  /// The other errors found in the same profile (by `validate`'s pass over the whole file), in
  /// order; not part of equality.
  public var others: [ProfileError] = []

  /// This error and the others.
  public var all: [ProfileError] {
    var first = self
    first.others = []
    return [first] + others
  }

  /// Sets the file of this error and of the others.
  public mutating func setFile(_ file: String) {
    self.file = file
    for i in others.indices { others[i].file = file }
  }

  /// Where a syntax error is (line and column from 1), printed as `file:line:column`.
  public var position: (line: Int, column: Int)?

  /// Creates an error at `path`.
  public init(path: String, message: String, file: String? = nil) {
    self.path = path
    self.message = message
    self.file = file
  }

  /// The error of text that is not JSON5, with its line and column.
  static func syntax(_ error: Error) -> ProfileError {
    guard let e = error as? JSON5SyntaxError else {
      return ProfileError(path: "", message: "not valid JSON5: \(error)")
    }
    var p = ProfileError(path: "", message: "not valid JSON5: \(e.reason)\n\(e.excerpt)")
    p.position = (e.line, e.column)
    return p
  }

  public var description: String {
    if let position {
      return "\(file ?? "(profile)"):\(position.line):\(position.column): " + message
    }
    var parts: [String] = []
    if let file { parts.append(file) }
    parts.append(path.isEmpty ? "(top level)" : path)
    return parts.joined(separator: ": ") + ": " + message
  }

  public static func == (a: ProfileError, b: ProfileError) -> Bool {
    a.file == b.file && a.path == b.path && a.message == b.message && a.position?.line == b.position?.line
      && a.position?.column == b.position?.column
  }
}
