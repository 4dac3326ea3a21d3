import LiveStack
import SimKernel

/// When an audience member tries again after an attempt ends, per outcome. `nil` means never.
public struct RetryPolicy: Sendable {
  /// After a host rejected the application.
  public var rejected: Distribution?
  /// After the application timed out.
  public var timedOut: Distribution?
  /// After -2340 (package limit): waiting does not lift a plan limit while the guests stay, so the
  /// default is never.
  public var seatLimit: Distribution?
  /// After 100205 (all seats taken).
  public var allSeatsTaken: Distribution?
  /// After being removed from the seat by someone else.
  public var kicked: Distribution?
  /// After any other failure.
  public var other: Distribution?

  /// Creates a policy.
  public init(
    rejected: Distribution?, timedOut: Distribution?, seatLimit: Distribution?, allSeatsTaken: Distribution?,
    kicked: Distribution?, other: Distribution?
  ) {
    self.rejected = rejected
    self.timedOut = timedOut
    self.seatLimit = seatLimit
    self.allSeatsTaken = allSeatsTaken
    self.kicked = kicked
    self.other = other
  }

  /// The delay before retrying after an apply call failed with `error`.
  public func delay(after error: SeatError) -> Distribution? {
    switch error {
    case .seatLimitExceeded: return seatLimit
    case .allSeatsTaken: return allSeatsTaken
    default: return other
    }
  }
}

/// Settings of ``StandardAudience``; every one is a profile key under `audience`.
public struct AudienceSettings: Sendable {
  /// Time from joining the room to leaving it.
  public var stay: Distribution
  /// Probability that a viewer applies at all.
  public var applyProbability: Ratio
  /// Time from joining (or leaving a seat) to tapping "apply".
  public var applyAfter: Distribution
  /// The `timeout` passed to `applyForSeat` (zero: none).
  public var applyTimeout: SimDuration
  /// How long the viewer waits for an answer before cancelling; `nil`: forever.
  public var patience: Distribution?
  /// Time in the foreground before the viewer's app goes to the background (`nil`: it never does).
  public var backgroundEvery: Distribution?
  /// Time in the background before the viewer comes back.
  public var backgroundFor: Distribution = .exponential(mean: 30e9)
  /// Time on the seat before leaving it.
  public var seatTime: Distribution
  /// The most applications one viewer files.
  public var maxApplies: Int
  /// When to try again.
  public var retry: RetryPolicy
  /// Time to answer an invitation.
  public var invitationThink: Distribution
  /// Probability of accepting an invitation.
  public var acceptInvitation: Ratio
  /// Whether the room is in free mode (take a seat directly instead of applying).
  public var freeMode: Bool

  /// Creates settings.
  public init(
    stay: Distribution, applyProbability: Ratio, applyAfter: Distribution, applyTimeout: SimDuration,
    patience: Distribution?, seatTime: Distribution, maxApplies: Int, retry: RetryPolicy,
    invitationThink: Distribution, acceptInvitation: Ratio, freeMode: Bool
  ) {
    self.stay = stay
    self.applyProbability = applyProbability
    self.applyAfter = applyAfter
    self.applyTimeout = applyTimeout
    self.patience = patience
    self.seatTime = seatTime
    self.maxApplies = maxApplies
    self.retry = retry
    self.invitationThink = invitationThink
    self.acceptInvitation = acceptInvitation
    self.freeMode = freeMode
  }
}

