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
    "call-storm:seed-1": "8290274978f74c8a",
    "call-storm:seed-2": "27fdd31ed14d145e",
    "call-storm:seed-3": "35da41a25e1efc2e",
    "flash-crowd:seed-1": "6bac2dbc0c9042eb",
    "flash-crowd:seed-2": "a27bfffa38c4979d",
    "flash-crowd:seed-3": "288963289cf53a74",
    "mistakes:seed-1": "030bf3029d9719c9",
    "mistakes:seed-2": "4fd79d3933c16e9d",
    "mistakes:seed-3": "a9303f3f3e9a8175",
    "nightly-chaos:seed-1": "4c24dd340be99957",
    "nightly-chaos:seed-2": "13a97398dae6c511",
    "nightly-chaos:seed-3": "4484baf5130ab82f",
    "seat-rush:seed-1": "bcf38bbfa0982b04",
    "seat-rush:seed-2": "dc949193f2c64070",
    "seat-rush:seed-3": "0f6fce44fa9fbd28",
    "smoke:seed-1": "86df0723dfe03864",
    "smoke:seed-2": "a5cbfd414d7df1d2",
    "smoke:seed-3": "e7e8a27de566e895",
    "mistake:host.events-not-retained": "64a8f351eac58f75",
    "mistake:audience.resubscribe-on-apply": "4404d4782e0bca79",
    "mistake:host.kick-with-disconnect": "eabdda9528aa5795",
    "mistake:audience.status-from-callbacks": "f07eeb74011a4b2d",
    "mistake:audience.seat-limit-as-wait": "5c8f554311cc9340",
    "mistake:audience.wrong-inviter": "a751ee15848d8ec5",
    "mistake:host.stale-applicants": "6df8e02247453717",
    "mistake:phone.push-not-reported": "22e10a401c2eb638",
    "mistake:phone.fulfill-before-accept": "030bf3029d9719c9",
    "mistake:phone.conversation-not-ended": "bee5a844f200c752",
    "mistake:phone.unhandled-actions-not-failed": "030bf3029d9719c9",
    "mistake:phone.join-wrong-uuid": "bd9433701010aa7e",
    "mistake:phone.token-before-login": "07b1f0e2ed78e046",
    "mistake:phone.no-fallback-beyond-limit": "ddad158b8fa3a7ec",
    "mistake:phone.calls-before-login": "c5eee2df32f3d497",
    "mistake:phone.late-push-registry": "c01e870bd1d0b4a4",
    "mistake:audience.double-tap-apply": "c5714acf544888c7",
    "mistake:audience.mic-failure-ignored": "d81971b71b2c42b5",
    "mistake:audience.move-read-as-leave": "cefdd3bae5737e98",
    "quirk:stale-invitation": "4c24dd340be99957",
    "quirk:accept-ignores-inviter": "4c24dd340be99957",
    "quirk:cancel-invitation-false-success": "4c24dd340be99957",
    "quirk:reentry-applications-as-invitations": "4c24dd340be99957",
    "quirk:duplicate-applicants": "4c24dd340be99957",
    "quirk:auto-disconnect-on-join": "5f21377df710568b",
    "quirk:second-request-overwrites": "1307485060005ee2",
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
