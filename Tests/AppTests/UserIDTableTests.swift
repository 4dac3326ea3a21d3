import Dispatch
import Testing

@testable import VirtualPlatform

/// User IDs come from a table that every run of the process shares.
@Suite struct UserIDTableTests {
  @Test func userIDsAreTheSameFromTheTableBeyondItAndOnEveryThread() {
    // Concurrent runs read it, and grow it when they need more, at once.
    let wrong = UnsafeMutablePointer<Int>.allocate(capacity: 4)
    wrong.initialize(repeating: 0, count: 4)
    Dispatch.DispatchQueue.concurrentPerform(iterations: 4) { k in
      for u in stride(from: UInt32(k), to: 200_000, by: 4) where VirtualIDs.userID(u) != "user_\(u)" { wrong[k] += 1 }
    }
    #expect((0..<4).map { wrong[$0] } == [0, 0, 0, 0])
    wrong.deallocate()
    // The table grows to cover what is asked; beyond its limit IDs are spelled on each call.
    for u: UInt32 in [0, 9, 10, 1023, 1024, 70_000, UInt32(UserIDTable.limit) - 1, UInt32(UserIDTable.limit), .max] {
      #expect(VirtualIDs.userID(u) == "user_\(u)")
      #expect(VirtualIDs.user(VirtualIDs.userID(u)) == u)
    }
  }
}

/// The current host is per thread (parallel runs hand callbacks to app code at once).
@Suite struct CurrentHostTests {
  @Test func eachThreadSeesItsOwnHostOnlyWhileItsCodeRuns() {
    let threads = 4
    // Per thread: how many checks went wrong.
    let wrong = UnsafeMutablePointer<Int>.allocate(capacity: threads)
    wrong.initialize(repeating: 0, count: threads)
    Dispatch.DispatchQueue.concurrentPerform(iterations: threads) { k in
      let bench = HostBench()
      for _ in 0..<2_000 {
        if AppHost.current != nil { wrong[k] += 1 }
        bench.host.run(as: 1) {
          if AppHost.current !== bench.host || AppHost.current?.user != 1 { wrong[k] += 1 }
          bench.host.run(as: 2) {
            if AppHost.current !== bench.host || AppHost.current?.user != 2 { wrong[k] += 1 }
          }
          if AppHost.current !== bench.host || AppHost.current?.user != 1 { wrong[k] += 1 }
        }
        if AppHost.current != nil { wrong[k] += 1 }
      }
    }
    #expect((0..<threads).map { wrong[$0] } == [Int](repeating: 0, count: threads))
    wrong.deallocate()
  }
}
