import Clients
import Foundation

/// The part of UIKit's `UIApplication` view models use for the app's lifecycle: the state, and the
/// notifications posted on the user's `NotificationCenter.default` when a viewer's app enters the
/// background or comes back (`audience.background`).
public final class UIApplication: @unchecked Sendable {
  /// An app's state.
  public enum State: Sendable {
    /// On screen.
    case active
    /// On its way in or out (not modelled as a state of its own).
    case inactive
    /// In the background.
    case background
  }

  let user: UInt32
  /// The host of the user's run (`nil`: asked for outside every virtual user, a finding).
  let host: AppHost?

  init(user: UInt32, host: AppHost?) {
    self.user = user
    self.host = host
  }

  /// The current virtual user's application.
  public static var shared: UIApplication {
    guard let host = AppHost.inUser("UIApplication.shared") else { return UIApplication(user: .max, host: nil) }
    return UIApplication(user: host.user, host: host)
  }

  /// Whether the app is on screen or in the background (in the background for code that belongs
  /// to no app process).
  public var applicationState: State {
    guard let host else { return .background }
    switch host.client(user).app.state {
    case .foreground: return .active
    case .background, .killed: return .background
    }
  }

  /// Posted when the app enters the background.
  public static let didEnterBackgroundNotification = Notification.Name("UIApplicationDidEnterBackgroundNotification")
  /// Posted when the app is about to come back to the foreground.
  public static let willEnterForegroundNotification = Notification.Name(
    "UIApplicationWillEnterForegroundNotification")
}
