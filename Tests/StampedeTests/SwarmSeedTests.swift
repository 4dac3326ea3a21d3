import Foundation
import Testing

@testable import Profiles
@testable import Runner
@testable import Scenario

/// Seeds of the swarm sweeps that once failed on the correct built-in clients, each for a root
/// cause fixed in the client; the whole seed must stay clean. (Since viewers take their room's
/// places in order of arrival, the seeds found before that replay other runs: each still has to
/// pass, but no longer replays its story. 1825 was found after it.)
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
  @Test(.long) func aDuplicatedInvitationIsNotAnsweredTwice() throws {
    #expect(try violated("profiles/seat-rush-swarm.json5", seed: 5552) == [])
  }

  /// swarm-chaos 1177 and 3426: the first version of that fix took any invitation heard while an
  /// accept was on its way for a repeat. An accept held back for minutes (its invitation timed out
  /// meanwhile) then left every later invitation unanswered, and the server held one at the end
  /// (`client.view-matches-server`). A repeat is now only the invitation the SDK still lists.
  @Test(arguments: [1177, 3426] as [UInt64])
  func aNewInvitationIsAnsweredWhileAnOldAcceptIsHeldBack(seed: UInt64) throws {
    #expect(try violated("profiles/swarm-chaos.json5", seed: seed) == [])
  }

  /// seat-rush-swarm 5726: a viewer applied again while the seat list still showed its earlier
  /// session's seat (held back on that channel); the microphone failed in the session that seat
  /// began, the viewer went idle, and the application's answer, coming while the list still showed
  /// the seat, was not withdrawn (`ui.idle-means-nothing-pending`).
  @Test(.long) func anApplicationAnsweredAfterTheViewerGaveUpIsWithdrawnWhileTheListLags() throws {
    #expect(try violated("profiles/seat-rush-swarm.json5", seed: 5726) == [])
  }

  /// seat-rush-swarm 1460: an application got no answer (-1) while the viewer was connecting on
  /// a seat the list gave (an earlier session's, held back); when that seat went, the viewer went
  /// back to "applying" for an application the server never held
  /// (`ui.applying-means-pending`). Such an application is now withdrawn when its -1 comes.
  @Test(.long) func anUnansweredApplicationIsWithdrawnWhileAListGivenSeatIsInSession() throws {
    #expect(try violated("profiles/seat-rush-swarm.json5", seed: 1460) == [])
  }

  /// seat-rush-swarm 2980: a viewer withdrawing an application it no longer waited for sent its
  /// cancel during a server outage and got -1; it showed idle for the five seconds until the
  /// cancel went again while the server still held the application, and a host accepted it
  /// (`ui.idle-means-nothing-pending`). A withdrawal whose cancel got no answer now shows
  /// "applying" again, as the SDK's own status stays applying until a cancel is confirmed, and
  /// ends like an application the viewer gave up on.
  @Test(.long) func aWithdrawalWhoseCancelGotNoAnswerShowsApplyingUntilACancelIsAnswered() throws {
    #expect(try violated("profiles/seat-rush-swarm.json5", seed: 2980) == [])
  }

  /// swarm-chaos 5144: a viewer's accept of host 305's invitation got its -1 after a partition,
  /// in the same instant as host 304's new invitation; the decline it then sent to 305 was
  /// answered -2311, and the SDK dropped the invitation it listed, 304's, though the answer was
  /// about 305. The viewer never answered 304 (`client.view-matches-server`). An answer about an
  /// invitation now clears the SDK's only if it names the inviter listed.
  @Test func anAnswerAboutAnOldInvitationLeavesTheNewOneListed() throws {
    #expect(try violated("profiles/swarm-chaos.json5", seed: 5144) == [])
  }

  /// swarm-chaos 1825: a viewer gave up on an application a host had accepted (the accept's answer
  /// held back nine seconds) and left the seat the list gave it; its disconnect and its cancel both
  /// got -1, so it showed "applying" while withdrawing, and the accept, delivered twice, connected
  /// it: microphone and camera opened off any seat (`device.capture-only-while-seated`). An accept
  /// of an application the viewer gave up on now leaves it idle; a seat the server gave connects
  /// it from the seat list while it stands.
  @Test func anAcceptOfAnApplicationGivenUpOnConnectsNothing() throws {
    #expect(try violated("profiles/swarm-chaos.json5", seed: 1825) == [])
  }

  /// seat-rush-swarm 7017: a viewer applied while the seat list, lagging, still showed its last
  /// session's seat; it took that seat for a session, its microphone failed, and it went idle
  /// while the application it had filed stood on the server (`ui.idle-means-nothing-pending`). A
  /// session the list gave while an application had no answer now withdraws that application
  /// when the viewer gives the session up.
  @Test(.long) func aSessionGivenUpOnAListGivenSeatWithdrawsTheApplicationBehindIt() throws {
    #expect(try violated("profiles/seat-rush-swarm.json5", seed: 7017) == [])
  }
}
