import AtomicXCore
import ExampleApps
import ExampleSuites
import Foundation
import Reports
import StampedeHarness
import Testing

@testable import Profiles
@testable import Runner

/// A host or admin whose session ended (kicked offline, its login expired, its live ended) taps
/// nothing more, as CLIENTS.md says of the app shell: an outside team's panel was tapped after
/// `kickedOffline` and after `onLiveEnded`.
@Suite(.serialized) struct HostSessionTests {
  /// The example host panel, noting each tap made after its session ended.
  final class WatchedPanel {
    let panel: HostCoGuestViewModel
    let log: TestLog
    var ended = false
    var cancellables = Set<AnyCancellable>()

    init(liveID: String, log: TestLog) {
      panel = HostCoGuestViewModel(liveID: liveID)
      self.log = log
      let coGuest = CoGuestStore.create(liveID: liveID)
      LoginStore.shared.loginEventPublisher
        .sink { [weak self] _ in
          self?.end("login")
          // The SDK is out of the room: it lists no applicant of it any more.
          if !coGuest.state.value.applicants.isEmpty { log.add("applicants listed after the login ended") }
        }
        .store(in: &cancellables)
      coGuest.hostEventPublisher
        .sink { [weak self] event in
          if self?.ended == true { log.add("heard \(event) after the session ended") }
          if case .onGuestApplicationReceived = event { log.add("application") }
        }
        .store(in: &cancellables)
      LiveListStore.shared.liveListEventPublisher
        .sink { [weak self] event in if case .onLiveEnded = event { self?.end("live") } }
        .store(in: &cancellables)
    }

    func end(_ why: String) {
      if !ended { log.add("ended \(why)") }
      ended = true
    }

    func tap(_ name: String) {
      if ended { log.add("tap \(name) after the session ended") }
    }
  }

  @Test func aHostWhoseSessionEndedTapsNothingMore() throws {
    let log = TestLog()
    var app = HostApp { WatchedPanel(liveID: $0.liveID!, log: log) }
    app.accept = { o in
      o.tap("accept")
      o.panel.firstApplicant.map { o.panel.acceptApplication(userID: $0.userID) }
    }
    app.reject = { o in
      o.tap("reject")
      o.panel.firstApplicant.map { o.panel.rejectApplication(userID: $0.userID) }
    }
    app.invite = { o, userID in o.tap("invite") }
    app.kick = { o, userID in o.tap("kick") }
    app.lock = { o, seat in o.tap("lock") }
    app.unlock = { o, seat in o.tap("unlock") }
    app.endLive = { o in
      o.tap("endLive")
      o.panel.endLive()
    }
    let suite = AppSuite(name: "watched-host", summary: "the example host panel, watched").with(host: app)
    let path = repositoryRoot.appendingPathComponent("profiles/nightly-chaos.json5").path
    let sets = ["host.endLiveAfter=\"normal(12m, 2m)\"", "faults.plan[10][9].rate=20%"]
    let loaded = try Profile.load(path: path, sets: sets)
    var run = SimulationRun(
      profile: loaded.profile, profilePath: "profiles/nightly-chaos.json5", profileData: loaded.data, seed: 10,
      duration: .seconds(20 * 60))
    run.app = suite.clientApp
    _ = run.execute()
    let ended = log.lines.filter { $0.hasPrefix("ended") }
    #expect(ended.contains("ended login") && ended.contains("ended live"), "\(ended.count)")
    #expect(log.lines.filter { $0.hasPrefix("tap") } == [])
  }

  /// An outside team's admin panel, logged out by `login.kicked_offline`, still heard
  /// `onGuestApplicationReceived`: the server told a room's staff by who they were, not by whether
  /// they were in the room. Now a host or admin hears its room only while in it, and its SDK lists
  /// nothing of a room it left.
  @Test func aHostOrAdminLoggedOutHearsNothingMoreOfItsRoom() throws {
    let log = TestLog()
    let app = HostApp { WatchedPanel(liveID: $0.liveID!, log: log) }
    let suite = AppSuite(name: "watched-host", summary: "the example host panel, watched").with(host: app)
    let path = repositoryRoot.appendingPathComponent("profiles/nightly-chaos.json5").path
    // login.kicked_offline and login.expired at 20% of the staff's chances.
    let loaded = try Profile.load(path: path, sets: ["faults.plan[10][9].rate=20%", "faults.plan[10][10].rate=20%"])
    var run = SimulationRun(
      profile: loaded.profile, profilePath: "profiles/nightly-chaos.json5", profileData: loaded.data, seed: 3,
      duration: .seconds(20 * 60))
    run.app = suite.clientApp
    _ = run.execute()
    #expect(log.lines.filter { $0 == "ended login" }.count >= 3, "\(log.lines.filter { $0.hasPrefix("ended") })")
    #expect(log.lines.filter { $0 == "application" }.count > 50)
    #expect(log.lines.filter { $0.hasPrefix("heard") || $0.hasPrefix("applicants") } == [])
  }
}
