import ExampleSuites
import Foundation
import Reports
import Testing

@testable import Clients
@testable import Metrics
@testable import Profiles
@testable import Runner

/// Every setting of the built-in clients, with how app code meets it: a tap the harness times or
/// decides by it (`harness`), the world's own doing that reaches the app (`world`), the app's own
/// code and choice (`app`), or a gap still open (`not yet`). A setting added to the built-in
/// clients must be added here, and a `harness` one must be read by the harness.
@Suite struct HarnessReachTests {
  static let audience: [String: String] = [
    "stay": "harness: the leave tap, after stay",
    "applyProbability": "harness: whether a viewer taps apply at all",
    "applyAfter": "harness: when it taps apply",
    "applyTimeout": "app: the timeout its applyForSeat passes",
    "patience": "harness: the cancel tap",
    "backgroundEvery": "world: UIApplication's background notification and state",
    "backgroundFor": "world: UIApplication's foreground notification and state",
    "seatTime": "harness: the disconnect tap",
    "maxApplies": "harness: at most this many apply taps",
    "retry": "harness: apply again after a refusal or a kick",
    "invitationThink": "harness: when it answers an invitation",
    "acceptInvitation": "harness: whether it accepts an invitation",
    "freeMode": "app: takeSeat where seats are free",
  ]
  static let host: [String: String] = [
    "thinkTime": "harness: when the accept or reject tap follows an application",
    "acceptProbability": "harness: accept or reject",
    "rejectWhenFull": "app: its own check of the seat list",
    "inviteEvery": "harness: the invite tap, on any member of the room",
    "inviteTimeout": "app: the timeout its inviteToSeat passes",
    "kickEvery": "harness: the kick tap",
    "lockEvery": "harness: the lock tap",
    "lockFor": "harness: the unlock tap after it",
    "moveEvery": "harness: the move tap",
    "movePolicies": "app: the policy its moveUserToSeat passes",
    "endLiveAfter": "harness: the owner's endLive tap",
    "reviewAtOnce": "harness: applications taken up one at a time",
    "reviewOrder": "app: which applicant its accept and reject closures pick",
    "reviewClaims": "app: a feature showing which applications others review",
  ]
  static let phone: [String: String] = [
    "dialEvery": "harness: the dial tap",
    "groupProbability": "harness: a group call of several phones",
    "maxGroupCallees": "harness: at most this many callees",
    "videoProbability": "harness: video or audio",
    "timeout": "app: the timeout its calls() passes",
    "answerProbability": "harness: answer or decline",
    "answerAfter": "harness: when it answers",
    "talkTime": "harness: the hang-up tap after it",
    "patience": "harness: a caller's hang-up while it rings",
    "certificateID": "app: its TIMPush certificate",
    "liveCallees": "harness: a viewer dialled instead of a phone, when the viewers are built-in",
    "inviteProbability": "harness: the add-people tap in a group call the app placed",
  ]

  @Test func everyBuiltInSettingIsListedWithHowAppCodeMeetsIt() throws {
    let data = try Data(contentsOf: repositoryRoot.appendingPathComponent("profiles/smoke.json5"))
    let profile = try Profile.parse(data)
    let drivers = try ["Drivers.swift", "HostDriver.swift", "PhoneDriver.swift"].map {
      try String(contentsOf: repositoryRoot.appendingPathComponent("Sources/StampedeHarness/\($0)"), encoding: .utf8)
    }.joined()
    let world = try String(
      contentsOf: repositoryRoot.appendingPathComponent("Sources/Scenario/LiveWorld+Devices.swift"), encoding: .utf8)
    let sections: [(String, Any, [String: String])] = [
      ("audience", profile.audience, Self.audience), ("host", profile.host, Self.host),
      ("calls.phone", try #require(profile.calls).phone, Self.phone),
    ]
    for (name, settings, table) in sections {
      let fields = Set(Mirror(reflecting: settings).children.compactMap(\.label))
      #expect(fields == Set(table.keys), "\(name): listed \(table.keys.sorted()), has \(fields.sorted())")
      for (field, how) in table {
        if how.hasPrefix("harness:") {
          #expect(
            drivers.contains("settings.\(field)"), "\(name).\(field) is said to be the harness's, which never reads it")
        } else if how.hasPrefix("world:") {
          #expect(world.contains("\(name).\(field)"), "\(name).\(field) is said to be the world's")
        }
      }
    }
    // No gap is left.
    let open = [Self.audience, Self.host, Self.phone].flatMap { $0.values }.filter { $0.hasPrefix("not yet") }
    #expect(open.isEmpty)
  }
}

/// The two phone behaviours app code reaches through the harness's phone taps: calling viewers of
/// live rooms (`calls.liveCallees`, when the viewers are the built-in clients) and adding people
/// to a group call the app placed (`calls.phone.inviteProbability`, through `PhoneApp.invite`).
@Suite(.serialized) struct PhoneReachTests {
  func run(_ app: String, _ profile: String, seed: UInt64, sets: [String] = []) throws -> (RunReport, OutcomeCoverage) {
    let path = repositoryRoot.appendingPathComponent("profiles/\(profile).json5").path
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    var run = SimulationRun(
      profile: try Profile.parse(data, overrides: try sets.map(Profile.parseSet)),
      profilePath: "profiles/\(profile).json5",
      profileData: data, seed: seed, duration: .minutes(20), overrides: sets)
    run.program = "stampede-examples"
    run.app = exampleSuites.first { $0.name == app }!.clientApp
    let result = run.execute()
    return (run.report(result, startedAt: Date()), result.world.metrics.coverage)
  }

  @Test func theExamplePhoneAppCallsTheBuiltInViewersAndTheyHearIt() throws {
    let (report, coverage) = try run("examples-phones", "smoke", seed: 1)
    #expect(violated(report) == [], "\(report.failures)")
    #expect(coverage.heardCount(role: "audience", "onCallReceived") > 0, "viewers were rung")
    // Without liveCallees no viewer is rung.
    let (_, none) = try run("examples-phones", "smoke", seed: 1, sets: ["calls.liveCallees=0"])
    #expect(none.heardCount(role: "audience", "onCallReceived") == 0)
  }

  @Test func theExamplePhoneAppAddsPeopleToItsGroupCalls() throws {
    let (report, _) = try run("examples-phones", "nightly-chaos", seed: 1)
    #expect(violated(report) == [], "\(report.failures)")
    #expect(report.counters["call.invites", default: 0] > 0)
    // The same app without the button: nobody is added.
    let (plain, _) = try run("examples", "nightly-chaos", seed: 1)
    #expect(plain.counters["call.invites", default: 0] == 0)
  }
}
