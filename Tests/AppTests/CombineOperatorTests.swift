import Combine
import Testing

@testable import SimKernel
@testable import VirtualPlatform

/// The rest of the Combine that view models write: wrapped completions, stream shaping, joins and
/// the operators that wait, which wait simulated time.
@Suite(.serialized) struct CombineOperatorTests {
  enum Failed: Error, Equatable { case no, other }

  func describe<E>(_ completion: Subscribers.Completion<E>) -> String {
    switch completion {
    case .finished: "finished"
    case .failure(let e): "failure(\(e))"
    }
  }

  /// A `Future` runs its closure at once; every subscriber, before or after the result, gets it.
  @Test func aFutureWrapsACompletionAndKeepsItsResult() {
    var promise: Future<Int, Failed>.Promise?
    var ran = 0
    let future = Future<Int, Failed> { p in
      ran += 1
      promise = p
    }
    #expect(ran == 1)
    var early: [String] = []
    let c1 = future.sink(receiveCompletion: { early.append(describe($0)) }, receiveValue: { early.append("\($0)") })
    promise?(.success(7))
    promise?(.success(8))
    var late: [String] = []
    let c2 = future.sink(receiveCompletion: { late.append(describe($0)) }, receiveValue: { late.append("\($0)") })
    #expect(early == ["7", "finished"] && late == ["7", "finished"])
    let failing = Future<Int, Failed> { $0(.failure(.no)) }
    var failed: [String] = []
    let c3 = failing.sink(receiveCompletion: { failed.append(describe($0)) }, receiveValue: { _ in failed.append("v") })
    #expect(failed == ["failure(no)"])
    _ = (c1, c2, c3)
  }

  @Test func deferredEmptyAndFail() {
    var made = 0
    let deferred = Deferred { () -> Just<Int> in
      made += 1
      return Just(made)
    }
    #expect(made == 0)
    var seen: [Int] = []
    _ = deferred.sink { seen.append($0) }
    _ = deferred.sink { seen.append($0) }
    #expect(seen == [1, 2])
    var ends: [String] = []
    _ = Empty<Int, Never>().sink(
      receiveCompletion: { ends.append(describe($0)) }, receiveValue: { _ in ends.append("v") })
    _ = Empty<Int, Never>(completeImmediately: false).sink(
      receiveCompletion: { _ in ends.append("never") }, receiveValue: { _ in })
    _ = Fail<Int, Failed>(error: .other).sink(receiveCompletion: { ends.append(describe($0)) }, receiveValue: { _ in })
    #expect(ends == ["finished", "failure(other)"])
  }

  @Test func dropFirstPrefixFirstAndScan() {
    let subject = PassthroughSubject<Int, Never>()
    var dropped: [Int] = []
    var prefixed: [String] = []
    var firstEven: [Int] = []
    var sums: [Int] = []
    let cs = [
      subject.dropFirst(2).sink { dropped.append($0) },
      subject.prefix(2).sink(
        receiveCompletion: { _ in prefixed.append("end") }, receiveValue: { prefixed.append("\($0)") }),
      subject.first { $0 % 2 == 0 }.sink { firstEven.append($0) },
      subject.scan(0, +).sink { sums.append($0) },
    ]
    for v in 1...4 { subject.send(v) }
    #expect(dropped == [3, 4] && prefixed == ["1", "2", "end"] && firstEven == [2] && sums == [1, 3, 6, 10])
    // A `@Published` property's publisher without its current value.
    final class Model: ObservableObject { @Published var status = "idle" }
    let model = Model()
    var changes: [String] = []
    let c = model.$status.dropFirst().sink { changes.append($0) }
    model.status = "applying"
    #expect(changes == ["applying"])
    _ = (cs, c)
  }

  @Test func errorHandling() {
    let subject = PassthroughSubject<Int, Failed>()
    var replaced: [Int] = []
    var caught: [Int] = []
    var mapped: [String] = []
    var thrown: [String] = []
    let cs = [
      subject.replaceError(with: -1).sink { replaced.append($0) },
      subject.catch { _ in Just(99).setFailureType(to: Failed.self) }
        .sink(receiveCompletion: { _ in }, receiveValue: { caught.append($0) }),
      subject.mapError { _ in Failed.other }
        .sink(receiveCompletion: { mapped.append(describe($0)) }, receiveValue: { _ in }),
      subject.tryMap { v -> Int in
        if v == 2 { throw Failed.other }
        return v * 10
      }
      .sink(receiveCompletion: { thrown.append(describe($0)) }, receiveValue: { thrown.append("\($0)") }),
    ]
    subject.send(1)
    subject.send(2)
    subject.send(completion: .failure(.no))
    #expect(replaced == [1, 2, -1] && caught == [1, 2, 99])
    #expect(mapped == ["failure(other)"])
    #expect(thrown == ["10", "failure(other)"])
    _ = cs
  }

