import Foundation
import Testing

@testable import Clients
@testable import LiveCommunicationKit
@testable import LiveStack
@testable import SimKernel
@testable import VirtualPlatform

/// A delegate that records what the system hands it.
final class RecordingDelegate: LiveCommunicationKit.ConversationManagerDelegate {
  var performed: [LiveCommunicationKit.ConversationAction] = []
  var timedOut: [LiveCommunicationKit.ConversationAction] = []
  func conversationManager(
    _ manager: LiveCommunicationKit.ConversationManager, perform action: LiveCommunicationKit.ConversationAction
  ) {
    performed.append(action)
  }
  func conversationManager(
    _ manager: LiveCommunicationKit.ConversationManager,
    timedOutPerforming action: LiveCommunicationKit.ConversationAction
  ) {
    timedOut.append(action)
  }
}

/// LiveCommunicationKit's delegate hears what Apple documents: each action to perform, and each
/// action that timed out before the app completed it, as the same object.
@Suite(.serialized) struct ConversationFacadeTests {
  /// A host over one room and two phones (users 2 and 3), with the phones' system.
  func bench() -> (ClientRuntime, AppHost, PhoneSystem) {
    let layout = Layout(viewers: [1], staffPerRoom: 1, phoneCount: 2)
    let runtime = ClientRuntime(
      layout: layout,
      settings: RoomSettings(maxSeatCount: 4, packageLimit: 4, seatMode: .apply, coHostSeatLimit: 0, ownerSeat: false),
      quirks: [])
    let os = PhoneSystem(phones: layout.phones, limits: .standard, runtime: runtime)
    runtime.phoneSystem = os
    return (runtime, AppHost(runtime: runtime), os)
  }

  @Test func anActionThatTimedOutUncompletedReachesTheDelegateAsTheSameObjectOnce() {
    let (_, host, os) = bench()
    let phone: UInt32 = 2
    let delegate = RecordingDelegate()
    var manager: LiveCommunicationKit.ConversationManager?
    host.run(as: phone) {
      manager = LiveCommunicationKit.ConversationManager(configuration: .init())
      manager!.delegate = delegate
    }
    let join = os.makeAction(phone, uuid: 1, kind: .join)
    let end = os.makeAction(phone, uuid: 1, kind: .end)
    host.run(as: phone) {
      ConversationDelivery.deliver(.conversationAction(join), to: phone, host: host)
      ConversationDelivery.deliver(.conversationAction(end), to: phone, host: host)
    }
    #expect(delegate.performed.count == 2)
    // Each action has its own identifier, made from the system's numbering (the same every run).
    let ids = delegate.performed.map(\.uuid)
    #expect(ids[0] != ids[1] && !ids.contains(delegate.performed[0].conversationUUID))
    #expect(ids[0] == LiveCommunicationKit.ConversationAction.uuid(ofAction: join.id))
    // The app completes the End; both then time out by the system's clock.
    host.run(as: phone) { delegate.performed[1].fulfill() }
    host.run(as: phone) {
      ConversationDelivery.deliver(.conversationActionTimedOut(join), to: phone, host: host)
      ConversationDelivery.deliver(.conversationActionTimedOut(end), to: phone, host: host)
      ConversationDelivery.deliver(.conversationActionTimedOut(join), to: phone, host: host)
    }
    #expect(delegate.timedOut.count == 1, "only the uncompleted one, once")
    #expect(delegate.timedOut.first === delegate.performed.first)
    #expect(delegate.timedOut.first is JoinConversationAction)
    _ = manager
  }
}
