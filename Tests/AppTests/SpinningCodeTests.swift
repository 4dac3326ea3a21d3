import Testing

@testable import Clients
@testable import LiveStack
@testable import SimKernel
@testable import VirtualPlatform

/// Code that waits by spinning on the main queue, as teams write it: a poll that re-posts itself
/// with `DispatchQueue.main.async`, a task that `await Task.yield()`s until a flag clears. On a
/// phone each turn of the main queue takes a little time, and what the code waits for comes in
/// between; here simulated time moves on by a coarse turn once the spin is plainly a spin, so the
/// wait ends when the answer comes instead of holding the clock (or the run) still.
@Suite(.serialized) struct SpinningCodeTests {
  final class Flag: @unchecked Sendable {
    var answered = false
    var polls = 0
    var doneAt: Int64 = -1
  }

  /// A poll re-posted at zero delay: the first 64 turns take no simulated time (a hop or two to
  /// the main queue, as legitimate code makes, is untouched), then each takes 10 ms, and the poll
  /// ends at the first turn after the answer, 200 ms on.
  @Test func aPollThatRepostsItselfEndsWhenItsAnswerComes() {
    let bench = HostBench()
    let flag = Flag()
    func poll() {
      flag.polls += 1
      if flag.answered {
        flag.doneAt = bench.host.now.nanoseconds
        return
      }
      DispatchQueue.main.async { poll() }
    }
    bench.run(as: 1) { poll() }
    // The answer is set from outside at 200 ms, when the bench reaches it.
    var ran = 0
    while flag.doneAt < 0 && ran < 10_000 {
      if bench.queue.isEmpty { break }
      let next = bench.queue.map(\.due).min()!
      if next >= 200_000_000 && !flag.answered { flag.answered = true }
      ran += bench.drain(limit: 1)
    }
    #expect(flag.doneAt >= 200_000_000 && flag.doneAt < 220_000_000, "done at \(flag.doneAt)")
    // 64 free turns, then 20 turns of 10 ms.
    #expect(flag.polls > 64 && flag.polls < 100, "\(flag.polls) polls")
  }

  /// Work posted with a delay starts no spin, and a short run of zero-delay hops keeps zero delay.
  @Test func hopsToTheMainQueueTakeNoTime() {
    let bench = HostBench()
    let flag = Flag()
    bench.run(as: 1) {
      DispatchQueue.main.async {
        DispatchQueue.main.async {
          DispatchQueue.main.async { flag.doneAt = bench.host.now.nanoseconds }
        }
      }
    }
    bench.drain()
    #expect(flag.doneAt == 0)
  }

  /// A main-actor task that yields until a flag clears runs at most sixteen task steps a turn, then waits for
  /// the queue's next turn: it ends after the flag is cleared rather than spin at one instant.
  @Test func aTaskThatYieldsUntilAnswerEndsAfterTheAnswer() async {
    let bench = HostBench()
    let flag = Flag()
    bench.run(as: 1) {
      Task { @MainActor in
        while !flag.answered {
          flag.polls += 1
          await Task.yield()
        }
        flag.doneAt = bench.host.now.nanoseconds
      }
    }
    // The first turn runs at most sixteen task steps (a turn of the loop may take more than one).
    #expect(flag.polls > 0 && flag.polls <= 16, "\(flag.polls) turns of the loop at the first instant")
    var turns = 0
    while flag.doneAt < 0 && turns < 1_000 && !bench.queue.isEmpty {
      if bench.queue.map(\.due).min()! >= 50_000_000 { flag.answered = true }
      bench.drain(limit: 1)
      turns += 1
    }
    #expect(flag.doneAt >= 50_000_000 && flag.doneAt <= 60_000_000, "done at \(flag.doneAt)")
  }
}
