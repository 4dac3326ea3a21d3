import Testing

@testable import StampedeHarness
@testable import VirtualPlatform

/// An app singleton (`static let shared`) is one object for every virtual user of a run, where a
/// phone has one per app process: the harness says so, once per type, when two users' apps (or a
/// phone's app and its relaunch) get the same object of the app's own.
@Suite struct SharedObjectTests {
  final class CallManager {
    static let shared = CallManager()
    var activeCallID: String?
  }
  final class CallScreen {
    let manager: CallManager
    init(manager: CallManager) { self.manager = manager }
  }
  struct PhoneObjects {
    let screen: CallScreen
    let manager: CallManager?
    let queue: DispatchQueue
  }
  final class Lonely {}
  final class Relaunched {}

  final class Said { var lines: [String] = [] }

  @Test func aSingletonHeldByTwoUsersAppsIsSaidOnce() {
    let said = Said()
    let watch = SharedObjectWatch { said.lines.append($0) }
    // Each user's own screen, both holding the one manager (one level down, through an optional).
    watch.check(PhoneObjects(screen: CallScreen(manager: .shared), manager: .shared, queue: .main), user: 3, launch: 0)
    #expect(said.lines.isEmpty)
    watch.check(PhoneObjects(screen: CallScreen(manager: .shared), manager: .shared, queue: .main), user: 7, launch: 0)
    #expect(said.lines.count == 1)
    #expect(said.lines.first?.contains("users 3 and 7 got one") == true)
    #expect(said.lines.first?.contains("SharedObjectTests.CallManager") == true)
    // Once per type in a process, not once per user.
    watch.check(PhoneObjects(screen: CallScreen(manager: .shared), manager: .shared, queue: .main), user: 9, launch: 0)
    #expect(said.lines.count == 1)
  }

  /// The platform's own shared objects (the main queue) and objects of each user's own are not
  /// the app's singletons; an object whose first holder is gone is not shared either.
  @Test func ownObjectsAndThePlatformsAreNotSaid() {
    let said = Said()
    let watch = SharedObjectWatch { said.lines.append($0) }
    for user in UInt32(0)..<50 {
      watch.check(
        PhoneObjects(screen: CallScreen(manager: CallManager()), manager: nil, queue: .main), user: user, launch: 0)
      watch.check(Lonely(), user: user, launch: 0)
    }
    // The same object given again to the same user in the same process is its own.
    let mine = Lonely()
    watch.check(mine, user: 60, launch: 0)
    watch.check(mine, user: 60, launch: 0)
    #expect(said.lines.isEmpty)
    #expect(watch.appObjects(PhoneObjects(screen: CallScreen(manager: .shared), manager: nil, queue: .main)).count == 1)
    // Past the first users' apps, only the object the glue returned is looked at.
    #expect(
      watch.appObjects(PhoneObjects(screen: CallScreen(manager: .shared), manager: nil, queue: .main), deep: false)
        .isEmpty)
  }

  /// A phone's app launched again got the object of its process that died: on a phone that
  /// object died with the process.
  @Test func anObjectOutlivingItsProcessIsSaid() {
    let said = Said()
    let watch = SharedObjectWatch { said.lines.append($0) }
    let survivor = Relaunched()
    watch.check(survivor, user: 4, launch: 1)
    watch.check(survivor, user: 4, launch: 2)
    #expect(said.lines.count == 1)
    #expect(said.lines.first?.contains("user 4's app, launched again, got the") == true)
  }
}

/// The PlatformShadows plugin's scan for app singletons (its source file is shared with this
/// test target): the patterns teams write, and what is not one.
@Suite struct SingletonScanTests {
  @Test func theSingletonPatternsAreFound() {
    let text = """
      import Foundation

      final class CallManager: NSObject {
        static let shared = CallManager()  // the app's one call manager
        var activeCallID: String?
      }

      @MainActor
      final class PushRouter
      {
        static var current: PushRouter = .init(name: "router")
        static let `default`: PushRouter = {
          PushRouter(name: "x")
        }()
        init(name: String) {}
      }

      actor TokenStore {
        static let shared = TokenStore.init()
      }

      extension CallManager {
        static let backup = CallManager()
      }
      """
    #expect(
      SingletonScan.findings(in: text) == [
        .init(line: 4, type: "CallManager", property: "shared"),
        .init(line: 11, type: "PushRouter", property: "current"),
        .init(line: 12, type: "PushRouter", property: "default"),
        .init(line: 19, type: "TokenStore", property: "shared"),
        .init(line: 23, type: "CallManager", property: "backup"),
      ])
    // A class declared in another file of the module.
    #expect(
      SingletonScan.findings(in: "extension Hub {\n  static let shared = Hub()\n}", classes: ["Hub"]) == [
        .init(line: 2, type: "Hub", property: "shared")
      ])
  }

  @Test func whatIsNotASingletonIsNotFound() {
    let text = """
      struct Settings {
        static let shared = Settings()
      }
      final class Screen {
        static let formatter = DateFormatter()
        static let title = "Screen()"
        class func make() -> Screen { Screen() }
        let store = CallStore.shared
        // static let shared = Screen()
        let label = "static let shared = Screen()"
      }
      enum Keys { static let token = "token" }
      final class Analytics {
        static let shared = Analytics()  // stampede: shared
        // Stampede: shared (it only counts)
        static let backup = Analytics()
      }
      final class Other {}
      let global = Other()
      extension Screen {
        static let fallback = Other()
      }
      """
    #expect(SingletonScan.findings(in: text) == [])
  }
}
