@_exported import VirtualPlatform

// The part of UIKit app code written for iOS touches around its view models: the application and
// its delegate, responders and view controllers that present one another. A file that imports
// UIKit compiles here unchanged for these; views, layout and drawing are not modelled.

extension UIApplication {
  /// The keys of the launch options an app delegate is handed (none are set in a simulated launch).
  public struct LaunchOptionsKey: Hashable, RawRepresentable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    /// The app was launched to handle a remote notification.
    public static let remoteNotification = LaunchOptionsKey(rawValue: "UIApplicationLaunchOptionsRemoteNotificationKey")
  }
}

/// An object that takes part in the responder chain (the base of app delegates and view
/// controllers).
open class UIResponder: NSObject {
  /// A responder.
  public override init() { super.init() }
}

/// The app delegate: what the app does at launch.
public protocol UIApplicationDelegate: AnyObject {
  /// The app finished launching; return whether it handles the launch options.
  func application(
    _ application: UIApplication, didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?
  ) -> Bool
}

extension UIApplicationDelegate {
  public func application(
    _ application: UIApplication, didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?
  ) -> Bool { true }
}

/// How a presented view controller covers the one that presents it (recorded, not drawn).
public enum UIModalPresentationStyle: Int, Sendable {
  case automatic = -2
  case none = -1
  case fullScreen = 0
  case pageSheet, formSheet, currentContext, custom, overFullScreen, overCurrentContext, popover
}

/// A screen of the app. It loads once (``viewDidLoad()``, the first time it is presented or
/// ``loadViewIfNeeded()`` is called) and presents and dismisses other view controllers; what is
/// on screen is what app code (and a UI probe) can read from ``presentedViewController``.
/// Presenting and dismissing take effect at once, their completions run right after (the
/// animations' duration is not modelled).
open class UIViewController: UIResponder {
  /// How this controller is shown when presented.
  open var modalPresentationStyle: UIModalPresentationStyle = .automatic
  /// The controller this one presents, if any.
  open private(set) var presentedViewController: UIViewController?
  /// The controller that presents this one, if any.
  open private(set) weak var presentingViewController: UIViewController?
  /// Whether the view has loaded.
  open private(set) var isViewLoaded = false

  /// A view controller.
  public override init() { super.init() }

  /// Called once, when the view loads.
  open func viewDidLoad() {}

  /// Loads the view if it has not loaded yet.
  open func loadViewIfNeeded() {
    guard !isViewLoaded else { return }
    isViewLoaded = true
    viewDidLoad()
  }

  /// Presents `viewController` over this one. As in UIKit, a controller that already presents
  /// one presents nothing more.
  open func present(_ viewController: UIViewController, animated: Bool, completion: (() -> Void)? = nil) {
    guard presentedViewController == nil, viewController.presentingViewController == nil else { return }
    viewController.loadViewIfNeeded()
    presentedViewController = viewController
    viewController.presentingViewController = self
    completion?()
  }

  /// Dismisses the controller this one presents, or, presenting none, this one from its
  /// presenter.
  open func dismiss(animated: Bool, completion: (() -> Void)? = nil) {
    if let presented = presentedViewController {
      presented.presentingViewController = nil
      presentedViewController = nil
    } else if let presenter = presentingViewController {
      presenter.presentedViewController = nil
      presentingViewController = nil
    }
    completion?()
  }
}
