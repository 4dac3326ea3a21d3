import Testing

@testable import Clients
@testable import LiveStack
@testable import Oracles
@testable import SimKernel
@testable import VirtualPlatform

/// Dispatch's work items and groups and Foundation's timers, as app code uses them: each runs as
/// its user's work at simulated times, as on a phone's main thread.
@Suite(.serialized) struct WorkItemAndTimerTests {
  typealias Log = TestLog

  /// The cancellable timeout: an item armed with `asyncAfter` runs at its deadline unless it was
  /// cancelled by then; a cancelled one returns at once, and its notify work still follows.
  @Test func aCancelledWorkItemDoesNotRunAndAnArmedOneRunsAtItsDeadline() {
    let bench = HostBench()
    let log = Log()
    var ringTimeout: DispatchWorkItem?
    var kept: DispatchWorkItem?
    bench.run(as: 2) {
      let timeout = DispatchWorkItem {
        log.add("timed out at \(bench.host.now.nanoseconds / 1_000_000) as \(bench.host.user)")
      }
      timeout.notify(queue: .main) { log.add("notified at \(bench.host.now.nanoseconds / 1_000_000)") }
      DispatchQueue.main.asyncAfter(deadline: .now() + 30, execute: timeout)
      ringTimeout = timeout
      let other = DispatchWorkItem { log.add("kept at \(bench.host.now.nanoseconds / 1_000_000)") }
      DispatchQueue.main.asyncAfter(deadline: .now() + .milliseconds(1500), execute: other)
      kept = other
    }
    // The call is answered at 1 s: the screen cancels its ring timeout.
    bench.drain(limit: 0)
    bench.now = SimInstant(nanoseconds: 1_000_000_000)
    bench.runtime.now = bench.now
    bench.run(as: 2) { ringTimeout?.cancel() }
    bench.drain()
    #expect(log.lines == ["kept at 1500", "notified at 30000"])
    #expect(ringTimeout?.isCancelled == true && kept?.isCancelled == false)
  }

  /// `perform()` runs on the caller's turn; a second `notify` after completion is submitted at once;
  /// `async(execute:)` runs the item as a later event of the same user.
  @Test func performAndAsyncRunTheItemAsItsUsersCode() {
    let bench = HostBench()
    let log = Log()
    bench.run(as: 3) {
      let item = DispatchWorkItem { log.add("ran as \(bench.host.user)") }
      item.perform()
      log.add("after perform")
      item.notify(queue: .main) { log.add("late notify") }
      DispatchQueue.main.async(execute: DispatchWorkItem { log.add("async as \(bench.host.user)") })
    }
    #expect(log.lines == ["ran as 3", "after perform"])
    bench.drain()
    #expect(log.lines == ["ran as 3", "after perform", "late notify", "async as 3"])
  }

  /// A group's notify work follows the last `leave()`, including work submitted with
  /// `async(group:)`; with nothing entered it is submitted at once.
  @Test func aGroupNotifiesAfterItsLastLeave() {
    let bench = HostBench()
    let log = Log()
    let group = DispatchGroup()
    bench.run(as: 1) {
      group.enter()
      group.enter()
      DispatchQueue.main.async(group: group) { log.add("queued work") }
      group.notify(queue: .main) { log.add("all done at \(bench.host.now.nanoseconds / 1_000_000)") }
      DispatchQueue.main.asyncAfter(deadline: .now() + 2) { group.leave() }
      DispatchQueue.main.asyncAfter(deadline: .now() + 5) { group.leave() }
    }
    bench.drain()
    #expect(log.lines == ["queued work", "all done at 5000"])
    let empty = DispatchGroup()
    bench.run(as: 1) { empty.notify(queue: .main) { log.add("empty group") } }
    bench.drain()
    #expect(log.lines.last == "empty group")
    #expect(bench.runtime.appContractBroken.isEmpty)
  }

