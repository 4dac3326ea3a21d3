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
  static let shortened: [String: SimDuration] = [
    "capacity-1m": .seconds(5), "bench-mmcc": .minutes(1), "capacity-10m": .seconds(1),
  ]

  /// Profiles whose worlds are too large for `make test` in a debug build (ten million users take
  /// 25 s and 2.6 GiB to build): their seed-1 run is in the long set.
  static let longOnly: Set<String> = ["capacity-10m"]

  /// Every shipped profile, seed 1 (`make test`). The long set (`make test-long`) adds seeds 2
  /// and 3 of the smaller profiles, every catalogued mistake on profiles/mistakes.json5 and every
  /// SDK quirk on profiles/nightly-chaos.json5, seed 1.
  static func runs(long: Bool) throws -> [(label: String, run: SimulationRun)] {
    var runs: [(String, SimulationRun)] = []
    func load(_ name: String) throws -> (Profile, Data) {
      try Profile.load(path: repositoryRoot.appendingPathComponent("profiles/\(name).json5").path)
    }
    // Seed 1 of a shipped profile, shortened where its world is large.
    func seedOne(_ name: String) throws {
      let (profile, data) = try load(name)
      runs.append(
        (
          "\(name):seed-1",
          SimulationRun(
            profile: profile, profilePath: "profiles/\(name).json5", profileData: data, seed: 1,
            duration: shortened[name] ?? length)
        ))
    }
    if !long {
      for name in shipped where !longOnly.contains(name) { try seedOne(name) }
      return runs
    }
    for name in longOnly.sorted() { try seedOne(name) }
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
    "bench-mmcc:seed-1": "8b93c74b45f03b0a",
    "call-storm:seed-1": "ac40efde2b888c36",
    "call-storm-swarm:seed-1": "ced2897e39d3439e",
    "capacity-1m:seed-1": "b540321368922e9a",
    "flash-crowd:seed-1": "2403a9fb93b47588",
    "flash-crowd-staffing:seed-1": "de20f12845c43a78",
    "mistakes:seed-1": "0d4e19ff5e99bb1a",
    "nightly-chaos:seed-1": "3aab2c923e60ae31",
    "seat-rush:seed-1": "7a7d98d838876336",
    "seat-rush-swarm:seed-1": "58e10a993f9d2da0",
    "smoke:seed-1": "9adb495fc397467b",
    "swarm-chaos:seed-1": "4dacc764ed1eee05",
    "capacity-10m:seed-1": "bfb4174d15133cd6",
    "call-storm:seed-2": "97bfe968e36dea44",
    "call-storm:seed-3": "908706d114466446",
    "flash-crowd:seed-2": "86d39a943fe13a01",
    "flash-crowd:seed-3": "373ee833bf801d95",
    "mistakes:seed-2": "6509ea2af8d6489a",
    "mistakes:seed-3": "325a9c52becee372",
    "nightly-chaos:seed-2": "2f295d321975cbf9",
    "nightly-chaos:seed-3": "ec54d986cd883644",
    "seat-rush:seed-2": "36a92b6cb234e151",
    "seat-rush:seed-3": "9709a0b7fc7e9a41",
    "smoke:seed-2": "d152c004d8fc6281",
    "smoke:seed-3": "a95fd2bf3b33c88e",
    "mistake:host.events-not-retained": "d9c65e2a08059ca0",
    "mistake:audience.resubscribe-on-apply": "cafd208d408dc9b0",
    "mistake:host.kick-with-disconnect": "e50bcd071009592d",
    "mistake:audience.status-from-callbacks": "cb3beb12b19d0b2f",
    "mistake:audience.seat-limit-as-wait": "daa7abbbbb55260d",
    "mistake:audience.wrong-inviter": "3c8a85287cc7b92b",
    "mistake:host.stale-applicants": "bd59f8a165fae4ae",
    "mistake:phone.push-not-reported": "a1028df492948cd5",
    "mistake:phone.fulfill-before-accept": "0d4e19ff5e99bb1a",
    "mistake:phone.conversation-not-ended": "b6b720a694a2bdbe",
    "mistake:phone.unhandled-actions-not-failed": "0d4e19ff5e99bb1a",
    "mistake:phone.join-wrong-uuid": "a7944cf8c45247e8",
    "mistake:phone.token-before-login": "7d27078b0e05c18b",
    "mistake:phone.no-fallback-beyond-limit": "0179e653d131d1d7",
    "mistake:phone.calls-before-login": "93e3f3f390d194cd",
    "mistake:phone.late-push-registry": "f9b4c67fbf3707bc",
    "mistake:audience.double-tap-apply": "523471a11bac9210",
    "mistake:audience.mic-failure-ignored": "92dbdfa98bdeeef6",
    "mistake:audience.move-read-as-leave": "d891388ff4b000c4",
    "mistake:phone.report-in-unawaited-task": "55beafb1eea76066",
    "mistake:phone.return-on-malformed-push": "87a9dc336d60ad4e",
    "mistake:audience.seat-expected-with-accept": "a13cc9f2302d7196",
    "mistake:audience.camera-on-in-background": "754f7bece438313b",
    "mistake:phone.invite-while-ringing": "6df255d166bb3a7c",
    "mistake:audience.rejection-ignored": "37e7a6acaa290d0f",
    "quirk:stale-invitation": "3aab2c923e60ae31",
    "quirk:accept-ignores-inviter": "3aab2c923e60ae31",
    "quirk:cancel-invitation-false-success": "3aab2c923e60ae31",
    "quirk:reentry-applications-as-invitations": "3aab2c923e60ae31",
    "quirk:duplicate-applicants": "3aab2c923e60ae31",
    "quirk:auto-disconnect-on-join": "3aab2c923e60ae31",
    "quirk:second-request-overwrites": "3aab2c923e60ae31",
  ]

  /// The shipped profiles, by name.
  static let shipped =
    (try? FileManager.default.contentsOfDirectory(
      atPath: repositoryRoot.appendingPathComponent("profiles").path))?.filter { $0.hasSuffix(".json5") }.map {
      String($0.dropLast(6))
    }.sorted() ?? []

  @Test func everyShippedProfileHasItsSeedOneRun() throws {
    #expect(GoldenHashTests.shipped.count >= 12)
    #expect(
      try GoldenHashTests.runs(long: false).map(\.label)
        == GoldenHashTests.shipped.filter { !GoldenHashTests.longOnly.contains($0) }.map { "\($0):seed-1" })
    #expect(try GoldenHashTests.runs(long: true).map(\.label).contains("capacity-10m:seed-1"))
  }

  @Test(arguments: shipped.filter { !longOnly.contains($0) })
  func everyShippedProfileKeepsItsTraceHashOnSeedOne(_ name: String) throws {
    let (label, run) = try #require(GoldenHashTests.runs(long: false).first { $0.label == "\(name):seed-1" })
    #expect(run.execute().traceHash.description == GoldenHashTests.expected[label], "\(label)")
  }

  @Test(.long) func everyLongGoldenRunKeepsItsTraceHash() throws {
    let long = true
    var table: [String] = []
    var mismatches: [String] = []
    // Every run, the seed-one runs of `make test` too: the table printed on a mismatch is then the
    // whole of ``expected`` (scripts/repin-golden-hashes writes it back).
    let runs = try GoldenHashTests.runs(long: false) + GoldenHashTests.runs(long: long)
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