/// The built-in audience member: an `AudienceCoGuestViewModel` as apps write it, corrected where
/// such view models usually go wrong.
///
/// - Its "connected" state follows the seat list, not callbacks alone: a seat it appears on makes it
///   open devices even if the accept event was lost, and a seat it disappears from ends the session.
/// - -2340 (package limit) is not "wait for a free seat": it retries only if the profile says so.
/// - 100202 (already in the queue) on a new application means an earlier one that got no answer
///   stands: it keeps showing "applying" for that one. An application that got no answer (-1) is
///   withdrawn, since the server may hold it all the same. An answer that arrives before its apply
///   call's own answer is about an earlier application, and changes nothing (the answer and the
///   events share the co-guest channel); an accepted invitation whose seat reached the seat list
///   before the answer to `acceptInvitation` began its session there; an application the
///   server files after the viewer gave up on it (its cancel overtook it) is withdrawn.
/// - A microphone or camera open still under way serves the session or call that stands when it
///   completes: a device is never opened twice.
/// - An invitation that arrives while applying is declined; `alreadySeated` is handled by the seat
///   list.
/// - When phone users may call viewers (`calls.liveCallees`), a call that rings while the viewer is
///   applying or on a seat is declined, since the live holds the microphone; an idle viewer answers
///   as a phone user would, opens the microphone for the call, and neither applies nor accepts an
///   invitation until the call ends. A seat that arrives anyway is left at once, and a call that
///   connects while a seat session began is hung up.
public final class StandardAudience: ClientBehavior {
  /// The settings.
  public let settings: AudienceSettings
  /// How a viewer answers calls (`nil`: viewers are never called).
  public var callSettings: PhoneSettings?
  /// Mistakes from the catalogue these viewers make (none by default).
  @exclusivity(unchecked) public var mistakes = MistakeSet()
  /// Per viewer: subscriptions made (the re-subscribing mistake multiplies handlers).
  lazy var subscriptionCount = Column<UInt8>(repeating: 1, count: epoch.count)
  let applies: ColumnView<UInt8>
  let epoch: ColumnView<UInt32>
  /// Per viewer: the calls under way, as bits: ``micOpening``, ``cameraOpening`` (a session that
  /// begins while an open of the last one is still under way waits for it instead of opening the
  /// device a second time), ``invitationUnanswered``, ``invitationAnswered``.
  let underWay: ColumnView<UInt8>
  static let micOpening: UInt8 = 1
  static let cameraOpening: UInt8 = 2
  /// An accepted invitation whose `acceptInvitation` answer has not come, and whose seat has not
  /// reached the seat list either.
  static let invitationUnanswered: UInt8 = 8
  /// The viewer answered the invitation it holds: a second think timer for it (the invitation
  /// event came twice) does not answer again, even while the SDK still lists it.
  static let invitationAnswered: UInt8 = 32
  /// The seat list seated the viewer while it applied, before any answer to the application came
  /// (see ``mayStandFromMs``).
  static let listedWhileApplying: UInt8 = 64
  /// The viewer shows "applying" for an application it gave up on whose cancel got no answer: once
  /// that application ends, it does not apply again for it.
  static let withdrawing: UInt8 = 4
  /// Per viewer the seat list seated while it was applying, before any answer to the application
  /// came (the seat may be an earlier session's, held back on the seat-list channel; flagged
  /// ``listedWhileApplying``): when that application was made (milliseconds). It could still
  /// stand until its timeout from then.
  let mayStandFromMs: ColumnView<UInt32>
  /// Per viewer: cancels of its applications still unanswered or waiting to be sent again. No new
  /// application goes out while one is: it could reach the server after the new one and cancel it.
  let cancelsOut: ColumnView<UInt8>
  /// Per viewer: `applyForSeat` calls whose answer has not come. An application answer that
  /// arrives while the last one's has not is about an earlier application: the server answers
  /// `applyForSeat` as soon as it files it, before any answer to it, on the same co-guest channel.
  let appliesUnanswered: ColumnView<UInt8>
  /// Per viewer: when it last applied (milliseconds).
  let appliedAtMs: ColumnView<UInt32>
  /// The columns behind the views above (completions reach them through an unowned reference to
  /// the behaviour, and a view costs no retain per access).
  let bytes: [Column<UInt8>]
  let words: [Column<UInt32>]

  /// Timer tags.
  enum Tag: UInt32 {
    case apply = 1
    case giveUp, leaveSeat, leaveRoom, answerInvitation, answerCall, hangUpCall, leaveSeatAgain, withdraw, cancelAgain
  }

