import Foundation
import LiveStack
import Profiles
import Scenario
import SimKernel

/// Writes the Chrome/Perfetto trace-event JSON format (opens in ui.perfetto.dev or
/// chrome://tracing): a track per client and per server component of the selected entities,
/// co-guest requests as spans, invariant violations as instant events.
public enum PerfettoTrace {
  static let clients = 1
  static let server = 2

  /// The document for `records` of a finished `world`.
  public static func render(records: [TraceRecord], world: LiveWorld, filter: TraceFilter) -> String {
    // Metadata first, then every timed event in time order (ties in the order they were made).
    var events: [String] = []
    var timed: [(ns: Int64, line: String)] = []
    func esc(_ s: String) -> String { TraceRecorder.jsonEscape(s) }
    func us(_ ns: Int64) -> String { String(format: "%.3f", Double(ns) / 1000) }
    events.append("{\"ph\":\"M\",\"pid\":\(clients),\"name\":\"process_name\",\"args\":{\"name\":\"clients\"}}")
    events.append("{\"ph\":\"M\",\"pid\":\(server),\"name\":\"process_name\",\"args\":{\"name\":\"server\"}}")
    events.append(
      "{\"ph\":\"M\",\"pid\":\(server),\"tid\":1,\"name\":\"thread_name\",\"args\":{\"name\":\"seats and rooms\"}}")
    var named = Set<UInt32>()
    func track(_ user: UInt32) -> Int {
      if !named.contains(user) {
        named.insert(user)
        let role = world.layout.role(of: user)
        let label = "user \(user) (\(role), room \(world.layout.homeRoom[Int(user)]))"
        events.append(
          "{\"ph\":\"M\",\"pid\":\(clients),\"tid\":\(Int(user) + 1),\"name\":\"thread_name\",\"args\":{\"name\":\"\(esc(label))\"}}"
        )
      }
      return Int(user) + 1
    }
    for r in records {
      let d = r.description
      let (pid, tid) = d.onServer || d.users.isEmpty ? (server, 1) : (clients, track(d.users[0]))
      var args = "\"i\":\(r.index),\"kind\":\"\(d.kind)\""
      if !d.users.isEmpty { args += ",\"users\":[" + d.users.map(String.init).joined(separator: ",") + "]" }
      timed.append(
        (
          r.timeNs,
          "{\"ph\":\"i\",\"s\":\"t\",\"pid\":\(pid),\"tid\":\(tid),\"ts\":\(us(r.timeNs)),\"name\":\"\(esc(d.detail))\",\"args\":{\(args)}}"
        ))
    }
    // Requests as async spans on the client process.
    let seats = world.server.seats
    let end = records.last?.timeNs ?? 0
    for (id, q) in seats.requests.enumerated() {
      let involved = [q.guest] + (q.processedBy.map { [$0] } ?? [])
      let selected =
        filter.keepsAll || filter.rooms.contains(q.room) || involved.contains { filter.users.contains($0) }
      guard selected else { continue }
      _ = track(q.guest)
      let name = "\(q.kind) \(id): guest \(q.guest)" + (q.processedBy.map { ", host \($0)" } ?? "")
      let stop = q.state.isTerminal ? q.endedAt.nanoseconds : max(end, q.createdAt.nanoseconds)
      let common =
        "\"cat\":\"request\",\"id\":\(id),\"pid\":\(clients),\"tid\":\(Int(q.guest) + 1),\"name\":\"\(esc(name))\""
      timed.append((q.createdAt.nanoseconds, "{\"ph\":\"b\",\(common),\"ts\":\(us(q.createdAt.nanoseconds))}"))
      timed.append((stop, "{\"ph\":\"e\",\(common),\"ts\":\(us(stop)),\"args\":{\"outcome\":\"\(q.state)\"}}"))
    }
    // Violations as global instant events.
    let log = world.checker.log
    for (i, v) in log.first.enumerated() {
      guard let v else { continue }
      timed.append(
        (
          v.at.nanoseconds,
          "{\"ph\":\"i\",\"s\":\"g\",\"pid\":\(server),\"tid\":1,\"ts\":\(us(v.at.nanoseconds)),\"name\":\"VIOLATION \(esc(log.catalogue[i].id))\",\"args\":{\"message\":\"\(esc(v.message))\"}}"
        ))
    }
    let ordered = timed.enumerated().sorted { ($0.element.ns, $0.offset) < ($1.element.ns, $1.offset) }
    events += ordered.map(\.element.line)
    return "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n" + events.joined(separator: ",\n") + "\n]}\n"
  }
}
