import Foundation
import Testing

@testable import LiveStack
@testable import Profiles
@testable import Scenario
@testable import SimKernel

@Suite struct ProfileTests {
  @Test func theMinimalProfileGetsDocumentedDefaults() throws {
    let p = try Profile.parse(Data(minimalProfile.utf8))
    #expect(p.seats.packageLimit == 4)
    #expect(p.seats.mode == .apply)
    #expect(p.seats.applyTimeout == .seconds(30))
    #expect(p.arrival == .closed)
    #expect(p.audience.applyProbability == .zero)
    #expect(p.host.acceptProbability == .one)
    #expect(p.defaultSeed == 1)
  }

  @Test func nullAndNeverSwitchABehaviourOffWhileAMissingKeyInheritsIt() throws {
    let p = try TestProfile(minimalProfile)
      .with("host", json5: "{ thinkTime: \"1s\", inviteEvery: \"1m\", lockEvery: \"2m\", kickEvery: \"3m\" }")
      .with("admin", json5: "{ inviteEvery: null, lockEvery: \"never\" }").profile()
    #expect(p.host.inviteEvery != nil)
    #expect(p.admin.inviteEvery == nil)
    #expect(p.admin.lockEvery == nil)
    #expect(p.admin.kickEvery != nil)
    #expect(p.admin.endLiveAfter == nil)
    #expect(p.admin.thinkTime == p.host.thinkTime)
  }

  @Test func json5CommentsTrailingCommasAndObjectDistributionsAreAccepted() throws {
    // JSON5 syntax is the point here, so the profile is written out in full.
    let text = """
      {
        name: "t", duration: "1m", // a comment
        population: { rooms: 1, audiencePerRoom: 10 },
        seats: { maxSeatCount: 4 },
        audience: { stay: "30s" },
        host: { thinkTime: { lognormal: { median: "2s", sigma: 0.5 } }, acceptProbability: "50%", },
      }
      """
    let p = try Profile.parse(Data(text.utf8))
    #expect(p.host.thinkTime == .lognormal(median: 2e9, sigma: 0.5))
    #expect(p.host.acceptProbability == Ratio(1, 2))
  }

  @Test(
    arguments: [
      // (key path to set, its JSON5 value or nil to remove it, expected path, expected message fragment)
      (
        "population.audiencePerRoom", "\"ten\"", "population.audiencePerRoom",
        "expected a whole number from 0 to 10000000 or a distribution such as \"lognormal(200, 1)\", got \"ten\""
      ),
      ("arrival", "{ pattern: \"ramp\" }", "arrival.over", "missing"),
      (
        "host.movePolicies", "[\"teleport\"]", "host.movePolicies[0]",
        "expected one of \"abortWhenOccupied\", \"forceReplace\", \"swapPosition\""
      ),
      ("admin.kickEvry", "\"1m\"", "admin.kickEvry", "did you mean \"kickEvery\""),
      (
        "workload.flashCrowd", "{ at: \"1m\", fraction: \"150%\" }", "workload.flashCrowd.fraction",
        "expected a probability"
      ),
      ("devices.microphoneDenied", "2", "devices.microphoneDenied", "expected a probability"),
      ("timeSeries.interval", "\"0s\"", "timeSeries.interval", "must be at least"),
      ("seats.applyCompletion", "\"later\"", "seats.applyCompletion", "expected \"sent\" or \"outcome\""),
      ("population.audiencePerRoom", "-1", "population.audiencePerRoom", "expected a whole number"),
      ("population.audiencePerRoom", "2.5", "population.audiencePerRoom", "got 2.5"),
      ("population.rooms", "0", "population.rooms", "from 1 to 1000000"),
      ("population.audiencePerRom", "3", "population.audiencePerRom", "did you mean \"audiencePerRoom\""),
      ("duration", "\"1 minute\"", "duration", "expected a duration"),
      ("duration", "60", "duration", "expected a duration"),
      ("duration", nil, "duration", "required key is missing"),
      ("name", "\"bad name!\"", "name", "letters, digits"),
      ("seats.packageLimit", "9", "seats.packageLimit", "must not exceed maxSeatCount"),
      ("seats.mode", "\"open\"", "seats.mode", "expected \"free\" or \"apply\""),
      ("audience.stay", "\"lognormal(30s)\"", "audience.stay", "lognormal takes 2 arguments"),
      ("audience.applyProbability", "1.5", "audience.applyProbability", "a probability from 0 to 1"),
      ("audience.stay", "{ gamma: {} }", "audience.stay", "exactly one of"),
      (
        "audience.stay", "{ lognormal: { median: \"1s\" } }", "audience.stay.lognormal.sigma", "required key is missing"
      ),
      ("host.patience", "3", "host.patience", "unknown key"),
      ("seats", "[4]", "seats", "expected an object, got an array"),
      ("seeed", "4", "seeed", "did you mean \"seed\""),
      ("seed", "\"0xZZ\"", "seed", "expected a seed"),
      ("arrival", "{ pattern: \"poisson\" }", "arrival.over", "required key is missing"),
      ("arrival", "{ pattern: \"burst\" }", "arrival.pattern", "expected one of"),
      ("limits", "{ maxEvents: 0 }", "limits.maxEvents", "expected a whole number ≥ 1, got 0"),
      ("network", "{ clientServer: \"fast\" }", "network.clientServer", "expected a duration"),
      (
        "calls", "{ users: 4, push: { appEnvironment: \"staging\" } }", "calls.push.appEnvironment",
        "expected \"development\" or \"production\""
      ),
      (
        "calls", "{ users: 4, push: { certificates: [{ id: 0 }] } }", "calls.push.certificates[0].id",
        "from 1 to 4294967295"
      ),
      (
        "calls", "{ users: 4, push: { certificates: [{ id: 3, type: \"fcm\" }] } }", "calls.push.certificates[0].type",
        "expected \"voip\" or \"apns\""
      ),
      ("calls", "{ users: 4, push: { reportDeadline: \"0s\" } }", "calls.push.reportDeadline", "must be at least"),
      ("calls", "{ users: 4, app: { closeProbability: 3 } }", "calls.app.closeProbability", "expected a probability"),
      (
        "calls", "{ users: 4, conversations: { maximumConversationGroups: 0 } }",
        "calls.conversations.maximumConversationGroups", "from 1 to 100"
      ),
      ("calls", "{ users: 4, app: { coldstart: \"1s\" } }", "calls.app.coldstart", "did you mean \"coldStart\""),
      (
        "population", "{ rooms: 1000000, audiencePerRoom: 200 }", "population",
        "about 201000000 users expected in total; a run holds fewer than 134217728"
      ),
    ] as [(String, String?, String, String)])
  func everyBadValueIsRejectedWithItsKeyPath(key: String, value: String?, path: String, fragment: String) {
    let base = TestProfile(minimalProfile)
    let profile = value.map { base.with(key, json5: $0) } ?? base.without(key)
    guard let error = profile.error else {
      Issue.record("accepted: \(key) = \(value ?? "(removed)")")
      return
    }
    #expect(error.path == path, "\(error)")
    #expect(error.message.contains(fragment), "\(error)")
  }

