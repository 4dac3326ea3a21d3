import AtomicXCore
import PushKit
import ImSDK_Plus
import LiveCommunicationKit

class VoIPPushManager: NSObject {

    private let pushRegistry: PKPushRegistry
    private var certificateID: Int = 0
    private var voipToken: Data?  // 保存 Token，等待 TUILogin 成功后上报

    // 存储当前通话的 UUID
    private var currentCallUUID: UUID?

    // ConversationManager 用于展示系统来电界面（步骤 7）
    private lazy var conversationManager: ConversationManager = {
        let configuration = ConversationManager.Configuration(
            ringtoneName: "phone_ringing.mp3",       // 来电铃声文件名
            iconTemplateImageData: nil,              // 来电图标（可选）
            supportsVideo: true                      // 是否支持视频通话
        )
        let manager = ConversationManager(configuration: configuration)
        manager.delegate = self
        return manager
    }()

    override init() {
        pushRegistry = PKPushRegistry(queue: DispatchQueue.main)
        super.init()

        pushRegistry.delegate = self
        pushRegistry.desiredPushTypes = [.voIP]

        // 监听 TUILogin 成功的通知
        NotificationCenter.default.addObserver(
            forName: NSNotification.Name("TUILoginSuccess"),
            object: nil,
            queue: nil
        ) { [weak self] _ in self?.onTUILoginSuccess() }
    }

    deinit {
        NotificationCenter.default.removeObserver(self)
    }

    // 设置证书 ID
    func setCertificateID(_ certificateID: Int) {
        self.certificateID = certificateID
    }

    // TUILogin 成功后上报 Token
    private func onTUILoginSuccess() {
        // 收到 TUILogin 成功通知，开始上报 VoIP Token
        uploadVoIPToken()
    }

    // 上报 VoIP Token 到 IM 后台
    private func uploadVoIPToken() {
        guard let token = voipToken else {
            // VoIP Token 尚未获取
            return
        }

        guard certificateID != 0 else {
            // 证书 ID 未设置
            return
        }

        let config = V2TIMVOIPConfig()
        config.certificateID = certificateID
        config.token = token

        V2TIMManager.sharedInstance().setVOIP(config: config, succ: {
            // VoIP Token 上报成功
        }, fail: { code, desc in
            // VoIP Token 上报失败
        })
    }
}

import PushKit
import ImSDK_Plus

extension VoIPPushManager: PKPushRegistryDelegate {

    // 获取到 VoIP Token 后保存（不立即上报）
    func pushRegistry(_ registry: PKPushRegistry,
                     didUpdate pushCredentials: PKPushCredentials,
                     for type: PKPushType) {

        guard type == .voIP else { return }

        // 保存 token
        voipToken = pushCredentials.token

        // 将 token 转换为字符串（用于日志）
        let tokenString = pushCredentials.token.map { String(format: "%02.2hhx", $0) }.joined()
        //  VoIP Token 已获取:

        // 如果 TUILogin 已经完成，立即上报；否则等待 TUILoginSuccess 通知
        uploadVoIPToken()
    }

    // Token 失效
    func pushRegistry(_ registry: PKPushRegistry,
                     didInvalidatePushTokenFor type: PKPushType) {
        //  VoIP Token 已失效
    }
}

extension VoIPPushManager {

    // 收到 VoIP 推送
    func pushRegistry(_ registry: PKPushRegistry,
                     didReceiveIncomingPushWith payload: PKPushPayload,
                     for type: PKPushType) {

        guard type == .voIP else { return }
        // 必须在 5 秒内向系统报告来电，否则会 crash
        showIncomingCall(with: payload) // 步骤 7
    }
}

import LiveCommunicationKit

extension VoIPPushManager {
    // 向系统报告来电
    private func showIncomingCall(with payload: PKPushPayload) {

        // 解析推送数据
        let payloadDict = payload.dictionaryPayload

        // 1. 获取来电者名称（必需字段）
        guard let callerName = payloadDict["voip_caller_name"] as? String else {
            // 缺少 voip_caller_name 字段
            return
        }

        // 2. 解析 ext 字段获取通话类型（音频/视频）
        var isVideoCall = false
        if let extString = payloadDict["ext"] as? String,
           let extData = extString.data(using: .utf8),
           let extDic = try? JSONSerialization.jsonObject(with: extData) as? [String: Any],
           let voipExtDic = extDic["voip_ext"] as? [String: String],
           let mediaType = voipExtDic["voip_media_type"] {
            isVideoCall = (mediaType == "video")
        }

        // 创建来电通知内容
        let uuid = UUID()
        currentCallUUID = uuid  // 保存 UUID，用于后续操作
        var update = Conversation.Update(
            members: [Handle(type: .generic, value: callerName, displayName: callerName)]
        )
        update.capabilities = isVideoCall ? .video : .playingTones

        // 向系统报告来电（系统自动展示原生来电界面）
        Task {
            do {
                try await conversationManager.reportNewIncomingConversation(uuid: uuid, update: update)
                // 报告成功
            } catch {
                // 报告失败
            }
        }
    }
}

// MARK: - ConversationManagerDelegate
extension VoIPPushManager: ConversationManagerDelegate {
    func conversationManager(_ manager: ConversationManager, perform action: ConversationAction) {
        if action is JoinConversationAction {
            // 用户点击"接听"，调用 CallStore 接听通话
            CallStore.shared.accept { result in
                switch result {
                case .success:
                    // 接听成功，可以在这里跳转到通话页面
                    break
                case .failure(let error):
                    break
                }
            }
        } else if action is EndConversationAction {
            // 用户点击"挂断"，调用 CallStore 挂断通话
            CallStore.shared.hangup { result in
                switch result {
                case .success:
                    break
                case .failure(let error):
                    break
                }
            }
        }

        // 必须调用 fulfill() 通知系统操作已完成
        action.fulfill()
    }
}
