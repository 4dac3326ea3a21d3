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
    "mistakes:seed-1": "b22d76f8ae0802c2",
    "mistakes:seed-2": "f9bcd74d3bffcc85",
    "mistakes:seed-3": "d957b99e1fee83b2",
    "nightly-chaos:seed-1": "01b54a89cc8868ba",
    "nightly-chaos:seed-2": "91ca40abe58077dc",
    "nightly-chaos:seed-3": "cf88893205aa8241",
    "seat-rush:seed-1": "6bbdb7b0c9bd8073",
    "seat-rush:seed-2": "2de7bfab6b0bc94b",
    "seat-rush:seed-3": "c82f9d70a9656ac8",
    "smoke:seed-1": "b1edbcfd4e466d88",
    "smoke:seed-2": "90ebcfd6242a16da",
    "smoke:seed-3": "413fbeddf2cbe5c5",
    "mistake:host.events-not-retained": "c38b16de7b071b7c",
    "mistake:audience.resubscribe-on-apply": "a08a0432e8207a5a",
    "mistake:host.kick-with-disconnect": "9c8ae374a14ccf22",
    "mistake:audience.status-from-callbacks": "80d2a43c0fb30a02",
    "mistake:audience.seat-limit-as-wait": "5bbe6a8901796857",
    "mistake:audience.wrong-inviter": "b9798c3f25d99607",
    "mistake:host.stale-applicants": "b00042a113441832",
    "mistake:phone.push-not-reported": "32e947df61261fa8",
    "mistake:phone.fulfill-before-accept": "b22d76f8ae0802c2",
    "mistake:phone.conversation-not-ended": "07a49792657e103b",
    "mistake:phone.unhandled-actions-not-failed": "b22d76f8ae0802c2",
    "mistake:phone.join-wrong-uuid": "61d173f3945622ff",
    "mistake:phone.token-before-login": "91bec34cb247ddf2",
    "mistake:phone.no-fallback-beyond-limit": "3cc6e0f7ceb642d6",
    "mistake:phone.calls-before-login": "717d569fa18e1698",
    "mistake:phone.late-push-registry": "6fd5821e74aee16c",
    "mistake:audience.double-tap-apply": "a51fdf610c4340ea",
    "mistake:audience.mic-failure-ignored": "6bf16b8bc1de74f3",
    "mistake:audience.move-read-as-leave": "3e6bd05a7f3a2840",
    "quirk:stale-invitation": "01b54a89cc8868ba",
    "quirk:accept-ignores-inviter": "01b54a89cc8868ba",
    "quirk:cancel-invitation-false-success": "01b54a89cc8868ba",
    "quirk:reentry-applications-as-invitations": "01b54a89cc8868ba",
    "quirk:duplicate-applicants": "01b54a89cc8868ba",
    "quirk:auto-disconnect-on-join": "97d9cb6213c5d536",
    "quirk:second-request-overwrites": "64c39ff458142b7a",
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