  @Test func malformedJSON5IsAProfileErrorAtTheTopLevel() {
    let error = profileError("{ name: \"t\", ")
    #expect(error?.path == "")
    #expect(error?.message.hasPrefix("not valid JSON5") == true)
  }

  /// A `--set` into a section the profile does not have starts that section, whose required keys
  /// are then missing: the error says the override made it, rather than blame the profile.
  @Test func aKeyMissingFromASectionAnOverrideStartedNamesTheOverride() throws {
    let text = Data(stagedProfile.utf8)
    do {
      _ = try Profile.parse(text, overrides: [("calls.liveCallees", .integer(0))])
      Issue.record("a calls section without users was accepted")
    } catch {
      #expect(error.path == "calls.users")
      #expect(
        error.message
          == "required key is missing (the profile has no calls section: --set calls.liveCallees starts one, which needs this key too)"
      )
    }
    // A section the profile has is the profile's: its missing keys are reported as before.
    let withCalls = Data(TestProfile(stagedProfile).with("calls", json5: "{ users: 3 }").text.utf8)
    #expect(
      try Profile.parse(withCalls, overrides: [("calls.liveCallees", .integer(0))]).calls?.phone.liveCallees == .zero)
  }

  @Test func theErrorLineNamesFileKeyAndReason() {
    let e = ProfileError(
      path: "population.audiencePerRoom", message: "expected a whole number ≥ 0, got \"ten\"", file: "profiles/x.json5")
    #expect(e.description == "profiles/x.json5: population.audiencePerRoom: expected a whole number ≥ 0, got \"ten\"")
  }

  /// capacity-10m is capacity-1m ten times over: ten times the rooms, the phones and every server
  /// service's workers, with about ten million viewers drawn for seed 1. (Its run is measured in
  /// the README and in `make test-long`: a ten-million-user world is too big for `make test`.)
  @Test func theTenMillionProfileIsTheMillionOneTenTimesOver() throws {
    let folder = repositoryRoot.appendingPathComponent("profiles")
    let ten = try Profile.load(path: folder.appendingPathComponent("capacity-10m.json5").path).profile
    let one = try Profile.load(path: folder.appendingPathComponent("capacity-1m.json5").path).profile
    #expect(ten.population.rooms == 10 * one.population.rooms)
    #expect(ten.calls?.users == 10 * (one.calls?.users ?? 0))
    let services = [ten.server.messaging] + ten.server.named.map(\.settings)
    let base = [one.server.messaging] + one.server.named.map(\.settings)
    for (t, o) in zip(services, base) {
      #expect(t.workers == o.workers.map { $0 * 10 })
      #expect(t.serviceTime == o.serviceTime, "the same service per request")
    }
    #expect(ten.duration == one.duration && ten.thresholds.map(\.expression) == one.thresholds.map(\.expression))
    let viewers = Layout(profile: ten, streams: RandomStreams(rootSeed: 1)).audienceCount
    #expect((9_500_000...11_000_000).contains(viewers), "\(viewers) viewers")
  }

  @Test func everyShippedProfileIsValid() throws {
    let folder = repositoryRoot.appendingPathComponent("profiles")
    let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json5") }
      .sorted()
    #expect(files.contains("smoke.json5"))
    for file in files {
      let p = try Profile.load(path: folder.appendingPathComponent(file).path).profile
      #expect(p.name + ".json5" == file, "a profile's name matches its file name")
    }
  }
}
