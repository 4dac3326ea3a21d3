import SimKernel

/// Requests' timeouts, one line per room and timeout length, each with one timer.
///
/// Every application and invitation used to arm its own timeout event, which nearly always fired
/// long after the request was answered, changing nothing. Requests are filed in time order, so
/// the deadlines of one timeout length come in order too: a line keeps them first-in first-out
/// and arms one timer, at the deadline of its first request still pending. When it fires, the
/// requests due then time out exactly as their own events would have made them; the timer then
/// skips the requests answered meanwhile and waits for the next one still pending. A request
/// answered before its deadline costs no event. Lines are per room, so that a room's events never
/// depend on another room's requests (removing the other rooms leaves a room's life as it was).
public struct TimeoutLines {
  /// One timeout length's requests, in filing order.
  public struct Line {
    /// The room and the timeout length in nanoseconds.
    var key: Key
    /// Request IDs and their deadlines (nanoseconds), from `head` on.
    var ids: [UInt32] = []
    var deadlines: [Int64] = []
    var head = 0
    /// Whether a timer event is pending for this line.
    public var armed = false

    /// The first request waiting, with its deadline.
    public var first: (UInt32, Int64)? { head < ids.count ? (ids[head], deadlines[head]) : nil }

    public mutating func removeFirst() {
      head += 1
      // Drop the consumed prefix now and then (amortized O(1) per request).
      if head >= 4096 && head * 2 >= ids.count {
        ids.removeFirst(head)
        deadlines.removeFirst(head)
        head = 0
      }
    }
  }

  /// No lines yet.
  public init() {}

  /// A line's room and timeout length.
  struct Key: Hashable {
    var room: UInt32
    var length: Int64
  }

  public var lines: [Line] = []
  var index: [Key: Int] = [:]
  /// Per room: the line it used last, plus one (0: none yet). A room nearly always uses one
  /// timeout length, so this answers without hashing.
  var lastLine: [Int32] = []

  /// Appends request `id` of `room`, due at `deadline`, to the line of its room and timeout
  /// `length`; returns the line.
  public mutating func add(_ id: UInt32, room: UInt32, deadline: Int64, length: Int64) -> Int {
    let r = Int(room)
    lastLine.grow(toInclude: r, filling: 0)
    var line = Int(lastLine[r]) - 1
    if line < 0 || lines[line].key.length != length {
      let key = Key(room: room, length: length)
      if let known = index[key] {
        line = known
      } else {
        lines.append(Line(key: key))
        line = lines.count - 1
        index[key] = line
      }
      lastLine[r] = Int32(line + 1)
    }
    lines[line].ids.append(id)
    lines[line].deadlines.append(deadline)
    return line
  }

  /// Files request `id` (see ``add(_:room:deadline:length:)``); returns its line if that line's
  /// timer must be set now, at `deadline` (it had none pending, and now has).
  public mutating func file(_ id: UInt32, room: UInt32, deadline: Int64, length: Int64) -> Int? {
    let line = add(id, room: room, deadline: deadline, length: length)
    guard !lines[line].armed else { return nil }
    lines[line].armed = true
    return line
  }

  /// Takes the first request of `line` if it is due by `now` (its timer fired): the caller times
  /// it out if it is still pending, and asks again.
  public mutating func takeDue(_ line: Int, now: Int64) -> UInt32? {
    guard let (id, deadline) = lines[line].first, deadline <= now else { return nil }
    lines[line].removeFirst()
    return id
  }

  /// Once the requests due have timed out: skips the requests of `line` no longer pending in
  /// `requests` (answered meanwhile: they need no event at all) and returns the first one still
  /// pending, whose deadline the line's timer waits for; `nil`, and the timer unset, when none is.
  public mutating func next(_ line: Int, requests: [SeatRequest]) -> (id: UInt32, deadline: Int64)? {
    while let (id, _) = lines[line].first, requests[Int(id)].state != .pending { lines[line].removeFirst() }
    guard let (id, deadline) = lines[line].first else {
      lines[line].armed = false
      return nil
    }
    return (id, deadline)
  }
}