  /// Creates the behaviour for `userCount` users.
  public init(settings: AudienceSettings, userCount: Int) {
    self.settings = settings
    bytes = (0..<4).map { _ in Column(repeating: 0, count: userCount) }
    words = (0..<3).map { _ in Column(repeating: 0, count: userCount) }
    applies = bytes[0].view
    underWay = bytes[1].view
    cancelsOut = bytes[2].view
    appliesUnanswered = bytes[3].view
    epoch = words[0].view
    appliedAtMs = words[1].view
    mayStandFromMs = words[2].view
  }

  /// `true`: a built-in viewer's status is its UI, and the UI oracles hold it to the truth.
  public var statusIsUI: Bool { true }

  /// How many applications `user` filed.
  public func applications(of user: UInt32) -> Int { Int(applies[Int(user)]) }

  public func start(_ client: inout Client) {
    client.coGuest.subscribeGuestEvents()
    client.liveSeat.subscribe()
    client.login.subscribeEvents()
    client.liveList.subscribe()
    if callSettings != nil { client.callStore.subscribe() }
    client.login.login(completion: loggedIn)
  }

  /// The answer to a viewer's login: on to its room, or gone (made once, shared by every viewer).
  lazy var loggedIn: Completion = { [unowned(unsafe) self] c, result in
    if case .success = result { c.liveList.joinLive(completion: self.roomJoined) } else { c.status = .left }
  }

  /// The answer to a viewer's `joinLive`.
  lazy var roomJoined: Completion = { [unowned(unsafe) self] c, result in
    if case .success = result { self.joined(&c) } else { c.status = .left }
  }

  func joined(_ c: inout Client) {
    guard c.status == .away else { return }
    c.status = .idle
    c.schedule(after: settings.stay.sampleDuration(&c.random), tag: Tag.leaveRoom.rawValue)
    if c.random.chance(settings.applyProbability) {
      c.schedule(after: settings.applyAfter.sampleDuration(&c.random), tag: Tag.apply.rawValue)
    }
  }

