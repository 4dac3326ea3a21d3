import ExampleApps
import ExampleSuites
import Foundation
import Reports
import StampedeHarness
import Testing

@testable import Profiles
@testable import Runner
@testable import VirtualPlatform

/// A phone app hears its app leave the foreground and come back, as UIKit's notifications on its
/// own `NotificationCenter.default`, with `applicationState` already saying so: a team's call
/// screen that re-reads the SDK's state on `willEnterForeground` is told when to.
@Suite(.serialized) struct PhoneLifecycleTests {
  /// What the notifications told one run's apps: each post with the state the app read then.
  typealias Heard = TestLog

  /// The example push manager and call screen, with observers of the two notifications.
  final class ListeningPhone {
    let push: VoIPPushManager
    let call = CallViewModel()
    var observers: [NSObjectProtocol] = []
    init(userID: String, heard: Heard) {
      push = VoIPPushManager(certificateID: 1234)
      push.logIn(sdkAppID: 1_400_000_000, userID: userID, userSig: "sig")
      let center = VirtualPlatform.NotificationCenter.default
      for (name, said) in [
        (UIApplication.didEnterBackgroundNotification, "background"),
        (UIApplication.willEnterForegroundNotification, "foreground"),
      ] {
        observers.append(
          center.addObserver(forName: name, object: nil, queue: nil) { _ in
            heard.add("\(said) \(UIApplication.shared.applicationState)")
          })
      }
    }
  }

  func run(seed: UInt64, heard: Heard, profile name: String = "call-storm.json5", sets: [String] = []) throws
    -> RunReport
  {
    var phone = PhoneApp { context in ListeningPhone(userID: context.userID, heard: heard) }
    phone.dial = { o, users, video in
      o.push.startOutgoingCall(to: users, video: video) { placed in o.call.call(users, video: video, placed: placed) }
    }
    phone.answer = { $0.call.answer() }
    phone.decline = { $0.call.decline() }
    phone.hangUp = { $0.call.hangUp() }
    phone.callScreen = { $0.call.isShowingCall }
    let suite = AppSuite(name: "listening", summary: "the example phone app, listening to its lifecycle")
      .with(phone: phone)
    let path = repositoryRoot.appendingPathComponent("profiles/\(name)").path
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    var run = SimulationRun(
      profile: try Profile.load(path: path, sets: sets).profile, profilePath: "profiles/\(name)", profileData: data,
      seed: seed, duration: .seconds(20 * 60))
    run.app = suite.clientApp
    return run.report(run.execute(), startedAt: Date())
  }

  @Test func aPhoneAppHearsItsAppLeaveAndComeBack() throws {
    let heard = Heard()
    let report = try run(seed: 1, heard: heard)
    #expect(violated(report).isEmpty)
    let counts = Dictionary(grouping: heard.lines, by: { $0 }).mapValues(\.count)
    // Only these two: each notification with the state already changed.
    #expect(Set(counts.keys) == ["background background", "foreground active"], "\(counts)")
    #expect((counts["background background"] ?? 0) > 100)
    #expect((counts["foreground active"] ?? 0) > 100)
    // The same run every time.
    let again = Heard()
    #expect(try run(seed: 1, heard: again).traceHash == report.traceHash)
    #expect(again.lines == heard.lines)
  }

  /// The `app.backgrounded` fault sends a phone's app to the background as a call rings: the app
  /// hears so at once, in a step of its own.
  @Test func aFaultThatBackgroundsTheAppIsHeard() throws {
    let heard = Heard()
    let report = try run(seed: 1, heard: heard, profile: "nightly-chaos.json5", sets: ["calls.liveCallees=0"])
    let backgrounded = report.faults.first { $0.kind == "app.backgrounded" }?.injected ?? 0
    #expect(backgrounded > 0)
    let counts = Dictionary(grouping: heard.lines, by: { $0 }).mapValues(\.count)
    #expect(Set(counts.keys) == ["background background", "foreground active"], "\(counts)")
    #expect((counts["background background"] ?? 0) >= Int(backgrounded))
  }
}
