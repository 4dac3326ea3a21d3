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
    "flash-crowd:seed-1": "d2d01689d26a4bd5",
    "flash-crowd:seed-2": "199f8e14e9f95d35",
    "flash-crowd:seed-3": "3580b3c01688ae14",
    "mistake:audience.camera-on-in-background": "5c6f1e24a4759762",
    "mistake:audience.double-tap-apply": "b8321771eb9d72c3",
    "mistake:audience.mic-failure-ignored": "bfafa4507635d530",
    "mistake:audience.move-read-as-leave": "60b22429bfe4bb12",
    "mistake:audience.resubscribe-on-apply": "d19da71aeec95d67",
    "mistake:audience.seat-expected-with-accept": "a2015ec195b80a10",
    "mistake:audience.seat-limit-as-wait": "4ef67719af224416",
    "mistake:audience.status-from-callbacks": "c90dddca44e00751",
    "mistake:audience.wrong-inviter": "acc6e712cf222253",
    "mistake:host.events-not-retained": "aba431af45352f8a",
    "mistake:host.kick-with-disconnect": "921903516895d2b8",
    "mistake:host.stale-applicants": "c6f75cd744617187",
    "mistake:phone.calls-before-login": "1c43f52c47977db3",
    "mistake:phone.conversation-not-ended": "335ab611c2f098bf",
    "mistake:phone.fulfill-before-accept": "2728dbac0c4ed056",
    "mistake:phone.invite-while-ringing": "726b8df015c8a0bf",
    "mistake:phone.join-wrong-uuid": "baa53a89447f7bc9",
    "mistake:phone.late-push-registry": "325343746ed25f7e",
    "mistake:phone.no-fallback-beyond-limit": "9f197455ac8bd323",
    "mistake:phone.push-not-reported": "56301307fcbe8f5e",
    "mistake:phone.report-in-unawaited-task": "8c0d7fb668b18a63",
    "mistake:phone.return-on-malformed-push": "51bbe58476245ffc",
    "mistake:phone.token-before-login": "71185303864291b7",
    "mistake:phone.unhandled-actions-not-failed": "2728dbac0c4ed056",
    "mistakes:seed-1": "2728dbac0c4ed056",
    "mistakes:seed-2": "a939cfca6badc914",
    "mistakes:seed-3": "7547866d5c6848b0",
    "nightly-chaos:seed-1": "79d7bc8a293773dc",
    "nightly-chaos:seed-2": "1e08db7024c30d88",
    "nightly-chaos:seed-3": "3a90b6037f019914",
    "quirk:accept-ignores-inviter": "79d7bc8a293773dc",
    "quirk:auto-disconnect-on-join": "9f5b42ad46d4db70",
    "quirk:cancel-invitation-false-success": "79d7bc8a293773dc",
    "quirk:duplicate-applicants": "79d7bc8a293773dc",
    "quirk:reentry-applications-as-invitations": "79d7bc8a293773dc",
    "quirk:second-request-overwrites": "97b68f1115462ff3",
    "quirk:stale-invitation": "79d7bc8a293773dc",
    "seat-rush:seed-1": "f17909bab771bed9",
    "seat-rush:seed-2": "9b8c239a53c46977",
    "seat-rush:seed-3": "44ab7bf16ddda9f7",
    "smoke:seed-1": "a8013739a59e5c44",
    "smoke:seed-2": "28f38b2b8f46378c",
    "smoke:seed-3": "0d97f3be9ab89f70",
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
