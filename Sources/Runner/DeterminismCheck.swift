import Foundation
import Profiles
import Scenario
import SimKernel

/// The first event where two runs of the same profile and seed differ.
public struct Divergence: Sendable, CustomStringConvertible {
  /// Index of the event among all events (from 0).
  public var index: Int64
  /// The first run's event there, if it had one: time (ns), kind, a, b.
  public var first: EventLog.Entry?
  /// The second run's event there, if it had one.
  public var second: EventLog.Entry?
  /// The second run's event, described.
  public var secondDescription: EventDescription?
  /// The first run's event, described (when it was looked up).
  public var firstDescription: EventDescription?

  public var description: String {
    func show(_ e: EventLog.Entry?) -> String {
      guard let e else { return "no event (the run had ended)" }
      let kind = LiveEvent(rawValue: e.kind).map { String(describing: $0) } ?? "kind \(e.kind)"
      return String(format: "%@ at %.6f ms (a=%u, b=%u)", kind, Double(e.timeNs) / 1e6, e.a, e.b)
    }
    var s = "first divergent event #\(index): first run \(show(first)); second run \(show(second))"
    if let d = firstDescription {
      s += "; first run's event: \(d.detail)"
      if let room = d.room { s += " in room \(room)" }
      if !d.users.isEmpty { s += ", users " + d.users.map(String.init).joined(separator: " ") }
    }
    if let d = secondDescription {
      s += "; second run's event: \(d.detail)"
      if let room = d.room { s += " in room \(room)" }
      if !d.users.isEmpty { s += ", users " + d.users.map(String.init).joined(separator: " ") }
    }
    return s
  }
}

/// Records every event of a run (24 bytes each), or compares a run against such a record and stops
/// at the first difference.
public final class EventLog: EventObserver {
  /// One event as executed.
  public struct Entry: Sendable, Equatable {
    /// Simulated time in nanoseconds.
    public var timeNs: Int64
    /// Event kind.
    public var kind: UInt16
    /// First entity.
    public var a: UInt32
    /// Second entity.
    public var b: UInt32
  }

  /// Events recorded (record mode).
  public private(set) var entries: [Entry] = []
  let reference: [Entry]?
  /// The first difference found (compare mode).
  public private(set) var divergence: Divergence?

  /// Records (`reference == nil`) or compares against `reference`.
  public init(comparingWith reference: [Entry]? = nil) { self.reference = reference }

  public func observe(index: Int64, time: SimInstant, event: Event, world: LiveWorld) -> Bool {
    let e = Entry(timeNs: time.nanoseconds, kind: event.kind, a: event.a, b: event.b)
    guard let reference else {
      entries.append(e)
      return true
    }
    guard divergence == nil else { return false }
    let i = Int(index)
    let expected = i < reference.count ? reference[i] : nil
    if expected != e {
      divergence = Divergence(index: index, first: expected, second: e, secondDescription: world.describe(event))
      return false
    }
    return true
  }

  /// After a compare run of `events` events: if the first run had more, that is a divergence too.
  func finish(events: Int64) {
    guard let reference, divergence == nil, Int(events) < reference.count else { return }
    divergence = Divergence(index: events, first: reference[Int(events)], second: nil, secondDescription: nil)
  }
}

/// Describes the event at one index of a run, then asks the run to stop.
final class EventAt: EventObserver {
  let index: Int64
  var found: EventDescription?

  init(index: Int64) { self.index = index }

  func observe(index: Int64, time: SimInstant, event: Event, world: LiveWorld) -> Bool {
    guard index == self.index else { return index < self.index }
    found = world.describe(event)
    return false
  }
}

extension Divergence {
  /// The first event where `first` and `second` (say, the same seed under two profiles, or before
  /// and after a change) execute differently, each side's event described; `nil` when they execute
  /// the same events. Holds 24 bytes per event of the first run while it compares.
  public static func between(_ first: SimulationRun, _ second: SimulationRun) -> Divergence? {
    let record = EventLog()
    let one = first.execute(observer: record)
    let compare = EventLog(comparingWith: record.entries)
    let two = second.execute(observer: compare)
    compare.finish(events: two.events)
    guard var d = compare.divergence else {
      return one.traceHash == two.traceHash
        ? nil : Divergence(index: two.events, first: nil, second: nil, secondDescription: nil)
    }
    if d.first != nil {
      let at = EventAt(index: d.index)
      _ = first.execute(observer: at)
      d.firstDescription = at.found
    }
    return d
  }
}

/// `--check-determinism`: the same profile and seed run twice in one process must execute the
/// same events in the same order.
public enum DeterminismCheck {
  /// Runs `run` twice and returns the first run's result and the first divergence, if any.
  /// `plant` makes both runs iterate a fresh `Set` (whose order Swift seeds per instance) where
  /// they schedule: a deliberate nondeterminism for testing the check.
  public static func check(_ run: SimulationRun, plant: Bool = false) -> (
    result: SimulationRun.Result, divergence: Divergence?
  ) {
    let record = EventLog()
    let first = run.execute(observer: record, plantNondeterminism: plant)
    let compare = EventLog(comparingWith: record.entries)
    let second = run.execute(observer: compare, plantNondeterminism: plant)
    compare.finish(events: second.events)
    return (
      first,
      compare.divergence
        ?? (first.traceHash == second.traceHash
          ? nil : Divergence(index: second.events, first: nil, second: nil, secondDescription: nil))
    )
  }
}
