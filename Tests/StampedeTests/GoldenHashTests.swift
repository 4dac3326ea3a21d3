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
    "call-storm:seed-1": "a1fd7991e17eb3b7",
    "call-storm:seed-2": "91a0f56520059e53",
    "call-storm:seed-3": "eccc9d95eaca0abc",
    "flash-crowd:seed-1": "881730b56681fee7",
    "flash-crowd:seed-2": "eb46ce2605b68937",
    "flash-crowd:seed-3": "2a99056b21be1413",
    "mistakes:seed-1": "8cbd99adf590e4f3",
    "mistakes:seed-2": "ccd26751a1ceed71",
    "mistakes:seed-3": "9588b830d571629c",
    "nightly-chaos:seed-1": "40041cfe599274a8",
    "nightly-chaos:seed-2": "d3d3e9299ad27091",
    "nightly-chaos:seed-3": "27fb6f2517c7aa1f",
    "seat-rush:seed-1": "6bbdb7b0c9bd8073",
    "seat-rush:seed-2": "2de7bfab6b0bc94b",
    "seat-rush:seed-3": "c82f9d70a9656ac8",
    "smoke:seed-1": "8bf8d8715fd53471",
    "smoke:seed-2": "c38669dfa048cd3e",
    "smoke:seed-3": "766b609a7778967c",
    "mistake:host.events-not-retained": "05ac2d84359c03da",
    "mistake:audience.resubscribe-on-apply": "35065bf331786058",
    "mistake:host.kick-with-disconnect": "9c61b18f184ae182",
    "mistake:audience.status-from-callbacks": "d784771d77becf2b",
    "mistake:audience.seat-limit-as-wait": "e2f4b4384cbae2dd",
    "mistake:audience.wrong-inviter": "8d2b2ebe6b7085d8",
    "mistake:host.stale-applicants": "ada271541188a62a",
    "mistake:phone.push-not-reported": "a75c3ea2dbcec71b",
    "mistake:phone.fulfill-before-accept": "8cbd99adf590e4f3",
    "mistake:phone.conversation-not-ended": "298dff90ff07b95a",
    "mistake:phone.unhandled-actions-not-failed": "8cbd99adf590e4f3",
    "mistake:phone.join-wrong-uuid": "0e4aeb9d350eb822",
    "mistake:phone.token-before-login": "181d30e938d8c034",
    "mistake:phone.no-fallback-beyond-limit": "c271e1126c232de3",
    "mistake:phone.calls-before-login": "1f52647496ef1bc6",
    "mistake:phone.late-push-registry": "326912fd926d6c58",
    "mistake:audience.double-tap-apply": "9f2ad94edb43da9c",
    "mistake:audience.mic-failure-ignored": "d8380137edb96fd3",
    "mistake:audience.move-read-as-leave": "c1aa99a16e32eac7",
    "mistake:phone.report-in-unawaited-task": "b31385f00b62641e",
    "mistake:phone.return-on-malformed-push": "dad04bb6a6ede82d",
    "mistake:audience.seat-expected-with-accept": "f2f62d0ea665777a",
    "mistake:audience.camera-on-in-background": "553cb3c4cee5fea8",
    "mistake:phone.invite-while-ringing": "79a972081ea28438",
    "quirk:stale-invitation": "40041cfe599274a8",
    "quirk:accept-ignores-inviter": "40041cfe599274a8",
    "quirk:cancel-invitation-false-success": "40041cfe599274a8",
    "quirk:reentry-applications-as-invitations": "40041cfe599274a8",
    "quirk:duplicate-applicants": "40041cfe599274a8",
    "quirk:auto-disconnect-on-join": "eb3864fafd229c5c",
    "quirk:second-request-overwrites": "d09ee237e36e36f3",
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
