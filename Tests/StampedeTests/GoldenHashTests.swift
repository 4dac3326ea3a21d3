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
    "call-storm:seed-1": "eb17a32647a52700",
    "call-storm:seed-2": "d08af4a7dd3a1c3a",
    "call-storm:seed-3": "99e2c10432074de9",
    "flash-crowd:seed-1": "463e7d261e286d85",
    "flash-crowd:seed-2": "7861af6ca44a6a1a",
    "flash-crowd:seed-3": "60cb6f05d0bcba6c",
    "mistakes:seed-1": "e0f0291932180cbb",
    "mistakes:seed-2": "af9f2690c1ba1e0f",
    "mistakes:seed-3": "237112a28b564b4f",
    "nightly-chaos:seed-1": "3951605a77b29b37",
    "nightly-chaos:seed-2": "23162eda3ed7ffd4",
    "nightly-chaos:seed-3": "1b4ead97a392ac9f",
    "seat-rush:seed-1": "3e724f4c42094350",
    "seat-rush:seed-2": "ebc6f7484b36c942",
    "seat-rush:seed-3": "60253bf650315342",
    "smoke:seed-1": "c97c727a5850b2d1",
    "smoke:seed-2": "448a9d6de6708c38",
    "smoke:seed-3": "e6e3aaad7f25f81c",
    "mistake:host.events-not-retained": "b4de05eafeb3e649",
    "mistake:audience.resubscribe-on-apply": "4f75327602e47b4e",
    "mistake:host.kick-with-disconnect": "41d376be8a2f06a5",
    "mistake:audience.status-from-callbacks": "3d7291aa8a9b1e52",
    "mistake:audience.seat-limit-as-wait": "8ddc4759a8f8ebd3",
    "mistake:audience.wrong-inviter": "c08c9beb1f96968b",
    "mistake:host.stale-applicants": "86fd9028fd7c6eb2",
    "mistake:phone.push-not-reported": "2df9f9da12c868f5",
    "mistake:phone.fulfill-before-accept": "e0f0291932180cbb",
    "mistake:phone.conversation-not-ended": "1118d1af0abd17d0",
    "mistake:phone.unhandled-actions-not-failed": "e0f0291932180cbb",
    "mistake:phone.join-wrong-uuid": "c49f80f7e41d257d",
    "mistake:phone.token-before-login": "15613e1494965d4e",
    "mistake:phone.no-fallback-beyond-limit": "355c6b18e7cd7e8d",
    "mistake:phone.calls-before-login": "90d9dfd931b64bc5",
    "mistake:phone.late-push-registry": "c5c02a5853f983b7",
    "mistake:audience.double-tap-apply": "bf8a427176aeaa3e",
    "mistake:audience.mic-failure-ignored": "2d982ebcb260e3b2",
    "mistake:audience.move-read-as-leave": "57acc7538e582471",
    "mistake:phone.report-in-unawaited-task": "83f68d12ec12473d",
    "mistake:phone.return-on-malformed-push": "f49406abcc67176f",
    "mistake:audience.seat-expected-with-accept": "c0b562c9499322a7",
    "mistake:audience.camera-on-in-background": "22dd105d9793eac3",
    "mistake:phone.invite-while-ringing": "8361de78c044cb50",
    "quirk:stale-invitation": "3951605a77b29b37",
    "quirk:accept-ignores-inviter": "3951605a77b29b37",
    "quirk:cancel-invitation-false-success": "3951605a77b29b37",
    "quirk:reentry-applications-as-invitations": "3951605a77b29b37",
    "quirk:duplicate-applicants": "3951605a77b29b37",
    "quirk:auto-disconnect-on-join": "ccd9a7ea90f68517",
    "quirk:second-request-overwrites": "203f82f12f0880bd",
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
