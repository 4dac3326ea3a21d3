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

  /// Creates an error at `path`.
  public init(path: String, message: String, file: String? = nil) {
    self.path = path
    self.message = message
    self.file = file
  }

  public var description: String {
    var parts: [String] = []
    if let file { parts.append(file) }
    parts.append(path.isEmpty ? "(top level)" : path)
    return parts.joined(separator: ": ") + ": " + message
  }
}
