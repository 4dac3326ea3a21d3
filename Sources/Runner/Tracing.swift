import Clients
import Foundation
import Profiles
import Reports
import Scenario
import SimKernel

/// Sees every event just before the world handles it. Observers never change the run.
public protocol EventObserver: AnyObject {
  /// `index` counts events from 0. Return `false` to ask the run to stop after the current slice.
  func observe(index: Int64, time: SimInstant, event: Event, world: LiveWorld) -> Bool
  /// Sees a phone app's lifecycle step just after the world handled it, for a description of what
  /// it did (the step draws whether the app is closed or only left, so the state before it
  /// cannot say).
  func handledLifecycle(index: Int64, time: SimInstant, event: Event, before: AppState?, world: LiveWorld)
}

extension EventObserver {
  public func handledLifecycle(index: Int64, time: SimInstant, event: Event, before: AppState?, world: LiveWorld) {}
}

/// The live world with an observer in front of it.
struct ObservedWorld: World {
  var live: LiveWorld
  let observer: any EventObserver
  var index: Int64 = 0
  var stopRequested = false

  init(live: LiveWorld, observer: any EventObserver) {
    self.live = live
    self.observer = observer
  }

  mutating func handle(_ event: Event, scheduler: inout Scheduler) {
    if !observer.observe(index: index, time: scheduler.now, event: event, world: live) { stopRequested = true }
    index += 1
    guard event.kind == LiveEvent.appLifecycle.rawValue else { return live.handle(event, scheduler: &scheduler) }
    let before = live.phoneOS?.appState(event.a)
    live.handle(event, scheduler: &scheduler)
    observer.handledLifecycle(index: index - 1, time: scheduler.now, event: event, before: before, world: live)
  }
}

/// Which entities a trace keeps: `room:ID` and `user:ID` selectors; none keeps everything.
public struct TraceFilter: Sendable, Equatable {
  /// Rooms selected.
  public var rooms: Set<UInt32> = []
  /// Users selected.
  public var users: Set<UInt32> = []

  /// Keeps everything.
  public init() {}

  /// Parses `room:3,user:17` (selectors may also be given one per `--only`).
  public static func parse(_ texts: [String]) -> TraceFilter? {
    var f = TraceFilter()
    for text in texts {
      for part in text.split(separator: ",") {
        let kv = part.split(separator: ":")
        guard kv.count == 2, let id = UInt32(kv[1]) else { return nil }
        switch kv[0] {
        case "room": f.rooms.insert(id)
        case "user": f.users.insert(id)
        default: return nil
        }
      }
    }
    return f
  }

  /// Whether nothing is selected (keep all).
  public var keepsAll: Bool { rooms.isEmpty && users.isEmpty }
}

/// One traced event.
public struct TraceRecord: Sendable {
  /// Index among all events of the run.
  public var index: Int64
  /// Simulated time in nanoseconds.
  public var timeNs: Int64
  /// What it was.
  public var description: EventDescription
}

/// Records the events a filter selects: as JSON lines into a file, and in memory for Perfetto.
public final class TraceRecorder: EventObserver {
  let filter: TraceFilter
  let sink: FileHandle?
  let keep: Bool
  var buffer = Data()
  /// The records kept (when asked to keep them).
  public private(set) var records: [TraceRecord] = []
  /// Lines that matched the filter (an event's deliveries handled behind it are lines of their own).
  public private(set) var matched = 0
  /// Events with a line that matched the filter.
  public private(set) var matchedEvents = 0
  private var lastMatched: Int64 = -1

  /// Records into `jsonl` (if given) and keeps records in memory if `keep`.
  public init(filter: TraceFilter, jsonl: FileHandle?, keep: Bool) {
    self.filter = filter
    self.sink = jsonl
    self.keep = keep
  }

