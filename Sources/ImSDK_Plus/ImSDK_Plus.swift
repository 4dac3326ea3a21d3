internal import Clients
internal import LiveStack
internal import PushKit
internal import SimKernel
@_exported import VirtualPlatform

/// A success callback.
public typealias V2TIMSucc = () -> Void
/// A failure callback: the error code and its description.
public typealias V2TIMFail = (Int32, String?) -> Void

/// The VoIP push configuration `setVOIP` uploads.
public final class V2TIMVOIPConfig: NSObject {
  /// The certificate ID from the IM console (0: none, and no VoIP push is sent).
  public var certificateID: Int = 0
  /// The device's VoIP token from PushKit.
  public var token: Data?
}

/// The IM SDK: `V2TIMManager.sharedInstance()`, the current user's.
public final class V2TIMManager: NSObject {
  let user: UInt32
  let host: AppHost

  init(host: AppHost) {
    self.host = host
    user = host.user
  }

  /// The current user's instance.
  public static func sharedInstance() -> V2TIMManager {
    let host = AppHost.required("V2TIMManager")
    return host.singleton(.imManager) { V2TIMManager(host: host) }
  }

  /// Uploads the VoIP token and certificate; refused locally (-1201) until the IM login finished.
  public func setVOIP(config: V2TIMVOIPConfig, succ: V2TIMSucc?, fail: V2TIMFail?) {
    let host = self.host
    let user = self.user
    let token = PushKitDelivery.token(from: config.token)
    let c = host.client(user)
    // The app's closures are let go of as the user's code, whether or not they are called.
    let held = UserBound((succ, fail), host: host, user: user)
    c.timPush.setVOIP(certificateID: UInt32(clamping: max(0, config.certificateID)), token: token) { _, result in
      host.run(as: user) {
        guard let (succ, fail) = held.take() else { return }
        switch result {
        case .success: succ?()
        case .failure(let e): fail?(e.rawValue, "\(e)")
        }
      }
    }
  }
}
