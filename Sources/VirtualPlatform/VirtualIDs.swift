import CPrefetch
import Clients
import Foundation
import LiveStack

/// How the SDK-compatible modules spell the model's numeric IDs as the strings apps use:
/// `user_17`, `live_3`, `call_42`. Anything else names no user, room or call.
package enum VirtualIDs {
  /// The string ID of user `user`: app code compares the user IDs of seat lists with its own on
  /// every delivery, so the strings are spelled once per process (``UserIDTable``).
  @inline(__always)
  package static func userID(_ user: UInt32) -> String { UserIDTable.id(user) }
  /// The string ID of room `room`.
  package static func liveID(_ room: UInt32) -> String { "live_\(room)" }
  /// The string ID of call `call`.
  package static func callID(_ call: UInt32) -> String { "call_\(call)" }

  /// The user named by `id`, if any.
  package static func user(_ id: String) -> UInt32? { number(id, prefix: "user_") }
  /// The room named by `id`, if any.
  package static func room(_ id: String) -> UInt32? { number(id, prefix: "live_") }
  /// The call named by `id`, if any.
  package static func call(_ id: String) -> UInt32? { number(id, prefix: "call_") }

  static func number(_ id: String, prefix: String) -> UInt32? {
    guard id.hasPrefix(prefix) else { return nil }
    return UInt32(id.dropFirst(prefix.count))
  }
}

/// Every user ID spelled so far, `user_0` up, shared by all the runs of the process (the strings
/// are the same in every run). Reading takes no lock and no thread-local lookup: one acquiring
/// load of the current table. A reader that needs a larger table makes one under a lock, copies
/// nothing (the strings are made afresh), publishes it, and keeps the old ones forever, since
/// another run's thread may still be reading them (the tables double, so all of them together
/// hold less than twice the last).
enum UserIDTable {
  struct Table {
    var count: Int
    var ids: UnsafeMutablePointer<String>
  }

  /// Users beyond this get their ID spelled on each call instead (16 MiB of table at most).
  static let limit = 1 << 20
  /// The current table (a `Table` pointer), `nil` before the first ID. Read and written only
  /// through the atomics below, at its own address (a constant initializer: no lazy setup to
  /// check on every read).
  nonisolated(unsafe) static var cell: UnsafeMutableRawPointer? = nil
  static let lock = NSLock()

  @inline(__always)
  static func id(_ user: UInt32) -> String {
    if let raw = stampede_load_acquire(&cell) {
      let table = raw.assumingMemoryBound(to: Table.self)
      if Int(user) < table.pointee.count { return table.pointee.ids[Int(user)] }
    }
    return grow(covering: user)
  }

  @inline(never)
  static func grow(covering user: UInt32) -> String {
    guard Int(user) < limit else { return "user_\(user)" }
    lock.lock()
    defer { lock.unlock() }
    let old = stampede_load_acquire(&cell)?.assumingMemoryBound(to: Table.self)
    let have = old?.pointee.count ?? 0
    if Int(user) < have { return old!.pointee.ids[Int(user)] }
    let count = min(limit, max(Int(user) + 1, 2 * have, 1024))
    let ids = UnsafeMutablePointer<String>.allocate(capacity: count)
    for i in 0..<count { (ids + i).initialize(to: "user_\(i)") }
    let table = UnsafeMutablePointer<Table>.allocate(capacity: 1)
    table.initialize(to: Table(count: count, ids: ids))
    stampede_store_release(&cell, UnsafeMutableRawPointer(table))
    return ids[Int(user)]
  }
}
