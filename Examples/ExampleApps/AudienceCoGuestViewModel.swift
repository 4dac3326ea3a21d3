import AtomicXCore
import Combine
import Foundation

/// A viewer's co-guest screen: apply for a seat, wait for the host, open the microphone and camera
/// once accepted, leave the seat.
///
/// Written the way the AtomicXCore documentation teaches, with the two habits that keep it honest
/// under lost and reordered events: the "apply" button does nothing unless the screen is idle, and
/// the seat list (not the events alone) decides whether this viewer is on a seat.
@MainActor public final class AudienceCoGuestViewModel: ObservableObject {
  public enum CoGuestStatus {
    case idle
    case applying
    case connected
  }

  @Published public private(set) var status: CoGuestStatus = .idle
  @Published public private(set) var errorMessage: String?

  private let userID: String
  private let coGuestStore: CoGuestStore
  private var cancellables = Set<AnyCancellable>()
  private let applyTimeout: TimeInterval = 30
  private var openingDevices = false
  /// Whether the devices are opening for a seat only the seat list showed (not an acceptance).
  private var takingShownSeat = false
  /// When the current application was sent.
  private var appliedAt = DispatchTime.now()
  /// Counts applications, so that a watchdog knows whether its own is still the one out.
  private var attempt = 0
  /// The armed watchdog of the application out (cancelled when the next one is sent).
  private var watchdog: DispatchWorkItem?
  private var lifecycleObservers: [NSObjectProtocol] = []
  private var reopeningCamera = false
  /// Whether a microphone open is on its way.
  private var microphoneOpening = false
  /// Whether a leave of a seat the guest cannot use is on its way: until it is answered the app
  /// neither applies nor takes a seat the list shows (the leave would take the guest off it).
  private var leavingSeat = false
  /// When the app last gave up a seat it could not use (its microphone failed).
  private var seatGivenUpAt: DispatchTime?
  /// Whether an earlier application may still stand on the server unseen (its apply got no
  /// answer), so that its answer may yet arrive.
  private var earlierMayStand = false
  /// When the last application that got no answer was sent.
  private var mayStandSince: DispatchTime?
  /// Whether an application stands that the app cannot tell apart (100202 after several with no
  /// answer): the next answer is taken for its.
  private var standingUnknown = false
  /// Whether the current application's apply was answered.
  private var applyAnswered = false
  /// When a timeout was last taken for an earlier application's and let pass.
  private var timeoutLetPassAt: DispatchTime?
  /// The last co-guest event heard, and when.
  private var lastEvent: (event: GuestEvent, at: DispatchTime)?

  public init(liveID: String, userID: String) {
    self.userID = userID
    coGuestStore = CoGuestStore.create(liveID: liveID)
    coGuestStore.guestEventPublisher
      .receive(on: DispatchQueue.main)
      .sink { [weak self] event in self?.handle(event) }
      .store(in: &cancellables)
    coGuestStore.state
      .map { $0.connected.contains { $0.userID == userID } }
      .removeDuplicates()
      .receive(on: DispatchQueue.main)
      .sink { [weak self] seated in self?.seatListChanged(seated: seated) }
      .store(in: &cancellables)
    // iOS suspends camera capture in the background (the microphone goes on): close the camera
    // there, so the room does not see a frozen picture, and open it again on return.
    lifecycleObservers = [
      NotificationCenter.default.addObserver(
        forName: UIApplication.didEnterBackgroundNotification, object: nil, queue: .main
      ) { _ in DeviceStore.shared.closeLocalCamera() },
      NotificationCenter.default.addObserver(
        forName: UIApplication.willEnterForegroundNotification, object: nil, queue: .main
      ) { [weak self] _ in
        // Delivered on the main queue (`queue: .main`): the view model's own actor.
        MainActor.assumeIsolated {
          guard let self, self.status == .connected, !self.reopeningCamera,
            DeviceStore.shared.state.value.cameraStatus == .off
          else { return }
          self.reopeningCamera = true
          DeviceStore.shared.openLocalCamera(isFront: true) { _ in
            self.reopeningCamera = false
            // The session may have ended, or the app gone away again, while it opened.
            if self.status != .connected || UIApplication.shared.applicationState == .background {
              DeviceStore.shared.closeLocalCamera()
            }
          }
        }
      },
    ]
  }

