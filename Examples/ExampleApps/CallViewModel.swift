import AtomicXCore
import Combine
import Foundation
import Observation

/// The app's own call screen: shown while a call rings or runs, closed when it ends. Written with
/// Observation (`@Observable`), as SwiftUI views today take their models; the SDK's publishers are
/// still Combine's.
@Observable public final class CallViewModel {
  public enum Screen: Equatable {
    case none
    case ringing(callId: String)
    case calling
    case inCall(callId: String)
  }

  public private(set) var screen: Screen = .none {
    didSet {
      guard screen != oldValue else { return }
      print("[Call] screen \(screen)")
      // The call's length, for the call log.
      if case .inCall = screen, connectedAt == nil { connectedAt = Date() }
      if screen == .none, let since = connectedAt {
        print("[Call] lasted \(Int(Date().timeIntervalSince(since).rounded())) s")
        connectedAt = nil
      }
    }
  }
  /// When the call on screen connected.
  @ObservationIgnored private var connectedAt: Date?
  @ObservationIgnored private var cancellables = Set<AnyCancellable>()
  /// Whether a call this screen dials is being placed (its `calls()` not answered yet): the SDK
  /// knows no call then, and a late end or hang-up answer of the call before must not close it.
  @ObservationIgnored private var dialing = false

  public init() {
    CallStore.shared.callEventPublisher
      .receive(on: DispatchQueue.main)
      .sink { [weak self] event in
        guard let self else { return }
        switch event {
        case .onCallReceived(let callId, _, _): self.screen = .ringing(callId: callId)
        case .onCallStarted(let callId, _): self.screen = .inCall(callId: callId)
        case .onCallEnded:
          // Only if it is this call that ended: a late message about an earlier call must not
          // close the screen of the current one.
          self.closeIfCallOver()
        }
      }
      .store(in: &cancellables)
    // The SDK's call state is the truth: a call can end without an event reaching the app (the
    // session ended while the app was away), and then the screen must close all the same.
    CallStore.shared.state
      .removeDuplicates()
      .receive(on: DispatchQueue.main)
      .sink { [weak self] state in
        guard let self else { return }
        switch state.selfInfo.status {
        case .none: if self.screen != .calling { self.screen = .none }
        case .waiting: if self.screen == .none { self.screen = .ringing(callId: state.callId) }
        case .accept: self.screen = .inCall(callId: state.callId)
        }
      }
      .store(in: &cancellables)
    LoginStore.shared.loginEventPublisher
      .receive(on: DispatchQueue.main)
      .sink { [weak self] _ in self?.screen = .none }
      .store(in: &cancellables)
  }

  /// Whether the call screen is up.
  public var isShowingCall: Bool { screen != .none }

  /// Calls `userIDs`; `placed` hears whether the call was placed.
  public func call(_ userIDs: [String], video: Bool, placed: ((Bool) -> Void)? = nil) {
    // Not before the login finished (after a relaunch it may still be on its way).
    guard screen == .none, LoginStore.shared.state.value.loginStatus == .logined else {
      placed?(false)
      return
    }
    screen = .calling
    dialing = true
    var params = CallParams()
    params.timeout = 30
    params.userData = "{\"from\":\"call screen\"}"
    CallStore.shared.calls(participantIds: userIDs, callMediaType: video ? .video : .audio, params: params) {
      [weak self] result in
      DispatchQueue.main.async {
        self?.dialing = false
        if case .failure = result, self?.screen == .calling { self?.screen = .none }
        if case .success = result { placed?(true) } else { placed?(false) }
      }
    }
  }

  /// "Add people" on the screen of a running call: invites them into it (a group call).
  public func addParticipants(_ userIDs: [String]) {
    guard case .inCall = screen else { return }
    var params = CallParams()
    params.timeout = 30
    CallStore.shared.invite(participantIds: userIDs, params: params) { result in
      if case .failure(let error) = result { print("[Call] adding \(userIDs) failed code=\(error.code)") }
    }
  }

  public func answer() {
    CallStore.shared.accept { [weak self] result in
      DispatchQueue.main.async { if case .failure = result, case .ringing = self?.screen { self?.screen = .none } }
    }
  }

  public func decline() {
    CallStore.shared.reject { [weak self] _ in DispatchQueue.main.async { self?.closeIfCallOver() } }
  }

  public func hangUp() {
    CallStore.shared.hangup { [weak self] _ in DispatchQueue.main.async { self?.closeIfCallOver() } }
  }

  /// A hang-up the server never heard (-1) leaves the call running: the screen stays until the
  /// SDK says the call is over.
  private func closeIfCallOver() {
    if CallStore.shared.state.value.selfInfo.status == .none && !(dialing && screen == .calling) { screen = .none }
  }
}
