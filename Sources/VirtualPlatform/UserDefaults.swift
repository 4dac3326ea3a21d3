import Foundation

/// The defaults database of a virtual user's phone: `UserDefaults.standard` (and each
/// `UserDefaults(suiteName:)`) is the current user's own, kept across its app's launches in a run (a
/// phone app killed and launched again finds what it stored, as on a phone) and fresh in every
/// run. Foundation's own would be one file shared by every virtual user of the process and kept on
/// disk from one run to the next: a push token or a "last call handled" one user stored would be
/// read by another, and a run would depend on the runs before it.
///
/// Values are kept as stored (property-list values, as an app stores them); the typed getters
/// convert between numbers, booleans and strings as Foundation's do.
public final class UserDefaults: @unchecked Sendable {
  /// What one database holds (every handle on the same suite of the same user shares it).
  final class Store {
    var values: [String: Any] = [:]
    var registered: [String: Any] = [:]
  }
  let store: Store

  init(store: Store = Store()) { self.store = store }

  /// The current user's standard defaults (outside every user's code, a database of its own that
  /// nothing else reads, and a finding).
  public static var standard: UserDefaults {
    guard let host = AppHost.inUser("UserDefaults.standard") else { return UserDefaults() }
    return host.userDefaults(suite: "")
  }

  /// The current user's defaults of suite `suiteName` (`nil`: the standard ones' database). As in
  /// Foundation, the global domain is refused (`nil`).
  public convenience init?(suiteName: String?) {
    if suiteName == "NSGlobalDomain" { return nil }
    guard let host = AppHost.inUser("UserDefaults(suiteName:)") else {
      self.init()
      return
    }
    self.init(store: host.userDefaults(suite: suiteName ?? "").store)
  }

  /// The value stored for `key`, or the registered default.
  public func object(forKey key: String) -> Any? { store.values[key] ?? store.registered[key] }

  /// Stores `value` for `key` (`nil` removes it).
  public func set(_ value: Any?, forKey key: String) { store.values[key] = value }
  /// Stores a boolean.
  public func set(_ value: Bool, forKey key: String) { store.values[key] = value }
  /// Stores an integer.
  public func set(_ value: Int, forKey key: String) { store.values[key] = value }
  /// Stores a double.
  public func set(_ value: Double, forKey key: String) { store.values[key] = value }
  /// Stores a float.
  public func set(_ value: Float, forKey key: String) { store.values[key] = value }
  /// Stores a URL.
  public func set(_ url: URL?, forKey key: String) { store.values[key] = url }

  /// Removes the value stored for `key` (a registered default shows again).
  public func removeObject(forKey key: String) { store.values[key] = nil }

  /// Defaults for keys nothing was stored for (kept apart: never stored, never removed).
  public func register(defaults: [String: Any]) { store.registered.merge(defaults) { _, new in new } }

  /// Does nothing and succeeds: the database is in memory, and a phone's is written for the app.
  @discardableResult public func synchronize() -> Bool { true }

  /// Every value, registered defaults included.
  public func dictionaryRepresentation() -> [String: Any] {
    store.registered.merging(store.values) { _, stored in stored }
  }

  /// The string stored for `key` (a number as its text), or `nil`.
  public func string(forKey key: String) -> String? {
    switch object(forKey: key) {
    case let s as String: return s
    case let n as Int: return String(n)
    case let d as Double: return String(d)
    default: return nil
    }
  }

  /// The boolean stored for `key` (a number: not zero; a string: "YES", "true" or a number not
  /// zero), or `false`.
  public func bool(forKey key: String) -> Bool {
    switch object(forKey: key) {
    case let b as Bool: return b
    case let n as Int: return n != 0
    case let d as Double: return d != 0
    case let f as Float: return f != 0
    case let s as String:
      let t = s.lowercased()
      return t == "yes" || t == "true" || (Int(s).map { $0 != 0 } ?? false)
    default: return false
    }
  }

  /// The integer stored for `key` (a boolean as 1 or 0, a number truncated, a string parsed), or 0.
  public func integer(forKey key: String) -> Int {
    switch object(forKey: key) {
    case let n as Int: return n
    case let b as Bool: return b ? 1 : 0
    case let d as Double: return d.isFinite ? Int(d) : 0
    case let f as Float: return f.isFinite ? Int(f) : 0
    case let s as String: return Int(s) ?? Double(s).map { $0.isFinite ? Int($0) : 0 } ?? 0
    default: return 0
    }
  }

  /// The double stored for `key` (a boolean as 1 or 0, a string parsed), or 0.
  public func double(forKey key: String) -> Double {
    switch object(forKey: key) {
    case let d as Double: return d
    case let f as Float: return Double(f)
    case let n as Int: return Double(n)
    case let b as Bool: return b ? 1 : 0
    case let s as String: return Double(s) ?? 0
    default: return 0
    }
  }

  /// The float stored for `key`, or 0.
  public func float(forKey key: String) -> Float { Float(double(forKey: key)) }

  /// The data stored for `key`, or `nil`.
  public func data(forKey key: String) -> Data? { object(forKey: key) as? Data }

  /// The array stored for `key`, or `nil`.
  public func array(forKey key: String) -> [Any]? { object(forKey: key) as? [Any] }

  /// The array of strings stored for `key`, or `nil`.
  public func stringArray(forKey key: String) -> [String]? { object(forKey: key) as? [String] }

  /// The dictionary stored for `key`, or `nil`.
  public func dictionary(forKey key: String) -> [String: Any]? { object(forKey: key) as? [String: Any] }

  /// The URL stored for `key` (a string as a file path, as Foundation reads it), or `nil`.
  public func url(forKey key: String) -> URL? {
    switch object(forKey: key) {
    case let u as URL: return u
    case let s as String: return URL(fileURLWithPath: (s as NSString).expandingTildeInPath)
    default: return nil
    }
  }
}
