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

/// The phone, as view models ask about it: a simulated iPhone on iOS 17.
public final class UIDevice: @unchecked Sendable {
  /// The device (one model for every virtual user: nothing in a run may depend on the machine).
  public static let current = UIDevice()
  /// `"iPhone"`.
  public let model = "iPhone"
  /// `"iOS"`.
  public let systemName = "iOS"
  /// `"17.4"`.
  public let systemVersion = "17.4"
  /// The device's name as the user set it.
  public let name = "iPhone"
  /// What kind of device it is.
  public enum UserInterfaceIdiom: Int, Sendable {
    case unspecified = -1
    case phone = 0
    case pad = 1
  }
  /// `.phone`.
  public let userInterfaceIdiom = UserInterfaceIdiom.phone
  /// Battery monitoring: accepted and ignored (the level is always unknown, -1).
  public var isBatteryMonitoringEnabled = false
  /// -1: unknown.
  public let batteryLevel: Float = -1
}

/// An image, as a view model holds one for its view: an inert value (nothing is decoded or drawn).
public final class UIImage: @unchecked Sendable {
  /// The name it was made from, if any.
  public let name: String?
  /// The image named `name` in the app's bundle (always found: no assets are loaded).
  public init?(named name: String) { self.name = name }
  /// The system symbol `systemName`.
  public init?(systemName: String) { self.name = systemName }
  /// An image made from `data` (kept unread).
  public init?(data: Data) { self.name = nil }
  /// An empty image.
  public init() { self.name = nil }
}

/// A color, as view models pick one for a state: an inert value with its components.
public struct UIColor: Equatable, Sendable {
  /// Red, green, blue and alpha, from 0 to 1.
  public let red, green, blue, alpha: Double
  /// A color of these components.
  public init(red: Double, green: Double, blue: Double, alpha: Double) {
    (self.red, self.green, self.blue, self.alpha) = (red, green, blue, alpha)
  }
  /// A gray of `white` (0 black, 1 white).
  public init(white: Double, alpha: Double) { self.init(red: white, green: white, blue: white, alpha: alpha) }
  public static let black = UIColor(white: 0, alpha: 1)
  public static let white = UIColor(white: 1, alpha: 1)
  public static let clear = UIColor(white: 0, alpha: 0)
  public static let red = UIColor(red: 1, green: 0, blue: 0, alpha: 1)
  public static let green = UIColor(red: 0, green: 1, blue: 0, alpha: 1)
  public static let blue = UIColor(red: 0, green: 0, blue: 1, alpha: 1)
  public static let gray = UIColor(white: 0.5, alpha: 1)
  public static let systemRed = UIColor(red: 1, green: 0.231, blue: 0.188, alpha: 1)
  public static let systemGreen = UIColor(red: 0.204, green: 0.78, blue: 0.349, alpha: 1)
  public static let systemBlue = UIColor(red: 0, green: 0.478, blue: 1, alpha: 1)
  /// This color with `alpha`.
  public func withAlphaComponent(_ alpha: Double) -> UIColor {
    UIColor(red: red, green: green, blue: blue, alpha: alpha)
  }
}
