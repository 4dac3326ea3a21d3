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
    "call-storm:seed-1": "353cb97f7e9a39c9",
    "call-storm:seed-2": "ac37e577f781c4c7",
    "call-storm:seed-3": "2f55dfb17485bec3",
    "flash-crowd:seed-1": "a124798c1cd944ae",
    "flash-crowd:seed-2": "de2baca461363fb3",
    "flash-crowd:seed-3": "78df8c87e9f9aa1a",
    "mistake:audience.camera-on-in-background": "87481664b1781d9d",
    "mistake:audience.double-tap-apply": "e521128cc52fc84d",
    "mistake:audience.mic-failure-ignored": "3efc986bb17126d7",
    "mistake:audience.move-read-as-leave": "a809ffded51521cf",
    "mistake:audience.resubscribe-on-apply": "136f6fb7486e2363",
    "mistake:audience.seat-expected-with-accept": "b38f6d284fa63136",
    "mistake:audience.seat-limit-as-wait": "3e3c289eac75de28",
    "mistake:audience.status-from-callbacks": "fb832683c9cd2b69",
    "mistake:audience.wrong-inviter": "3072291629b5bfa3",
    "mistake:host.events-not-retained": "299e92d67a4a10ef",
    "mistake:host.kick-with-disconnect": "deec437a3e746759",
    "mistake:host.stale-applicants": "25a51541bae496ae",
    "mistake:phone.calls-before-login": "479d9f5785549e7d",
    "mistake:phone.conversation-not-ended": "b30ee23482768099",
    "mistake:phone.fulfill-before-accept": "9b834a8cbfd72e75",
    "mistake:phone.invite-while-ringing": "145a67e0ede27a0a",
    "mistake:phone.join-wrong-uuid": "03e6eac92589b29e",
    "mistake:phone.late-push-registry": "381f64ea986c68f8",
    "mistake:phone.no-fallback-beyond-limit": "625dac3c41478911",
    "mistake:phone.push-not-reported": "1b95007ad6ec363b",
    "mistake:phone.report-in-unawaited-task": "1a56938845b1ccb0",
    "mistake:phone.return-on-malformed-push": "63c04eec1e1c3715",
    "mistake:phone.token-before-login": "bed6359a5bb71986",
    "mistake:phone.unhandled-actions-not-failed": "9b834a8cbfd72e75",
    "mistakes:seed-1": "9b834a8cbfd72e75",
    "mistakes:seed-2": "8746be30a6a05b23",
    "mistakes:seed-3": "251e52b5e8aacf3d",
    "nightly-chaos:seed-1": "1cb57ab385f07897",
    "nightly-chaos:seed-2": "9b1c6531f93cf71f",
    "nightly-chaos:seed-3": "a5f8653215d3fa02",
    "quirk:accept-ignores-inviter": "1cb57ab385f07897",
    "quirk:auto-disconnect-on-join": "34dca99d948a089b",
    "quirk:cancel-invitation-false-success": "1cb57ab385f07897",
    "quirk:duplicate-applicants": "1cb57ab385f07897",
    "quirk:reentry-applications-as-invitations": "1cb57ab385f07897",
    "quirk:second-request-overwrites": "5f7fa790312a5043",
    "quirk:stale-invitation": "1cb57ab385f07897",
    "seat-rush:seed-1": "4329e692b598613c",
    "seat-rush:seed-2": "dec2bc909281505f",
    "seat-rush:seed-3": "3a27d54c54e04d55",
    "smoke:seed-1": "7af977d5f406ab8b",
    "smoke:seed-2": "585f46f736d0188c",
    "smoke:seed-3": "8d9d2238a75e4501",
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
