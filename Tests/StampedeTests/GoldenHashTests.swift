import Foundation
import Testing

@testable import Clients
@testable import Profiles
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

  /// Shorter lengths for the two largest profiles, whose worlds dominate a debug run: the
  /// million-user one and the capacity benchmark.
  static let shortened: [String: SimDuration] = ["capacity-1m": .seconds(5), "bench-mmcc": .minutes(1)]

  /// Every shipped profile, seed 1 (`make test`). The long set (`make test-long`) adds seeds 2
  /// and 3 of the smaller profiles, every catalogued mistake on profiles/mistakes.json5 and every
  /// SDK quirk on profiles/nightly-chaos.json5, seed 1.
  static func runs(long: Bool) throws -> [(label: String, run: SimulationRun)] {
    var runs: [(String, SimulationRun)] = []
    func load(_ name: String) throws -> (Profile, Data) {
      try Profile.load(path: repositoryRoot.appendingPathComponent("profiles/\(name).json5").path)
    }
    if !long {
      for name in shipped {
        let (profile, data) = try load(name)
        runs.append(
          (
            "\(name):seed-1",
            SimulationRun(
              profile: profile, profilePath: "profiles/\(name).json5", profileData: data, seed: 1,
              duration: shortened[name] ?? length)
          ))
      }
      return runs
    }
    for name in ["call-storm", "flash-crowd", "mistakes", "nightly-chaos", "seat-rush", "smoke"] {
      let (profile, data) = try load(name)
      for seed in UInt64(2)...3 {
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
    "bench-mmcc:seed-1": "2d446d3adc11d0b8",
    "call-storm-swarm:seed-1": "0df08b68bd4dbd30",
    "capacity-1m:seed-1": "9b0e27f543434b34",
    "flash-crowd-staffing:seed-1": "de7c37c85e0de2d0",
    "seat-rush-swarm:seed-1": "e6b78a0d3944c49f",
    "swarm-chaos:seed-1": "94a16d8dc3b55e34",
    "call-storm:seed-1": "353cb97f7e9a39c9",
    "call-storm:seed-2": "ac37e577f781c4c7",
    "call-storm:seed-3": "2f55dfb17485bec3",
    "flash-crowd:seed-1": "0727161df6273863",
    "flash-crowd:seed-2": "727f8ea3f5fcb744",
    "flash-crowd:seed-3": "a74c124a2b889b1f",
    "mistake:audience.camera-on-in-background": "771a3d824c9f7300",
    "mistake:audience.double-tap-apply": "94f48127149b682f",
    "mistake:audience.mic-failure-ignored": "e7b83af7ae8f0660",
    "mistake:audience.move-read-as-leave": "55e0b859c498c8da",
    "mistake:audience.resubscribe-on-apply": "f19a69a496548848",
    "mistake:audience.seat-expected-with-accept": "759cb918d2a38c39",
    "mistake:audience.seat-limit-as-wait": "4a22eee7354eb043",
    "mistake:audience.status-from-callbacks": "4f7d3c2fa0042030",
    "mistake:audience.wrong-inviter": "8c304c4bf3736ce8",
    "mistake:host.events-not-retained": "79627ada5e1d97da",
    "mistake:host.kick-with-disconnect": "20f7c8a4bfa363fd",
    "mistake:host.stale-applicants": "3b5ac8c2e1ed8417",
    "mistake:phone.calls-before-login": "40feabf33ee097f0",
    "mistake:phone.conversation-not-ended": "cae68c9ca4c98ce9",
    "mistake:phone.fulfill-before-accept": "0f14c2ecd21395f5",
    "mistake:phone.invite-while-ringing": "640e774452e5a033",
    "mistake:phone.join-wrong-uuid": "2c68a63af1b69966",
    "mistake:phone.late-push-registry": "731e9501b16c418d",
    "mistake:phone.no-fallback-beyond-limit": "8a9da5c6048258af",
    "mistake:phone.push-not-reported": "088f8f033ff5c9d5",
    "mistake:phone.report-in-unawaited-task": "7f7fd4476099157f",
    "mistake:phone.return-on-malformed-push": "56a6c173fc6dfc80",
    "mistake:phone.token-before-login": "ee5413d14976a427",
    "mistake:phone.unhandled-actions-not-failed": "0f14c2ecd21395f5",
    "mistakes:seed-1": "0f14c2ecd21395f5",
    "mistakes:seed-2": "fe26b7e66f86242b",
    "mistakes:seed-3": "e2ab1b5a64bffaaa",
    "nightly-chaos:seed-1": "02e7f46faedecfc5",
    "nightly-chaos:seed-2": "ea1507ee5075c312",
    "nightly-chaos:seed-3": "d14bec0671eca4b6",
    "quirk:accept-ignores-inviter": "02e7f46faedecfc5",
    "quirk:auto-disconnect-on-join": "9a3766d33a011048",
    "quirk:cancel-invitation-false-success": "02e7f46faedecfc5",
    "quirk:duplicate-applicants": "02e7f46faedecfc5",
    "quirk:reentry-applications-as-invitations": "02e7f46faedecfc5",
    "quirk:second-request-overwrites": "4fe814716c03b4df",
    "quirk:stale-invitation": "02e7f46faedecfc5",
    "seat-rush:seed-1": "2df613b26b8bb721",
    "seat-rush:seed-2": "dcc2c24fa3607188",
    "seat-rush:seed-3": "aca74358f7c2149d",
    "smoke:seed-1": "3960ff8e0b23ca76",
    "smoke:seed-2": "059ff2a013bc7cfb",
    "smoke:seed-3": "366461b4d4fd2636",
  ]

  /// The shipped profiles, by name.
  static let shipped =
    (try? FileManager.default.contentsOfDirectory(
      atPath: repositoryRoot.appendingPathComponent("profiles").path))?.filter { $0.hasSuffix(".json5") }.map {
      String($0.dropLast(6))
    }.sorted() ?? []

  @Test func everyShippedProfileHasItsSeedOneRun() throws {
    #expect(GoldenHashTests.shipped.count >= 12)
    #expect(try GoldenHashTests.runs(long: false).map(\.label) == GoldenHashTests.shipped.map { "\($0):seed-1" })
  }

  @Test(arguments: shipped) func everyShippedProfileKeepsItsTraceHashOnSeedOne(_ name: String) throws {
    let (label, run) = try #require(GoldenHashTests.runs(long: false).first { $0.label == "\(name):seed-1" })
    #expect(run.execute().traceHash.description == GoldenHashTests.expected[label], "\(label)")
  }

  @Test(.long) func everyLongGoldenRunKeepsItsTraceHash() throws {
    let long = true
    var table: [String] = []
    var mismatches: [String] = []
    let runs = try GoldenHashTests.runs(long: long)
    for (label, run) in runs {
      let hash = run.execute().traceHash.description
      table.append("    \"\(label)\": \"\(hash)\",")
      if GoldenHashTests.expected[label] != hash {
        mismatches.append("\(label): expected \(GoldenHashTests.expected[label] ?? "none"), got \(hash)")
      }
    }
    #expect(Set(runs.map(\.label)).isSubset(of: GoldenHashTests.expected.keys), "every run has a golden hash")
    if long {
      let both = Set(try GoldenHashTests.runs(long: false).map(\.label)).union(runs.map(\.label))
      #expect(both == Set(GoldenHashTests.expected.keys), "every golden hash has a run")
    }
    #expect(
      mismatches.isEmpty,
      "trace hashes moved:\n\(mismatches.joined(separator: "\n"))\nthe table as it now stands:\n\(table.joined(separator: "\n"))"
    )
  }
}
