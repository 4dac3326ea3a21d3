import UIKit

class AppDelegate: UIResponder, UIApplicationDelegate {

    private lazy var voipPushManager: VoIPPushManager = {
        let manager = VoIPPushManager()
        manager.setCertificateID(1234)  // 替换为您在 IM 控制台获取的证书 ID
        return manager
    }()

    func application(_ application: UIApplication,
                     didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?) -> Bool {

        // 触发 voipPushManager 的初始化
        _ = voipPushManager

        return true
    }
}

