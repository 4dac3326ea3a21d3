import AtomicXCore
import Combine

final class HostCoGuestViewModel: ObservableObject {

    // MARK: 状态

    @Published var pendingApplicants: [LiveUserInfo] = []   // 待审批申请列表
    @Published var connectedGuests: [SeatUserInfo]  = []    // 当前连麦列表

    private let coGuestStore: CoGuestStore
    private var cancellables = Set<AnyCancellable>()

    init(liveID: String) {
        self.coGuestStore = CoGuestStore.create(liveID: liveID)
        observeHostEvents()
        observeState()
    }

    // MARK: - 主播端事件订阅

    private func observeHostEvents() {
        coGuestStore.hostEventPublisher
            .receive(on: DispatchQueue.main)
            .sink { [weak self] event in
                guard let self else { return }
                switch event {
                case .onGuestApplicationReceived(let guestUser):
                    // 新收到观众申请，添加到待审批列表
                    if !self.pendingApplicants.contains(where: { $0.userID == guestUser.userID }) {
                        self.pendingApplicants.append(guestUser)
                    }

                case .onGuestApplicationCancelled(let guestUser):
                    // 观众撤回了申请
                    self.pendingApplicants.removeAll { $0.userID == guestUser.userID }

                case .onGuestApplicationProcessedByOtherHost(let guestUser, let hostUser):
                    // 申请被其他主播处理（多主播场景）
                    self.pendingApplicants.removeAll { $0.userID == guestUser.userID }
                    print("[Host] \(guestUser.userName) 的申请已被 \(hostUser.userName) 处理")

                case .onHostInvitationResponded(let isAccept, let guestUser):
                    if isAccept {
                        print("[Host] \(guestUser.userName) 接受了邀请")
                    } else {
                        print("[Host] \(guestUser.userName) 拒绝了邀请")
                    }

                case .onHostInvitationNoResponse(let guestUser, let reason):
                    print("[Host] \(guestUser.userName) 未响应邀请，原因: \(reason)")
                }
            }
            .store(in: &cancellables)
    }

    // MARK: - 状态订阅（实时同步连麦列表）

    private func observeState() {
        coGuestStore.state
            .map(\.connected)
            .receive(on: DispatchQueue.main)
            .assign(to: &$connectedGuests)
    }

    // MARK: - 同意申请

    func acceptApplication(userID: String) {
        coGuestStore.acceptApplication(userID: userID) { [weak self] result in
            DispatchQueue.main.async {
                switch result {
                case .success:
                    self?.pendingApplicants.removeAll { $0.userID == userID }
                    print("[Host] 已同意 \(userID) 的连麦申请")
                case .failure(let error):
                    print("[Host] 同意申请失败 code=\(error.code) msg=\(error.message)")
                }
            }
        }
    }

    // MARK: - 拒绝申请

    func rejectApplication(userID: String) {
        coGuestStore.rejectApplication(userID: userID) { [weak self] result in
            DispatchQueue.main.async {
                switch result {
                case .success:
                    self?.pendingApplicants.removeAll { $0.userID == userID }
                    print("[Host] 已拒绝 \(userID) 的连麦申请")
                case .failure(let error):
                    print("[Host] 拒绝申请失败 code=\(error.code) msg=\(error.message)")
                }
            }
        }
    }

    // MARK: - 主播邀请观众上麦

    func inviteToSeat(userID: String, seatIndex: Int = -1) {
        coGuestStore.inviteToSeat(
            userID: userID,
            seatIndex: seatIndex,
            timeout: 30,
            extraInfo: nil
        ) { result in
            if case .failure(let error) = result {
                print("[Host] 邀请失败 code=\(error.code) msg=\(error.message)")
            }
        }
    }

    // MARK: - 主播踢出已连麦观众

    func disconnectGuest() {
        coGuestStore.disConnect { result in
            DispatchQueue.main.async {
                if case .failure(let error) = result {
                    print("[Host] 断开失败 code=\(error.code) msg=\(error.message)")
                }
            }
        }
    }
}
