import Foundation

/// A file of app code as most are written: it imports Foundation and nothing of the SDK. With the
/// `PlatformShadows` plugin on the target, its `DispatchQueue`, `NotificationCenter` and `print` are
/// the simulated ones all the same (the user's main queue, the user's center, the user's trace).
public enum AppDiagnostics {
  /// The notification posted with each line logged.
  public static let logged = Notification.Name("AppDiagnosticsLogged")

  /// Logs `line` from the main queue, and tells whoever listens.
  public static func log(_ line: String) {
    DispatchQueue.main.async {
      print("[diag] \(line)")
      NotificationCenter.default.post(name: logged, object: nil, userInfo: ["line": line])
    }
  }
}
