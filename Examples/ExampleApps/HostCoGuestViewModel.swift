import AtomicXCore
import Combine
import Dispatch
import Foundation

/// A host's (or admin's) co-guest panel: the applications waiting, the guests on seats, and the
/// buttons to accept, reject and invite.
public final class HostCoGuestViewModel: ObservableObject {
  @Published public private(set) var pendingApplicants: [LiveUserInfo] = []
  @Published public private(set) var connectedGuests: [SeatUserInfo] = []

  private let coGuestStore: CoGuestStore
  private let seatStore: LiveSeatStore
  private var cancellables = Set<AnyCancellable>()

  public init(liveID: String) {
    coGuestStore = CoGuestStore.create(liveID: liveID)
    seatStore = LiveSeatStore.create(liveID: liveID)
    let liveList = LiveListStore.shared
    coGuestStore.hostEventPublisher
      .receive(on: DispatchQueue.main)
      .sink { [weak self] event in self?.handle(event) }
      .store(in: &cancellables)
    // `connected` lists everyone on a seat, the owner on its own seat 0 among them: the guests are
    // the others.
    coGuestStore.state
      .map { state in
        let owner = liveList.state.value.currentLive.liveOwner.userID
        return state.connected.filter { $0.userID != owner }
      }
      .receive(on: DispatchQueue.main)
      .assign(to: &$connectedGuests)
    coGuestStore.state
      .map(\.applicants)
      .receive(on: DispatchQueue.main)
      .assign(to: &$pendingApplicants)
  }

  private func handle(_ event: HostEvent) {
    switch event {
    case .onGuestApplicationReceived(let guestUser):
      print("[Host] \(guestUser.userName) asks for a seat")
    case .onGuestApplicationProcessedByOtherHost(let guestUser, let hostUser):
      print("[Host] \(hostUser.userName) answered \(guestUser.userName) first")
    case .onGuestApplicationCancelled, .onHostInvitationResponded, .onHostInvitationNoResponse:
      break
    }
  }

  /// The oldest application the SDK still lists: one that timed out, was withdrawn or was answered
  /// by another admin is gone from it, so it is never answered twice.
  public var firstApplicant: LiveUserInfo? { coGuestStore.state.value.applicants.first }

  public func acceptApplication(userID: String) {
    coGuestStore.acceptApplication(userID: userID) { [weak self] result in
      DispatchQueue.main.async {
        guard let self, case .failure(let error) = result, error.code == -2340 || error.code == 100205 else { return }
        // No room after all: say no, so that the viewer is not left waiting for its timeout (if
        // the application is still listed).
        if self.coGuestStore.state.value.applicants.contains(where: { $0.userID == userID }) {
          self.rejectApplication(userID: userID)
        }
      }
    }
  }

  public func rejectApplication(userID: String) {
    coGuestStore.rejectApplication(userID: userID) { result in
      if case .failure(let error) = result { print("[Host] reject failed code=\(error.code)") }
    }
  }

  /// "End live" (the owner): everyone leaves, every request fails.
  public func endLive() {
    LiveListStore.shared.endLive { result in
      if case .failure(let error) = result { print("[Host] end live failed code=\(error.code)") }
    }
  }

  /// "Remove from seat" on a guest's seat.
  public func kick(userID: String) {
    seatStore.kickUserOutOfSeat(userID: userID) { result in
      if case .failure(let error) = result { print("[Host] kick \(userID) failed code=\(error.code)") }
    }
  }

  /// "Lock" on an empty guest seat: nobody may take it until it is unlocked.
  public func lockSeat(_ index: Int) {
    seatStore.lockSeat(seatIndex: index) { result in
      if case .failure(let error) = result { print("[Host] lock \(index) failed code=\(error.code)") }
    }
  }

  /// "Unlock": the seat is open again. A seat left locked is a seat lost for the rest of the live,
  /// so an unlock that failed is sent again, backing off to every 30 s (an outage can last
  /// minutes; a fixed three tries gave up inside one): with no answer (-1) it may not have reached
  /// the server; refused (-3, or not in the room, or not logged in) it was sent while this app was
  /// out of the room (entering it again, logging in again) and must follow it back in. Only a live
  /// that ended (-2100) or a seat that does not exist (-1001) ends the retries.
  public func unlockSeat(_ index: Int, retryAfter: Double = 2) {
    seatStore.unlockSeat(seatIndex: index) { [weak self] result in
      guard case .failure(let error) = result, error.code != -2100, error.code != -1001 else { return }
      print("[Host] unlock \(index) failed code=\(error.code); again in \(retryAfter) s")
      DispatchQueue.main.asyncAfter(deadline: .now() + retryAfter) {
        self?.unlockSeat(index, retryAfter: min(30, retryAfter * 2))
      }
    }
  }

  /// Drags a guest to another seat (an occupied target stays as it is).
  public func move(userID: String, toSeat index: Int) {
    seatStore.moveUserToSeat(userID: userID, targetIndex: index, policy: .abortWhenOccupied) { result in
      if case .failure(let error) = result { print("[Host] move \(userID) failed code=\(error.code)") }
    }
  }

  public func inviteToSeat(userID: String) {
    // The audience list shows everyone in the room: not those the SDK shows seated or applying
    // (read from the SDK's state now, not from this panel's copy, which follows a main-queue hop
    // behind it).
    let state = coGuestStore.state.value
    guard !state.connected.contains(where: { $0.userID == userID }),
      !state.applicants.contains(where: { $0.userID == userID })
    else { return }
    coGuestStore.inviteToSeat(userID: userID, seatIndex: -1, timeout: 30, extraInfo: nil) { [weak self] result in
      // No answer (-1): the server may have filed it all the same; withdraw it.
      if case .failure(let error) = result, error.code == -1 { self?.withdrawInvitation(userID: userID) }
    }
  }

  /// Withdraws an invitation that may stand on the server unseen by this SDK. A withdrawal with no
  /// answer (-1) is sent again, backing off to every 30 s: the invitation may have been filed with
  /// no timeout, and then nothing but a withdrawal ever ends it.
  private func withdrawInvitation(userID: String, retryAfter: Double = 2) {
    coGuestStore.cancelInvitation(inviteeID: userID) { [weak self] result in
      guard case .failure(let error) = result, error.code == -1 else { return }
      DispatchQueue.main.asyncAfter(deadline: .now() + retryAfter) {
        self?.withdrawInvitation(userID: userID, retryAfter: min(30, retryAfter * 2))
      }
    }
  }
}
