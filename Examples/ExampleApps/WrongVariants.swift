import AtomicXCore
import Combine

// Two view models as teams really write them, each with one mistake. They compile and work in a
// quick manual test; Stampede's UI oracles catch them (see the README and docs/CLIENTS.md).

/// Wrong: the "apply" action trusts the button to be disabled while applying, so a double tap
/// sends a second application. The SDK refuses it (100202, already in the queue), and the failure
/// handler puts the screen back to idle, while the first application is still waiting for the host.
/// Caught by `ui.idle-means-nothing-pending`.
public final class DoubleTapAudienceViewModel: ObservableObject {
  public enum CoGuestStatus {
    case idle
    case applying
    case connected
  }

  @Published public private(set) var status: CoGuestStatus = .idle
  @Published public private(set) var errorMessage: String?
  private let coGuestStore: CoGuestStore
  private var cancellables = Set<AnyCancellable>()
  /// Whether the devices are open or opening.
  private var devicesOn = false

  public init(liveID: String, userID: String) {
    coGuestStore = CoGuestStore.create(liveID: liveID)
    coGuestStore.state
      .map { $0.connected.contains { $0.userID == userID } }
      .removeDuplicates()
      .receive(on: DispatchQueue.main)
      .sink { [weak self] seated in
        // Leaving the seat, even while the devices are still opening, closes them.
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
        case .onGuestApplicationResponded(true, _):
          self.openDevices()
        case .onGuestApplicationResponded(false, _), .onGuestApplicationNoResponse:
          self.status = .idle
        case .onKickedOffSeat:
          self.closeDevices()
          self.status = .idle
        default:
          break
        }
      }
      .store(in: &cancellables)
  }

  public func applyForSeat() {
    // The mistake: no `guard status == .idle`.
    status = .applying
    coGuestStore.applyForSeat(seatIndex: -1, timeout: 30, extraInfo: nil) { [weak self] result in
      DispatchQueue.main.async {
        if case .failure(let error) = result {
          self?.status = .idle
          self?.errorMessage = "Apply failed: \(error.message)"
        }
      }
    }
  }

  public func cancelApplication() {
    coGuestStore.cancelApplication { [weak self] _ in DispatchQueue.main.async { self?.status = .idle } }
  }

  public func disconnect() {
    coGuestStore.disConnect { [weak self] _ in
      self?.closeDevices()
      DispatchQueue.main.async { self?.status = .idle }
    }
  }

  private func openDevices() {
    devicesOn = true
    DeviceStore.shared.openLocalMicrophone { [weak self] result in
      guard let self, self.devicesOn else { return }
      if case .failure = result {
        self.devicesOn = false
        self.coGuestStore.disConnect(completion: nil)
        DispatchQueue.main.async { self.status = .idle }
        return
      }
      DeviceStore.shared.openLocalCamera(isFront: true) { _ in
        guard self.devicesOn else { return self.closeDevices() }
        DispatchQueue.main.async { self.status = .connected }
      }
    }
  }

  private func closeDevices() {
    devicesOn = false
    DeviceStore.shared.closeLocalCamera()
    DeviceStore.shared.closeLocalMicrophone()
  }
}

/// Wrong: "connected" follows the seat list (good), but the microphone is opened only where an
/// accepted application is handled. A viewer who takes a seat by accepting a host's invitation
/// shows "connected" with its microphone closed: the host sees a guest nobody can hear.
/// Caught by `ui.connected-means-seated`.
public final class SeatListGuestViewModel: ObservableObject {
  public enum CoGuestStatus {
    case idle
    case applying
    case connected
  }

  @Published public private(set) var status: CoGuestStatus = .idle
  private let coGuestStore: CoGuestStore
  private var cancellables = Set<AnyCancellable>()

  public init(liveID: String, userID: String) {
    coGuestStore = CoGuestStore.create(liveID: liveID)
    coGuestStore.guestEventPublisher
      .receive(on: DispatchQueue.main)
      .sink { [weak self] event in
        guard let self else { return }
        switch event {
        case .onGuestApplicationResponded(true, _):
          DeviceStore.shared.openLocalMicrophone(completion: nil)
          DeviceStore.shared.openLocalCamera(isFront: true, completion: nil)
        case .onGuestApplicationResponded(false, _), .onGuestApplicationNoResponse:
          if self.status == .applying { self.status = .idle }
        default:
          break
        }
      }
      .store(in: &cancellables)
    coGuestStore.state
      .map { $0.connected.contains { $0.userID == userID } }
      .removeDuplicates()
      .receive(on: DispatchQueue.main)
      .sink { [weak self] seated in
        guard let self else { return }
        if seated {
          self.status = .connected
        } else if self.status == .connected {
          DeviceStore.shared.closeLocalCamera()
          DeviceStore.shared.closeLocalMicrophone()
          self.status = .idle
        }
      }
      .store(in: &cancellables)
  }

