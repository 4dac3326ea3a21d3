import Foundation
import Testing

@testable import Chaos
@testable import Clients
@testable import LiveStack
@testable import Profiles
@testable import Scenario
@testable import SimKernel

/// The seams between the components: the encodings they exchange and the documents they edit.
@Suite struct StructureTests {
  @Test func everyPhoneWakeUpSurvivesItsEventEncodingAndHasItsOwnEventKind() {
    let wakes: [PhoneWake] = [
      .lifecycle(user: 5, epoch: 9), .tokenRotated(user: 6), .cellularCall(user: 7, starts: true),
      .cellularCall(user: 7, starts: false), .launched(user: 5, pushCall: 3),
      .reportDeadline(user: 6, serial: 1 << 31 | 2),
      .tokenIssued(user: 7, generation: 4), .systemTap(user: 5, uuid: 12), .actionTimeout(action: 77),
      .conversationCheck(user: 6, call: 8), .systemAction(user: 7, kind: .start),
      .appStart(user: 5, action: 1 << 31 | 3),
    ]
    for wake in wakes {
      let (kind, a, b) = wake.encoded
      #expect(PhoneWake(kind: kind, a: a, b: b) == wake)
    }
    #expect(Set(wakes.map(\.encoded.kind)) == Set(0..<PhoneWake.kindCount))
    #expect(LiveWorld.phoneEvents.count == PhoneWake.kindCount)
    #expect(Set(LiveWorld.phoneEvents).count == PhoneWake.kindCount)
    for event in LiveEvent.allCases {
      let kind = LiveWorld.phoneWakeKind[Int(event.rawValue)]
      #expect(kind == (LiveWorld.phoneEvents.firstIndex(of: event) ?? -1), "\(event)")
    }
  }

  @Test func aDocumentCanBeReadEditedAndPrunedByKeyPath() throws {
    let tree: JSONValue = ["seats": ["maxSeatCount": 4, "mode": "apply"], "name": "t"]
    #expect(tree.value(at: "seats.maxSeatCount") == 4)
    #expect(tree.value(at: "seats.nope") == nil && tree.value(at: "name.deeper") == nil)
    let edited = try tree.setting("seats.packageLimit", to: 2)
    #expect(edited.value(at: "seats.packageLimit") == 2 && edited.value(at: "seats.mode") == "apply")
    let pruned = try edited.removing("seats.mode")
    #expect(pruned.value(at: "seats.mode") == nil && pruned.value(at: "seats.maxSeatCount") == 4)
    #expect(try pruned.removing("seats.absent") == pruned)
    #expect(try tree.removing("name").value(at: "name") == nil)
    #expect(throws: ProfileError.self) { _ = try tree.removing("name.x") }
    #expect(throws: ProfileError.self) { _ = try tree.setting("name.x", to: 1) }
  }

  /// `--set` reaches an entry of a list, nested lists too (nightly-chaos groups its faults), and
  /// says what is wrong with a position it cannot take.
  @Test func aKeyPathNamesAnEntryOfAList() throws {
    let tree: JSONValue = ["faults": ["plan": [["kind": "network.loss"], [["kind": "a"], ["kind": "host.reenter"]]]]]
    let edited = try tree.setting("faults.plan[1][1].rate", to: "90%")
    guard case .object(let faults) = edited.value(at: "faults"), case .array(let plan)? = faults["plan"],
      case .array(let group) = plan[1]
    else {
      Issue.record("\(edited)")
      return
    }
    #expect(group[1] == ["kind": "host.reenter", "rate": "90%"])
    #expect(plan[0] == ["kind": "network.loss"])
    #expect(try tree.setting("faults.plan[0].kind", to: "network.delay") != tree)
    let past = #expect(throws: ProfileError.self) { _ = try tree.setting("faults.plan[2].rate", to: 1) }
    #expect(past?.message.contains("faults.plan has 2 entries") == true, "\(String(describing: past))")
    let notList = #expect(throws: ProfileError.self) { _ = try tree.setting("faults[0]", to: 1) }
    #expect(notList?.message.contains("faults is an object, not a list") == true)
    for bad in ["faults.plan[x]", "faults.plan[-1]", "faults.plan[0", "[0]", "faults..plan", "faults.plan[0]x"] {
      #expect(throws: ProfileError.self, "\(bad)") { _ = try tree.setting(bad, to: 1) }
    }
  }

  @Test func chaosCountsWhatItInjectsAndTheWorldReportsIt() throws {
    var s = try Staged(chaosStaged("{ kind: \"seat.limit_hit\", rate: 1 }"))
    s.apply(2, atMs: 1000)
    s.apply(3, atMs: 1000)
    s.run(untilMs: 5000)
    let injected = s.world.backend.chaos.injected[FaultKind.seatLimitHit.index]
    #expect(injected == 2)
    #expect(s.counter("fault.seat.limit_hit") == injected)
    #expect(s.world.faultCoverage.map(\.injected) == [injected])
  }
}
