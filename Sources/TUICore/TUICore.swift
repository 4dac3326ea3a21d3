internal import Clients
internal import LiveStack
internal import SimKernel
@_exported import VirtualPlatform

/// A success callback.
public typealias TUISucc = () -> Void
/// A failure callback: the error code and its message.
public typealias TUIFail = (Int32, String?) -> Void

/// TUICore's login, made after the IM login (`LoginStore.login`) succeeded.
public enum TUILogin {
  /// Logs in to TUICore as the current virtual user; fails with -1201 unless the IM login
  /// succeeded first.
  public static func login<AppID: BinaryInteger>(
    _ sdkAppID: AppID, userID: String, userSig: String, succ: TUISucc?, fail: TUIFail?
  ) {
    // Outside every user's code there is no process to log in: reported, and never answered.
    guard let host = AppHost.inUser("TUILogin.login") else { return }
    let user = host.user
    guard VirtualIDs.user(userID) == user else {
      host.post({ fail?(SeatError.invalidParameter.rawValue, "no user \"\(userID)\"") })
      return
    }
    let c = host.client(user)
    // The app's closures are let go of as the user's code, whether or not they are called.
    let held = UserBound((succ, fail), host: host, user: user)
    c.tuiLogin.login { _, result in
      host.run(as: user) {
        guard let (succ, fail) = held.take() else { return }
        switch result {
        case .success: succ?()
        case .failure(let e): fail?(e.rawValue, "\(e)")
        }
      }
    }
  }

  /// Whether TUILogin succeeded in this process.
  public static func isUserLogined() -> Bool {
    guard let host = AppHost.inUser("TUILogin.isUserLogined") else { return false }
    return host.client(host.user).tuiLogin
      .isLogin
  }

  /// The logged-in user's ID, if any.
  public static func getUserID() -> String? {
    guard let host = AppHost.inUser("TUILogin.getUserID") else { return nil }
    return isUserLogined() ? VirtualIDs.userID(host.user) : nil
  }
}
