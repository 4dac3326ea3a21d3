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
    "call-storm-swarm:seed-1": "49b3961e21d3b0f5",
    "capacity-1m:seed-1": "fc465df8fb8d2431",
    "capacity-10m:seed-1": "b48a1c8311fb6945",
    "flash-crowd-staffing:seed-1": "de7c37c85e0de2d0",
    "seat-rush-swarm:seed-1": "d2a1e0e9c46928ad",
    "swarm-chaos:seed-1": "d6cb993aedf2ba35",
    "call-storm:seed-1": "b51723617ea0fca6",
    "call-storm:seed-2": "d608cf49327f1bcc",
    "call-storm:seed-3": "2dccce8cfa996270",
    "flash-crowd:seed-1": "0727161df6273863",
    "flash-crowd:seed-2": "727f8ea3f5fcb744",
    "flash-crowd:seed-3": "a74c124a2b889b1f",
    "mistake:audience.camera-on-in-background": "7827fb4b4e4d48ad",
    "mistake:audience.double-tap-apply": "40fe6651e15aa619",
    "mistake:audience.mic-failure-ignored": "fb1b422f4b2adb62",
    "mistake:audience.rejection-ignored": "c7da49e31e952510",
    "mistake:audience.move-read-as-leave": "dbed42cfa9a3381f",
    "mistake:audience.resubscribe-on-apply": "4f5432db452feb3c",
    "mistake:audience.seat-expected-with-accept": "b02b714210634ee8",
    "mistake:audience.seat-limit-as-wait": "33b64ecfd40e9da3",
    "mistake:audience.status-from-callbacks": "5559e1aa78b24107",
    "mistake:audience.wrong-inviter": "72622b0e21ccb945",
    "mistake:host.events-not-retained": "db90373429b9cc37",
    "mistake:host.kick-with-disconnect": "f656863969e2ab47",
    "mistake:host.stale-applicants": "49ec9b1d506f8800",
    "mistake:phone.calls-before-login": "1ecb2e21a3e97fc3",
    "mistake:phone.conversation-not-ended": "1cdc19b27cb9fdc9",
    "mistake:phone.fulfill-before-accept": "9931e1f190ec67a0",
    "mistake:phone.invite-while-ringing": "2d68b23d48fcaf22",
    "mistake:phone.join-wrong-uuid": "856ec02aae005423",
    "mistake:phone.late-push-registry": "40317a36d5fab882",
    "mistake:phone.no-fallback-beyond-limit": "f76f1f618da70a0b",
    "mistake:phone.push-not-reported": "98b7092bdc467d03",
    "mistake:phone.report-in-unawaited-task": "fb542a02641bfaff",
    "mistake:phone.return-on-malformed-push": "1aa4aee46f142804",
    "mistake:phone.token-before-login": "b2be4c265ef67675",
    "mistake:phone.unhandled-actions-not-failed": "9931e1f190ec67a0",
    "mistakes:seed-1": "9931e1f190ec67a0",
    "mistakes:seed-2": "d2fa919e1c119b60",
    "mistakes:seed-3": "541137d9c65d05b2",
    "nightly-chaos:seed-1": "376951c82c9a491d",
    "nightly-chaos:seed-2": "16e5b037b347064d",
    "nightly-chaos:seed-3": "21756b97d346144b",
    "quirk:accept-ignores-inviter": "376951c82c9a491d",
    "quirk:auto-disconnect-on-join": "6d1cc08ab00c6dbc",
    "quirk:cancel-invitation-false-success": "376951c82c9a491d",
    "quirk:duplicate-applicants": "376951c82c9a491d",
    "quirk:reentry-applications-as-invitations": "376951c82c9a491d",
    "quirk:second-request-overwrites": "90e9c7e2ce60bb58",
    "quirk:stale-invitation": "376951c82c9a491d",
    "seat-rush:seed-1": "2df613b26b8bb721",
    "seat-rush:seed-2": "dcc2c24fa3607188",
    "seat-rush:seed-3": "aca74358f7c2149d",
    "smoke:seed-1": "6c1bbb764387f932",
    "smoke:seed-2": "2a3b3066f02fd20e",
    "smoke:seed-3": "cfd06a458b853afc",
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
