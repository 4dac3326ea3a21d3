import Clients
import LiveStack

/// How the SDK-compatible modules spell the model's numeric IDs as the strings apps use:
/// `user_17`, `live_3`, `call_42`. Anything else names no user, room or call.
package enum VirtualIDs {
  /// The string ID of user `user`.
  package static func userID(_ user: UInt32) -> String {
    if let host = AppHost.current, Int(user) < host.runtime.clients.count { return host.userIDs[Int(user)] }
    return "user_\(user)"
  }
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
