import TUICore
import AtomicXCore

// Seed 003's login (the guide's step 5) as printed, inside a function for the app's launch to call.
func seedLogIn(sdkAppID: Int, userID: String, userSig: String) {
    // 步骤1：登录 IM SDK（AtomicXCore 的 LoginStore）
    LoginStore.shared.login(
        sdkAppID: sdkAppID,
        userID: userID,
        userSig: userSig
    ) { result in
        switch result {
        case .success:
            // IM SDK 登录成功

            // 步骤2：登录 TUICore
            TUILogin.login(
                sdkAppID,
                userID: userID,
                userSig: userSig
            ) {
                // TUICore 登录成功
                // 发送通知，触发 VoIP Token 上报
                NotificationCenter.default.post(
                    name: NSNotification.Name("TUILoginSuccess"),
                    object: nil
                )
            } fail: { code, message in
                // TUICore 登录失败
            }

        case .failure(let error):
            // IM SDK 登录失败
            break
        }
    }
}
