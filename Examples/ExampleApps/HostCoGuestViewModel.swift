import AtomicXCore
import Combine

/// A host's (or admin's) co-guest panel: the applications waiting, the guests on seats, and the
/// buttons to accept, reject and invite.
public final class HostCoGuestViewModel: ObservableObject {
  @Published public private(set) var pendingApplicants: [LiveUserInfo] = []
  @Published public private(set) var connectedGuests: [SeatUserInfo] = []

  private let coGuestStore: CoGuestStore
  private var cancellables = Set<AnyCancellable>()

  public init(liveID: String) {
    coGuestStore = CoGuestStore.create(liveID: liveID)
    coGuestStore.hostEventPublisher
      .receive(on: DispatchQueue.main)
      .sink { [weak self] event in self?.handle(event) }
      .store(in: &cancellables)
    coGuestStore.state
      .map(\.connected)
      .receive(on: DispatchQueue.main)
      .assign(to: &$connectedGuests)
  }

  private func handle(_ event: HostEvent) {
    switch event {
    case .onGuestApplicationReceived(let guestUser):
      if !pendingApplicants.contains(where: { $0.userID == guestUser.userID }) { pendingApplicants.append(guestUser) }
    case .onGuestApplicationCancelled(let guestUser):
      pendingApplicants.removeAll { $0.userID == guestUser.userID }
    case .onGuestApplicationProcessedByOtherHost(let guestUser, _):
      pendingApplicants.removeAll { $0.userID == guestUser.userID }
    case .onHostInvitationResponded, .onHostInvitationNoResponse:
      break
    }
  }

  /// The oldest application still listed by the SDK (an application that timed out while it sat in
  /// the panel is dropped rather than answered).
  public var firstApplicant: LiveUserInfo? {
    let live = Set(coGuestStore.state.value.applicants.map(\.userID))
    pendingApplicants.removeAll { !live.contains($0.userID) }
    return pendingApplicants.first
  }

  public func acceptApplication(userID: String) {
    coGuestStore.acceptApplication(userID: userID) { [weak self] result in
      DispatchQueue.main.async {
        self?.pendingApplicants.removeAll { $0.userID == userID }
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
    coGuestStore.rejectApplication(userID: userID) { [weak self] _ in
      DispatchQueue.main.async { self?.pendingApplicants.removeAll { $0.userID == userID } }
    }
  }

  public func inviteToSeat(userID: String) {
    coGuestStore.inviteToSeat(userID: userID, seatIndex: -1, timeout: 30, extraInfo: nil) { [weak self] result in
      // No answer (-1): the server may have filed it all the same; withdraw it.
      if case .failure(let error) = result, error.code == -1 { self?.coGuestStore.cancelInvitation(inviteeID: userID) }
    }
  }
}
