import Combine
import Testing

@testable import Clients
@testable import SimKernel
@testable import TUICore
@testable import VirtualPlatform

/// What a `deinit` in app code saw.
final class DeinitLog {
  var user: UInt32?
  var center: ObjectIdentifier?
  var ran = false
}

/// An app object that observes a notification and, as the TIMPush guide's push manager does,
/// removes its observer in `deinit` (and starts main-queue work there too).
final class ObservingObject {
  let log: DeinitLog
  var token: NSObjectProtocol?

  init(log: DeinitLog) {
    self.log = log
    token = NotificationCenter.default.addObserver(forName: .init("x"), object: nil, queue: nil) { _ in }
  }

  deinit {
    log.user = AppHost.current?.user
    if let token { NotificationCenter.default.removeObserver(token) }
    log.center = ObjectIdentifier(NotificationCenter.default)
    let log = self.log
    DispatchQueue.main.async { log.ran = true }
  }
}

/// An object in a box.
final class ObjectsBox<T> {
  let value: T
  init(_ value: T) { self.value = value }
}

/// App objects go as their user's code, and app code outside every user is a finding of the run,
/// never a stop of the tool.
@Suite(.serialized) struct TeardownTests {
  @Test func eachPlatformAPIUsedOutsideEveryUserIsAFindingAndTheCodeGoesOn() async throws {
    let bench = HostBench()
    nonisolated(unsafe) var seen: [Int] = []
    let subject = PassthroughSubject<Int, Never>()
    var cancellable: AnyCancellable?
    bench.run(as: 1) { cancellable = subject.receive(on: DispatchQueue.main).sink { seen.append($0) } }
    // The host is current on this thread, but no user's code runs: as in the release of an object
    // that no user's code let go of.
    AppHost.current = bench.host
    defer { AppHost.current = nil }
    DispatchQueue.main.async { seen.append(-1) }
    DispatchQueue.main.asyncAfter(deadline: .now() + 1.0) { seen.append(-2) }
    let center = NotificationCenter.default
    #expect(center !== NotificationCenter.default, "a stand-in center each time, kept by no user")
    center.addObserver(forName: .init("y"), object: nil, queue: OperationQueue()) { _ in seen.append(-3) }
    center.post(name: .init("y"))
    #expect(UIApplication.shared.applicationState == .background)
    subject.send(7)
    #expect(TUILogin.isUserLogined() == false)
    #expect(TUILogin.getUserID() == nil)
    try await Task.sleep(nanoseconds: 1_000_000_000)
    #expect(
      bench.runtime.appOutsideUser.map(\.what) == [
        "DispatchQueue.async", "DispatchQueue.asyncAfter", "NotificationCenter.default", "NotificationCenter.default",
        "NotificationCenter.post", "UIApplication.shared", "receive(on:)", "TUILogin.isUserLogined",
        "TUILogin.getUserID", "Task.sleep",
      ])
    AppHost.current = nil
    // Nothing was scheduled for anybody: the work had no app process to run in.
    #expect(bench.runtime.commands.count == 0)
    #expect(bench.drain() == 0)
    #expect(seen == [])
    _ = cancellable
  }

  @Test func withNoRunOnTheThreadThePlatformWarnsAndGoesOn() async throws {
    AppHost.current = nil
    nonisolated(unsafe) var ran = false
    DispatchQueue.main.async { ran = true }
    NotificationCenter.default.post(name: .init("z"))
    try await Task.sleep(nanoseconds: 5_000_000_000)
    #expect(!ran)
    #expect(UIApplication.shared.applicationState == .background)
  }

  @Test func theObjectsOfAProcessThatIsGoneAreReleasedAsItsUsersCode() {
    let bench = HostBench()
    let log = DeinitLog()
    var object: ObservingObject?
    var center: ObjectIdentifier?
    bench.run(as: 2) {
      object = ObservingObject(log: log)
      center = ObjectIdentifier(NotificationCenter.default)
    }
    bench.host.releaseObjects(of: 2, holding: object) { object = nil }
    #expect(object == nil)
    #expect(log.user == 2)
    #expect(log.center == center, "the deinit found its own process's center")
    // What the deinit started dies with the process.
    #expect(bench.runtime.commands.count == 0)
    #expect(bench.drain() == 0)
    #expect(!log.ran)
    #expect(bench.runtime.appOutsideUser.isEmpty)
  }

  @Test func aDyingProcessesSingletonsAreWhatItsDeinitsFindAndNoneIsKept() {
    let bench = HostBench()
    let log = DeinitLog()
    var center: ObjectIdentifier?
    bench.run(as: 2) {
      // Only an SDK instance holds the object (as a store holds a view model's `sink`): it goes
      // with the process's SDK, before the process's center does.
      let object = ObservingObject(log: log)
      center = ObjectIdentifier(NotificationCenter.default)
      bench.host.setSingleton(.atomicX, ObjectsBox(object))
    }
    #expect(log.user == nil)
    bench.host.forgetSingletons(of: 2)
    #expect(log.user == 2)
    #expect(log.center == center)
    let kept: NotificationCenter? = bench.host.existingSingleton(.notificationCenter, of: 2)
    #expect(kept == nil, "nothing made for the dying process is kept for the next one")
    #expect(bench.runtime.commands.count == 0)
    #expect(bench.runtime.appOutsideUser.isEmpty)
  }

  @Test func aCompletionTheModelLetsGoOfUncalledIsReleasedAsItsUsersCode() {
    let bench = HostBench()
    let log = DeinitLog()
    var bound: UserBound<() -> Void>?
    bench.run(as: 3) {
      let object = ObservingObject(log: log)
      bound = UserBound({ _ = object }, host: bench.host, user: 3)
    }
    // The model drops it from its own code, outside every user's.
    bound = nil
    #expect(bound == nil && log.user == 3)
    // The process lives on: the work its deinit started runs, as its user's.
    bench.collect()
    #expect(bench.drain() == 1)
    #expect(log.ran)
    #expect(bench.runtime.appOutsideUser.isEmpty)
  }
}