  private func handle(_ event: GuestEvent) {
    // The SDK does not de-duplicate a retransmitted event: the same event again within a second
    // is the copy, not news (a new application tapped between the two would be ended by it).
    let now = DispatchTime.now()
    defer { lastEvent = (event, now) }
    // A copy can trail its original by longer on a slow channel: within three seconds, while a
    // new application's apply is still unanswered (no answer to it can have come yet), it is the
    // copy too.
    // But a copy travels right behind its original on the co-guest channel: when the apply of an
    // application sent after the original has been answered since (its answer travels on that
    // channel too), the event is the new application's own.
    if let last = lastEvent, last.event == event {
      let gap = now.uptimeNanoseconds &- last.at.uptimeNanoseconds
      let answeredSince = applyAnswered && appliedAt.uptimeNanoseconds > last.at.uptimeNanoseconds
      if !answeredSince && (gap < 1_000_000_000 || (gap < 3_000_000_000 && status == .applying && !applyAnswered)) {
        return
      }
    }
    switch event {
    case .onGuestApplicationResponded(let isAccept, let hostUser):
      guard status == .applying else { return }
      if isAccept {
        print("[CoGuest] \(hostUser.userName) accepted")
        if !openingDevices { openDevices() }
      } else if !applyAnswered && earlierMayStand {
        // Declined before this application was even filed: the earlier one's, which got no
        // answer but stood on the server all the same. The current one waits on.
        earlierMayStand = false
      } else {
        status = .idle
        errorMessage = "The host declined your request"
      }
    case .onGuestApplicationNoResponse(let reason):
      // A timeout sooner than the timeout is an earlier application's, held up on the way while
      // this one was sent: the current application still stands.
      let waited = DispatchTime.now().uptimeNanoseconds &- appliedAt.uptimeNanoseconds
      // (After a 100202 the one application standing is not known for sure: its answer is the next.)
      if reason == .timeout && waited < UInt64(applyTimeout * 1e9) && !standingUnknown {
        timeoutLetPassAt = DispatchTime.now()
        return
      }
      standingUnknown = false
      if status == .applying && !openingDevices {
        status = .idle
        errorMessage = "No answer (\(reason)); try again"
      }
    case .onKickedOffSeat(let seatIndex, let hostUser):
      print("[CoGuest] removed from seat \(seatIndex) by \(hostUser.userName)")
      // The seat list may have ended the session already, and the viewer applied again: the
      // kick is about the session that was, not the new application.
      if status == .connected || openingDevices { leftSeat() }
    case .onHostInvitationReceived, .onHostInvitationCancelled:
      break
    }
  }

  /// The seat list is the truth: a seat that appears means the application was accepted even if
  /// the event was lost; a seat that disappears ends the session.
  private func seatListChanged(seated: Bool) {
    if seated && status == .applying && !openingDevices {
      openDevices()
    } else if seated && status == .idle && !openingDevices && !leavingSeat {
      // Seated while the screen says idle: an application the app had given up on (its answer
      // lost, its withdrawal too late) went through after all. The seat is the viewer's: take it.
      status = .applying
      errorMessage = nil
      takingShownSeat = true
      openDevices()
    } else if !seated && status == .applying && openingDevices && takingShownSeat {
      // The seat the list showed, which the devices are opening for, is gone again (a late list
      // showed it for a moment): the opening ends in its completions, which find it no longer
      // wanted (an application tapped meanwhile is not what it was for). (An opening an
      // acceptance started goes on: the list may only lag behind the acceptance.)
      takingShownSeat = false
      openingDevices = false
      status = .idle
    } else if !seated && status == .connected {
      leftSeat()
    }
  }

