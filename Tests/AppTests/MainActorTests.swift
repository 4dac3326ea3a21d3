import Combine
import Dispatch
import Foundation
import Observation
import Testing

@testable import Clients
@testable import SimKernel
@testable import VirtualPlatform

/// A view model as teams write them today: isolated to the main actor.
@MainActor final class StageCounter {
  var log: [String] = []
  func tap(_ s: String) { log.append(s) }
}

/// A model as SwiftUI takes it today: `@Observable`.
@Observable final class StageModel {
  var guests = 0
}

/// Main-actor code runs unchanged on each virtual user's simulated main thread: `@MainActor`
/// classes and closures, `MainActor.assumeIsolated`, `await MainActor.run` and `Task { @MainActor
/// in … }`, as events of the user, in simulated time, on whatever thread the run has.
@Suite(.serialized) struct MainActorTests {
  /// Runs `body` on a thread of its own (never the process's main thread), as a sweep's jobs run.
  static func onAThreadOfItsOwn(_ body: @escaping @Sendable () -> Void) {
    let done = Dispatch.DispatchSemaphore(value: 0)
    let thread = Thread {
      body()
      done.signal()
    }
    thread.start()
    done.wait()
  }

  @Test func mainActorCodeRunsAsTheUsersEventsOffTheMainThread() {
    final class Result: @unchecked Sendable {
      var log: [String] = []
      var wasMainThread = true
    }
    let result = Result()
    MainActorTests.onAThreadOfItsOwn {
      result.wasMainThread = Thread.isMainThread
      let bench = HostBench()
      nonisolated(unsafe) var vm: StageCounter!
      bench.run(as: 1) {
        vm = MainActor.assumeIsolated { StageCounter() }
        MainActor.assumeIsolated { vm.tap("sync") }
        Task { @MainActor in
          vm.tap("task@\(bench.host.now.nanoseconds / 1_000_000)ms")
          try? await Task.sleep(for: .milliseconds(300))
          vm.tap("slept@\(bench.host.now.nanoseconds / 1_000_000)ms")
        }
        Task {
          await MainActor.run { vm.tap("run") }
        }
        VirtualPlatform.DispatchQueue.main.asyncAfter(deadline: VirtualPlatform.DispatchTime.now() + 1) {
          MainActor.assumeIsolated { vm.tap("main-queue@\(bench.host.now.nanoseconds / 1_000_000)ms") }
        }
      }
      // Tasks start when the code that made them returns; nothing has run in the task yet.
      // (Read as the user's code: outside it, the main actor is the process's own.)
      bench.run(as: 1) { MainActor.assumeIsolated { #expect(vm.log == ["sync", "task@0ms", "run"]) } }
      bench.drain()
      bench.run(as: 1) { result.log = MainActor.assumeIsolated { vm.log } }
    }
    #expect(!result.wasMainThread)
    #expect(result.log == ["sync", "task@0ms", "run", "slept@300ms", "main-queue@1000ms"])
  }

  @Test func twoRunsOnTwoThreadsEachHaveTheirOwnMainActor() {
    // Two hosts at once, on two threads: each user's main-actor work stays in its own run.
    final class Logs: @unchecked Sendable {
      let lock = NSLock()
      var byRun: [Int: [String]] = [:]
    }
    let logs = Logs()
    let group = Dispatch.DispatchGroup()
    for run in 0..<2 {
      group.enter()
      Thread {
        let bench = HostBench()
        nonisolated(unsafe) var vm: StageCounter!
        bench.run(as: 2) {
          vm = MainActor.assumeIsolated { StageCounter() }
          for k in 0..<50 {
            Task { @MainActor in
              try? await Task.sleep(for: .milliseconds(10 * (k % 5)))
              vm.tap("\(run)-\(k)")
            }
          }
        }
        bench.drain()
        var log: [String] = []
        bench.run(as: 2) { log = MainActor.assumeIsolated { vm.log } }
        logs.lock.withLock { logs.byRun[run] = log }
        group.leave()
      }.start()
    }
    group.wait()
    for run in 0..<2 {
      let log = logs.byRun[run] ?? []
      #expect(log.count == 50 && log.allSatisfy { $0.hasPrefix("\(run)-") })
      // In simulated time, then in the order the tasks were made.
      let expected = (0..<5).flatMap { d in (0..<50).filter { $0 % 5 == d }.map { "\(run)-\($0)" } }
      #expect(log == expected)
    }
  }

  /// `withObservationTracking` hears a change as the code that made it: the user's, at its
  /// simulated time.
  @Test func observationFiresAsTheUsersCodeInSimulatedTime() {
    let bench = HostBench()
    final class Heard: @unchecked Sendable { var changes: [String] = [] }
    let heard = Heard()
    let model = StageModel()
    bench.run(as: 2) {
      withObservationTracking {
        _ = model.guests
      } onChange: {
        heard.changes.append("user \(AppHost.current?.user ?? 999) at \(bench.host.now.nanoseconds / 1_000_000) ms")
      }
      VirtualPlatform.DispatchQueue.main.asyncAfter(deadline: VirtualPlatform.DispatchTime.now() + 2) {
        model.guests += 1
      }
    }
    #expect(heard.changes.isEmpty)
    bench.drain()
    #expect(heard.changes == ["user 2 at 2000 ms"])
    #expect(model.guests == 1)
  }

  @Test func mainActorCodeOutsideEveryVirtualUserIsNotTakenForTheUsers() {
    // With no user's code running, the main actor is the process's own: on this thread, not it.
    let bench = HostBench()
    var inside = false
    bench.run(as: 1) { inside = SimulationExecutor.isIsolatingHere }
    #expect(inside)
    #expect(!SimulationExecutor.isIsolatingHere)
  }
}