  // Completions made once, so that calls do not allocate a closure each. They hold `self`
  // unowned (the behaviour owns them) and unchecked (it outlives every call it makes).
  lazy var applyAnswered: Completion = { [unowned(unsafe) self] c, result in
    self.appliesUnanswered[Int(c.user)] &-= 1
    if case .failure(let error) = result, error != .alreadyInQueue, error != .failed {
      self.answerCame(&c)  // refused: no application stands behind a seat the list gave
    }
    if case .success = result, c.status == .idle, !self.settings.freeMode,
      c.liveSeat.mySeatIndex == nil || self.listedApplication(c.user) != nil
    {
      // The viewer gave up before the server filed the application (a cancel can overtake it),
      // or while a seat the list gave was taken for an earlier session's (a session that then
      // ended, say for a failed microphone, as the list still shows it): it stands now, so
      // withdraw it.
      self.answerCame(&c)
      return self.withdraw(&c)
    }
    if case .failure(.failed) = result, c.status != .applying, !self.settings.freeMode,
      self.listedApplication(c.user) != nil
    {
      // No answer (-1) while a seat the list gave is in session: the server may hold the
      // application all the same. The viewer no longer waits for it (were that seat an earlier
      // session's, it must not go back to "applying" for it when the seat goes): withdraw it.
      self.answerCame(&c)
      return self.withdraw(&c)
    }
    guard case .failure(let error) = result, c.status == .applying else { return }
    // 100202: an earlier application whose answer never came (-1) stands on the server after all.
    // It is this one: keep showing "applying" and wait for its answer, or give up as usual.
    if error == .alreadyInQueue { return }
    // The mistake: -2340 read as "full, wait for a seat"; the UI keeps showing "applying".
    if error == .seatLimitExceeded && self.mistakes.contains(.seatLimitAsWait) {
      self.epoch[Int(c.user)] &+= 1  // waiting for a seat to free up: no give-up timer applies
      return
    }
    c.status = .idle
    // No answer (-1): the server may have filed it all the same. Withdraw it, so that no
    // application stands that the viewer no longer waits for.
    if error == .failed && !self.settings.freeMode { self.withdraw(&c) }
    self.retry(after: self.settings.retry.delay(after: error), &c)
  }
  /// The microphone opened or failed to, for a seat session or for a call, whichever stands now
  /// (a session may have ended, or a call begun, while it opened).
  lazy var microphoneOpened: Completion = { [unowned(unsafe) self] c, result in
    self.underWay[Int(c.user)] &= ~StandardAudience.micOpening
    let inCall = c.callStore.state == .accept
    guard c.status == .connecting else {
      if case .success = result, !inCall, c.status != .connected {
        c.device.closeLocalMicrophone()  // nothing needs it any more
      } else if case .failure = result, inCall {
        c.callStore.hangup()  // no microphone for the call
      }
      return
    }
    guard case .success = result else {
      // The mistake: the failure is ignored, and the session goes on without a microphone.
      if self.mistakes.contains(.micFailureIgnored) { return self.openCamera(&c) }
      // A session the list gave while an application had no answer yet: that application may
      // stand on the server, and the viewer, giving up, no longer waits for it.
      let mayStand = self.listedApplication(c.user) != nil && !self.settings.freeMode
      self.endSession(&c)
      c.coGuest.disConnect(completion: self.disconnected)
      if mayStand {
        self.answerCame(&c)
        self.withdraw(&c)
      }
      self.retry(after: self.settings.retry.other, &c)
      return
    }
    self.openCamera(&c)
  }
  lazy var cameraOpened: Completion = { [unowned(unsafe) self] c, _ in
    self.underWay[Int(c.user)] &= ~StandardAudience.cameraOpening
    // A camera failure leaves the guest audio-only.
    guard c.status == .connecting else {
      self.closeDevices(&c)
      return
    }
    c.status = .connected
    c.schedule(
      after: self.settings.seatTime.sampleDuration(&c.random), tag: Tag.leaveSeat.rawValue,
      arg: self.epoch[Int(c.user)])
    // Connected while the app is in the background: no camera until it comes back.
    if c.app.state == .background && !self.mistakes.contains(.cameraOnInBackground) { c.device.closeLocalCamera() }
  }
  /// The camera opened again on the app's return: kept only if the session and the foreground last.
  lazy var cameraReopened: Completion = { [unowned(unsafe) self] c, _ in
    self.underWay[Int(c.user)] &= ~StandardAudience.cameraOpening
    if c.device.cameraOn && (c.status != .connected || c.app.state == .background) { c.device.closeLocalCamera() }
  }
  /// A leave that failed with -1 may never have reached the server: while the seat list still
  /// shows the viewer seated, it is sent again.
  lazy var disconnected: Completion = { [unowned(unsafe) self] c, result in
    guard case .failure(.failed) = result, c.liveSeat.mySeatIndex != nil else { return }
    c.schedule(after: SDKTiming.resendAfter, tag: Tag.leaveSeatAgain.rawValue, arg: self.epoch[Int(c.user)])
  }
  lazy var invitationAccepted: Completion = { [unowned(unsafe) self] c, result in
    let first = self.underWay[Int(c.user)] & StandardAudience.invitationUnanswered != 0
    self.underWay[Int(c.user)] &= ~StandardAudience.invitationUnanswered
    switch result {
    case .success:
      // The seat list and co-guest signalling are separate channels: when the seat reached the
      // seat list first, the session began there (and may be over already); this answer is old news.
      if first { self.beginConnecting(&c) }
    case .failure(.alreadyProcessed):
      break
    case .failure:
      // Refused (a full plan, a locked seat) or unanswered and not seated since: decline it, so
      // that the host hears the invitation is over.
      if let host = c.coGuest.invitation, c.liveSeat.mySeatIndex == nil { c.coGuest.rejectInvitation(inviterID: host) }
    }
  }

