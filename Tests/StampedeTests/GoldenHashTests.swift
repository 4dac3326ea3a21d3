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
    "bench-mmcc:seed-1": "2d446d3adc11d0b8",
    "call-storm:seed-1": "b51723617ea0fca6",
    "call-storm-swarm:seed-1": "7cb80f063511c344",
    "capacity-1m:seed-1": "57b4b8ad9f3f2723",
    "flash-crowd:seed-1": "0e2e0c7e407c7ed0",
    "flash-crowd-staffing:seed-1": "c5e67e2dcd5474fc",
    "mistakes:seed-1": "825b733f9b25b2e2",
    "nightly-chaos:seed-1": "7e5cffd8ac5fd6bd",
    "seat-rush:seed-1": "0fbc592bb33348d1",
    "seat-rush-swarm:seed-1": "8399aa7e5ad4f48b",
    "smoke:seed-1": "c970f98d71b888cc",
    "swarm-chaos:seed-1": "8eb745c884fe6e55",
    "capacity-10m:seed-1": "a7dd1d2dbbae9416",
    "call-storm:seed-2": "d608cf49327f1bcc",
    "call-storm:seed-3": "2dccce8cfa996270",
    "flash-crowd:seed-2": "6bbb00ad05bde88e",
    "flash-crowd:seed-3": "b52be7dc7a53c834",
    "mistakes:seed-2": "6fbe23ca42afd65b",
    "mistakes:seed-3": "424e6a1cb9b97321",
    "nightly-chaos:seed-2": "2b3cdd51efe38126",
    "nightly-chaos:seed-3": "67110b764320c6ec",
    "seat-rush:seed-2": "54b9ca04eccaef0a",
    "seat-rush:seed-3": "d959099c6ae8cdc6",
    "smoke:seed-2": "571160f506665158",
    "smoke:seed-3": "84943bd91e550774",
    "mistake:host.events-not-retained": "82c74b46658e1c35",
    "mistake:audience.resubscribe-on-apply": "33b9979140ee1b9b",
    "mistake:host.kick-with-disconnect": "8c5c88e02b85d5e6",
    "mistake:audience.status-from-callbacks": "63841fab628b5743",
    "mistake:audience.seat-limit-as-wait": "483a0456253c78d0",
    "mistake:audience.wrong-inviter": "f764421384bdf923",
    "mistake:host.stale-applicants": "c94b9f62e4dc7b82",
    "mistake:phone.push-not-reported": "ef08bb98fc89e981",
    "mistake:phone.fulfill-before-accept": "825b733f9b25b2e2",
    "mistake:phone.conversation-not-ended": "8322f86035e6986f",
    "mistake:phone.unhandled-actions-not-failed": "825b733f9b25b2e2",
    "mistake:phone.join-wrong-uuid": "b583c9e87dff68b2",
    "mistake:phone.token-before-login": "4222740f9c5f7ebc",
    "mistake:phone.no-fallback-beyond-limit": "1b88c57ae8f5f6bc",
    "mistake:phone.calls-before-login": "de189f44c73488be",
    "mistake:phone.late-push-registry": "0b15770b7f1e6d9a",
    "mistake:audience.double-tap-apply": "1aad3b73d98340d8",
    "mistake:audience.mic-failure-ignored": "5cc7977ebdd4b5bf",
    "mistake:audience.move-read-as-leave": "a4557fb9efc1ff59",
    "mistake:phone.report-in-unawaited-task": "a4bc22fee7517193",
    "mistake:phone.return-on-malformed-push": "66d764b5ca1112f9",
    "mistake:audience.seat-expected-with-accept": "3e4824ee59a310be",
    "mistake:audience.camera-on-in-background": "0c4045567cedb2c9",
    "mistake:phone.invite-while-ringing": "37510459a4d76586",
    "mistake:audience.rejection-ignored": "d2905bb5828432c6",
    "quirk:stale-invitation": "7e5cffd8ac5fd6bd",
    "quirk:accept-ignores-inviter": "7e5cffd8ac5fd6bd",
    "quirk:cancel-invitation-false-success": "7e5cffd8ac5fd6bd",
    "quirk:reentry-applications-as-invitations": "7e5cffd8ac5fd6bd",
    "quirk:duplicate-applicants": "7e5cffd8ac5fd6bd",
    "quirk:auto-disconnect-on-join": "7e5cffd8ac5fd6bd",
    "quirk:second-request-overwrites": "7e5cffd8ac5fd6bd",
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
