import AtomicXCore
import Combine
import UIKit

class YourViewController: UIViewController {

    private var cancellables = Set<AnyCancellable>()

    override func viewDidLoad() {
        super.viewDidLoad()

        // 监听来电事件
        CallStore.shared.callEventPublisher
            .receive(on: DispatchQueue.main)
            .sink { [weak self] event in
                guard let self = self else { return }

                switch event {
                case .onCallReceived(let callId, let mediaType, let userData):
                    // 收到来电，跳转到您自己的通话页面
                    self.showCallViewController(callId: callId, mediaType: mediaType, userData: userData)

                case .onCallEnded(let callId, let mediaType, let reason, let userId):
                    // 通话结束，返回或更新 UI
                    self.dismissCallViewController()

                case .onCallStarted(let callId, let mediaType):
                    // 通话已开始
                    break
                }
            }
            .store(in: &cancellables)
    }

    private func showCallViewController(callId: String, mediaType: CallMediaType, userData: String) {
        // 跳转到您自己实现的通话页面
        let callVC = YourCallViewController()
        callVC.callId = callId
        callVC.mediaType = mediaType
        callVC.userData = userData
        callVC.modalPresentationStyle = .fullScreen
        present(callVC, animated: true)
    }

    private func dismissCallViewController() {
        // 关闭通话页面
        dismiss(animated: true)
    }
}