  public func observe(index: Int64, time: SimInstant, event: Event, world: LiveWorld) -> Bool {
    // What app code printed while handling the events before this one goes in first.
    let log = world.runtime.appLog
    if !log.keeps { log.keeps = sink != nil }
    for line in log.take()
    where filter.keepsAll || filter.users.contains(line.user)
      || filter.rooms.contains(world.layout.homeRoom[Int(line.user)])
    {
      buffer.append(
        contentsOf: ("{\"i\":\(index - 1),\"tMs\":\(String(format: "%.6f", Double(line.timeNs) / 1e6)),\"kind\":\"print\""
          + ",\"users\":[\(line.user)],\"server\":false,\"detail\":\"" + TraceRecorder.jsonEscape(line.text) + "\"}\n")
          .utf8)
    }
    // A lifecycle step is written once handled, saying what it did.
    if event.kind == LiveEvent.appLifecycle.rawValue { return true }
    for d in world.describeWithFollowers(event) { record(index: index, time: time, d, world: world) }
    return true
  }

  public func handledLifecycle(index: Int64, time: SimInstant, event: Event, before: AppState?, world: LiveWorld) {
    record(index: index, time: time, world.describeLifecycle(event, before: before), world: world)
  }

  func record(index: Int64, time: SimInstant, _ d: EventDescription, world: LiveWorld) {
    if !filter.keepsAll
      && !d.touches(rooms: filter.rooms, users: filter.users, homeRoom: { world.layout.homeRoom[Int($0)] })
    {
      return
    }
    matched += 1
    if index != lastMatched {
      matchedEvents += 1
      lastMatched = index
    }
    if keep { records.append(TraceRecord(index: index, timeNs: time.nanoseconds, description: d)) }
    if sink != nil {
      buffer.append(contentsOf: TraceRecorder.jsonLine(index: index, timeNs: time.nanoseconds, d).utf8)
      if buffer.count > 1 << 16 { flush() }
    }
  }

  /// Writes what is buffered.
  public func flush() {
    guard let sink, !buffer.isEmpty else { return }
    sink.write(buffer)
    buffer.removeAll(keepingCapacity: true)
  }

  /// One JSON object on one line: `{"i":…,"tMs":…,"kind":…,"room":…,"users":[…],"request":…,"detail":…}`.
  static func jsonLine(index: Int64, timeNs: Int64, _ d: EventDescription) -> String {
    var s = "{\"i\":\(index),\"tMs\":\(String(format: "%.6f", Double(timeNs) / 1e6)),\"kind\":\"\(d.kind)\""
    if let room = d.room { s += ",\"room\":\(room)" }
    s += ",\"users\":[" + d.users.map(String.init).joined(separator: ",") + "]"
    if let r = d.request { s += ",\"request\":\(r)" }
    s += ",\"server\":\(d.onServer),\"detail\":\"" + jsonEscape(d.detail) + "\"}\n"
    return s
  }

  static func jsonEscape(_ s: String) -> String { JSON5Writer.escape(s) }

}

/// Keeps the events touching a filter up to a time (the replay behind violation excerpts), with
/// what app code printed in between (kind `print`), then asks the run to stop.
final class ExcerptRecorder: EventObserver {
  let filter: TraceFilter
  let until: Int64
  /// The events kept, at most the last 4,096.
  var records: [TraceRecord] = []

  init(filter: TraceFilter, until: Int64) {
    self.filter = filter
    self.until = until
  }

  func observe(index: Int64, time: SimInstant, event: Event, world: LiveWorld) -> Bool {
    // What app code printed while handling the events before this one, in its place.
    let log = world.runtime.appLog
    log.keeps = true
    for line in log.take() where line.timeNs <= until {
      let printed = EventDescription(
        kind: "print", room: nil, users: [line.user], request: nil, detail: line.text, onServer: false)
      keep(index: index - 1, time: SimInstant(nanoseconds: line.timeNs), printed, world)
    }
    guard time.nanoseconds <= until else { return false }
    if event.kind != LiveEvent.appLifecycle.rawValue {
      for d in world.describeWithFollowers(event) { keep(index: index, time: time, d, world) }
    }
    return true
  }

  func handledLifecycle(index: Int64, time: SimInstant, event: Event, before: AppState?, world: LiveWorld) {
    keep(index: index, time: time, world.describeLifecycle(event, before: before), world)
  }

  func keep(index: Int64, time: SimInstant, _ d: EventDescription, _ world: LiveWorld) {
    if d.touches(rooms: filter.rooms, users: filter.users, homeRoom: { world.layout.homeRoom[Int($0)] }) {
      records.append(TraceRecord(index: index, timeNs: time.nanoseconds, description: d))
      if records.count > 8192 { records.removeFirst(4096) }
    }
  }
}
