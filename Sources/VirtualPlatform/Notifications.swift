import Foundation

/// A notification center per virtual user: `NotificationCenter.default` is the current user's, so a
/// post by one user's code never reaches another's observers. Observers are closures; selector-based
/// observation needs the Objective-C runtime, which Linux lacks (see docs/CLIENTS.md).
public final class NotificationCenter: @unchecked Sendable {
  struct Observer {
    let token: ObserverToken
    let name: Notification.Name?
    let onMain: Bool
    let block: (Notification) -> Void
  }
  var observers: [Observer] = []

  /// A center of its own.
  public init() {}

  /// The current virtual user's center (outside every user's code, a center of its own that
  /// nothing posts to, and a finding).
  public static var `default`: NotificationCenter {
    guard let host = AppHost.inUser("NotificationCenter.default") else { return NotificationCenter() }
    return host.singleton(.notificationCenter) { NotificationCenter() }
  }

  /// Calls `block` for each notification named `name` (all, if `nil`). With a queue, the block runs
  /// later on the user's main queue; without one, at once.
  @discardableResult @preconcurrency
  public func addObserver(
    forName name: Notification.Name?, object: Any?, queue: OperationQueue?,
    using block: @escaping @Sendable (Notification) -> Void
  ) -> NSObjectProtocol {
    let token = ObserverToken()
    observers.append(Observer(token: token, name: name, onMain: queue != nil, block: block))
    return token
  }

  /// Posts a notification to the observers of its name, in the order they were added.
  public func post(name: Notification.Name, object: Any? = nil, userInfo: [AnyHashable: Any]? = nil) {
    let note = Notification(name: name, object: object, userInfo: userInfo)
    for o in observers where o.name == nil || o.name == name {
      if o.onMain {
        let block = o.block
        AppHost.inUser("NotificationCenter.post")?.post({ block(note) })
      } else {
        o.block(note)
      }
    }
  }

  /// Posts `notification`.
  public func post(_ notification: Notification) {
    post(name: notification.name, object: notification.object, userInfo: notification.userInfo)
  }

  /// Removes an observer returned by `addObserver`.
  public func removeObserver(_ observer: Any) {
    guard let token = observer as? ObserverToken else { return }
    observers.removeAll { $0.token === token }
  }
}

/// What `addObserver(forName:object:queue:using:)` returns.
final class ObserverToken: NSObject, @unchecked Sendable {}
