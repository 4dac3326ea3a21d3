import AtomicXCore
import Combine
import Foundation
import Observation
import UIKit

// View models in today's styles (main-actor isolation with async/await, Observation, Dispatch
// from a file that imports Foundation, UIKit's lifecycle notifications), each with the one
// mistake its style invites. Each compiles and works in a quick manual test; Stampede catches it
// (see the README and docs/CLIENTS.md).

extension CoGuestStore {
  /// `applyForSeat` as an async call, the way a team wraps a completion API for `await`.
  func applyForSeat(seatIndex: Int, timeout: TimeInterval) async throws {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
      applyForSeat(seatIndex: seatIndex, timeout: timeout, extraInfo: nil) { continuation.resume(with: $0) }
    }
  }
}

/// Wrong: a main-actor view model written with async/await checks "idle" before the `await` and
/// sets "applying" only after it. The main actor runs other work while `apply` is suspended: a
/// second tap passes the same check, sends a second application, and its refusal (100202, already
/// in the queue) puts the screen back to idle while the first waits for the host. Caught by
/// `ui.idle-means-nothing-pending`.
@MainActor public final class AwaitingApplyViewModel: ObservableObject {
  public enum CoGuestStatus {
    case idle
    case applying
    case connected
  }

  @Published public private(set) var status: CoGuestStatus = .idle
  @Published public private(set) var errorMessage: String?
  private let coGuestStore: CoGuestStore
  private var cancellables = Set<AnyCancellable>()
  private var devicesOn = false

  public init(liveID: String, userID: String) {
    coGuestStore = CoGuestStore.create(liveID: liveID)
    coGuestStore.state
      .map { $0.connected.contains { $0.userID == userID } }
      .removeDuplicates()
      .receive(on: DispatchQueue.main)
      .sink { [weak self] seated in
        guard let self, !seated, self.status == .connected || self.devicesOn else { return }
        self.closeDevices()
        self.status = .idle
      }
      .store(in: &cancellables)
    coGuestStore.guestEventPublisher
      .receive(on: DispatchQueue.main)
      .sink { [weak self] event in
        guard let self else { return }
        switch event {
        case .onGuestApplicationResponded(true, _): self.openDevices()
        case .onGuestApplicationResponded(false, _), .onGuestApplicationNoResponse: self.status = .idle
        case .onKickedOffSeat:
          self.closeDevices()
          self.status = .idle
        default: break
        }
      }
      .store(in: &cancellables)
  }

  public func applyForSeat() {
    Task {
      guard status == .idle else { return }
      do {
        try await coGuestStore.applyForSeat(seatIndex: -1, timeout: 30)
        // The mistake: "applying" is set after the suspension, not before it.
        if status == .idle { status = .applying }
      } catch {
        status = .idle
        errorMessage = "Apply failed: \(error)"
      }
    }
  }

  public func cancelApplication() {
    coGuestStore.cancelApplication { [weak self] _ in DispatchQueue.main.async { self?.status = .idle } }
  }

  public func disconnect() {
    coGuestStore.disConnect { [weak self] _ in
      DispatchQueue.main.async {
        self?.closeDevices()
        self?.status = .idle
      }
    }
  }

  private func openDevices() {
    devicesOn = true
    DeviceStore.shared.openLocalMicrophone { [weak self] result in
      DispatchQueue.main.async {
        guard let self, self.devicesOn else { return }
        if case .failure = result {
          self.devicesOn = false
          self.coGuestStore.disConnect(completion: nil)
          self.status = .idle
          return
        }
        DeviceStore.shared.openLocalCamera(isFront: true) { _ in
          DispatchQueue.main.async {
            guard self.devicesOn else { return self.closeDevices() }
            self.status = .connected
          }
        }
      }
    }
  }

  private func closeDevices() {
    devicesOn = false
    DeviceStore.shared.closeLocalCamera()
    DeviceStore.shared.closeLocalMicrophone()
  }
}

/// Wrong: the call screen is presented from an `@Observable` model through
/// `withObservationTracking`, whose `onChange` fires once: the presenter never tracks again, so it
/// follows the model's first change and no other. The screen that opened for the first call stays
/// up after that call ends. Caught by `ui.call-screen-matches-call`.
@MainActor public final class OneShotCallPresenter {
  public let model: CallViewModel
  /// Whether the call screen is on screen.
  public private(set) var isPresented = false

  public init(model: CallViewModel) {
    self.model = model
    track()
  }

