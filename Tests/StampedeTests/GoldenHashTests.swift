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
    "mistakes:seed-1": "fdc8efb990f4bdca",
    "mistakes:seed-2": "152341cdf44ac8b5",
    "mistakes:seed-3": "53392b286144fd63",
    "nightly-chaos:seed-1": "dbef233315c1ef28",
    "nightly-chaos:seed-2": "bad8f481c49d603a",
    "nightly-chaos:seed-3": "ed4a880f717b3026",
    "seat-rush:seed-1": "6bbdb7b0c9bd8073",
    "seat-rush:seed-2": "2de7bfab6b0bc94b",
    "seat-rush:seed-3": "c82f9d70a9656ac8",
    "smoke:seed-1": "8bf8d8715fd53471",
    "smoke:seed-2": "c38669dfa048cd3e",
    "smoke:seed-3": "766b609a7778967c",
    "mistake:host.events-not-retained": "928fc016d45cf17e",
    "mistake:audience.resubscribe-on-apply": "3f2c718b88813cc7",
    "mistake:host.kick-with-disconnect": "07743e3b54c06ea2",
    "mistake:audience.status-from-callbacks": "0a9e6b46640431b7",
    "mistake:audience.seat-limit-as-wait": "330c6f8d4c9fa00b",
    "mistake:audience.wrong-inviter": "0a939e753be211c4",
    "mistake:host.stale-applicants": "6482c0f6c4076528",
    "mistake:phone.push-not-reported": "d56f8d7b27bfe175",
    "mistake:phone.fulfill-before-accept": "fdc8efb990f4bdca",
    "mistake:phone.conversation-not-ended": "6d83382a4aa937e0",
    "mistake:phone.unhandled-actions-not-failed": "fdc8efb990f4bdca",
    "mistake:phone.join-wrong-uuid": "cca02d45510d1825",
    "mistake:phone.token-before-login": "76899dfe6558e7e8",
    "mistake:phone.no-fallback-beyond-limit": "f93037135b1a02d3",
    "mistake:phone.calls-before-login": "1fb5f920a8b3d926",
    "mistake:phone.late-push-registry": "8e55c800be3dd2b0",
    "mistake:audience.double-tap-apply": "1aa462462d2da8f8",
    "mistake:audience.mic-failure-ignored": "e22e88ae92e34a18",
    "mistake:audience.move-read-as-leave": "e6717bf02b1ad47d",
    "mistake:phone.report-in-unawaited-task": "084fc1c3cdfa2f2e",
    "mistake:phone.return-on-malformed-push": "49e5101d8c5b14ea",
    "mistake:audience.seat-expected-with-accept": "d5054d716c9a0ed4",
    "quirk:stale-invitation": "dbef233315c1ef28",
    "quirk:accept-ignores-inviter": "dbef233315c1ef28",
    "quirk:cancel-invitation-false-success": "dbef233315c1ef28",
    "quirk:reentry-applications-as-invitations": "dbef233315c1ef28",
    "quirk:duplicate-applicants": "dbef233315c1ef28",
    "quirk:auto-disconnect-on-join": "c9416e492622f03c",
    "quirk:second-request-overwrites": "f48ad04378f04946",
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
