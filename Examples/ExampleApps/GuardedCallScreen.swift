import Foundation

/// The example call screen behind a coordinator that asserts, when it is torn down, that no call
/// is left on screen: a team's guard against a screen dismissed under a running call. The app
/// holds its coordinator for the life of its process, so on a phone this `deinit` never runs; but
/// a process killed during a call leaves one on screen, and its objects must not be torn down as
/// if the app had dismissed them.
public final class GuardedCallScreen {
  public let model: CallViewModel
  private let observer: NSObjectProtocol

  public init(model: CallViewModel) {
    self.model = model
    observer = NotificationCenter.default.addObserver(
      forName: Notification.Name("CallScreenShouldClose"), object: nil, queue: .main
    ) { [weak model] _ in model?.hangUp() }
  }

  deinit {
    NotificationCenter.default.removeObserver(observer)
    precondition(!model.isShowingCall, "the call screen was torn down with a call on it")
  }
}
