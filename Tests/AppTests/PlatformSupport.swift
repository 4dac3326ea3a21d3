import Combine
import Testing

@testable import Clients
@testable import LiveStack
@testable import SimKernel
@testable import VirtualPlatform

/// A bare app host over a one-room runtime, whose posted work the test runs by hand in the order
/// the simulation would (time, then posting order).
final class HostBench {
  let runtime: ClientRuntime
  let host: AppHost
  var now = SimInstant.zero
  /// Posted work not yet run: (due, order, slot).
  var queue: [(due: Int64, order: Int, slot: UInt32)] = []
  var order = 0

  init(users: Int = 4, ownerSeat: Bool = false) {
    let layout = Layout(viewers: [users - 1], staffPerRoom: 1, phoneCount: 0)
    runtime = ClientRuntime(
      layout: layout,
      settings: RoomSettings(
        maxSeatCount: 4, packageLimit: 4, seatMode: .apply, coHostSeatLimit: 0, ownerSeat: ownerSeat),
      quirks: [])
    host = AppHost(runtime: runtime)
  }

  /// Runs `body` as `user`'s code, then collects what it posted.
  func run(as user: UInt32 = 1, _ body: () -> Void) {
    host.run(as: user, body)
    collect()
  }

  func collect() {
    let commands = runtime.commands
    var completion: Completion? = nil
    for i in 0..<commands.count {
      if case .timer(_, let delay, let tag, let arg) = commands.take(i, completion: &completion), tag == AppHost.jobTag
      {
        queue.append((now.nanoseconds + delay.nanoseconds, order, arg))
        order += 1
      }
    }
    commands.reset()
  }

  /// Runs posted work until none is left (or `limit` jobs ran); returns how many ran.
  @discardableResult
  func drain(limit: Int = 10_000) -> Int {
    var ran = 0
    while !queue.isEmpty && ran < limit {
      let next = queue.indices.min { (queue[$0].due, queue[$0].order) < (queue[$1].due, queue[$1].order) }!
      let job = queue.remove(at: next)
      now = SimInstant(nanoseconds: job.due)
      runtime.now = now
      host.runJob(job.slot)
      collect()
      ran += 1
    }
    return ran
  }
}

/// Lines a test's app code writes as it runs (one run's code runs on one thread at a time).
final class TestLog: @unchecked Sendable {
  var lines: [String] = []
  func add(_ line: String) { lines.append(line) }
}