  public func applyIntent(_ c: inout Client) {
    let u = Int(c.user)
    // Not while the seat list still shows a seat being left: the server would answer 100203.
    guard c.status == .idle, Int(applies[u]) < settings.maxApplies, c.liveList.isInRoom, c.liveSeat.mySeatIndex == nil,
      c.callStore.state == .none
    else { return }
    // A cancel still under way could reach the server after a new application and cancel it.
    if cancelsOut[u] != 0 {
      return c.schedule(after: SDKTiming.resendAfter, tag: Tag.apply.rawValue)
    }
    applies[u] &+= 1
    epoch[u] &+= 1
    underWay[u] &= ~StandardAudience.withdrawing
    if mistakes.contains(.resubscribeOnApply) {
      c.coGuest.subscribeGuestEvents()
      subscriptionCount[u] &+= 1
    }
    c.status = .applying
    appliesUnanswered[u] &+= 1
    appliedAtMs[u] = UInt32(truncatingIfNeeded: c.now.nanoseconds / 1_000_000)
    let answered = applyAnswered
    if settings.freeMode {
      c.liveSeat.takeSeat(index: -1, completion: answered)
    } else {
      c.coGuest.applyForSeat(seatIndex: -1, timeout: settings.applyTimeout, completion: answered)
      if mistakes.contains(.doubleTapApply) {
        // The mistake: the second tap files again, and any error of it resets the UI.
        c.coGuest.applyForSeat(seatIndex: -1, timeout: settings.applyTimeout) { c, result in
          if case .failure = result, c.status == .applying { c.status = .idle }
        }
      }
      if let patience = settings.patience {
        c.schedule(after: patience.sampleDuration(&c.random), tag: Tag.giveUp.rawValue, arg: epoch[u])
      }
    }
  }

  public func timer(tag: UInt32, arg: UInt32, _ c: inout Client) {
    switch Tag(rawValue: tag) {
    case .apply:
      applyIntent(&c)
    case .giveUp, .cancelAgain:
      let u = Int(c.user)
      if Tag(rawValue: tag) == .cancelAgain { cancelsOut[u] &-= 1 }
      guard c.status == .applying, arg == epoch[u] else { return }
      let e = epoch[u]
      sendCancel(&c) { [unowned(unsafe) self] c, result in
        let current = c.status == .applying && self.epoch[Int(c.user)] == e
        if case .failure(.failed) = result, current {
          // The server may never have heard the cancel: the application may still be pending.
          return self.cancelAgainLater(&c, tag: .cancelAgain, epoch: e)
        }
        guard current else { return }  // the application ended otherwise meanwhile
        switch result {
        case .success:
          c.status = .idle
          self.underWay[Int(c.user)] &= ~StandardAudience.withdrawing
        case .failure(.alreadyProcessed) where c.liveSeat.mySeatIndex == nil:
          // The application was already answered: a rejection or a timeout whose event never
          // came, or an accept whose seat is still on its way on the seat-list channel (it
          // connects the viewer from idle). Stop waiting for it.
          c.status = .idle
          self.retryUnlessWithdrawn(after: self.settings.retry.rejected, &c)
        case .failure:
          break
        }
      }
    case .withdraw:
      cancelsOut[Int(c.user)] &-= 1
      guard c.status == .idle, arg == epoch[Int(c.user)], c.liveSeat.mySeatIndex == nil else { return }
      withdraw(&c)
    case .leaveSeat:
      guard c.status == .connected, arg == epoch[Int(c.user)] else { return }
      endSession(&c)
      c.coGuest.disConnect(completion: disconnected)
      retry(after: settings.applyAfter, &c)
    case .leaveSeatAgain:
      guard c.status == .idle, arg == epoch[Int(c.user)], c.liveList.isInRoom, c.liveSeat.mySeatIndex != nil else {
        return
      }
      c.coGuest.disConnect(completion: disconnected)
    case .leaveRoom:
      guard c.status != .left else { return }
      closeDevices(&c)
      c.status = .left
      c.liveList.leaveLive()
    case .answerInvitation:
      let u = Int(c.user)
      guard c.status == .idle, c.coGuest.invitation == arg, underWay[u] & StandardAudience.invitationAnswered == 0
      else { return }
      underWay[u] |= StandardAudience.invitationAnswered
      guard c.callStore.state == .none else { return c.coGuest.rejectInvitation(inviterID: arg) }
      if c.random.chance(settings.acceptInvitation) {
        if mistakes.contains(.wrongInviter) {
          // The mistake: the viewer's own ID as inviterID, and the UI moves on without the answer.
          c.coGuest.acceptInvitation(inviterID: c.user)
          beginConnecting(&c)
          return
        }
        underWay[Int(c.user)] |= StandardAudience.invitationUnanswered
        c.coGuest.acceptInvitation(inviterID: arg, completion: invitationAccepted)
      } else {
        c.coGuest.rejectInvitation(inviterID: arg)
      }
    case .answerCall:
      let store = c.callStore
      guard store.currentCall == arg, store.state == .waiting else { return }
      if c.status == .idle && c.random.chance(callSettings?.answerProbability ?? .zero) {
        store.accept()
      } else {
        store.reject()
      }
    case .hangUpCall:
      if c.callStore.currentCall == arg { c.callStore.hangup() }
    case nil:
      preconditionFailure("unknown audience timer tag \(tag)")
    }
  }

