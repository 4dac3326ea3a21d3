import Foundation
import Testing

@testable import Clients
@testable import Runner
@testable import Scenario
@testable import SimKernel

/// Golden trace hashes: a change that claims to change no behaviour (a refactor, a speed-up) keeps
/// every one of them. The runs here are shortened to fit a debug build; `scripts/golden-hashes`
/// checks the full-length runs against `Tests/golden-hashes.txt` with the release binary.
///
/// A change that means to change behaviour updates the table in the same commit, and says why.
@Suite struct GoldenHashTests {
  /// How long each shortened run lasts, in simulated time.
  static let length = SimDuration.minutes(4)

  /// Every shipped profile but the million-user one, seeds 1..3; every catalogued mistake on
  /// profiles/mistakes.json5 and every SDK quirk on profiles/nightly-chaos.json5, seed 1.
  static func runs() throws -> [(label: String, run: SimulationRun)] {
    var runs: [(String, SimulationRun)] = []
    func load(_ name: String) throws -> (Profile, Data) {
      try Profile.load(path: repositoryRoot.appendingPathComponent("profiles/\(name).json5").path)
    }
    for name in ["call-storm", "flash-crowd", "mistakes", "nightly-chaos", "seat-rush", "smoke"] {
      let (profile, data) = try load(name)
      for seed in UInt64(1)...3 {
        runs.append(
          (
            "\(name):seed-\(seed)",
            SimulationRun(
              profile: profile, profilePath: "profiles/\(name).json5", profileData: data, seed: seed,
              duration: length)
          ))
      }
    }
    let (mistakes, data) = try load("mistakes")
    for m in ClientMistake.allCases {
      runs.append(
        (
          "mistake:\(m.rawValue)",
          SimulationRun(
            profile: mistakes, profilePath: "profiles/mistakes.json5", profileData: data, seed: 1, duration: length,
            mistakes: [m])
        ))
    }
    let (chaos, chaosData) = try load("nightly-chaos")
    for q in SDKQuirk.allCases {
      runs.append(
        (
          "quirk:\(q.rawValue)",
          SimulationRun(
            profile: chaos, profilePath: "profiles/nightly-chaos.json5", profileData: chaosData, seed: 1,
            duration: length, quirks: [q])
        ))
    }
    return runs
  }

  static let expected: [String: String] = [
    "call-storm:seed-1": "27ca9292310dfd02",
    "call-storm:seed-2": "37fd97a0939c4148",
    "call-storm:seed-3": "345db2c2bff58cf6",
    "flash-crowd:seed-1": "881730b56681fee7",
    "flash-crowd:seed-2": "eb46ce2605b68937",
    "flash-crowd:seed-3": "2a99056b21be1413",
    "mistakes:seed-1": "b6801eaf6245939a",
    "mistakes:seed-2": "5db6c1edeba88077",
    "mistakes:seed-3": "76f375ad674e1347",
    "nightly-chaos:seed-1": "fcc04bfaa7144b1d",
    "nightly-chaos:seed-2": "4b5031e9e7d192c2",
    "nightly-chaos:seed-3": "e345a8c3a9a09e96",
    "seat-rush:seed-1": "6bbdb7b0c9bd8073",
    "seat-rush:seed-2": "2de7bfab6b0bc94b",
    "seat-rush:seed-3": "c82f9d70a9656ac8",
    "smoke:seed-1": "d13fff6496a9826f",
    "smoke:seed-2": "fa26308db6fc8f99",
    "smoke:seed-3": "2af7b8763965a56f",
    "mistake:host.events-not-retained": "0a92c0ee9ea12e23",
    "mistake:audience.resubscribe-on-apply": "ffc63361a1d4c309",
    "mistake:host.kick-with-disconnect": "6c2453c4356264d7",
    "mistake:audience.status-from-callbacks": "d0ccecf62e49a142",
    "mistake:audience.seat-limit-as-wait": "bfb72a11de5acc3f",
    "mistake:audience.wrong-inviter": "30feb9f844f6045c",
    "mistake:host.stale-applicants": "dff71e97d31627ba",
    "mistake:phone.push-not-reported": "f15ff1c92d5d1b81",
    "mistake:phone.fulfill-before-accept": "b6801eaf6245939a",
    "mistake:phone.conversation-not-ended": "3bb1405b0415b811",
    "mistake:phone.unhandled-actions-not-failed": "b6801eaf6245939a",
    "mistake:phone.join-wrong-uuid": "aa1b23bb563d4751",
    "mistake:phone.token-before-login": "66828fdc088ec8b4",
    "mistake:phone.no-fallback-beyond-limit": "8697d32f13aa5026",
    "mistake:phone.calls-before-login": "3090dfdc7be8758c",
    "mistake:phone.late-push-registry": "a7cbd8b5e1e3eeea",
    "mistake:audience.double-tap-apply": "e33226b6f535bf9e",
    "mistake:audience.mic-failure-ignored": "f6ef2f9b6043fbde",
    "mistake:audience.move-read-as-leave": "7682accb3df755e6",
    "mistake:phone.report-in-unawaited-task": "fce453aa3ddd13f5",
    "mistake:phone.return-on-malformed-push": "bde6e56f673c0da2",
    "mistake:audience.seat-expected-with-accept": "331de95cbe2858da",
    "quirk:stale-invitation": "fcc04bfaa7144b1d",
    "quirk:accept-ignores-inviter": "fcc04bfaa7144b1d",
    "quirk:cancel-invitation-false-success": "fcc04bfaa7144b1d",
    "quirk:reentry-applications-as-invitations": "fcc04bfaa7144b1d",
    "quirk:duplicate-applicants": "fcc04bfaa7144b1d",
    "quirk:auto-disconnect-on-join": "64b7c886c6b12c08",
    "quirk:second-request-overwrites": "7d1e121b8119186e",
  ]

  @Test func everyGoldenRunKeepsItsTraceHash() throws {
    var table: [String] = []
    var mismatches: [String] = []
    for (label, run) in try GoldenHashTests.runs() {
      let hash = run.execute().traceHash.description
      table.append("    \"\(label)\": \"\(hash)\",")
      if GoldenHashTests.expected[label] != hash {
        mismatches.append("\(label): expected \(GoldenHashTests.expected[label] ?? "none"), got \(hash)")
      }
    }
    #expect(GoldenHashTests.expected.count == table.count, "every run has a golden hash")
    #expect(
      mismatches.isEmpty,
      "trace hashes moved:\n\(mismatches.joined(separator: "\n"))\nthe table as it now stands:\n\(table.joined(separator: "\n"))"
    )
  }
}