  public func applyForSeat() {
    guard status == .idle else { return }
    status = .applying
    coGuestStore.applyForSeat(seatIndex: -1, timeout: 30, extraInfo: nil) { [weak self] result in
      DispatchQueue.main.async { if case .failure = result, self?.status == .applying { self?.status = .idle } }
    }
  }

  public func cancelApplication() {
    guard status == .applying else { return }
    coGuestStore.cancelApplication { [weak self] result in
      DispatchQueue.main.async { if case .success = result, self?.status == .applying { self?.status = .idle } }
    }
  }

  public func acceptInvitation(inviterID: String) {
    guard status == .idle else { return }
    coGuestStore.acceptInvitation(inviterID: inviterID, completion: nil)
  }

  public func rejectInvitation(inviterID: String) {
    coGuestStore.rejectInvitation(inviterID: inviterID, completion: nil)
  }

  public func disconnect() {
    guard status == .connected else { return }
    coGuestStore.disConnect(completion: nil)
  }
}

/// Wrong: the host's seat panel remembers "the seat I locked" in one variable, and its unlock
/// only unlocks that seat, to be safe ("never unlock a seat someone else locked"). A second lock
/// before the first is unlocked overwrites the variable, and the first seat stays locked for the
/// rest of the live, lost to every guest. Caught by `seat.lock-released` (with `seats.lockLimit`).
public final class SingleLockHostViewModel {
  /// The panel it wraps, whose other buttons are right.
  public let panel: HostCoGuestViewModel
  private let seatStore: LiveSeatStore
  private var lockedSeat: Int?

  public init(liveID: String) {
    panel = HostCoGuestViewModel(liveID: liveID)
    seatStore = LiveSeatStore.create(liveID: liveID)
  }

  public func lockSeat(_ index: Int) {
    lockedSeat = index
    seatStore.lockSeat(seatIndex: index)
  }

  public func unlockSeat(_ index: Int) {
    guard lockedSeat == index else { return }
    lockedSeat = nil
    seatStore.unlockSeat(seatIndex: index)
  }
}

/// Wrong: "Invite" on the room's audience list sends the invitation to whoever was tapped: a
/// viewer already on a seat (the server refuses it, 100201) or one whose application is waiting
/// in the host's own list (two requests for one viewer, which the host should have answered).
/// Caught by `coguest.invite-idle-only`.
public final class UnguardedInviteHostViewModel {
  /// The panel it wraps, whose other buttons are right.
  public let panel: HostCoGuestViewModel
  private let coGuestStore: CoGuestStore

  public init(liveID: String) {
    panel = HostCoGuestViewModel(liveID: liveID)
    coGuestStore = CoGuestStore.create(liveID: liveID)
  }

  public func inviteToSeat(userID: String) {
    coGuestStore.inviteToSeat(userID: userID, seatIndex: -1, timeout: 30, extraInfo: nil) { [weak self] result in
      if case .failure(let error) = result, error.code == -1 { self?.coGuestStore.cancelInvitation(inviteeID: userID) }
    }
  }
}

/// Wrong: the apply's failure handler reads every error as the host's "no", -1 included. But -1
/// is no answer: the request may have reached the server and the application stand there, and the
/// host may accept it. The screen shows idle, ignores the acceptance that follows (it is not
/// applying any more) and the seat list that seats it, and the viewer sits on a seat its app says
/// it is not on. Caught by `ui.idle-means-off-seat`, once an apply's answer is lost after the
/// server filed it: a path plain chaos reaches by luck, and `sweep --explore` steers to.
public final class MinusOneRefusedAudienceViewModel: ObservableObject {
  public enum CoGuestStatus {
    case idle
    case applying
    case connected
  }

  @Published public private(set) var status: CoGuestStatus = .idle
  @Published public private(set) var errorMessage: String?
  private let coGuestStore: CoGuestStore
  private var cancellables = Set<AnyCancellable>()
  /// Whether the devices are open or opening.
  private var devicesOn = false

