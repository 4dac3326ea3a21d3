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
    "flash-crowd:seed-1": "8aeafad89c3c23bd",
    "flash-crowd:seed-2": "c67a6b6b4520f5b5",
    "flash-crowd:seed-3": "9b89cc57136160af",
    "mistakes:seed-1": "3ecb864c6f0be013",
    "mistakes:seed-2": "acca7c3b9b338902",
    "mistakes:seed-3": "3176696cb6e2191e",
    "nightly-chaos:seed-1": "7a2473b57aa71a22",
    "nightly-chaos:seed-2": "05eaf8c0b390d112",
    "nightly-chaos:seed-3": "c7d39c767b32b5eb",
    "seat-rush:seed-1": "6bbdb7b0c9bd8073",
    "seat-rush:seed-2": "49bb01000e758d42",
    "seat-rush:seed-3": "c82f9d70a9656ac8",
    "smoke:seed-1": "b1edbcfd4e466d88",
    "smoke:seed-2": "90ebcfd6242a16da",
    "smoke:seed-3": "413fbeddf2cbe5c5",
    "mistake:host.events-not-retained": "c38b16de7b071b7c",
    "mistake:audience.resubscribe-on-apply": "91b7727d8532b8a6",
    "mistake:host.kick-with-disconnect": "05146467c7e73458",
    "mistake:audience.status-from-callbacks": "8308ee4aee3294ca",
    "mistake:audience.seat-limit-as-wait": "a5118f4a1fc30025",
    "mistake:audience.wrong-inviter": "a808dac55946865b",
    "mistake:host.stale-applicants": "082c124ad6feb6ad",
    "mistake:phone.push-not-reported": "c92dcebecc08a926",
    "mistake:phone.fulfill-before-accept": "3ecb864c6f0be013",
    "mistake:phone.conversation-not-ended": "4489873c13c49bba",
    "mistake:phone.unhandled-actions-not-failed": "3ecb864c6f0be013",
    "mistake:phone.join-wrong-uuid": "e96a478b8b43492a",
    "mistake:phone.token-before-login": "25652b3af2c29ca4",
    "mistake:phone.no-fallback-beyond-limit": "fd9d78b3cd970438",
    "mistake:phone.calls-before-login": "d6183428dcf5c6eb",
    "mistake:phone.late-push-registry": "9d7ecaa40143ad94",
    "mistake:audience.double-tap-apply": "8cebf53808d8b1ec",
    "mistake:audience.mic-failure-ignored": "3c9cb3c07bedd5f2",
    "mistake:audience.move-read-as-leave": "d403f9417afa272e",
    "quirk:stale-invitation": "7a2473b57aa71a22",
    "quirk:accept-ignores-inviter": "7a2473b57aa71a22",
    "quirk:cancel-invitation-false-success": "7a2473b57aa71a22",
    "quirk:reentry-applications-as-invitations": "7a2473b57aa71a22",
    "quirk:duplicate-applicants": "7a2473b57aa71a22",
    "quirk:auto-disconnect-on-join": "1733cdbbb2a57887",
    "quirk:second-request-overwrites": "1e4689c6a9c420b7",
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
