import Combine
import Foundation
import Testing

@testable import Clients
@testable import SimKernel
@testable import VirtualPlatform

/// `publisher.values` (iOS 15's Combine): a view model's `for await` over a subject or an SDK
/// state publisher gets each value as the user's code, in order, and the subscription ends with
/// the loop or its task.
@Suite(.serialized) struct AsyncValuesTests {
  typealias Log = TestLog

  @Test func aLoopOverValuesGetsEachValueAndEndsWithItsTask() {
    let log = Log()
    MainActorTests.onAThreadOfItsOwn {
      let bench = HostBench()
      let subject = PassthroughSubject<Int, Never>()
      let state = CurrentValueSubject<String, Never>("idle")
      nonisolated(unsafe) var loop: Task<Void, Never>?
      bench.run(as: 1) {
        loop = Task { @MainActor in
          for await n in subject.values { log.lines.append("event \(n) as user \(bench.host.user)") }
          log.lines.append("events over")
        }
        Task { @MainActor in
          for await s in state.values {
            log.lines.append("state \(s)")
            if s == "connected" { break }
          }
          log.lines.append("state loop left")
        }
      }
      bench.run(as: 1) {
        subject.send(1)
        subject.send(2)
        state.send("applying")
        state.send("connected")
        state.send("after the loop")
      }
      bench.drain()
      bench.run(as: 1) { loop?.cancel() }
      bench.drain()
      bench.run(as: 1) { subject.send(3) }
      bench.drain()
    }
    #expect(
      log.lines == [
        // The two loops take turns, a value each, as the user's task steps.
        "state idle", "event 1 as user 1", "state applying", "event 2 as user 1", "state connected",
        "state loop left", "events over",
      ])
  }

  /// A failing publisher's values throw its failure at the end of the loop.
  @Test func aFailureEndsTheLoopWithItsError() {
    struct Refused: Error {}
    let log = Log()
    MainActorTests.onAThreadOfItsOwn {
      let bench = HostBench()
      let subject = PassthroughSubject<Int, Refused>()
      bench.run(as: 2) {
        Task { @MainActor in
          do {
            for try await n in subject.values { log.lines.append("value \(n)") }
            log.lines.append("finished")
          } catch {
            log.lines.append("threw \(error is Refused)")
          }
        }
      }
      bench.run(as: 2) {
        subject.send(7)
        subject.send(completion: .failure(Refused()))
      }
      bench.drain()
    }
    #expect(log.lines == ["value 7", "threw true"])
  }
}