  @Test func combineLatestMergeFlatMapAndSwitchToLatest() {
    let a = PassthroughSubject<Int, Never>()
    let b = PassthroughSubject<String, Never>()
    var latest: [String] = []
    var merged: [Int] = []
    let c1 = a.combineLatest(b).sink { latest.append("\($0)\($1)") }
    let c2 = a.merge(with: a.map { $0 * 100 }).sink { merged.append($0) }
    a.send(1)
    b.send("x")
    a.send(2)
    b.send("y")
    #expect(latest == ["1x", "2x", "2y"] && merged == [1, 100, 2, 200])
    let outer = PassthroughSubject<PassthroughSubject<Int, Never>, Never>()
    let first = PassthroughSubject<Int, Never>()
    let second = PassthroughSubject<Int, Never>()
    var flat: [Int] = []
    var switched: [Int] = []
    let c3 = outer.flatMap { $0 }.sink { flat.append($0) }
    let c4 = outer.switchToLatest().sink { switched.append($0) }
    outer.send(first)
    first.send(1)
    outer.send(second)
    first.send(2)
    second.send(3)
    #expect(flat == [1, 2, 3] && switched == [1, 3])
    var events: [String] = []
    let c5 = a.handleEvents(receiveOutput: { events.append("out \($0)") }, receiveCancel: { events.append("cancel") })
      .sink { _ in }
    a.send(5)
    c5.cancel()
    #expect(events == ["out 5", "cancel"])
    _ = (c1, c2, c3, c4)
  }

  /// `debounce`, `throttle` and `delay` wait simulated time on the main queue, as the user's work.
  @Test func timedOperatorsWaitSimulatedTime() {
    let bench = HostBench()
    let taps = PassthroughSubject<Int, Never>()
    var debounced: [String] = []
    var throttled: [String] = []
    var delayed: [String] = []
    var cs: [AnyCancellable] = []
    func at() -> Int64 { bench.host.now.nanoseconds / 1_000_000 }
    bench.run(as: 2) {
      cs.append(
        taps.debounce(for: .milliseconds(300), scheduler: DispatchQueue.main).sink { debounced.append("\($0)@\(at())") }
      )
      cs.append(taps.throttle(for: 1, scheduler: RunLoop.main, latest: true).sink { throttled.append("\($0)@\(at())") })
      cs.append(taps.delay(for: .seconds(0.5), scheduler: DispatchQueue.main).sink { delayed.append("\($0)@\(at())") })
      taps.send(1)
      DispatchQueue.main.asyncAfter(deadline: .now() + 0.1) { taps.send(2) }
      DispatchQueue.main.asyncAfter(deadline: .now() + 0.2) { taps.send(3) }
      DispatchQueue.main.asyncAfter(deadline: .now() + 2) { taps.send(4) }
    }
    bench.drain()
    #expect(debounced == ["3@500", "4@2300"])
    #expect(throttled == ["1@0", "3@1000", "4@2000"])
    #expect(delayed == ["1@500", "2@600", "3@700", "4@2500"])
  }

  /// `Timer.publish(...).autoconnect()` ticks every interval with the simulated wall clock, and stops
  /// when its subscription goes.
  @Test func aTimerPublisherTicksUntilCancelled() {
    let bench = HostBench()
    var ticks: [Double] = []
    var c: AnyCancellable?
    bench.run(as: 1) {
      c = Timer.publish(every: 1, on: .main, in: .common).autoconnect().sink { date in
        ticks.append(date.timeIntervalSince1970 - Double(WallClock.epoch))
        if ticks.count == 3 { c = nil }
      }
    }
    bench.drain()
    #expect(ticks == [1, 2, 3])
  }

  /// `NotificationCenter.default.publisher(for:)` delivers the user's own center's posts, at the post.
  @Test func aNotificationPublisherDeliversTheUsersOwnPosts() {
    let bench = HostBench()
    let name = Notification.Name("callEnded")
    var heard: [String] = []
    var c: AnyCancellable?
    bench.run(as: 1) {
      c = NotificationCenter.default.publisher(for: name).sink { heard.append("\($0.userInfo?["id"] ?? "")") }
    }
    bench.run(as: 2) { NotificationCenter.default.post(name: name, object: nil, userInfo: ["id": "other user"]) }
    bench.run(as: 1) { NotificationCenter.default.post(name: name, object: nil, userInfo: ["id": "call_1"]) }
    c = nil
    bench.run(as: 1) { NotificationCenter.default.post(name: name, object: nil, userInfo: ["id": "after"]) }
    #expect(heard == ["call_1"])
    _ = c
  }
}