  private func track() {
    withObservationTracking {
      _ = model.isShowingCall
    } onChange: { [weak self] in
      // `onChange` runs before the change is stored: read it on the next turn of the main queue.
      DispatchQueue.main.async {
        guard let self else { return }
        self.isPresented = self.model.isShowingCall
        // The mistake: no `self.track()` here, so later changes go unseen.
      }
    }
  }
}

/// Wrong: a watchdog for an application whose answer never comes, written with Dispatch: 30 s
/// after "apply" it puts the screen back to idle if it still says applying. It is never cancelled
/// and does not check which application it was set for, so the watchdog of an application that
/// ended early (declined, cancelled) fires during the next one, and the screen shows idle while
/// that application waits for the host. Caught by `ui.idle-means-nothing-pending`.
public final class StaleWatchdogViewModel: ObservableObject {
  public enum CoGuestStatus {
    case idle
    case applying
    case connected
  }

  @Published public private(set) var status: CoGuestStatus = .idle
  private let coGuestStore: CoGuestStore
  private var cancellables = Set<AnyCancellable>()
  private var devicesOn = false

  public init(liveID: String, userID: String) {
    coGuestStore = CoGuestStore.create(liveID: liveID)
    coGuestStore.state
      .map { $0.connected.contains { $0.userID == userID } }
      .removeDuplicates()
      .receive(on: DispatchQueue.main)
      .sink { [weak self] seated in
        guard let self, !seated, self.status == .connected || self.devicesOn else { return }
        self.closeDevices()
        self.status = .idle
      }
      .store(in: &cancellables)
    coGuestStore.guestEventPublisher
      .receive(on: DispatchQueue.main)
      .sink { [weak self] event in
        guard let self else { return }
        switch event {
        case .onGuestApplicationResponded(true, _): self.openDevices()
        case .onGuestApplicationResponded(false, _), .onGuestApplicationNoResponse: self.status = .idle
        case .onKickedOffSeat:
          self.closeDevices()
          self.status = .idle
        default: break
        }
      }
      .store(in: &cancellables)
  }

  public func applyForSeat() {
    guard status == .idle else { return }
    status = .applying
    coGuestStore.applyForSeat(seatIndex: -1, timeout: 30, extraInfo: nil) { [weak self] result in
      DispatchQueue.main.async { if case .failure = result { self?.status = .idle } }
    }
    // The mistake: a watchdog that is neither cancelled nor tied to this application.
    DispatchQueue.main.asyncAfter(deadline: .now() + 30) { [weak self] in
      if self?.status == .applying { self?.status = .idle }
    }
  }

  public func cancelApplication() {
    coGuestStore.cancelApplication { [weak self] _ in DispatchQueue.main.async { self?.status = .idle } }
  }

  public func disconnect() {
    coGuestStore.disConnect { [weak self] _ in
      DispatchQueue.main.async {
        self?.closeDevices()
        self?.status = .idle
      }
    }
  }

  private func openDevices() {
    devicesOn = true
    DeviceStore.shared.openLocalMicrophone { [weak self] result in
      DispatchQueue.main.async {
        guard let self, self.devicesOn else { return }
        if case .failure = result {
          self.devicesOn = false
          self.coGuestStore.disConnect(completion: nil)
          self.status = .idle
          return
        }
        DeviceStore.shared.openLocalCamera(isFront: true) { _ in
          DispatchQueue.main.async {
            guard self.devicesOn else { return self.closeDevices() }
            self.status = .connected
          }
        }
      }
    }
  }

  private func closeDevices() {
    devicesOn = false
    DeviceStore.shared.closeLocalCamera()
    DeviceStore.shared.closeLocalMicrophone()
  }
}

/// Wrong: the camera follows UIKit's lifecycle notifications, closed on
/// `didEnterBackgroundNotification` and opened again on `willEnterForegroundNotification`, but the
/// reopen does not ask whether the viewer is still a guest. A viewer who left its seat (or never
/// had one) comes back to the app with its camera capturing. Caught by
/// `device.capture-only-while-seated`.
public final class ForegroundCameraViewModel: ObservableObject {
  /// The viewer's co-guest screen: the correct one.
  public let screen: AudienceCoGuestViewModel
  private var observers: [NSObjectProtocol] = []

  @MainActor public init(liveID: String, userID: String) {
    screen = AudienceCoGuestViewModel(liveID: liveID, userID: userID)
    observers = [
      NotificationCenter.default.addObserver(
        forName: UIApplication.didEnterBackgroundNotification, object: nil, queue: .main
      ) { _ in DeviceStore.shared.closeLocalCamera() },
      // The mistake: opened whatever the viewer's status.
      NotificationCenter.default.addObserver(
        forName: UIApplication.willEnterForegroundNotification, object: nil, queue: .main
      ) { _ in DeviceStore.shared.openLocalCamera(isFront: true, completion: nil) },
    ]
  }
}