  /// A `leave()` with no matching `enter()` stops an iOS app; here it is recorded against the user
  /// whose code did it, and the run goes on.
  @Test func anUnbalancedLeaveIsRecordedAgainstItsUser() {
    let bench = HostBench()
    let group = DispatchGroup()
    bench.run(as: 2) {
      group.enter()
      group.leave()
      group.leave()
    }
    #expect(bench.runtime.appContractBroken.map(\.user) == [2])
    #expect(bench.runtime.appContractBroken.first?.what.contains("DispatchGroup.leave()") == true)
    var checker = Checker(seats: SeatService(rooms: [], userCount: 0))
    checker.observeOutsideUser(bench.runtime)
    #expect(checker.log.count(.appPlatformContract) == 1)
    let found = checker.log.first(.appPlatformContract)
    #expect(found?.entities == ["user:2"])
    #expect(
      found?.message
        == "user 2's code broke a platform contract: DispatchGroup.leave() without a matching enter() (a phone's app stops here: \"Unbalanced call to dispatch_group_leave()\")"
    )
    #expect(bench.runtime.appContractBroken.isEmpty)
  }

  /// A scheduled timer fires as its user's code after each interval of simulated time until it is
  /// invalidated; a non-repeating one fires once and is invalid afterwards.
  @Test func timersFireOnSimulatedTimeUntilInvalidated() {
    let bench = HostBench()
    let log = Log()
    var oneShot: Timer?
    bench.run(as: 2) {
      var ticks = 0
      Timer.scheduledTimer(withTimeInterval: 1, repeats: true) { timer in
        ticks += 1
        log.add("tick \(ticks) at \(bench.host.now.nanoseconds / 1_000_000) as \(bench.host.user)")
        if ticks == 3 { timer.invalidate() }
      }
      oneShot = Timer.scheduledTimer(withTimeInterval: 2.5, repeats: false) { _ in log.add("once") }
    }
    bench.drain()
    #expect(log.lines == ["tick 1 at 1000 as 2", "tick 2 at 2000 as 2", "once", "tick 3 at 3000 as 2"])
    #expect(oneShot?.isValid == false)
  }

  /// A timer made with `Timer(timeInterval:repeats:block:)` waits until added to the run loop;
  /// adding it twice schedules it once; `fire()` runs it now; one invalidated before its time never
  /// fires.
  @Test func aTimerAddedToTheRunLoopFiresOnceScheduledAndNotAfterInvalidate() {
    let bench = HostBench()
    let log = Log()
    let countdown = Timer(timeInterval: 0.5, repeats: false) { _ in
      log.add("countdown at \(bench.host.now.nanoseconds / 1_000_000)")
    }
    let cancelled = Timer(timeInterval: 0.2, repeats: false) { _ in log.add("cancelled timer fired") }
    bench.run(as: 1) {
      RunLoop.main.add(countdown, forMode: .common)
      RunLoop.current.add(countdown, forMode: .default)
      RunLoop.main.add(cancelled, forMode: .common)
      cancelled.invalidate()
    }
    bench.drain()
    #expect(log.lines == ["countdown at 500"])
    // A fire date of the simulated wall clock: 2 s from now (0.5 s, when the code runs).
    var dated: Timer?
    bench.run(as: 1) {
      dated = Timer(fire: Date().addingTimeInterval(2), interval: 1, repeats: false) { _ in
        log.add("dated at \(bench.host.now.nanoseconds / 1_000_000)")
      }
      RunLoop.main.add(dated!, forMode: .default)
    }
    bench.drain()
    #expect(log.lines.last == "dated at 2500" && dated?.isValid == false)
    let manual = Timer(timeInterval: 10, repeats: true) { _ in log.add("fired by hand") }
    bench.run(as: 1) { manual.fire() }
    #expect(log.lines.last == "fired by hand" && manual.isValid)
  }

  /// A wall deadline is simulated time: `asyncAfter(wallDeadline:)` waits as a `DispatchTime` does.
  @Test func aWallDeadlineWaitsSimulatedTime() {
    let bench = HostBench()
    var at: [Int64] = []
    bench.run {
      DispatchQueue.main.asyncAfter(wallDeadline: .now() + 2) { at.append(bench.host.now.nanoseconds) }
      DispatchQueue.main.asyncAfter(
        wallDeadline: .now() + .milliseconds(300),
        execute: DispatchWorkItem {
          at.append(bench.host.now.nanoseconds)
        })
    }
    bench.drain()
    #expect(at == [300_000_000, 2_000_000_000])
    #expect(DispatchTime(uptimeNanoseconds: 5_000_000_000) - 1.5 == DispatchTime(uptimeNanoseconds: 3_500_000_000))
    #expect(DispatchTime(uptimeNanoseconds: 100) - .seconds(1) == .zero)
  }

  /// A semaphore used as a lock works; a `wait()` nothing on the one thread could signal first
  /// is recorded (a phone's app hangs there) and returns, and a timed wait times out at once.
  @Test func aSemaphoreWaitThatWouldHangIsRecordedAndTheRunGoesOn() {
    let bench = HostBench()
    let log = Log()
    bench.run(as: 1) {
      let lock = DispatchSemaphore(value: 1)
      lock.wait()
      log.add("locked")
      lock.signal()
      #expect(lock.wait(timeout: .now() + 1) == .success)
      #expect(lock.wait(timeout: .now() + 1) == .timedOut)
    }
    #expect(bench.runtime.appContractBroken.isEmpty)
    bench.run(as: 3) {
      // Waiting on the main thread for a completion that the main thread delivers.
      let answered = DispatchSemaphore(value: 0)
      DispatchQueue.main.async { answered.signal() }
      answered.wait()
      log.add("went on")
    }
    bench.drain()
    #expect(log.lines == ["locked", "went on"])
    #expect(bench.runtime.appContractBroken.map(\.user) == [3])
    #expect(
      bench.runtime.appContractBroken.first?.what.hasPrefix("DispatchSemaphore.wait() with nothing to signal it")
        == true)
  }

  /// The ring timeout as a task: cancelled when the call is answered, its sleep ends at once with
  /// `CancellationError`, as the standard library's does, not at its deadline.
  @Test func aCancelledTaskSleepEndsAtTheCancelNotAtItsDeadline() {
    let bench = HostBench()
    let log = Log()
    var ringTimeout: Task<Void, Never>?
    bench.run(as: 2) {
      ringTimeout = Task {
        do {
          try await Task.sleep(for: .seconds(30))
          log.add("timed out")
        } catch {
          log.add("\(type(of: error)) at \(bench.host.now.nanoseconds / 1_000_000) as \(bench.host.user)")
        }
      }
      Task {
        try? await Task.sleep(for: .seconds(5))
        log.add("uncancelled at \(bench.host.now.nanoseconds / 1_000_000)")
      }
    }
    // The call is answered at 1.2 s, in another piece of the user's code.
    bench.run(as: 2) { DispatchQueue.main.asyncAfter(deadline: .now() + 1.2) { ringTimeout?.cancel() } }
    bench.drain()
    #expect(log.lines == ["CancellationError at 1200 as 2", "uncancelled at 5000"])
  }

  /// Older code's hop to the main thread, `OperationQueue.main.addOperation`, runs as a later event
  /// of the user, in order; a suspended queue holds its blocks until resumed; cancelled blocks
  /// never run; a notification observer on `.main` runs later too.
  @Test func operationQueueBlocksRunAsTheUsersLaterWork() {
    let bench = HostBench()
    let log = Log()
    let own = OperationQueue()
    bench.run(as: 2) {
      OperationQueue.main.addOperation { log.add("main as \(bench.host.user)") }
      own.isSuspended = true
      own.addOperation { log.add("held") }
      own.addOperation { log.add("cancelled") }
      own.cancelAllOperations()
      own.addOperation { log.add("after cancel") }
      _ = NotificationCenter.default.addObserver(forName: .init("ended"), object: nil, queue: .main) { _ in
        log.add("observer")
      }
      NotificationCenter.default.post(name: .init("ended"))
      log.add("now")
    }
    #expect(log.lines == ["now"] && own.operationCount == 3)
    bench.drain()
    #expect(log.lines == ["now", "main as 2", "observer"])
    bench.run(as: 2) { own.isSuspended = false }
    bench.drain()
    #expect(log.lines == ["now", "main as 2", "observer", "after cancel"])
    #expect(own.operationCount == 0)
  }

  /// An `async` wrapper whose completion path forgot to resume its checked continuation leaves the
  /// awaiting task suspended forever: a finding against the user whose code dropped it. The same
  /// continuation let go of with a process that is gone is no finding (a killed process runs
  /// nothing more), and neither reaches the runtime's own report.
  @Test func aCheckedContinuationDroppedByTheAppIsAFindingAndOneOfAGoneProcessIsNot() {
    let bench = HostBench()
    let log = Log()
    bench.run(as: 2) {
      Task {
        await withCheckedContinuation { (_: CheckedContinuation<Void, Never>) in
          // The completion's failure path returns without resuming.
          log.add("asked")
        }
        log.add("never resumed")
      }
    }
    bench.drain()
    #expect(log.lines == ["asked"])
    #expect(bench.runtime.appContractBroken.map(\.user) == [2])
    #expect(
      bench.runtime.appContractBroken.first?.what.hasPrefix("a CheckedContinuation (") == true
        && bench.runtime.appContractBroken.first?.what.hasSuffix(
          ") dropped without being resumed: the task waiting on it stays suspended forever") == true,
      "\(bench.runtime.appContractBroken)")
    bench.runtime.appContractBroken.removeAll()
    // A completion still pending when the process died, holding its continuation.
    final class Pending: @unchecked Sendable { var completion: (() -> Void)? }
    let pending = Pending()
    bench.run(as: 3) {
      Task {
        await withCheckedContinuation { (k: CheckedContinuation<Void, Never>) in
          pending.completion = { k.resume() }
        }
      }
    }
    bench.drain()
    bench.host.releaseObjects(of: 3, holding: pending.completion) { pending.completion = nil }
    #expect(bench.runtime.appContractBroken.isEmpty)
  }
}