  public func applyForSeat(seatIndex: Int = -1) {
    guard status == .idle, !leavingSeat else { return }
    // The button is debounced: a second tap within half a second of the last apply is the same
    // gesture. (A rejection can arrive twice, back to back, and an apply tapped between the two
    // would be ended by the copy while it stands on the server.)
    guard DispatchTime.now().uptimeNanoseconds &- appliedAt.uptimeNanoseconds >= 500_000_000 || attempt == 0 else {
      return
    }
    status = .applying
    errorMessage = nil
    takingShownSeat = false
    let before = appliedAt
    appliedAt = DispatchTime.now()
    let sentAt = appliedAt
    attempt += 1
    applyAnswered = false
    let mine = attempt
    // A watchdog: if neither an answer nor the SDK's timeout arrived well after the timeout (a
    // message lost on the way), the application is over; withdraw it and say so.
    watchdog?.cancel()
    let watchdog = DispatchWorkItem { [weak self] in
      guard let self, self.attempt == mine, self.status == .applying, !self.openingDevices else { return }
      self.withdraw(attempt: mine)
    }
    self.watchdog = watchdog
    DispatchQueue.main.asyncAfter(deadline: .now() + applyTimeout + 5, execute: watchdog)
    coGuestStore.applyForSeat(seatIndex: seatIndex, timeout: applyTimeout, extraInfo: nil) { [weak self] result in
      DispatchQueue.main.async {
        // Only this attempt's answer: a late failure of an earlier one (held up in the network
        // while the viewer gave up and applied again) must not end the new application.
        if let self, self.attempt == mine { self.applyAnswered = true }
        if let self, case .success = result, self.attempt == mine, self.status == .idle, !self.openingDevices,
          !self.leavingSeat, (self.seatGivenUpAt?.uptimeNanoseconds ?? 0) < sentAt.uptimeNanoseconds
        {
          // Filed, though the screen went back to idle meanwhile (a seat an earlier application
          // got came and went while this answer was on its way): the application stands, and its
          // own answer or timeout will follow. (Not when a seat was given up since it was sent,
          // even if that leave is done: that seat was this application's answer, come before its
          // filing was confirmed, and the server holds no application any more.)
          self.status = .applying
          return
        }
        guard let self, case .failure(let error) = result, self.attempt == mine, self.status == .applying,
          !self.openingDevices
        else {
          return
        }
        // No answer (-1): the application may stand on the server all the same.
        if error.code == -1 {
          self.earlierMayStand = true
          self.mayStandSince = sentAt
        }
        // 100202: an application of this viewer already stands (one whose answer was lost); it
        // is still applying, and that application's answer will come.
        if error.code == 100202 {
          // A timeout let pass while this apply was unanswered may have been the standing
          // application's own (the answer and the event travel apart, and either can come first):
          // its end is then already here, and no other will come. Withdraw it to be sure: the
          // withdrawal takes it back, or finds nothing standing any more.
          if let passed = self.timeoutLetPassAt, passed.uptimeNanoseconds >= sentAt.uptimeNanoseconds {
            return self.withdraw(attempt: mine)
          }
          // The standing application is the earlier one, sent when it was: the last one that got
          // no answer (refused ones filed nothing).
          self.appliedAt = self.mayStandSince ?? before
          self.standingUnknown = true
          return
        }
        // 100203: already on a seat (an earlier session whose leave was lost): the seat is the
        // viewer's, take it.
        if error.code == 100203 {
          self.takingShownSeat = true
          return self.openDevices()
        }
        self.status = .idle
        self.errorMessage = error.code == -2340 ? "All co-guest places are taken" : "Apply failed: \(error.message)"
      }
    }
  }

  /// The watchdog withdraws an application that got no answer. The screen says idle once the
  /// withdrawal is answered. One that got no answer either (-1) may not have reached the server,
  /// where the application still stands (and one filed with no timeout stands for good), so the
  /// screen goes on saying "applying" and the withdrawal is sent again, a few seconds apart (the
  /// screen says "applying": an answer must follow the partition's end promptly), until the
  /// server answers it (a fixed few tries gave up inside a partition).
  private func withdraw(attempt mine: Int, retryAfter: Double = 2) {
    coGuestStore.cancelApplication { [weak self] result in
      DispatchQueue.main.async {
        guard let self else { return }
        if self.tookBackStanding(result, attempt: mine) { return }
        guard self.attempt == mine, self.status == .applying, !self.openingDevices else { return }
        if case .failure(let error) = result, error.code == -1 {
          DispatchQueue.main.asyncAfter(deadline: .now() + retryAfter) {
            self.withdraw(attempt: mine, retryAfter: min(4, retryAfter * 2))
          }
          return
        }
        // Too late to withdraw (-2311): the application was answered. If the seat list already
        // shows the seat, it was an acceptance whose event was lost, and the list will not change
        // again to say so: take the seat.
        if case .failure(let error) = result, error.code == -2311, self.isSeated, !self.leavingSeat {
          self.takingShownSeat = true
          return self.openDevices()
        }
        self.status = .idle
        self.errorMessage = "No answer; try again"
      }
    }
  }

