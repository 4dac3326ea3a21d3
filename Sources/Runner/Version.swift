/// The tool's version, written into every report.
public enum StampedeVersion {
  /// Semantic version of this build.
  public static let current = "0.1.0"
}