  public init(liveID: String, userID: String) {
    coGuestStore = CoGuestStore.create(liveID: liveID)
    coGuestStore.state
      .map { $0.connected.contains { $0.userID == userID } }
      .removeDuplicates()
      .receive(on: DispatchQueue.main)
      .sink { [weak self] seated in
        // Off the seat (left, kicked, or a disconnect that went through): the session is over.
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
        case .onGuestApplicationResponded(true, _):
          // Only the application the screen is waiting for.
          if self.status == .applying && !self.devicesOn { self.openDevices() }
        case .onGuestApplicationResponded(false, _), .onGuestApplicationNoResponse:
          if self.status == .applying && !self.devicesOn { self.status = .idle }
        default:
          break
        }
      }
      .store(in: &cancellables)
  }

  public func applyForSeat() {
    guard status == .idle else { return }
    status = .applying
    coGuestStore.applyForSeat(seatIndex: -1, timeout: 30, extraInfo: nil) { [weak self] result in
      DispatchQueue.main.async {
        // The mistake: -1 (no answer) is taken for a refusal like any other code.
        guard let self, case .failure(let error) = result, self.status == .applying, !self.devicesOn else { return }
        self.status = .idle
        self.errorMessage = "Apply failed: \(error.message)"
      }
    }
  }

  public func cancelApplication() {
    // Withdrawn only when the server says so; otherwise the application's own outcome follows.
    coGuestStore.cancelApplication { [weak self] result in
      DispatchQueue.main.async {
        guard let self, case .success = result, self.status == .applying, !self.devicesOn else { return }
        self.status = .idle
      }
    }
  }

  public func disconnect() {
    // The seat list says when the seat is gone (and the screen goes back to idle then).
    coGuestStore.disConnect(completion: nil)
  }

  private func openDevices() {
    devicesOn = true
    DeviceStore.shared.openLocalMicrophone { [weak self] result in
      guard let self, self.devicesOn else { return }
      if case .failure = result {
        // No microphone: give the seat back.
        self.coGuestStore.disConnect(completion: nil)
        return
      }
      DeviceStore.shared.openLocalCamera(isFront: true) { _ in
        guard self.devicesOn else { return self.closeDevices() }
        DispatchQueue.main.async { if self.devicesOn { self.status = .connected } }
      }
    }
  }

  private func closeDevices() {
    devicesOn = false
    DeviceStore.shared.closeLocalCamera()
    DeviceStore.shared.closeLocalMicrophone()
  }
}

/// Wrong: the applications list is the panel's own, kept from the host events: a row added when
/// `onGuestApplicationReceived` arrives, taken out when the application is withdrawn, answered by
/// another admin, or answered from this panel. Applications that end with no host event (timed
/// out, the viewer left the room, refused for want of a seat) stay listed, and so does everything
/// the SDK lists afresh when it enters the room again. Caught by `ui.applicants-match-sdk`.
public final class EventListHostViewModel {
  /// The panel it wraps, whose buttons are right.
  public let panel: HostCoGuestViewModel
  /// The user IDs the list shows.
  public private(set) var rows: [String] = []
  private var cancellables = Set<AnyCancellable>()

  public init(liveID: String) {
    panel = HostCoGuestViewModel(liveID: liveID)
    CoGuestStore.create(liveID: liveID).hostEventPublisher
      .receive(on: DispatchQueue.main)
      .sink { [weak self] event in
        guard let self else { return }
        switch event {
        case .onGuestApplicationReceived(let guest):
          if !self.rows.contains(guest.userID) { self.rows.append(guest.userID) }
        case .onGuestApplicationCancelled(let guest), .onGuestApplicationProcessedByOtherHost(let guest, _):
          self.rows.removeAll { $0 == guest.userID }
        case .onHostInvitationResponded, .onHostInvitationNoResponse:
          break
        }
      }
      .store(in: &cancellables)
  }

  /// "Accept" on the first row.
  public func acceptFirst() {
    guard let userID = rows.first else { return }
    rows.removeFirst()
    panel.acceptApplication(userID: userID)
  }

  /// "Reject" on the first row.
  public func rejectFirst() {
    guard let userID = rows.first else { return }
    rows.removeFirst()
    panel.rejectApplication(userID: userID)
  }
}
