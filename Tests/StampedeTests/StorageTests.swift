import LiveStack
import Testing

@testable import Clients
@testable import SimKernel

@Suite struct StorageTests {
  @Test func aSetOfUserBitsHoldsExactlyWhatWasInserted() {
    var set = UserBits()
    #expect(!set.contains(0) && !set.contains(.max))
    let members: [UInt32] = [0, 63, 64, 1_000, 10_559_904]
    for u in members { set.insert(u) }
    set.insert(64)  // again: no change
    for u in members { #expect(set.contains(u)) }
    for u: UInt32 in [1, 62, 65, 999, 1_001, 10_559_903, 10_559_905, .max] { #expect(!set.contains(u)) }
    // Compared with a Set over every user up to past the last member.
    let reference = Set(members)
    #expect((0..<2_000 as Range<UInt32>).allSatisfy { set.contains($0) == reference.contains($0) })
  }

  @Test func aColumnStoresValuesByIndexAndSharesThemByReference() {
    let column = Column<Int16>(repeating: -1, count: 5)
    let alias = column
    alias[3] = 42
    #expect(column[3] == 42)
    #expect(column.elements == [-1, -1, -1, 42, -1])
    #expect(Column<UInt8>(repeating: 0, count: 0).elements.isEmpty)
  }

  @Test func aColumnGrowsInPlaceAndItsViewSharesItsElements() {
    let column = Column<Int32>(reservingCapacity: 0)
    for i in 0..<100 as Range<Int32> { column.append(i) }
    #expect(column.count == 100 && column[99] == 99)
    column.grow(toInclude: 149, filling: -1)
    #expect(column.count == 150 && column[100] == -1 && column[149] == -1 && column[42] == 42)
    column.grow(toInclude: 10, filling: 7)  // already valid: nothing changes
    #expect(column.count == 150 && column[10] == 10)
    #expect(column.popLast() == -1 && column.count == 149)
    let view = column.view
    view[5] = 500
    #expect(column[5] == 500 && view.count == 149 && view.elements == column.elements)
    column.removeAll()
    #expect(column.isEmpty && column.popLast() == nil)
    #expect(Column([3, 1, 2] as [UInt8]).elements == [3, 1, 2])
    let empty = Column([] as [UInt8])
    #expect(empty.isEmpty)
    empty.append(9)
    #expect(empty.elements == [9])
    let squares = Column<Int64>(count: 1_000) { Int64($0 * $0) }
    #expect(squares.count == 1_000 && squares[999] == 998_001 && squares[0] == 0)
    squares.append(-1)
    #expect(squares.count == 1_001 && squares[1_000] == -1 && squares[31] == 961)
    #expect(Column<UInt8>(count: 0) { _ in 1 }.isEmpty)
  }

  /// Hints never change a value and ignore indexes out of range.
  @Test func prefetchingAnElementChangesNothing() {
    let column = Column<Int32>(count: 64) { Int32($0) }
    for i in [-1, 0, 63, 64, 1 << 40] { column.prefetch(i) }
    column.view.prefetch(3)
    column.view.prefetch(-5)
    let array = [1, 2, 3]
    for i in [-1, 0, 2, 3] { array.prefetch(i) }
    #expect(column.elements == (0..<64).map { Int32($0) })
    #expect(array == [1, 2, 3])
    // A record of a stride that does not divide the cache line is hinted at both ends, up to its
    // last byte (the last record of a 48-byte table ends where its block ends).
    struct Wide { var a: (Int64, Int64, Int64, Int64, Int64, Int64) }
    let wide = Column<Wide>(count: 5) { i in Wide(a: (Int64(i), 0, 0, 0, 0, -1)) }
    for i in 0..<6 { wide.prefetch(i) }
    #expect(wide.elements.map(\.a.0) == [0, 1, 2, 3, 4])
  }

  /// Which record sizes can span two cache lines: those whose stride does not divide 64, and
  /// those longer than a line; never a byte.
  @Test func recordsThatStraddleCacheLinesAreKnownPerType() {
    #expect(!recordMayStraddleLines(UInt8.self))
    #expect(!recordMayStraddleLines(Int64.self))
    #expect(!recordMayStraddleLines((Int64, Int64, Int64, Int64).self))
    #expect(recordMayStraddleLines((Int64, Int64, Int64).self))
    #expect(recordMayStraddleLines((Int32, Int32, Int32).self))
    #expect(recordMayStraddleLines((Int64, Int64, Int64, Int64, Int64, Int64, Int64, Int64, Int8).self))
    // A user's network record, with its random streams, is one cache line.
    #expect(MemoryLayout<Network.Link>.stride == 64)
    #expect(!recordMayStraddleLines(Network.Link.self))
  }

  @Test func theCommandQueueGrowsAndKeepsTheOrderOfCommands() {
    let queue = CommandQueue()
    defer { queue.deallocate() }
    for i in 0..<100 as Range<UInt32> {
      queue.append(.timer(user: i, delay: .milliseconds(Int64(i)), tag: i, arg: 0))
    }
    #expect(queue.count == 100)
    var users: [UInt32] = []
    var none: Completion? = nil
    for i in 0..<queue.count {
      if case .timer(let user, _, _, _) = queue.take(i, completion: &none) { users.append(user) }
      #expect(none == nil)
    }
    queue.reset()
    #expect(users == Array(0..<100))
    #expect(queue.count == 0)
    // Completions travel beside their operations, through the queue's growth, each with its own
    // operation; an operation appended as a plain command has none.
    let runtime = ClientRuntime(
      layout: Layout(viewers: [1], staffPerRoom: 1, phoneCount: 0),
      settings: RoomSettings(maxSeatCount: 1, packageLimit: 1, seatMode: .apply), quirks: [])
    var client = Client(user: 0, room: 0, role: .owner, runtime: runtime, random: SplitMix64(seed: 0))
    var ran: [UInt32] = []
    for i in 0..<40 as Range<UInt32> {
      if i % 3 == 0 {
        queue.append(.operation(.system(i, .login, at: .zero)))
      } else {
        queue.appendOperation(
          user: i, kind: .applyForSeat, target: 0, seat: -1, policy: .abortWhenOccupied, timeout: .zero,
          issuedAt: .zero, completion: { _, _ in ran.append(i) })
      }
    }
    for i in 0..<40 {
      var completion: Completion? = nil
      guard case .operation(let op) = queue.take(i, completion: &completion) else {
        Issue.record("expected an operation")
        return
      }
      #expect(op.user == UInt32(i) && op.kind == (i % 3 == 0 ? .login : .applyForSeat))
      #expect((completion == nil) == (i % 3 == 0))
      completion?(&client, .success(()))
    }
    queue.reset()
    #expect(ran == (0..<40).filter { $0 % 3 != 0 })
  }
}

@Suite struct ScratchListTests {
  @Test func aScratchListKeepsOrderThroughGrowthAndEmptying() {
    var list: ScratchList<Int> = []
    #expect(list.isEmpty && list.count == 0)
    for i in 0..<100 { list.append(i) }
    #expect(Array(list) == Array(0..<100))
    list.removeLast(40)
    #expect(Array(list) == Array(0..<60) && list.last == 59)
    list.removeAll()
    #expect(list.isEmpty)
    list.append(7)
    #expect(list == [7])
    #expect(list.description == "[7]")
  }

  @Test func removeEveryDropsEachEqualElementAndKeepsTheOrder() {
    var list: [UInt32] = [4, 7, 4, 1, 4, 9]
    list.removeEvery(4)
    #expect(list == [7, 1, 9])
    list.removeEvery(5)
    #expect(list == [7, 1, 9])
    list.removeEvery(9)
    #expect(list == [7, 1])
    var same: [UInt32] = [3, 3, 3]
    same.removeEvery(3)
    #expect(same.isEmpty)
  }

  @Test func aCopyOfAScratchListIsAValue() {
    var a: ScratchList<String> = ["x", "y"]
    var b = a
    b.append("z")
    #expect(Array(a) == ["x", "y"] && Array(b) == ["x", "y", "z"])
    let c = a
    a.removeAll()
    #expect(a.isEmpty && Array(c) == ["x", "y"])
    var d = b
    d.removeLast(2)
    #expect(Array(d) == ["x"] && Array(b) == ["x", "y", "z"])
    // Elements with references are released when removed (no leak, no double free).
    final class Token {}
    weak var gone: Token?
    var tokens = ScratchList<Token>()
    do {
      let t = Token()
      gone = t
      tokens.append(t)
    }
    #expect(gone != nil)
    tokens.removeAll()
    #expect(gone == nil)
  }
}
