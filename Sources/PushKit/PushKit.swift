package import Clients
internal import LiveStack
internal import SimKernel
@_exported import VirtualPlatform

/// A kind of push.
public struct PKPushType: Hashable, Sendable, RawRepresentable {
  public let rawValue: String
  public init(rawValue: String) { self.rawValue = rawValue }
  /// VoIP pushes.
  public static let voIP = PKPushType(rawValue: "PKPushTypeVoIP")
}

/// The device token PushKit hands the app.
public final class PKPushCredentials: NSObject, @unchecked Sendable {
  /// The token (32 bytes).
  public let token: Data
  /// The push type.
  public let type: PKPushType
  init(token: Data, type: PKPushType) {
    self.token = token
    self.type = type
  }
}

/// A push's payload.
public final class PKPushPayload: NSObject, @unchecked Sendable {
  /// The payload's dictionary (TIMPush's VoIP fields: `voip_caller_name`, `ext`).
  public let dictionaryPayload: [AnyHashable: Any]
  /// The push type.
  public let type: PKPushType
  init(dictionaryPayload: [AnyHashable: Any], type: PKPushType) {
    self.dictionaryPayload = dictionaryPayload
    self.type = type
  }
}

/// Metadata of a VoIP push (iOS 17.4's delegate method).
public final class PKVoIPPushMetadata: NSObject, @unchecked Sendable {
  /// Whether the system considers the app to be in a call already.
  public let mustReport: Bool = true
}

/// The delegate of a push registry. Every method has a default, as the Objective-C protocol's are
/// optional: the completion variant calls the plain one, which starts the iOS 17.4 `async` one in a
/// task.
public protocol PKPushRegistryDelegate: AnyObject {
  /// The token arrived or changed.
  func pushRegistry(_ registry: PKPushRegistry, didUpdate pushCredentials: PKPushCredentials, for type: PKPushType)
  /// The token is no longer valid.
  func pushRegistry(_ registry: PKPushRegistry, didInvalidatePushTokenFor type: PKPushType)
  /// A push arrived; call `completion` when done.
  func pushRegistry(
    _ registry: PKPushRegistry, didReceiveIncomingPushWith payload: PKPushPayload, for type: PKPushType,
    completion: @escaping () -> Void)
  /// A push arrived.
  func pushRegistry(_ registry: PKPushRegistry, didReceiveIncomingPushWith payload: PKPushPayload, for type: PKPushType)
  /// A VoIP push arrived (iOS 17.4).
  func pushRegistry(
    _ registry: PKPushRegistry, didReceiveIncomingVoIPPushWith payload: PKPushPayload, metadata: PKVoIPPushMetadata
  ) async
}

extension PKPushRegistryDelegate {
  public func pushRegistry(_ registry: PKPushRegistry, didInvalidatePushTokenFor type: PKPushType) {}
  public func pushRegistry(
    _ registry: PKPushRegistry, didReceiveIncomingPushWith payload: PKPushPayload, for type: PKPushType,
    completion: @escaping () -> Void
  ) {
    let handling = PushHandling.current
    pushRegistry(registry, didReceiveIncomingPushWith: payload, for: type)
    // The plain variant handed the push to the `async` one: that one's return finishes the handler.
    if handling?.forwardedToAsync != true { completion() }
  }
  public func pushRegistry(
    _ registry: PKPushRegistry, didReceiveIncomingPushWith payload: PKPushPayload, for type: PKPushType
  ) {
    nonisolated(unsafe) let me = self
    let handling = PushHandling.current
    handling?.forwardedToAsync = true
    Task {
      await me.pushRegistry(registry, didReceiveIncomingVoIPPushWith: payload, metadata: PKVoIPPushMetadata())
      handling?.finish()
    }
  }
  public func pushRegistry(
    _ registry: PKPushRegistry, didReceiveIncomingVoIPPushWith payload: PKPushPayload, metadata: PKVoIPPushMetadata
  ) async {}
}

