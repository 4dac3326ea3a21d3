import Combine
import ExampleApps
import Testing

@testable import AtomicXCore
@testable import Clients
@testable import PushKit
@testable import SimKernel
@testable import VirtualPlatform

/// App code's queues, tasks, sleeps and prints run as simulation work of the user who started
/// them, in a deterministic order.
@Suite(.serialized) struct PlatformTests {
  @Test func mainQueueWorkRunsLaterInOrderAsItsUser() {
    let bench = HostBench()
    var log: [String] = []
    bench.run(as: 2) {
      DispatchQueue.main.async { log.append("a\(bench.host.user)") }
      DispatchQueue.main.async { log.append("b\(bench.host.user)") }
      log.append("now")
    }
    #expect(log == ["now"])
    #expect(bench.drain() == 2)
    #expect(log == ["now", "a2", "b2"])
  }

  @Test func asyncAfterWaitsSimulatedTime() {
    let bench = HostBench()
    var at: [Int64] = []
    bench.run {
      DispatchQueue.main.asyncAfter(deadline: .now() + 1.5) { at.append(bench.host.now.nanoseconds) }
      DispatchQueue.main.asyncAfter(deadline: .now() + .milliseconds(200)) { at.append(bench.host.now.nanoseconds) }
    }
    bench.drain()
    #expect(at == [200_000_000, 1_500_000_000])
  }

  @Test func receiveOnMainDefersEachValueAndDropsItAfterCancel() {
    let bench = HostBench()
    let subject = PassthroughSubject<Int, Never>()
    var seen: [Int] = []
    var c: AnyCancellable?
    bench.run {
      c = subject.receive(on: DispatchQueue.main).sink { seen.append($0) }
      subject.send(1)
      subject.send(2)
    }
    #expect(seen.isEmpty)
    bench.drain()
    #expect(seen == [1, 2])
    bench.run {
      subject.send(3)
      c = nil
    }
    bench.drain()
    #expect(seen == [1, 2])
    _ = c
  }

  @Test func tasksAndSleepsRunAsSimulationWorkInADeterministicOrder() {
    let bench = HostBench()
    var log: [String] = []
    bench.run(as: 1) {
      Task {
        log.append("a0")
        try await Task.sleep(nanoseconds: 2_000_000_000)
        log.append("a1@\(bench.host.now.nanoseconds / 1_000_000)ms")
      }
      Task {
        log.append("b0")
        try await Task.sleep(for: .milliseconds(500))
        log.append("b1@\(bench.host.now.nanoseconds / 1_000_000)ms")
      }
    }
    // Tasks start when the code that made them returns, in order; sleeps wait simulated time.
    #expect(log == ["a0", "b0"])
    bench.drain()
    #expect(log == ["a0", "b0", "b1@500ms", "a1@2000ms"])
  }

  @Test func printGoesToTheTraceWithUUIDsNumberedAtFirstSight() {
    let bench = HostBench()
    bench.runtime.appLog.keeps = true
    bench.run(as: 3) {
      print("call", "E621E1F8-C36C-495A-93FC-0C247A3E6E5F", "ok")
      print("again e621e1f8-c36c-495a-93fc-0c247a3e6e5f and 11111111-2222-3333-4444-555555555555")
    }
    let lines = bench.runtime.appLog.take()
    #expect(lines.map(\.text) == ["call UUID#1 ok", "again UUID#1 and UUID#2"])
    #expect(lines.map(\.user) == [3, 3])
    #expect(bench.runtime.appLog.count == 2)
  }

  /// A file that imports Foundation itself (ExampleApps' `AppDiagnostics`, built with the
  /// PlatformShadows plugin) gets the simulated main queue, the user's own notification center and
  /// the user's trace, with no edit.
  @Test func aFileImportingFoundationItselfGetsTheSimulatedPlatform() {
    let bench = HostBench()
    bench.runtime.appLog.keeps = true
    final class Heard: @unchecked Sendable { var lines: [String] = [] }
    let heard = Heard()
    bench.run(as: 2) {
      _ = NotificationCenter.default.addObserver(forName: AppDiagnostics.logged, object: nil, queue: nil) {
        heard.lines.append($0.userInfo?["line"] as? String ?? "?")
      }
      AppDiagnostics.log("ready")
    }
    // Not yet: the main queue runs it as a later event of the user.
    #expect(bench.runtime.appLog.count == 0 && heard.lines.isEmpty)
    bench.drain()
    #expect(bench.runtime.appLog.take().map { "\($0.user): \($0.text)" } == ["2: [diag] ready"])
    #expect(heard.lines == ["ready"])
    // Another user's center heard nothing.
    let other = Heard()
    bench.run(as: 3) {
      _ = NotificationCenter.default.addObserver(forName: AppDiagnostics.logged, object: nil, queue: nil) { _ in
        other.lines.append("heard")
      }
    }
    bench.run(as: 2) { AppDiagnostics.log("again") }
    bench.drain()
    #expect(heard.lines == ["ready", "again"] && other.lines.isEmpty)
  }