  /// An earlier application's withdrawal (the user's, or the watchdog's) went through while the
  /// current apply, refused with 100202, waits on the application standing: that was the one
  /// withdrawn, and nothing of this viewer is pending any more. Returns whether it was so.
  private func tookBackStanding(_ result: Result<Void, ErrorInfo>, attempt mine: Int) -> Bool {
    guard attempt != mine, case .success = result, standingUnknown, status == .applying, !openingDevices else {
      return false
    }
    standingUnknown = false
    status = .idle
    return true
  }

  public func cancelApplication() {
    guard status == .applying, !openingDevices else { return }
    let mine = attempt
    coGuestStore.cancelApplication { [weak self] result in
      DispatchQueue.main.async {
        guard let self else { return }
        if self.tookBackStanding(result, attempt: mine) { return }
        guard self.attempt == mine, self.status == .applying, !self.openingDevices else { return }
        switch result {
        case .success:
          self.status = .idle
        case .failure(let error) where error.code == -2311:
          // An answer won the race. An acceptance shows in the seat list (which opens the
          // devices, or has shown it already, and the seat is taken now); anything else, or an
          // answer that never arrives, ends the attempt here.
          if !self.isSeated {
            self.status = .idle
          } else if !self.leavingSeat {
            self.takingShownSeat = true
            self.openDevices()
          }
        case .failure:
          // Not heard (-1): the withdrawal may have gone through, and then no answer or timeout of
          // the application ever comes. Send it again until the server answers it.
          self.withdraw(attempt: mine)
        }
      }
    }
  }

  public func acceptInvitation(inviterID: String) {
    guard status == .idle, !leavingSeat else { return rejectInvitation(inviterID: inviterID) }
    status = .applying
    attempt += 1
    let mine = attempt
    coGuestStore.acceptInvitation(inviterID: inviterID) { [weak self] result in
      DispatchQueue.main.async {
        guard let self, self.attempt == mine, self.status == .applying else { return }
        switch result {
        case .success: if !self.openingDevices { self.openDevices() }
        case .failure(let error):
          // An earlier application, given up on with no answer, may have been accepted while this
          // answer was on its way (the invitation is then already processed, -2311): the devices
          // opening for that seat go on.
          guard !self.openingDevices else { return }
          self.status = .idle
          self.errorMessage = "Could not accept: \(error.message)"
        }
      }
    }
  }

  public func rejectInvitation(inviterID: String) {
    coGuestStore.rejectInvitation(inviterID: inviterID) { result in
      if case .failure(let error) = result { print("[CoGuest] reject failed code=\(error.code)") }
    }
  }

  /// Leaving the live room: off the seat first, devices closed.
  public func leaveRoom() {
    if status == .connected || openingDevices { coGuestStore.disConnect(completion: nil) }
    if status == .applying && !openingDevices { coGuestStore.cancelApplication(completion: nil) }
    closeDevices()
    openingDevices = false
    status = .idle
    LiveListStore.shared.leaveLive(completion: nil)
  }

  public func disconnect() {
    guard status == .connected else { return }
    coGuestStore.disConnect { [weak self] result in
      DispatchQueue.main.async {
        // Only if nothing new began meanwhile: the seat list may have ended the session already and
        // the viewer applied again.
        guard let self, self.status == .connected else { return }
        switch result {
        case .success:
          self.leftSeat()
        case .failure(let error):
          // No answer (-1: the request may never have reached the server) or a refusal: the guest
          // may well still be on its seat. Stay connected and let the seat list decide; it ends
          // the session if the server did take the guest off.
          self.errorMessage = "Could not leave the seat (\(error.code)); try again"
        }
      }
    }
  }

