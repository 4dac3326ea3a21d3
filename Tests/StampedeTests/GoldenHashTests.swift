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
    "bench-mmcc:seed-1": "ff8b231a393174b8",
    "call-storm:seed-1": "ac40efde2b888c36",
    "call-storm-swarm:seed-1": "ced2897e39d3439e",
    "capacity-1m:seed-1": "1e521445d1972442",
    "flash-crowd:seed-1": "291b51e8518de290",
    "flash-crowd-staffing:seed-1": "1acb7768cb21ff93",
    "mistakes:seed-1": "d8f7729591feabc0",
    "nightly-chaos:seed-1": "b5de1f9c2bc9d445",
    "seat-rush:seed-1": "88fb3b255115c1f5",
    "seat-rush-swarm:seed-1": "b4aa4bed0b08c961",
    "smoke:seed-1": "0fa54a12188df159",
    "swarm-chaos:seed-1": "1b331253a18e81ee",
    "capacity-10m:seed-1": "ab3cc82a40c8261f",
    "call-storm:seed-2": "97bfe968e36dea44",
    "call-storm:seed-3": "908706d114466446",
    "flash-crowd:seed-2": "7693be0c11ce48e6",
    "flash-crowd:seed-3": "6bc534a5394e4f61",
    "mistakes:seed-2": "a914c5ce274d2e62",
    "mistakes:seed-3": "d91fba7836a5377d",
    "nightly-chaos:seed-2": "c3dab9207a818a97",
    "nightly-chaos:seed-3": "ad4aae580e7998f6",
    "seat-rush:seed-2": "10d035745a1afa93",
    "seat-rush:seed-3": "dfaf3a6736642a11",
    "smoke:seed-2": "bb9890435c22bab2",
    "smoke:seed-3": "4bddd3f8cab8d7c5",
    "mistake:host.events-not-retained": "77ca719f9bc34ae7",
    "mistake:audience.resubscribe-on-apply": "865015fb918823b7",
    "mistake:host.kick-with-disconnect": "971232cf06c8f33e",
    "mistake:audience.status-from-callbacks": "a1d6924bda9da644",
    "mistake:audience.seat-limit-as-wait": "256b10b111af9bca",
    "mistake:audience.wrong-inviter": "0b957aa637d83066",
    "mistake:host.stale-applicants": "9d260cb5ee5d88ac",
    "mistake:phone.push-not-reported": "de0578152c616267",
    "mistake:phone.fulfill-before-accept": "d8f7729591feabc0",
    "mistake:phone.conversation-not-ended": "cce7b03ee3a3d36d",
    "mistake:phone.unhandled-actions-not-failed": "d8f7729591feabc0",
    "mistake:phone.join-wrong-uuid": "8757bc57e783d136",
    "mistake:phone.token-before-login": "8617623d8474f996",
    "mistake:phone.no-fallback-beyond-limit": "5dc9475c0176dbed",
    "mistake:phone.calls-before-login": "1b100a05621e2bd8",
    "mistake:phone.late-push-registry": "31721b2a4764ce94",
    "mistake:audience.double-tap-apply": "9e640e8189e73764",
    "mistake:audience.mic-failure-ignored": "4b6f1ef342bdb859",
    "mistake:audience.move-read-as-leave": "3a4d2e4118eeef44",
    "mistake:phone.report-in-unawaited-task": "10de0ea2388df1e1",
    "mistake:phone.return-on-malformed-push": "a25a34792f04891a",
    "mistake:audience.seat-expected-with-accept": "57e667c1c3f24e4d",
    "mistake:audience.camera-on-in-background": "1055484f9e184dc2",
    "mistake:phone.invite-while-ringing": "e236f14eaab9f0fc",
    "mistake:audience.rejection-ignored": "d44cac77070f23c3",
    "quirk:stale-invitation": "b5de1f9c2bc9d445",
    "quirk:accept-ignores-inviter": "b5de1f9c2bc9d445",
    "quirk:cancel-invitation-false-success": "b5de1f9c2bc9d445",
    "quirk:reentry-applications-as-invitations": "b5de1f9c2bc9d445",
    "quirk:duplicate-applicants": "b5de1f9c2bc9d445",
    "quirk:auto-disconnect-on-join": "b5de1f9c2bc9d445",
    "quirk:second-request-overwrites": "b5de1f9c2bc9d445",
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