  public func guestEvent(_ event: GuestEvent, _ c: inout Client) {
    switch event {
    case .onGuestApplicationResponded(let isAccept, _):
      if isAccept && mistakes.contains(.resubscribeOnApply) {
        // Every extra handler opens the devices again.
        for _ in 1..<max(1, Int(subscriptionCount[Int(c.user)])) { c.device.openLocalMicrophone() }
      }
      guard !answersEarlierApplication(c) else { return }
      let listed = listedApplication(c.user) != nil
      answerCame(&c)
      guard c.status == .applying else { return }
      if isAccept && acceptEndsWithdrawal(&c) { return }
      if isAccept && mistakes.contains(.seatExpectedWithAccept) && c.liveSeat.mySeatIndex == nil {
        // The mistake: the seat list is trusted to have the seat by now (it is another channel).
        c.status = .idle
        return retry(after: settings.retry.rejected, &c)
      }
      if isAccept && listed {
        // The seat list seated and unseated the viewer already: a seat this accept gave that is
        // still to come connects it from idle.
        c.status = .idle
      } else if isAccept {
        beginConnecting(&c)
      } else if !mistakes.contains(.rejectionIgnored) {  // the mistake: still applying
        c.status = .idle
        retryUnlessWithdrawn(after: settings.retry.rejected, &c)
      }
    case .onGuestApplicationNoResponse(let reason):
      guard reason == .timeout, !answersEarlierApplication(c) else { return }
      answerCame(&c)
      guard c.status == .applying else { return }
      c.status = .idle
      retryUnlessWithdrawn(after: settings.retry.timedOut, &c)
    case .onHostInvitationReceived(let host):
      // The invitation the SDK still lists, heard again (a duplicated message), is the one already
      // answered: answering it again would take the first answer for the second's. A new one
      // (the last ended) is answered afresh.
      if !c.coGuest.invitationHeardAgain { underWay[Int(c.user)] &= ~StandardAudience.invitationAnswered }
      if c.status == .idle && c.callStore.state == .none {
        c.schedule(
          after: settings.invitationThink.sampleDuration(&c.random), tag: Tag.answerInvitation.rawValue, arg: host)
      } else {
        c.coGuest.rejectInvitation(inviterID: host)
      }
    case .onKickedOffSeat:
      if listedApplication(c.user) != nil {
        // The seat the list gave was the application's own (a host kicked the viewer off it):
        // the application is over.
        answerCame(&c)
        if c.status == .applying {
          c.status = .idle
          return retry(after: settings.retry.kicked, &c)
        }
      }
      removedFromSeat(&c)
    case .onHostInvitationCancelled:
      break
    }
  }

