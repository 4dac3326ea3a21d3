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
    "call-storm:seed-1": "599c9f30b9881ef7",
    "call-storm:seed-2": "34311f929a0985ac",
    "call-storm:seed-3": "938832a1dc7b34aa",
    "flash-crowd:seed-1": "6e453aed9a9313d3",
    "flash-crowd:seed-2": "a961cd8ba79f7aeb",
    "flash-crowd:seed-3": "7bb475880ac2a2d2",
    "mistakes:seed-1": "126c42cecb6aa893",
    "mistakes:seed-2": "7175a3b00e120404",
    "mistakes:seed-3": "2336ac92cdeb2d25",
    "nightly-chaos:seed-1": "2db71331e4e87789",
    "nightly-chaos:seed-2": "b8f2e3d958b959b1",
    "nightly-chaos:seed-3": "2a1d27325ff88423",
    "seat-rush:seed-1": "364c2b62832e7654",
    "seat-rush:seed-2": "0eee71a8d026c7ec",
    "seat-rush:seed-3": "6ddfdcefc98764c9",
    "smoke:seed-1": "905610cf626f660d",
    "smoke:seed-2": "b79565cf1cc23d50",
    "smoke:seed-3": "9408daaf7c88c780",
    "mistake:host.events-not-retained": "bb9f7d28f0bc999f",
    "mistake:audience.resubscribe-on-apply": "8edcd7d5f66364ce",
    "mistake:host.kick-with-disconnect": "02fcdb079adc2e3c",
    "mistake:audience.status-from-callbacks": "3dc57f6baf46aa6d",
    "mistake:audience.seat-limit-as-wait": "74d4f76867a7854b",
    "mistake:audience.wrong-inviter": "4027282a8e5fb89c",
    "mistake:host.stale-applicants": "ff733d782b360e6b",
    "mistake:phone.push-not-reported": "b571e5fb047d6ed6",
    "mistake:phone.fulfill-before-accept": "126c42cecb6aa893",
    "mistake:phone.conversation-not-ended": "db242e3db120c062",
    "mistake:phone.unhandled-actions-not-failed": "126c42cecb6aa893",
    "mistake:phone.join-wrong-uuid": "a4166cdb18ef3234",
    "mistake:phone.token-before-login": "b7dc2f91f53ff884",
    "mistake:phone.no-fallback-beyond-limit": "f27dbf7ee454eea9",
    "mistake:phone.calls-before-login": "c57e0c9bf70faf43",
    "mistake:phone.late-push-registry": "1840dd60829370c4",
    "quirk:stale-invitation": "a05e691517b932c4",
    "quirk:accept-ignores-inviter": "2db71331e4e87789",
    "quirk:cancel-invitation-false-success": "2db71331e4e87789",
    "quirk:reentry-applications-as-invitations": "2db71331e4e87789",
    "quirk:duplicate-applicants": "2db71331e4e87789",
    "quirk:auto-disconnect-on-join": "2d2d33e0dacb14b3",
    "quirk:second-request-overwrites": "2db71331e4e87789",
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