  @Test func notificationCentersArePerUser() {
    let bench = HostBench()
    // The observers run on the simulation's one thread, during the post.
    final class Heard: @unchecked Sendable { var users: [UInt32] = [] }
    let heard = Heard()
    let name = Notification.Name("TUILoginSuccess")
    for u: UInt32 in [1, 2] {
      bench.run(as: u) {
        NotificationCenter.default.addObserver(forName: name, object: nil, queue: nil) { _ in heard.users.append(u) }
      }
    }
    bench.run(as: 2) { NotificationCenter.default.post(name: name, object: nil) }
    #expect(heard.users == [2])
  }

  @Test func userIDsRoundTripAndForeignIDsNameNobody() {
    #expect(VirtualIDs.user(VirtualIDs.userID(17)) == 17)
    #expect(VirtualIDs.room(VirtualIDs.liveID(3)) == 3)
    #expect(VirtualIDs.call(VirtualIDs.callID(42)) == 42)
    #expect(VirtualIDs.user("alice") == nil)
    #expect(VirtualIDs.user("live_3") == nil)
  }
}

/// After a user's code runs, its SDK brings the states something watches up to date, and only
/// those: the stores follow their subscriptions as they come and go.
@Suite(.serialized) struct StoreSettleTests {
  @Test func aStateIsRefreshedWhileWatchedAndNotOnceLetGo() {
    let bench = HostBench()
    bench.host.afterUserCode = { AtomicXDelivery.settle($0, host: bench.host) }
    var seen: [LoginStatus] = []
    var watch: AnyCancellable?
    bench.run { _ = LoginStore.shared }  // made, watched by nobody
    bench.runtime.clients[1].loggedIn = true
    bench.run {}
    bench.run { watch = LoginStore.shared.state.sink { seen.append($0.loginStatus) } }
    #expect(seen == [.logined], "a new subscriber gets the current state")
    bench.runtime.clients[1].loggedIn = false
    bench.run {}
    #expect(seen == [.logined, .unlogin], "settled after the user's code ran")
    watch = nil
    bench.runtime.clients[1].loggedIn = true
    bench.run {}
    #expect(seen == [.logined, .unlogin], "nothing watches it any more")
    var now: LoginStatus?
    bench.run { now = LoginStore.shared.state.value.loginStatus }
    #expect(now == .logined, "read on demand")
    _ = watch
  }
}

/// The `connected` lists of a host's SDK instances are shared per room where they are equal.
@Suite struct SharedSeatListTests {
  @Test func equalListsShareOneArrayAndEveryAnswerIsTheListsOwn() {
    let bench = HostBench()
    let shared = SharedSeatLists.of(bench.host)
    #expect(SharedSeatLists.of(bench.host) === shared, "one per host")
    let lists: [[UInt32]] = [[0, 3, 0, 0], [0, 3, 0, 0], [1, 3, 0, 0], [0, 3, 0, 0], [], [2, 0, 0, 4]]
    var previous: [SeatUserInfo]?
    for list in lists {
      let got = shared.connected(list, room: 0)
      #expect(got == CoGuestStore.connected(list), "the list's own seated users: \(list)")
      if let previous, previous == got {
        // The same list a second time: the same storage, not a second array.
        #expect(
          previous.withUnsafeBufferPointer { $0.baseAddress } == got.withUnsafeBufferPointer { $0.baseAddress })
      }
      previous = got
    }
    // A room the table does not know (an unknown live ID) still gets its list.
    #expect(shared.connected([0, 2], room: .max) == CoGuestStore.connected([0, 2]))
  }

  @Test func theCallersListStaysItsOwn() {
    let shared = SharedSeatLists.of(HostBench().host)
    // Built at run time: a literal may be a constant object in the binary, which any change copies.
    var list = [UInt32](repeating: 0, count: 4)
    list[1] = 3
    let before = list.withUnsafeBufferPointer { $0.baseAddress }
    _ = shared.connected(list, room: 0)
    // Still uniquely referenced: changing it in place does not copy it.
    list[2] = 2
    #expect(list.withUnsafeBufferPointer { $0.baseAddress } == before)
    #expect(shared.connected(list, room: 0) == CoGuestStore.connected([0, 3, 2, 0]))
  }
}

/// The SDK-compatible `CallStore` tells a callee the call's media type.
@Suite(.serialized) struct CallStoreEventTests {
  @Test func aCalleeHearsTheCallsMediaTypeNotItsOwnLastChoice() {
    let bench = HostBench()
    var heard: [AtomicXCore.CallEvent] = []
    var keep: [AnyCancellable] = []
    bench.run(as: 2) {
      keep.append(AtomicXCore.CallStore.shared.callEventPublisher.sink { heard.append($0) })
    }
    // The server announced call 5 as video; user 2 last dialled (nothing: its own choice is audio).
    bench.runtime.setCallMedia(.video, of: 2)
    bench.run(as: 2) {
      AtomicXDelivery.deliver(.callEvent(.received(user: 2, call: 5)), to: 2, host: bench.host)
    }
    bench.drain()
    guard case .onCallReceived(_, let media, _)? = heard.first else {
      Issue.record("no onCallReceived: \(heard)")
      return
    }
    #expect(media == .video)
    #expect(keep.count == 1)
  }

