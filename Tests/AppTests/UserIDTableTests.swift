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
