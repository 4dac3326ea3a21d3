import AtomicXCore
import Combine

final class AudienceCoGuestViewModel: ObservableObject {

    // MARK: 状态

    enum CoGuestStatus {
        case idle           // 未连麦
        case applying       // 申请中
        case connected      // 连麦中
    }

    @Published var status: CoGuestStatus = .idle
    @Published var errorMessage: String?

    private let coGuestStore: CoGuestStore
    private var cancellables = Set<AnyCancellable>()
    private let applyTimeout: TimeInterval = 30

    init(liveID: String) {
        self.coGuestStore = CoGuestStore.create(liveID: liveID)
        observeGuestEvents()
    }

    // MARK: - 观众端事件订阅

    private func observeGuestEvents() {
        coGuestStore.guestEventPublisher
            .receive(on: DispatchQueue.main)
            .sink { [weak self] event in
                guard let self else { return }
                switch event {
                case .onGuestApplicationResponded(let isAccept, let hostUser):
                    if isAccept {
                        // ✅ 申请通过，立即开启设备
                        print("[CoGuest] 主播 \(hostUser.userName) 已同意申请")
                        self.openDevicesAfterAccepted()
                    } else {
                        // 申请被拒绝
                        self.status = .idle
                        self.errorMessage = "连麦申请被主播拒绝"
                    }

                case .onGuestApplicationNoResponse(let reason):
                    // 超时未响应
                    self.status = .idle
                    self.errorMessage = "申请超时，请重试"
                    print("[CoGuest] 申请超时，原因: \(reason)")

                case .onKickedOffSeat(let seatIndex, let hostUser):
                    // 被主播踢下麦位
                    self.closeDevicesAfterDisconnect()
                    self.status = .idle
                    self.errorMessage = "已被主播移出麦位（座位 \(seatIndex)）"
                    print("[CoGuest] 被 \(hostUser.userName) 踢下麦位 \(seatIndex)")

                case .onHostInvitationReceived(let hostUser):
                    // 收到主播邀请，可展示弹窗供用户选择
                    print("[CoGuest] 收到主播 \(hostUser.userName) 的邀请")

                case .onHostInvitationCancelled(let hostUser):
                    // 主播取消邀请
                    print("[CoGuest] 主播 \(hostUser.userName) 取消了邀请")
                }
            }
            .store(in: &cancellables)
    }

    // MARK: - 申请连麦
    // seatIndex: Int 默认 -1 表示自动分配麦位

    func applyForSeat(seatIndex: Int = -1) {
        guard status == .idle else { return }
        status = .applying

        coGuestStore.applyForSeat(
            seatIndex: seatIndex,
            timeout: applyTimeout,
            extraInfo: nil
        ) { [weak self] result in
            guard let self else { return }
            DispatchQueue.main.async {
                switch result {
                case .success:
                    // 申请发送成功，等待主播响应（通过 guestEventPublisher 回调）
                    print("[CoGuest] 申请已发送，等待主播响应...")
                case .failure(let error):
                    self.status = .idle
                    if error.code == -2340 {
                        self.errorMessage = "当前连麦人数已达上限，请稍后再试"
                    } else {
                        self.errorMessage = "申请失败：\(error.message)"
                    }
                }
            }
        }
    }

    // MARK: - 取消申请

    func cancelApplication() {
        guard status == .applying else { return }
        coGuestStore.cancelApplication { [weak self] _ in
            DispatchQueue.main.async {
                self?.status = .idle
            }
        }
    }

    // MARK: - 接受主播邀请（inviterID 为邀请方主播的 userID）

    func acceptInvitation(inviterID: String) {
        coGuestStore.acceptInvitation(inviterID: inviterID) { [weak self] result in
            DispatchQueue.main.async {
                switch result {
                case .success:
                    self?.openDevicesAfterAccepted()
                case .failure(let error):
                    self?.errorMessage = "接受邀请失败：\(error.message)"
                }
            }
        }
    }

    // MARK: - 拒绝主播邀请

    func rejectInvitation(inviterID: String) {
        coGuestStore.rejectInvitation(inviterID: inviterID) { result in
            if case .failure(let error) = result {
                print("[CoGuest] 拒绝邀请失败 code=\(error.code)")
            }
        }
    }

    // MARK: - 申请通过后开设备

    private func openDevicesAfterAccepted() {
        // 前置：设备控制能力（→ live/device-control）
        // 先开麦克风
        DeviceStore.shared.openLocalMicrophone { [weak self] micResult in
            guard let self else { return }
            switch micResult {
            case .failure(let error):
                print("[CoGuest] 麦克风打开失败 code=\(error.code)")
                self.errorMessage = "麦克风打开失败，请检查权限"
                // 麦克风失败，断开连麦
                self.coGuestStore.disConnect(completion: nil)
                DispatchQueue.main.async { self.status = .idle }
            case .success:
                // 再开摄像头
                DeviceStore.shared.openLocalCamera(isFront: true) { cameraResult in
                    DispatchQueue.main.async {
                        if case .failure(let error) = cameraResult {
                            print("[CoGuest] 摄像头打开失败 code=\(error.code)，以纯音频模式连麦")
                        }
                        self.status = .connected
                    }
                }
            }
        }
    }

    // MARK: - 主动断开连麦

    func disconnect() {
        guard status == .connected else { return }
        coGuestStore.disConnect { [weak self] _ in
            self?.closeDevicesAfterDisconnect()
            DispatchQueue.main.async { self?.status = .idle }
        }
    }

    // MARK: - 断开后关闭设备

    private func closeDevicesAfterDisconnect() {
        // 前置：设备控制能力（→ live/device-control）
        DeviceStore.shared.closeLocalCamera()
        DeviceStore.shared.closeLocalMicrophone()
        print("[CoGuest] 连麦已断开，设备已关闭")
    }
}
