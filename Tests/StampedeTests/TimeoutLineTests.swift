import Testing

@testable import LiveStack
@testable import SimKernel

/// A room's request timeouts in one line per timeout length, with one timer: filing arms it once,
/// a firing times out what is due, and the timer moves on past the requests answered meanwhile.
@Suite struct TimeoutLineTests {
  func request(room: UInt32, _ state: RequestState) -> SeatRequest {
    SeatRequest(
      kind: .application, room: room, guest: 1, host: .max, seatIndex: -1, state: state, failure: .none,
      createdAt: .zero, endedAt: .zero)
  }

  @Test func aLineArmsOneTimerAndMovesPastAnsweredRequests() {
    var lines = TimeoutLines()
    // Requests 0, 1, 2 of room 4 with a 30 s timeout; request 3 of room 5.
    let first = lines.file(0, room: 4, deadline: 30, length: 30)
    #expect(first != nil, "the first request sets the line's timer")
    #expect(lines.file(1, room: 4, deadline: 31, length: 30) == nil, "the timer is set already")
    #expect(lines.file(2, room: 4, deadline: 35, length: 30) == nil)
    let other = lines.file(3, room: 5, deadline: 32, length: 30)
    #expect(other != nil && other != first, "another room, another line")
    // The timer fires at 31: requests 0 and 1 are due, 2 is not.
    let line = first!
    #expect(lines.takeDue(line, now: 31) == 0)
    #expect(lines.takeDue(line, now: 31) == 1)
    #expect(lines.takeDue(line, now: 31) == nil)
    // Request 2 still pends: the timer waits for it.
    var requests = [request(room: 4, .pending), request(room: 4, .pending), request(room: 4, .pending)]
    #expect(lines.next(line, requests: requests)! == (2, 35))
    #expect(lines.lines[line].armed)
    // Answered meanwhile: it needs no event, and the line's timer is unset until the next filing.
    requests[2].state = .accepted
    #expect(lines.next(line, requests: requests) == nil)
    #expect(!lines.lines[line].armed)
    #expect(lines.file(4, room: 4, deadline: 70, length: 30) == line, "the next filing sets it again")
  }
}
