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
    "mistake:audience.camera-on-in-background": "42f08912bd67dd36",
    "mistake:audience.double-tap-apply": "9f6c9003f4fb10b9",
    "mistake:audience.mic-failure-ignored": "2eb96829b8639d5a",
    "mistake:audience.move-read-as-leave": "867adea11bff74be",
    "mistake:audience.resubscribe-on-apply": "b4c60a1cf45a78e4",
    "mistake:audience.seat-expected-with-accept": "89156a6abfcafac8",
    "mistake:audience.seat-limit-as-wait": "974208841dccf0e3",
    "mistake:audience.status-from-callbacks": "52b981df4792634f",
    "mistake:audience.wrong-inviter": "90df317d028a1d9b",
    "mistake:host.events-not-retained": "7fd1fff1be78eebb",
    "mistake:host.kick-with-disconnect": "75f174ca91ed488d",
    "mistake:host.stale-applicants": "1ad050e9cd91e867",
    "mistake:phone.calls-before-login": "bb69a3bd68dbc55c",
    "mistake:phone.conversation-not-ended": "6899aa182199952d",
    "mistake:phone.fulfill-before-accept": "0d786480578c92e5",
    "mistake:phone.invite-while-ringing": "3c49750ba8a66e07",
    "mistake:phone.join-wrong-uuid": "2d5258a458978fa9",
    "mistake:phone.late-push-registry": "6d6d7bf5b2510e48",
    "mistake:phone.no-fallback-beyond-limit": "e1964a9cdfe3839e",
    "mistake:phone.push-not-reported": "17645297e17d8a86",
    "mistake:phone.report-in-unawaited-task": "dbd1e9a95c8cd321",
    "mistake:phone.return-on-malformed-push": "425b983cc878e4a9",
    "mistake:phone.token-before-login": "c5887f98c839eab7",
    "mistake:phone.unhandled-actions-not-failed": "0d786480578c92e5",
    "mistakes:seed-1": "0d786480578c92e5",
    "mistakes:seed-2": "4e17c1a4542a670c",
    "mistakes:seed-3": "e87ac132ede9b196",
    "nightly-chaos:seed-1": "098d1b19fa6eb7f6",
    "nightly-chaos:seed-2": "ae650c8e895ff21c",
    "nightly-chaos:seed-3": "cc804f2d343de8d8",
    "quirk:accept-ignores-inviter": "098d1b19fa6eb7f6",
    "quirk:auto-disconnect-on-join": "77f1023c446a5d41",
    "quirk:cancel-invitation-false-success": "098d1b19fa6eb7f6",
    "quirk:duplicate-applicants": "098d1b19fa6eb7f6",
    "quirk:reentry-applications-as-invitations": "098d1b19fa6eb7f6",
    "quirk:second-request-overwrites": "5de9b75662bbe200",
    "quirk:stale-invitation": "098d1b19fa6eb7f6",
    "seat-rush:seed-1": "aade53a584bb633b",
    "seat-rush:seed-2": "cc88414236f832e7",
    "seat-rush:seed-3": "2e54b9dbeafbee57",
    "smoke:seed-1": "e702a340ad1f50cc",
    "smoke:seed-2": "85fd702f1727957d",
    "smoke:seed-3": "c8fc06f86c6d408c",
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
