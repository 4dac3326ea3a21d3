import UIKit
import XCTest

// XCTest, not Swift Testing: the toolchain's Swift Testing declares a cross-import overlay for a
// module named UIKit (`_Testing_UIKit`), which exists only on Apple's platforms, so a file may not
// import both here.

final class CountingController: UIViewController {
  var loads = 0
  override func viewDidLoad() {
    super.viewDidLoad()
    loads += 1
  }
}

final class LaunchingDelegate: UIResponder, UIApplicationDelegate {
  var launched = false
  func application(
    _ application: UIApplication, didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?
  ) -> Bool {
    launched = true
    return true
  }
}

/// A file that imports UIKit gets the application, its delegate and view controllers that present
/// one another as UIKit's do.
final class UIKitTests: XCTestCase {
  func testAControllerLoadsOncePresentsOneAtATimeAndDismissesFromEitherSide() {
    let root = CountingController()
    root.loadViewIfNeeded()
    root.loadViewIfNeeded()
    XCTAssert(root.loads == 1)
    let call = CountingController()
    call.modalPresentationStyle = .fullScreen
    var done = 0
    root.present(call, animated: true) { done += 1 }
    XCTAssert(root.presentedViewController === call && call.presentingViewController === root)
    XCTAssert(call.loads == 1 && done == 1)
    // Already presenting: UIKit presents nothing more.
    let other = CountingController()
    root.present(other, animated: true)
    XCTAssert(root.presentedViewController === call && other.presentingViewController == nil)
    // The presented controller dismisses itself through its presenter.
    call.dismiss(animated: true) { done += 1 }
    XCTAssert(root.presentedViewController == nil && call.presentingViewController == nil && done == 2)
    root.present(other, animated: false)
    root.dismiss(animated: false)
    XCTAssert(root.presentedViewController == nil)
  }

  func testAnAppDelegateIsHandedItsLaunch() {
    let delegate = LaunchingDelegate()
    XCTAssert(delegate.application(UIApplication.shared, didFinishLaunchingWithOptions: nil))
    XCTAssert(delegate.launched)
    XCTAssert(
      UIApplication.LaunchOptionsKey.remoteNotification.rawValue == "UIApplicationLaunchOptionsRemoteNotificationKey")
  }

  /// What a view model reads of the device, and the images and colors it picks for a state:
  /// inert values, the same on every machine.
  func testDeviceImagesAndColorsAreInertValues() {
    XCTAssert(UIDevice.current.model == "iPhone" && UIDevice.current.systemName == "iOS")
    XCTAssert(UIDevice.current.userInterfaceIdiom == .phone && UIDevice.current.batteryLevel == -1)
    XCTAssert(UIImage(named: "mic.on")?.name == "mic.on" && UIImage(systemName: "phone.fill") != nil)
    XCTAssert(UIColor.systemRed.withAlphaComponent(0.5) == UIColor(red: 1, green: 0.231, blue: 0.188, alpha: 0.5))
    XCTAssert(UIColor(white: 1, alpha: 1) == .white && UIColor.clear.alpha == 0)
  }
}
