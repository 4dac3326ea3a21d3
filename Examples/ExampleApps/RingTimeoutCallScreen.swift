import AtomicXCore
import Foundation

/// Wrong: the example call screen with a ring timeout of its own. A call nobody answers within
/// 45 s is given up, as many apps do; the timer is armed once the call is placed and cancelled
/// when the user hangs up, but not when the call connects. A call still running 45 s after it
/// was placed is cut off with no tap of its user.
public final class RingTimeoutCallScreen {
  public let model: CallViewModel
  private var giveUp: DispatchWorkItem?

  public init(model: CallViewModel) {
    self.model = model
  }

  /// Calls `userIDs`, and gives up if nobody answered within 45 s.
  public func call(_ userIDs: [String], video: Bool, placed: ((Bool) -> Void)? = nil) {
    model.call(userIDs, video: video) { [weak self] ok in
      placed?(ok)
      guard ok, let self else { return }
      let item = DispatchWorkItem { [weak self] in
        print("[Call] no answer in 45 s, giving up")
        self?.giveUp = nil
        CallStore.shared.hangup { _ in }
      }
      self.giveUp = item
      DispatchQueue.main.asyncAfter(deadline: .now() + 45, execute: item)
    }
  }

  public func hangUp() {
    giveUp?.cancel()
    giveUp = nil
    model.hangUp()
  }
}