/// Wrong: an "Accept all" button that answers every waiting application as one batch, with a
/// `DispatchGroup` to clear its spinner when the batch is done, entered once for the batch but
/// left by every accept's completion. With one application waiting (a quick manual test) the
/// group balances; with two or more, the second `leave()` stops the app on a phone ("Unbalanced
/// call to dispatch_group_leave()"). Caught by `app.platform-contract`.
public final class AcceptAllHostViewModel: ObservableObject {
  /// The panel it wraps, whose other buttons are right.
  public let panel: HostCoGuestViewModel
  /// Whether the batch's spinner shows.
  @Published public private(set) var acceptingAll = false
  private let coGuestStore: CoGuestStore

  public init(liveID: String) {
    panel = HostCoGuestViewModel(liveID: liveID)
    coGuestStore = CoGuestStore.create(liveID: liveID)
  }

  /// "Accept all": every application the SDK lists (each user once: the list can repeat one).
  public func acceptAll() {
    let applicants = Set(coGuestStore.state.value.applicants.map(\.userID))
    guard !acceptingAll, !applicants.isEmpty else { return }
    acceptingAll = true
    let batch = DispatchGroup()
    // The mistake: one enter for the batch, one leave per accept.
    batch.enter()
    for userID in applicants {
      coGuestStore.acceptApplication(userID: userID) { result in
        if case .failure(let error) = result { print("[Host] accept \(userID) failed code=\(error.code)") }
        batch.leave()
      }
    }
    batch.notify(queue: .main) { [weak self] in self?.acceptingAll = false }
  }
}

/// A host panel that times each review, from the application's arrival to the host's answer, and
/// forgets an application its viewer withdrew.
///
/// The mistake: the accept's completion force-unwraps the arrival time, which a withdrawal that
/// came in while the accept was in flight removed. On a phone the host's app crashes there.
public final class ReviewTimingHostViewModel {
  /// The panel it wraps, whose other buttons are right.
  public let panel: HostCoGuestViewModel
  private let coGuestStore: CoGuestStore
  private var arrivedAt: [String: Date] = [:]
  private var cancellables = Set<AnyCancellable>()

  public init(liveID: String) {
    panel = HostCoGuestViewModel(liveID: liveID)
    coGuestStore = CoGuestStore.create(liveID: liveID)
    coGuestStore.hostEventPublisher
      .receive(on: DispatchQueue.main)
      .sink { [weak self] event in
        switch event {
        case .onGuestApplicationReceived(let guest): self?.arrivedAt[guest.userID] = Date()
        case .onGuestApplicationCancelled(let guest): self?.arrivedAt[guest.userID] = nil
        default: break
        }
      }
      .store(in: &cancellables)
  }

  /// "Accept" under the first application.
  public func acceptFirst() {
    guard let guest = panel.firstApplicant else { return }
    coGuestStore.acceptApplication(userID: guest.userID) { [weak self] result in
      guard let self else { return }
      let waited = Date().timeIntervalSince(self.arrivedAt[guest.userID]!)
      self.arrivedAt[guest.userID] = nil
      if case .failure(let error) = result {
        print("[Host] accept \(guest.userID) failed code=\(error.code) after \(Int(waited))s")
      }
    }
  }
}

/// A host panel that answers one application at a time: a second "accept" waits for the answer to
/// the first.
///
/// The mistake: it waits by spinning on a flag the first accept's completion clears, and that
/// completion runs on the main thread, which the spin holds. When an answer is slow or lost, the
/// next tap freezes the host's app for good (on a phone, until the system's watchdog ends it).
public final class SerialAcceptHostViewModel {
  /// The panel it wraps, whose other buttons are right.
  public let panel: HostCoGuestViewModel
  private let coGuestStore: CoGuestStore
  private var acceptInFlight = false

  public init(liveID: String) {
    panel = HostCoGuestViewModel(liveID: liveID)
    coGuestStore = CoGuestStore.create(liveID: liveID)
  }

  /// "Accept" under the first application, once the accept before it was answered.
  public func acceptFirst() {
    guard let guest = panel.firstApplicant else { return }
    while acceptInFlight { usleep(10_000) }
    acceptInFlight = true
    coGuestStore.acceptApplication(userID: guest.userID) { [weak self] _ in
      self?.acceptInFlight = false
    }
  }
}