  /// `accept()` and `reject()` answer the call the SDK rings for: with none reported, the SDK
  /// refuses them itself (-1203, not allowed in its state) and sends nothing.
  @Test func answeringACallTheSDKNeverReportedIsRefusedByTheSDK() {
    let bench = HostBench()
    bench.host.run(as: 2) {
      AtomicXCore.CallStore.shared.accept()
      AtomicXCore.CallStore.shared.reject()
    }
    var ops: [PendingOperation] = []
    let commands = bench.runtime.commands
    var completion: Completion? = nil
    for i in 0..<commands.count {
      if case .operation(let op) = commands.take(i, completion: &completion) { ops.append(op) }
    }
    commands.reset()
    #expect(ops.map(\.kind) == [.acceptCall, .rejectCall])
    for var op in ops { #expect(bench.runtime.prepare(&op) == .callRefusedInState) }
    // Once the SDK heard the call ring, both go to the server.
    bench.runtime.received(.received(user: 2, call: 5), user: 2)
    for var op in ops { #expect(bench.runtime.prepare(&op) == nil) }
  }

  @Test func aCalleeHearsTheCallersUserData() {
    let bench = HostBench()
    var heard: [AtomicXCore.CallEvent] = []
    var keep: [AnyCancellable] = []
    bench.run(as: 2) {
      keep.append(AtomicXCore.CallStore.shared.callEventPublisher.sink { heard.append($0) })
    }
    bench.runtime.callUserData[5] = "{\"orderId\":42}"
    bench.run(as: 2) {
      AtomicXDelivery.deliver(.callEvent(.received(user: 2, call: 5)), to: 2, host: bench.host)
      AtomicXDelivery.deliver(.callEvent(.received(user: 2, call: 6)), to: 2, host: bench.host)
    }
    bench.drain()
    let data = heard.compactMap { e -> String? in
      if case .onCallReceived(_, _, let d) = e { return d }
      return nil
    }
    #expect(data == ["{\"orderId\":42}", ""])
    #expect(keep.count == 1)
  }
}

/// The SDK-compatible stores show the owner on seat 0 when the live keeps it on a seat.
@Suite(.serialized) struct OwnerSeatStoreTests {
  @Test func theSeatListAndTheLiveCountTheOwnersSeatAndNameTheOwner() {
    let bench = HostBench(ownerSeat: true)
    // User 0 owns room 0 and sits on seat 0, as the server's seat delta left its SDK; user 1 is a
    // viewer in the room.
    bench.runtime.clients[0].joinedRoom = 1
    bench.runtime.clients[1].joinedRoom = 1
    bench.runtime.seatView[Int(bench.runtime.clients[0].staffSlot)][0] = 0 + 1
    var hostSeats: [SeatInfo] = []
    var connected: [String] = []
    var viewerSeats = 0
    var live = LiveInfo(liveID: "", maxSeatCount: 0)
    bench.run(as: 0) {
      hostSeats = AtomicXCore.LiveSeatStore.create(liveID: "live_0").state.value.seatList
      connected = CoGuestStore.create(liveID: "live_0").state.value.connected.map(\.userID)
    }
    bench.run(as: 1) {
      viewerSeats = AtomicXCore.LiveSeatStore.create(liveID: "live_0").state.value.seatList.count
      live = LiveListStore.shared.state.value.currentLive
    }
    // Four guest seats and the owner's.
    #expect(hostSeats.count == 5 && viewerSeats == 5)
    #expect(hostSeats.first?.userInfo.userID == VirtualIDs.userID(0))
    #expect(hostSeats.dropFirst().allSatisfy { $0.userInfo.userID.isEmpty })
    #expect(connected == [VirtualIDs.userID(0)])
    #expect(live.liveID == "live_0" && live.maxSeatCount == 5 && live.keepOwnerOnSeat)
    #expect(live.liveOwner.userID == VirtualIDs.userID(0))
  }

  @Test func withoutTheOwnersSeatTheListHoldsTheGuestSeatsOnly() {
    let bench = HostBench()
    bench.runtime.clients[1].joinedRoom = 1
    var live = LiveInfo(liveID: "", maxSeatCount: 0)
    bench.run(as: 1) { live = LiveListStore.shared.state.value.currentLive }
    #expect(live.maxSeatCount == 4 && !live.keepOwnerOnSeat)
  }
}

/// What PushKit keeps about the push being handed to app code belongs to one run's host: sweeps
/// run worlds on several threads, and one world's handler must never finish another's push.
@Suite(.serialized) struct PushHandlingTests {
  @Test func thePushBeingHandledBelongsToItsHostAlone() {
    let a = HostBench()
    let b = HostBench()
    var finished: [String] = []
    var seenFromB: Bool?
    a.run(as: 1) {
      PushHandling.current = PushHandling { finished.append("a") }
      // Another world's code runs meanwhile (here nested, on the same thread): it sees no push.
      b.run(as: 1) { seenFromB = PushHandling.current != nil }
      PushHandling.current?.finish()
      PushHandling.current = nil
    }
    #expect(seenFromB == false)
    #expect(finished == ["a"])
  }
}
