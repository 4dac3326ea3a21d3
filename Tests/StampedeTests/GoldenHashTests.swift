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
    "call-storm-swarm:seed-1": "49b3961e21d3b0f5",
    "capacity-1m:seed-1": "e11f162db025b050",
    "flash-crowd:seed-1": "841d25abdc622a25",
    "flash-crowd-staffing:seed-1": "0549137d26e3c671",
    "mistakes:seed-1": "d8552b1d83101302",
    "nightly-chaos:seed-1": "8c08871cb687f783",
    "seat-rush:seed-1": "e43f20dc27ec58fd",
    "seat-rush-swarm:seed-1": "2074d7e7917d79d5",
    "smoke:seed-1": "a85d969db0c78dc9",
    "swarm-chaos:seed-1": "516771cc6657b6a9",
    "capacity-10m:seed-1": "c2d8620659635042",
    "call-storm:seed-2": "d608cf49327f1bcc",
    "call-storm:seed-3": "2dccce8cfa996270",
    "flash-crowd:seed-2": "fa31db06175c50a6",
    "flash-crowd:seed-3": "747f173f14e042f4",
    "mistakes:seed-2": "879fb60bfaf1ec07",
    "mistakes:seed-3": "624818dded3adbfd",
    "nightly-chaos:seed-2": "31254d2938039776",
    "nightly-chaos:seed-3": "bb5c4e7ba6f282c2",
    "seat-rush:seed-2": "4ecd6f6af522656e",
    "seat-rush:seed-3": "7f9c71c66bc42c0a",
    "smoke:seed-2": "4a3478055f45b798",
    "smoke:seed-3": "f9c222973c298a9d",
    "mistake:host.events-not-retained": "8c8e361882266e15",
    "mistake:audience.resubscribe-on-apply": "180bab5dc95ac82c",
    "mistake:host.kick-with-disconnect": "011a3cc8f2c692d6",
    "mistake:audience.status-from-callbacks": "1b1e3e8fef95a063",
    "mistake:audience.seat-limit-as-wait": "0dd50eef065cf94c",
    "mistake:audience.wrong-inviter": "a7405e6eb4698a58",
    "mistake:host.stale-applicants": "58de0dfac7a5d0ab",
    "mistake:phone.push-not-reported": "cee173eb347d6fdf",
    "mistake:phone.fulfill-before-accept": "d8552b1d83101302",
    "mistake:phone.conversation-not-ended": "e3aa8cf90e36032e",
    "mistake:phone.unhandled-actions-not-failed": "d8552b1d83101302",
    "mistake:phone.join-wrong-uuid": "5aaf4de289e56fec",
    "mistake:phone.token-before-login": "f3db4f12e1a88904",
    "mistake:phone.no-fallback-beyond-limit": "00eee03720ec8fd2",
    "mistake:phone.calls-before-login": "d1ea6403eeeeb1a4",
    "mistake:phone.late-push-registry": "845463024d1e6666",
    "mistake:audience.double-tap-apply": "2e2297fc9027b61a",
    "mistake:audience.mic-failure-ignored": "ec8c3db674e277c0",
    "mistake:audience.move-read-as-leave": "1e56bf8c6f85467e",
    "mistake:phone.report-in-unawaited-task": "998ef116392ccbc8",
    "mistake:phone.return-on-malformed-push": "3159366a3a1f5a02",
    "mistake:audience.seat-expected-with-accept": "8aaac508f279a7f4",
    "mistake:audience.camera-on-in-background": "f9be2ac0ff3b96bb",
    "mistake:phone.invite-while-ringing": "8a36c00e6d620b09",
    "mistake:audience.rejection-ignored": "ba6170565e938dec",
    "quirk:stale-invitation": "8c08871cb687f783",
    "quirk:accept-ignores-inviter": "8c08871cb687f783",
    "quirk:cancel-invitation-false-success": "8c08871cb687f783",
    "quirk:reentry-applications-as-invitations": "8c08871cb687f783",
    "quirk:duplicate-applicants": "8c08871cb687f783",
    "quirk:auto-disconnect-on-join": "639fdb603670e6d3",
    "quirk:second-request-overwrites": "f57396f5066cdc48",
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
