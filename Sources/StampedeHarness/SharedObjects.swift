import Foundation
import VirtualPlatform

/// App objects that two virtual users' apps both hold. On a phone each app process has its own
/// objects: a `static let shared = CallManager()` is one per phone. Here every virtual user's app
/// runs in one process, so an app singleton is one object for all of them, and the state it keeps
/// (the call in progress, a flag, a list) is mixed up between users: results that are not the
/// app's. The glue's objects are looked at as each user's app gets them: the object the glue's
/// `make` or `launch` returned, and the objects its stored properties hold, one level down. One
/// that another user's app holds too, or that a phone's app held in its process that died, is
/// said once per type on standard error. Objects of the platform and the SDK modules (which are
/// per user already, or hold nothing of a user's) are not looked at.
final class SharedObjectWatch {
  /// Who got an object, and in which of its app's processes.
  private final class Holder {
    let user: UInt32
    let launch: UInt32
    weak var object: AnyObject?
    init(user: UInt32, launch: UInt32, object: AnyObject) {
      self.user = user
      self.launch = launch
      self.object = object
    }
  }

  private var holders: [ObjectIdentifier: Holder] = [:]
  /// How many holders there were after the last sweep of those whose object is gone.
  private var kept = 64
  /// The types said already, in this process (a sweep's seeds would say them again and again).
  nonisolated(unsafe) private static var said: Set<String> = []
  private static let lock = NSLock()
  /// Where the warnings go (standard error unless a test says otherwise).
  let warn: (String) -> Void

  init(warn: @escaping (String) -> Void = SharedObjectWatch.standardError) { self.warn = warn }

  static func standardError(_ line: String) { FileHandle.standardError.write(Data((line + "\n").utf8)) }

  /// Modules whose objects are not the app's own.
  static let notTheApps: Set<String> = [
    "Swift", "Foundation", "FoundationEssentials", "FoundationInternationalization", "Dispatch", "_Concurrency",
    "Observation", "Combine", "VirtualPlatform", "AtomicXCore", "PushKit", "LiveCommunicationKit", "ImSDK_Plus",
    "TUICore", "UIKit", "os", "OSLog", "Clients", "LiveStack", "StampedeHarness", "SimKernel",
  ]

  /// The users whose apps got objects so far.
  private var users: Set<UInt32> = []
  /// Looks at what the glue's objects hold left: for a user's first objects, and for later ones.
  private var deepLooksLeft = [SharedObjectWatch.deepLooks, SharedObjectWatch.deepLooks]
  static let deepLooks = 16
  /// What a type met is, for the look (by its metadata).
  enum Kind { case appClass, optional, other }
  /// Per type met: its kind (a type's name, and a cast, are dear to make every time).
  private var kinds: [ObjectIdentifier: Kind] = [:]

  func kind(of type: Any.Type) -> Kind {
    let key = ObjectIdentifier(type)
    if let known = kinds[key] { return known }
    let kind: Kind =
      type is AnyOptional.Type
      ? .optional : type is AnyObject.Type && SharedObjectWatch.isApps(type) ? .appClass : .other
    kinds[key] = kind
    return kind
  }

  /// The app's own objects among `root` and what its stored properties hold (one level down,
  /// through the superclasses' properties and optionals too, when `deep`).
  func appObjects(_ root: Any, deep: Bool = true) -> [AnyObject] {
    var out: [AnyObject] = []
    func consider(_ value: Any) {
      switch kind(of: Swift.type(of: value)) {
      case .appClass:
        let object = value as AnyObject
        if !out.contains(where: { $0 === object }) { out.append(object) }
      case .optional:
        if let some = (value as! AnyOptional).wrapped { consider(some) }
      case .other:
        break
      }
    }
    consider(root)
    var mirror: Mirror? = deep ? Mirror(reflecting: root) : nil
    while let m = mirror {
      for child in m.children { consider(child.value) }
      mirror = m.superclassMirror
    }
    return out
  }

  /// Whether `type` is declared in the app's code (not in the platform, the SDK or the toolchain).
  static func isApps(_ type: Any.Type) -> Bool {
    let name = String(reflecting: type)
    guard let dot = name.firstIndex(of: ".") else { return true }
    return !notTheApps.contains(String(name[..<dot]))
  }

  /// `user`'s app, in its process number `launch`, got `root` as its objects.
  func check(_ root: Any, user: UInt32, launch: UInt32) {
    // The object the glue returned is looked at every time; what it holds (a `Mirror`, which
    // decodes each field's type anew, some 200,000 instructions for a view model) for the first
    // users' apps and the first launches again: one object shared by every user shows at once.
    let again = !users.insert(user).inserted
    let deep = deepLooksLeft[again ? 1 : 0] > 0
    if deep { deepLooksLeft[again ? 1 : 0] -= 1 }
    for object in appObjects(root, deep: deep) {
      let id = ObjectIdentifier(object)
      if let holder = holders[id], holder.object === object, holder.user != user || holder.launch != launch {
        let type = String(reflecting: Swift.type(of: object))
        SharedObjectWatch.lock.lock()
        let first = SharedObjectWatch.said.insert(type).inserted
        SharedObjectWatch.lock.unlock()
        if first {
          let whose =
            holder.user == user
            ? "user \(user)'s app, launched again, got the \(type) its process that died had"
            : "users \(holder.user) and \(user) got one \(type) between their two apps"
          warn(
            "warning: \(whose) (a `static let shared` or a global?). On a phone each app process has "
              + "its own; here the virtual users share one process, so what it keeps is mixed up between "
              + "users. If it keeps a user's state, make one per user in the glue's make or launch "
              + "closure (\"The app's own singletons and globals\" in docs/CLIENTS.md).")
        }
      }
      holders[id] = Holder(user: user, launch: launch, object: object)
    }
    if holders.count > 2 * kept {
      holders = holders.filter { $0.value.object != nil }
      kept = max(64, holders.count)
    }
  }
}

/// An optional, whatever it wraps.
private protocol AnyOptional {
  var wrapped: Any? { get }
}

extension Optional: AnyOptional {
  var wrapped: Any? { self.map { $0 as Any } }
}