  private func openDevices() {
    openingDevices = true
    // An opening already on its way (one the session that just ended started) goes on for this
    // session: its completions read the status when they come. A second open would be refused as
    // "already opening".
    guard !microphoneOpening else { return }
    microphoneOpening = true
    DeviceStore.shared.openLocalMicrophone { [weak self] micResult in
      guard let self else { return }
      self.microphoneOpening = false
      // Closed since it was asked for (the session it was for ended): open it again for this one.
      if case .success = micResult, self.status == .applying, self.openingDevices,
        DeviceStore.shared.state.value.microphoneStatus == .off
      {
        return self.openDevices()
      }
      // No longer wanted: the session it was for ended, or the seat it was for is gone and the
      // screen shows a new application, whose acceptance has not come (a failure now is not its).
      guard self.status == .applying, self.openingDevices else {
        self.openingDevices = false
        return DeviceStore.shared.closeLocalMicrophone()
      }
      if case .failure(let error) = micResult {
        print("[CoGuest] microphone failed code=\(error.code)")
        self.openingDevices = false
        self.errorMessage = "Microphone unavailable"
        self.giveUpSeat()
        DispatchQueue.main.async { self.status = .idle }
        return
      }
      DeviceStore.shared.openLocalCamera(isFront: true) { _ in
        DispatchQueue.main.async {
          guard self.status == .applying else {
            self.openingDevices = false
            return self.closeDevices()
          }
          // Opened for a session that ended while the camera opened (its end closed the
          // microphone, and the viewer applied again): the new application waits on, and its
          // acceptance opens the devices again (or an opening on its way finishes the job).
          guard self.openingDevices, DeviceStore.shared.state.value.microphoneStatus == .on else {
            if !self.openingDevices { DeviceStore.shared.closeLocalCamera() }
            return
          }
          self.openingDevices = false
          // A camera failure leaves the guest on audio only; so does the background, until return.
          self.status = .connected
          if UIApplication.shared.applicationState == .background { DeviceStore.shared.closeLocalCamera() }
          self.confirmSeat()
        }
      }
    }
  }

  /// An acceptance can be a late one, of an earlier application whose session is long over (held
  /// up, or repeated, on the way): the seat list says whether the guest really sits. If it shows
  /// no seat a while after the devices opened, the acceptance was not this application's: close
  /// the devices and wait on, as before it came.
  private func confirmSeat() {
    let session = attempt
    Timer.scheduledTimer(withTimeInterval: 3, repeats: false) { [weak self] _ in
      guard let self, self.attempt == session, self.status == .connected, !self.isSeated else { return }
      self.closeDevices()
      self.status = .applying
    }
  }

  /// Leaves a seat the guest cannot use (its microphone failed). A leave that got no answer may
  /// never have reached the server: while the list still shows the viewer seated and the screen
  /// idle, it is sent again, backing off to 8 s between tries, for as long as it takes (a few
  /// tries give up inside an outage, and the room then sees a guest with no microphone).
  /// Meanwhile the "apply" button is off: an application sent now would be answered by the seat
  /// the leave then takes away.
  private func giveUpSeat(backoff: Double = 2) {
    leavingSeat = true
    seatGivenUpAt = DispatchTime.now()
    coGuestStore.disConnect { [weak self] result in
      guard case .failure = result else {
        self?.leavingSeat = false
        return
      }
      DispatchQueue.main.asyncAfter(deadline: .now() + backoff) {
        guard let self else { return }
        // Retried while the list shows the seat and no session holds it (an application's late
        // answer may have set the screen to "applying" meanwhile: the seat is still unusable).
        guard self.status != .connected, !self.openingDevices, self.isSeated else {
          self.leavingSeat = false
          return
        }
        self.giveUpSeat(backoff: min(backoff * 2, 8))
      }
    }
  }

  /// Whether the seat list shows this viewer on a seat now.
  private var isSeated: Bool { coGuestStore.state.value.connected.contains { $0.userID == userID } }

  private func leftSeat() {
    closeDevices()
    openingDevices = false
    takingShownSeat = false
    status = .idle
  }

  private func closeDevices() {
    DeviceStore.shared.closeLocalCamera()
    DeviceStore.shared.closeLocalMicrophone()
  }
}
