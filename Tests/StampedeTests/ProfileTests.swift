import Foundation
import Testing

@testable import Scenario
@testable import SimKernel

/// A minimal valid profile; tests replace or add single keys.
let minimalProfile = """
  {
    name: "t",
    duration: "1m",
    population: { rooms: 1, audiencePerRoom: 10 },
    seats: { maxSeatCount: 4 },
    audience: { stay: "30s" },
    host: { thinkTime: "1s" },
  }
  """

func profileError(_ text: String) -> ProfileError? {
  do {
    _ = try Profile.parse(Data(text.utf8))
    return nil
  } catch {
    return error
  }
}

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
    let text = minimalProfile.replacingOccurrences(
      of: "host: { thinkTime: \"1s\" },",
      with: """
        host: { thinkTime: "1s", inviteEvery: "1m", lockEvery: "2m", kickEvery: "3m" },
        admin: { inviteEvery: null, lockEvery: "never" },
        """)
    let p = try Profile.parse(Data(text.utf8))
    #expect(p.host.inviteEvery != nil)
    #expect(p.admin.inviteEvery == nil)
    #expect(p.admin.lockEvery == nil)
    #expect(p.admin.kickEvery != nil)
    #expect(p.admin.endLiveAfter == nil)
    #expect(p.admin.thinkTime == p.host.thinkTime)
  }

  @Test func json5CommentsTrailingCommasAndObjectDistributionsAreAccepted() throws {
    let text = minimalProfile.replacingOccurrences(
      of: "host: { thinkTime: \"1s\" },",
      with:
        "// a comment\n host: { thinkTime: { lognormal: { median: \"2s\", sigma: 0.5 } }, acceptProbability: \"50%\", },"
    )
    let p = try Profile.parse(Data(text.utf8))
    #expect(p.host.thinkTime == .lognormal(median: 2e9, sigma: 0.5))
    #expect(p.host.acceptProbability == Ratio(1, 2))
  }

  @Test(arguments: [
    // (replace this, with that, expected path, expected message fragment)
    (
      "audiencePerRoom: 10", "audiencePerRoom: \"ten\"", "population.audiencePerRoom",
      "expected a whole number from 0 to 10000000 or a distribution such as \"lognormal(200, 1)\", got \"ten\""
    ),
    (
      "host: { thinkTime: \"1s\" }", "host: { thinkTime: \"1s\" }, arrival: { pattern: \"ramp\" }", "arrival.over",
      "missing"
    ),
    (
      "host: { thinkTime: \"1s\" }", "host: { thinkTime: \"1s\", movePolicies: [\"teleport\"] }",
      "host.movePolicies[0]",
      "expected one of \"abortWhenOccupied\", \"forceReplace\", \"swapPosition\""
    ),
    (
      "host: { thinkTime: \"1s\" }", "host: { thinkTime: \"1s\" }, admin: { kickEvry: \"1m\" }", "admin.kickEvry",
      "did you mean \"kickEvery\""
    ),
    (
      "host: { thinkTime: \"1s\" }",
      "host: { thinkTime: \"1s\" }, workload: { flashCrowd: { at: \"1m\", fraction: \"150%\" } }",
      "workload.flashCrowd.fraction", "expected a probability"
    ),
    (
      "host: { thinkTime: \"1s\" }", "host: { thinkTime: \"1s\" }, devices: { microphoneDenied: 2 }",
      "devices.microphoneDenied", "expected a probability"
    ),
    (
      "host: { thinkTime: \"1s\" }", "host: { thinkTime: \"1s\" }, timeSeries: { interval: \"0s\" }",
      "timeSeries.interval", "must be at least"
    ),
    (
      "maxSeatCount: 4", "maxSeatCount: 4, applyCompletion: \"later\"", "seats.applyCompletion",
      "expected one of \"sent\", \"outcome\""
    ),
    ("audiencePerRoom: 10", "audiencePerRoom: -1", "population.audiencePerRoom", "expected a whole number"),
    ("audiencePerRoom: 10", "audiencePerRoom: 2.5", "population.audiencePerRoom", "got 2.5"),
    ("rooms: 1", "rooms: 0", "population.rooms", "from 1 to 1000000"),
    ("rooms: 1,", "rooms: 1, audiencePerRom: 3,", "population.audiencePerRom", "did you mean \"audiencePerRoom\""),
    ("duration: \"1m\"", "duration: \"1 minute\"", "duration", "expected a duration"),
    ("duration: \"1m\"", "duration: 60", "duration", "expected a duration"),
    ("duration: \"1m\",", "", "duration", "required key is missing"),
    ("name: \"t\"", "name: \"bad name!\"", "name", "letters, digits"),
    ("maxSeatCount: 4", "maxSeatCount: 4, packageLimit: 9", "seats.packageLimit", "must not exceed maxSeatCount"),
    ("maxSeatCount: 4", "maxSeatCount: 4, mode: \"open\"", "seats.mode", "one of \"free\", \"apply\""),
    ("stay: \"30s\"", "stay: \"lognormal(30s)\"", "audience.stay", "lognormal takes 2 arguments"),
    ("stay: \"30s\"", "stay: \"30s\", applyProbability: 1.5", "audience.applyProbability", "a probability from 0 to 1"),
    ("stay: \"30s\"", "stay: { gamma: {} }", "audience.stay", "exactly one of"),
    (
      "stay: \"30s\"", "stay: { lognormal: { median: \"1s\" } }", "audience.stay.lognormal.sigma",
      "required key is missing"
    ),
    ("thinkTime: \"1s\"", "thinkTime: \"1s\", patience: 3", "host.patience", "unknown key"),
    ("seats: { maxSeatCount: 4 },", "seats: [4],", "seats", "expected an object, got an array"),
    ("name: \"t\",", "name: \"t\", seeed: 4,", "seeed", "did you mean \"seed\""),
    ("name: \"t\",", "name: \"t\", seed: \"0xZZ\",", "seed", "expected a seed"),
    ("name: \"t\",", "name: \"t\", arrival: { pattern: \"poisson\" },", "arrival.over", "required key is missing"),
    ("name: \"t\",", "name: \"t\", arrival: { pattern: \"burst\" },", "arrival.pattern", "expected one of"),
    (
      "name: \"t\",", "name: \"t\", limits: { maxEvents: 0 },", "limits.maxEvents", "expected a whole number ≥ 1, got 0"
    ),
    (
      "name: \"t\",", "name: \"t\", network: { clientServer: \"fast\" },", "network.clientServer", "expected a duration"
    ),
    (
      "name: \"t\",", "name: \"t\", calls: { users: 4, push: { appEnvironment: \"staging\" } },",
      "calls.push.appEnvironment", "expected one of \"development\", \"production\""
    ),
    (
      "name: \"t\",", "name: \"t\", calls: { users: 4, push: { certificates: [{ id: 0 }] } },",
      "calls.push.certificates[0].id", "from 1 to 4294967295"
    ),
    (
      "name: \"t\",", "name: \"t\", calls: { users: 4, push: { certificates: [{ id: 3, type: \"fcm\" }] } },",
      "calls.push.certificates[0].type", "expected one of \"voip\", \"apns\""
    ),
    (
      "name: \"t\",", "name: \"t\", calls: { users: 4, push: { reportDeadline: \"0s\" } },",
      "calls.push.reportDeadline", "must be at least"
    ),
    (
      "name: \"t\",", "name: \"t\", calls: { users: 4, app: { closeProbability: 3 } },", "calls.app.closeProbability",
      "expected a probability"
    ),
    (
      "name: \"t\",", "name: \"t\", calls: { users: 4, conversations: { maximumConversationGroups: 0 } },",
      "calls.conversations.maximumConversationGroups", "from 1 to 100"
    ),
    (
      "name: \"t\",", "name: \"t\", calls: { users: 4, app: { coldstart: \"1s\" } },", "calls.app.coldstart",
      "did you mean \"coldStart\""
    ),
  ])
  func everyBadValueIsRejectedWithItsKeyPath(replace: String, with: String, path: String, fragment: String) {
    let text = minimalProfile.replacingOccurrences(of: replace, with: with)
    #expect(text != minimalProfile || replace == with)
    guard let error = profileError(text) else {
      Issue.record("accepted: \(with)")
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

  @Test func theErrorLineNamesFileKeyAndReason() {
    let e = ProfileError(
      path: "population.audiencePerRoom", message: "expected a whole number ≥ 0, got \"ten\"", file: "profiles/x.json5")
    #expect(e.description == "profiles/x.json5: population.audiencePerRoom: expected a whole number ≥ 0, got \"ten\"")
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

/// The repository's root folder, found from this file's path.
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
  .deletingLastPathComponent()