  public func liveEnded(_ c: inout Client) {
    closeDevices(&c)
    c.status = .left
  }

  public func loginEvent(_ event: LoginEvent, _ c: inout Client) {
    // Logged out by the server: the session is over for this viewer.
    closeDevices(&c)
    c.status = .left
  }

  public func callEvent(_ event: CallEvent, _ c: inout Client) {
    guard let calls = callSettings else { return }
    switch event {
    case .received(_, let call):
      // The live holds the microphone while applying or seated: decline.
      guard c.status == .idle else { return c.callStore.reject() }
      c.schedule(after: calls.answerAfter.sampleDuration(&c.random), tag: Tag.answerCall.rawValue, arg: call)
    case .started(_, let call):
      // A seat that arrived while the answer was on its way holds the microphone: hang up.
      if c.status == .connecting || c.status == .connected { return c.callStore.hangup() }
      openMicrophone(&c)
      c.schedule(after: calls.talkTime.sampleDuration(&c.random), tag: Tag.hangUpCall.rawValue, arg: call)
    case .ended:
      if c.status != .connecting && c.status != .connected && c.device.microphoneOn {
        c.device.closeLocalMicrophone()
      }
    }
  }

  /// Whether an application answer reaching `c` now is about an earlier application: the server
  /// answers `applyForSeat` as soon as it files it, before any answer to it, on the same ordered
  /// channel. (An accept still seats the viewer through the seat list.)
  func answersEarlierApplication(_ c: Client) -> Bool {
    appliesUnanswered[Int(c.user)] != 0
  }

  func beginConnecting(_ c: inout Client) {
    guard c.status == .applying || c.status == .idle else { return }
    if c.callStore.state == .accept {
      // A call holds the microphone: a seat that arrives anyway (an answer that was on its way) is
      // given up.
      c.status = .idle
      c.coGuest.disConnect(completion: disconnected)
      return
    }
    epoch[Int(c.user)] &+= 1
    underWay[Int(c.user)] &= ~StandardAudience.withdrawing
    c.status = .connecting
    // An open still under way from the last session carries this one on when it completes.
    openMicrophone(&c)
  }

  /// Opens the microphone, unless an open is already under way (its completion serves whatever
  /// needs the microphone when it completes).
  func openMicrophone(_ c: inout Client) {
    let u = Int(c.user)
    if underWay[u] & StandardAudience.micOpening != 0 { return }
    underWay[u] |= StandardAudience.micOpening
    c.device.openLocalMicrophone(completion: microphoneOpened)
  }

  func openCamera(_ c: inout Client) {
    let u = Int(c.user)
    if underWay[u] & StandardAudience.cameraOpening != 0 { return }
    underWay[u] |= StandardAudience.cameraOpening
    c.device.openLocalCamera(isFront: true, completion: cameraOpened)
  }

  func removedFromSeat(_ c: inout Client) {
    guard c.status == .connecting || c.status == .connected else { return }
    endSession(&c)
    retry(after: settings.retry.kicked, &c)
  }

  func endSession(_ c: inout Client) {
    epoch[Int(c.user)] &+= 1
    closeDevices(&c)
    c.status = .idle
  }

  func closeDevices(_ c: inout Client) {
    if c.device.cameraOn { c.device.closeLocalCamera() }
    if c.device.microphoneOn { c.device.closeLocalMicrophone() }
  }

  func retry(after delay: Distribution?, _ c: inout Client) {
    guard let delay, Int(applies[Int(c.user)]) < settings.maxApplies else { return }
    c.schedule(after: delay.sampleDuration(&c.random), tag: Tag.apply.rawValue)
  }
}
