import Foundation
import Testing

@testable import Runner
@testable import Scenario

/// Seeds of the swarm sweeps that once failed on the correct built-in clients, each for a root
/// cause fixed in the client; the whole seed must stay clean.
@Suite struct SwarmSeedTests {
  func violated(_ profile: String, seed: UInt64) throws -> [String] {
    let data = try Data(contentsOf: repositoryRoot.appendingPathComponent(profile))
    let run = SimulationRun(profile: try Profile.parse(data), profilePath: profile, profileData: data, seed: seed)
    let report = run.report(run.execute(), startedAt: Date())
    #expect(report.complete)
    return report.invariants.filter { $0.violations > 0 }.map(\.id)
  }

  /// seat-rush-swarm 5552: an invitation heard a second time (a duplicated message) while the
  /// answer to its accept was still on its way cleared the viewer's "answered" mark; it answered
  /// again, and the first accept's late answer, taken for the second's, opened the microphone and
  /// camera of a session already over (`device.capture-only-while-seated`).
  @Test func aDuplicatedInvitationIsNotAnsweredTwice() throws {
    #expect(try violated("profiles/seat-rush-swarm.json5", seed: 5552) == [])
  }

  /// seat-rush-swarm 5726: a viewer applied again while the seat list still showed its earlier
  /// session's seat (held back on that channel); the microphone failed in the session that seat
  /// began, the viewer went idle, and the application's answer, coming while the list still showed
  /// the seat, was not withdrawn (`ui.idle-means-nothing-pending`).
  @Test func anApplicationAnsweredAfterTheViewerGaveUpIsWithdrawnWhileTheListLags() throws {
    #expect(try violated("profiles/seat-rush-swarm.json5", seed: 5726) == [])
  }
}