/// One push being handed to an app's delegate: PushKit considers the handler finished when the
/// completion handler runs, the plain method returns, or the `async` method returns, whichever
/// variant the app implements. A push not reported by then gets the app killed.
final class PushHandling {
  /// The push being delivered right now by the current host (a host's deliveries run one at a
  /// time, as its user's code; runs in parallel each have their own host).
  static var current: PushHandling? {
    get { AppHost.current?.pushBeingHandled as? PushHandling }
    set { AppHost.current?.pushBeingHandled = newValue }
  }
  let finished: () -> Void
  var done = false
  /// The delegate's plain method is the default one, which hands the push to the `async` method.
  var forwardedToAsync = false

  init(finished: @escaping () -> Void) { self.finished = finished }

  /// The handler finished (only the first call counts, as for PushKit's completion handler).
  func finish() {
    guard !done else { return }
    done = true
    finished()
  }
}

/// The app's push registry. Setting `desiredPushTypes` to `[.voIP]` registers the device; the token
/// then arrives through the delegate, and VoIP pushes reach the app only from then on.
public final class PKPushRegistry: NSObject {
  let user: UInt32
  let host: AppHost
  /// The delegate (held weakly, as PushKit does).
  public weak var delegate: PKPushRegistryDelegate?

  /// A registry delivering on `queue` (deliveries are events of the user either way).
  public init(queue: VirtualPlatform.DispatchQueue?) {
    host = AppHost.required("PKPushRegistry")
    user = host.user
    super.init()
    host.setSingleton(.pushRegistry, self)
  }

  /// The push types asked for; `[.voIP]` registers the device.
  public var desiredPushTypes: Set<PKPushType>? {
    didSet {
      if desiredPushTypes?.contains(.voIP) == true {
        host.client(user).pushRegistry
          .register()
      }
    }
  }

  /// The token for `type`, once it arrived.
  public func pushToken(for type: PKPushType) -> Data? { token }
  var token: Data?
}

/// The bridge from the model's PushKit events to the app's delegate.
package enum PushKitDelivery {
  /// The 32-byte token the app sees for the model's token `token`.
  package static func tokenData(_ token: UInt16) -> Data {
    var bytes = [UInt8(token >> 8), UInt8(token & 0xFF)]
    for i in 0..<30 { bytes.append(UInt8(truncatingIfNeeded: Int(token) &* 31 &+ i &* 7)) }
    return Data(bytes)
  }

  /// The model's token inside app-supplied token bytes (0: none).
  package static func token(from data: Data?) -> UInt16 {
    guard let d = data, d.count >= 2 else { return 0 }
    let b = [UInt8](d.prefix(2))
    return UInt16(b[0]) << 8 | UInt16(b[1])
  }

  /// TIMPush's VoIP payload for `push`: `voip_caller_name` (left out of a malformed push) and
  /// `ext` with the media type (cut short, not JSON, in a malformed push).
  package static func payload(_ push: VoIPPush) -> [AnyHashable: Any] {
    var d: [AnyHashable: Any] = [:]
    if let caller = push.callerName { d["voip_caller_name"] = VirtualIDs.userID(caller) }
    let media = push.mediaType == .video ? "video" : "audio"
    d["ext"] =
      push.extReadable
      ? "{\"voip_ext\":{\"voip_media_type\":\"\(media)\"}}" : "{\"voip_ext\":{\"voip_media_type\":"
    d["voip_call_id"] = VirtualIDs.callID(push.call)
    return d
  }

  /// Hands `callback` to `user`'s registry delegate, as `user`'s code.
  package static func deliver(_ callback: ClientCallback, to user: UInt32, host: AppHost) {
    guard let registry: PKPushRegistry = host.existingSingleton(.pushRegistry, of: user) else { return }
    switch callback {
    case .pushTokenUpdated(let token):
      let data = tokenData(token)
      registry.token = data
      registry.delegate?.pushRegistry(
        registry, didUpdate: PKPushCredentials(token: data, type: .voIP), for: .voIP)
    case .incomingPush(let push):
      guard let delegate = registry.delegate else { return }
      let pushRegistry = host.client(user).pushRegistry
      let serial = pushRegistry.deferHandlerReturn()
      let handling = PushHandling { pushRegistry.handlerReturned(serial: serial) }
      let outer = PushHandling.current
      PushHandling.current = handling
      delegate.pushRegistry(
        registry, didReceiveIncomingPushWith: PKPushPayload(dictionaryPayload: payload(push), type: .voIP), for: .voIP,
        completion: { handling.finish() })
      PushHandling.current = outer
    default: break
    }
  }
}
