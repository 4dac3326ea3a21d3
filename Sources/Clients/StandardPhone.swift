import LiveStack
import SimKernel

/// Settings of ``StandardPhone``; profile keys under `calls`.
public struct PhoneSettings: Sendable {
  /// Time between a phone's dial attempts.
  public var dialEvery: Distribution
  /// Probability that a dial is a group call.
  public var groupProbability: Ratio
  /// The most callees of a group call (2 to 8).
  public var maxGroupCallees: Int
  /// Probability that a call is video.
  public var videoProbability: Ratio
  /// The timeout passed to `calls()` (zero: the server's 30 s).
  public var timeout: SimDuration
  /// Probability of answering (otherwise declining) a call.
  public var answerProbability: Ratio
  /// Time from ringing to answering or declining.
  public var answerAfter: Distribution
  /// Time in a connected call before hanging up.
  public var talkTime: Distribution
  /// How long a caller waits for an answer before cancelling; `nil`: until the timeout.
  public var patience: Distribution?
  /// The certificate ID the app passes to `setVOIP` (0: the app skips the upload, so no VoIP push
  /// reaches it).
  public var certificateID: UInt32 = 1
  /// Probability that a dial calls a viewer in a live room instead of another phone.
  public var liveCallees: Ratio = .zero
  /// Probability that the caller of a group call, once it is connected, invites one more phone
  /// into it (`CallStore.invite`) after ``answerAfter``.
  public var inviteProbability: Ratio = .zero

  /// Creates settings.
  public init(
    dialEvery: Distribution, groupProbability: Ratio, maxGroupCallees: Int, videoProbability: Ratio,
    timeout: SimDuration, answerProbability: Ratio, answerAfter: Distribution, talkTime: Distribution,
    patience: Distribution?
  ) {
    precondition((2...8).contains(maxGroupCallees), "a group call has 2 to 8 callees")
    self.dialEvery = dialEvery
    self.groupProbability = groupProbability
    self.maxGroupCallees = maxGroupCallees
    self.videoProbability = videoProbability
    self.timeout = timeout
    self.answerProbability = answerProbability
    self.answerAfter = answerAfter
    self.talkTime = talkTime
    self.patience = patience
  }
}

/// The built-in phone user: the PushKit flow and the conversation delegate apps usually write, with
/// their usual mistakes corrected:
///
/// - At launch it creates its VoIP push registry at once, subscribes, then logs in to IM and then
///   TUILogin; the token is saved when it arrives and uploaded only after both logins, with a
///   non-zero certificate (again whenever the token changes).
/// - Every VoIP push is reported to the system before its handler returns, even a malformed one
///   (which rings from an unknown caller) or a duplicate (which is ended straight away).
/// - A Join is fulfilled only after `CallStore.accept` succeeded, and failed otherwise; a Join that
///   arrives before the SDK knows the call (cold start) waits for it. Start and Merge, which it
///   does not support, are failed. When a call ends, its conversation is ended.
/// - In the foreground it dials other phones now and then (sometimes a group), answers in the app,
///   hangs up after talking, and cancels when nobody answers within its patience.
public final class StandardPhone: ClientBehavior {
  /// The settings.
  public let settings: PhoneSettings
  /// The phone users it may call.
  public let phones: Range<UInt32>
  /// Mistakes from the catalogue these apps make (none by default).
  @exclusivity(unchecked) public var mistakes = MistakeSet()

  /// What the app keeps in memory (lost when the process dies).
  struct AppMemory {
    /// Invalidates stale dial timers.
    var epoch: UInt32 = 0
    /// The saved VoIP token (0: none yet).
    var token: UInt16 = 0
    /// The conversation shown for the current call, and that call as ID + 1.
    var uuid: UInt32 = 0
    var uuidCall: UInt32 = 0
    /// A Join waiting for the SDK to learn of its call.
    var pendingJoin: ConversationAction?
    /// A call to decline once the SDK learns of it (its push could not be shown), as ID + 1.
    var pendingDecline: UInt32 = 0
    /// The last call the SDK said had ended, as ID + 1 (a later push for it is stale).
    var lastEnded: UInt32 = 0
    /// The server ended this process's session (kicked offline, or the login expired): it does not
    /// log in again, so no call can be answered until the app starts anew.
    var signedOut = false
    /// The microphone is opening (a second open before it answers would be a mistake).
    var micOpening = false
  }
  let memory: Column<AppMemory>
  /// The phones in the group call each caller placed (its callees and those it invited), while it
  /// lasts: whom it may invite is someone else. Kept only with `calls.inviteProbability`.
  var groupCallees: [UInt32: [UInt32]] = [:]

  lazy var microphoneOpened: Completion = { [unowned(unsafe) self] c, result in
    self.memory[self.slot(c)].micOpening = false
    let inCall = c.callStore.state == .accept
    if case .success = result, !inCall {
      c.device.closeLocalMicrophone()  // the call ended while the microphone was opening
    } else if case .failure = result, inCall {
      c.callStore.hangup()  // no microphone for the call
    }
  }

  enum Tag: UInt32 {
    case dial = 1
    case answer, hangUp, giveUp, lateReport, logIn, invite
  }

  public func timerName(tag: UInt32) -> String? { Tag(rawValue: tag).map { "\($0)" } }

  /// Creates the behaviour for phones `phones`.
  public init(settings: PhoneSettings, phones: Range<UInt32>, userCount: Int = 0) {
    self.settings = settings
    self.phones = phones
    memory = Column(repeating: AppMemory(), count: phones.count)
  }

  @inline(__always) func slot(_ c: Client) -> Int { Int(c.user - phones.lowerBound) }

  public func start(_ c: inout Client) {
    memory[slot(c)] = AppMemory()
    // The mistake: the registry is created behind the sign-in, after both logins.
    if !mistakes.contains(.lateRegistry) { c.pushRegistry.register() }
    c.callStore.subscribe()
    c.login.subscribeEvents()
    if mistakes.contains(.callsBeforeLogin) {
      // The mistake: dialling (itself, even) before the login finished.
      c.callStore.calls(participantIds: [c.user], mediaType: .audio)
    }
    logIn(&c)
  }

  /// Both logins, then the token upload; a login that got no answer (-1) is tried again.
  func logIn(_ c: inout Client) {
    c.login.login { [unowned(unsafe) self] c, result in
      guard case .success = result else { return self.loginFailed(result, &c) }
      c.tuiLogin.login { [unowned(unsafe) self] c, result in
        guard case .success = result else { return self.loginFailed(result, &c) }
        // A login that was on its way when the server signed the app out signs it in again.
        self.memory[self.slot(c)].signedOut = false
        if self.mistakes.contains(.lateRegistry) { c.pushRegistry.register() }
        self.uploadToken(&c)
        self.settlePendingJoin(&c)
        self.settleStaleConversation(&c)
        self.scheduleDial(&c)
      }
    }
  }

  /// No call can be answered before a login succeeds. A login the server may not have heard is
  /// sent again; a Join waiting for it keeps waiting if the new login can answer before the
  /// Join's deadline, else it fails and the call is declined (once the SDK knows of it).
  func loginFailed(_ result: Result<Void, SeatError>, _ c: inout Client) {
    let s = slot(c)
    var retrying = false
    if case .failure(.failed) = result, !memory[s].signedOut {
      retrying = true
      c.schedule(after: SDKTiming.resendAfter, tag: Tag.logIn.rawValue, arg: 0)
    }
    if let pending = memory[s].pendingJoin,
      !retrying || c.now + SDKTiming.resendAfter + c.runtime.requestTimeout >= pending.deadline
    {
      memory[s].pendingJoin = nil
      complete(pending, fulfilled: false, &c)
      if memory[s].uuidCall != 0 { decline(memory[s].uuidCall - 1, &c) }
      endConversation(&c, reason: .failed)
    }
  }

  public func pushTokenUpdated(_ token: UInt16, _ c: inout Client) {
    memory[slot(c)].token = token
    if mistakes.contains(.tokenBeforeLogin) {
      // The mistake: uploaded at once, whatever the login state.
      return c.timPush.setVOIP(certificateID: settings.certificateID, token: token)
    }
    uploadToken(&c)
  }

  /// Uploads the saved token once both logins succeeded, with a non-zero certificate.
  func uploadToken(_ c: inout Client) {
    let token = memory[slot(c)].token
    guard token != 0, settings.certificateID != 0, c.login.isLogin, c.tuiLogin.isLogin else { return }
    c.timPush.setVOIP(certificateID: settings.certificateID, token: token)
  }

  public func incomingPush(_ push: VoIPPush, _ c: inout Client) {
    if mistakes.contains(.pushNotReported) {
      // The mistake: the report runs in a task that is not awaited and comes too late.
      return c.schedule(after: .seconds(6), tag: Tag.lateReport.rawValue, arg: push.call)
    }
    if mistakes.contains(.reportInUnawaitedTask) {
      // The mistake: `Task { try await report(...) }`, not awaited; the task runs just after the
      // handler returned.
      return c.schedule(after: .milliseconds(1), tag: Tag.lateReport.rawValue, arg: push.call)
    }
    // The mistake: `guard let callerName = payload["voip_caller_name"] else { return }`.
    if mistakes.contains(.returnOnMalformedPush) && push.callerName == nil { return }
    let manager = c.conversations
    let uuid = manager.makeUUID()
    let s = slot(c)
    if mistakes.contains(.joinWrongUUID) {
      // The mistake, as apps often write it: one "current" UUID, set before the report, whatever becomes of it.
      memory[s].uuid = uuid
      memory[s].uuidCall = push.call + 1
      try? manager.reportNewIncomingConversation(uuid: uuid)
      return
    }
    do {
      try manager.reportNewIncomingConversation(uuid: uuid)
    } catch {
      // Reported all the same, but nothing shows: unless the call is already on screen, decline
      // it so that the caller is not left ringing.
      let shown = memory[s].uuidCall == push.call + 1 && manager.isActive(uuid: memory[s].uuid)
      if !shown && !mistakes.contains(.noFallbackBeyondLimit) { decline(push.call, &c) }
      return
    }
    let shown = memory[s].uuid != 0 && manager.isActive(uuid: memory[s].uuid)
    // A connected SDK knows every call ringing it: a push for another one is stale. A malformed
    // payload still names its call: it rings, from an unknown caller.
    let stale = c.login.isLogin && c.tuiLogin.isLogin && c.callStore.currentCall != push.call
    if stale || (shown && memory[s].uuidCall == push.call + 1) || memory[s].lastEnded == push.call + 1
      || (c.callStore.currentCall != nil && c.callStore.currentCall != push.call) || memory[s].signedOut
    {
      // Nothing to ring for: a duplicate or stale push, a call while in
      // another, or a push for a session the server has ended.
      manager.reportEnded(uuid: uuid, reason: .failed)
      return
    }
    replaceConversation(with: uuid, call: push.call, shown: shown, &c)
  }

  /// The app's conversation is now `uuid` for `call`: the one it replaces ends, and a Join tapped
  /// on that one is failed (it was for another call).
  func replaceConversation(with uuid: UInt32, call: UInt32, shown: Bool, _ c: inout Client) {
    let s = slot(c)
    if shown { c.conversations.reportEnded(uuid: memory[s].uuid, reason: .failed) }
    if let pending = memory[s].pendingJoin {
      memory[s].pendingJoin = nil
      complete(pending, fulfilled: false, &c)
    }
    memory[s].uuid = uuid
    memory[s].uuidCall = call + 1
  }

  public func conversationAction(_ action: ConversationAction, _ c: inout Client) {
    let s = slot(c)
    let manager = c.conversations
    let mine = action.uuid == memory[s].uuid && memory[s].uuid != 0
    switch action.kind {
    case .join:
      if !mine && mistakes.contains(.joinWrongUUID) {
        // The mistake: the Join is taken for the current conversation, whose UI says "answered".
        return manager.fulfill(action)
      }
      if mistakes.contains(.fulfillBeforeAccept) {
        // The mistake: fulfilled at once, whatever accept says.
        c.callStore.accept()
        return manager.fulfill(action)
      }
      guard mine else { return manager.fail(action) }
      let call = memory[s].uuidCall - 1
      let store = c.callStore
      if store.currentCall == call && store.state == .waiting {
        accept(action, &c)
      } else if store.currentCall == call && store.state == .accept {
        manager.fulfill(action)  // answered already, before the app was restarted
      } else if store.currentCall == nil && !(c.login.isLogin && c.tuiLogin.isLogin) && !memory[s].signedOut {
        memory[s].pendingJoin = action  // cold start: the SDK learns of the call at login
      } else {
        manager.fail(action)
        endConversation(&c, reason: .failed)
      }
    case .end:
      if mine {
        let store = c.callStore
        if store.currentCall == memory[s].uuidCall - 1 {
          if store.state == .waiting { store.reject() } else if store.state == .accept { store.hangup() }
        } else if memory[s].uuidCall != 0 {
          decline(memory[s].uuidCall - 1, &c)  // the SDK does not know the call yet (a cold start)
        }
        memory[s].uuid = 0
        memory[s].uuidCall = 0
        memory[s].pendingJoin = nil
      }
      manager.fulfill(action)
    case .start, .merge:
      // The mistake: unhandled actions are left to time out.
      if !mistakes.contains(.unhandledActionsNotFailed) { manager.fail(action) }
    }
  }

  /// Answers the call of the shown conversation; the Join is fulfilled only once that succeeded.
  func accept(_ action: ConversationAction, _ c: inout Client) {
    let call = memory[slot(c)].uuidCall
    c.callStore.accept { [unowned(unsafe) self] c, result in
      // accept() answers whatever rings: if that turned out to be another call (the shown one
      // ended meanwhile), this Join did not succeed.
      if case .success = result, call != 0, c.callStore.currentCall == call - 1 {
        self.complete(action, fulfilled: true, &c)
      } else {
        self.complete(action, fulfilled: false, &c)
        // Only the conversation of that call: a reconnect may have brought a newer one meanwhile.
        if self.memory[self.slot(c)].uuidCall == call { self.endConversation(&c, reason: .failed) }
      }
    }
  }

  /// Completes `action` unless its timeout passed (the system has given up on it).
  func complete(_ action: ConversationAction, fulfilled: Bool, _ c: inout Client) {
    guard c.now < action.deadline else { return }
    if fulfilled { c.conversations.fulfill(action) } else { c.conversations.fail(action) }
  }

  /// Declines `call` now if the SDK knows it is ringing, else as soon as it learns of it.
  func decline(_ call: UInt32, _ c: inout Client) {
    let store = c.callStore
    if store.currentCall == call && store.state == .waiting {
      store.reject()
    } else if store.currentCall == nil {
      memory[slot(c)].pendingDecline = call + 1
    }
  }

  /// After login: a Join still waiting finds no call in the SDK, so the call is gone.
  func settlePendingJoin(_ c: inout Client) {
    let s = slot(c)
    guard let pending = memory[s].pendingJoin, c.callStore.currentCall == nil else { return }
    memory[s].pendingJoin = nil
    complete(pending, fulfilled: false, &c)
    endConversation(&c, reason: .unanswered)
  }

  /// Once logged in, the SDK knows every call ringing it: a conversation shown for a push whose
  /// call it does not know (the call ended before the login, so its end never reached this process)
  /// is over.
  func settleStaleConversation(_ c: inout Client) {
    let s = slot(c)
    guard memory[s].uuid != 0, memory[s].uuidCall != 0, memory[s].pendingJoin == nil,
      c.callStore.currentCall != memory[s].uuidCall - 1
    else { return }
    memory[s].lastEnded = memory[s].uuidCall
    endConversation(&c, reason: .remoteEnded)
  }

  func endConversation(_ c: inout Client, reason: ConversationEndReason) {
    let s = slot(c)
    guard memory[s].uuid != 0 else { return }
    c.conversations.reportEnded(uuid: memory[s].uuid, reason: reason)
    memory[s].uuid = 0
    memory[s].uuidCall = 0
  }

  func scheduleDial(_ c: inout Client) {
    c.schedule(after: settings.dialEvery.sampleDuration(&c.random), tag: Tag.dial.rawValue, arg: memory[slot(c)].epoch)
  }

  public func timer(tag: UInt32, arg: UInt32, _ c: inout Client) {
    let store = c.callStore
    switch Tag(rawValue: tag) {
    case .dial:
      guard arg == memory[slot(c)].epoch, c.login.isLogin else { return }
      guard store.state == .none else { return }  // the call's end schedules the next dial
      // Only someone looking at the app dials.
      guard c.app.state == .foreground else { return scheduleDial(&c) }
      dial(&c)
    case .answer:
      guard store.currentCall == arg, store.state == .waiting, memory[slot(c)].uuidCall != arg + 1 else { return }
      if c.random.chance(settings.answerProbability) { store.accept() } else { store.reject() }
    case .logIn:
      if !(c.login.isLogin && c.tuiLogin.isLogin) && !memory[slot(c)].signedOut { logIn(&c) }
    case .invite:
      invite(call: arg, &c)
    case .lateReport:
      let uuid = c.conversations.makeUUID()
      if (try? c.conversations.reportNewIncomingConversation(uuid: uuid)) != nil {
        memory[slot(c)].uuid = uuid
        memory[slot(c)].uuidCall = arg + 1
      }
    case .hangUp, .giveUp:
      guard store.currentCall == arg else { return }
      if tag == Tag.giveUp.rawValue && store.state != .waiting { return }
      store.hangup()
    case nil:
      preconditionFailure("unknown phone timer tag \(tag)")
    }
  }

  func dial(_ c: inout Client) {
    if c.random.chance(settings.liveCallees), let viewer = randomViewer(&c) {
      memory[slot(c)].epoch &+= 1
      let media: CallMediaType = c.random.chance(settings.videoProbability) ? .video : .audio
      c.callStore.calls(participantIds: [viewer], mediaType: media, timeout: settings.timeout) {
        [unowned(unsafe) self] c, result in
        if case .failure = result { self.scheduleDial(&c) } else { self.armPatience(&c) }
      }
      return
    }
    var count = 1
    if c.random.chance(settings.groupProbability) {
      count = 2 + Int(c.random.next(below: UInt64(settings.maxGroupCallees - 1)))
    }
    count = min(count, phones.count - 1)
    guard count >= 1 else { return }
    var callees: [UInt32] = []
    while callees.count < count {
      let u = phones.lowerBound + UInt32(c.random.next(below: UInt64(phones.count)))
      if u != c.user && !callees.contains(u) { callees.append(u) }
    }
    let media: CallMediaType = c.random.chance(settings.videoProbability) ? .video : .audio
    memory[slot(c)].epoch &+= 1
    c.callStore.calls(participantIds: callees, mediaType: media, timeout: settings.timeout) {
      [unowned(unsafe) self] c, result in
      if case .failure = result { return self.scheduleDial(&c) }
      if callees.count > 1 && self.settings.inviteProbability != .zero { self.groupCallees[c.user] = callees }
      if callees.count > 1 && self.mistakes.contains(.inviteWhileRinging), let call = c.callStore.currentCall {
        // The mistake: someone added at once, while the call still rings.
        self.groupCallees[c.user] = callees
        self.invite(call: call, whileRinging: true, &c)
      }
      self.armPatience(&c)
    }
  }

  /// The connected caller of a group call invites one more phone, not already in it (`whileRinging`:
  /// the mistake of doing so before anyone answered).
  func invite(call: UInt32, whileRinging: Bool = false, _ c: inout Client) {
    guard c.callStore.currentCall == call, c.callStore.state == (whileRinging ? .waiting : .accept),
      var inCall = groupCallees[c.user],
      inCall.count + 2 <= CallService.maxParticipants, inCall.count + 1 < phones.count
    else { return }
    var u = c.user
    while u == c.user || inCall.contains(u) {
      u = phones.lowerBound + UInt32(c.random.next(below: UInt64(phones.count)))
    }
    inCall.append(u)
    groupCallees[c.user] = inCall
    c.callStore.invite(participantIds: [u])
  }

  public func callEvent(_ event: CallEvent, _ c: inout Client) {
    let s = slot(c)
    switch event {
    case .received(_, let call):
      if memory[s].pendingDecline == call + 1 {
        memory[s].pendingDecline = 0
        return c.callStore.reject()
      }
      if memory[s].uuidCall == call + 1 && c.conversations.isActive(uuid: memory[s].uuid) {
        // The system UI rings; a Join that came first is answered now.
        if let pending = memory[s].pendingJoin {
          memory[s].pendingJoin = nil
          accept(pending, &c)
        }
      } else if c.app.state == .foreground {
        c.schedule(after: settings.answerAfter.sampleDuration(&c.random), tag: Tag.answer.rawValue, arg: call)
      } else {
        // Ringing in the background without a push: show the system UI.
        let uuid = c.conversations.makeUUID()
        let shown = memory[s].uuid != 0 && c.conversations.isActive(uuid: memory[s].uuid)
        if (try? c.conversations.reportNewIncomingConversation(uuid: uuid)) != nil {
          replaceConversation(with: uuid, call: call, shown: shown, &c)
        } else if !mistakes.contains(.noFallbackBeyondLimit) {
          c.callStore.reject()  // nothing can show it
        }
      }
    case .started(_, let call):
      if memory[s].uuidCall == call + 1, let pending = memory[s].pendingJoin {
        // The call was answered already (by this app before it was restarted): the Join is done.
        memory[s].pendingJoin = nil
        complete(pending, fulfilled: true, &c)
      }
      // A call that starts while the last one's microphone is still opening uses that open.
      if !c.device.microphoneOn && !memory[s].micOpening {
        memory[s].micOpening = true
        c.device.openLocalMicrophone(completion: microphoneOpened)
      }
      c.schedule(after: settings.talkTime.sampleDuration(&c.random), tag: Tag.hangUp.rawValue, arg: call)
      if groupCallees[c.user] != nil, c.callStore.currentCall == call, c.random.chance(settings.inviteProbability) {
        c.schedule(after: settings.answerAfter.sampleDuration(&c.random), tag: Tag.invite.rawValue, arg: call)
      }
    case .ended(_, let call, _, _):
      if !groupCallees.isEmpty && c.callStore.state == .none { groupCallees[c.user] = nil }
      if c.device.microphoneOn { c.device.closeLocalMicrophone() }
      if memory[s].pendingDecline == call + 1 { memory[s].pendingDecline = 0 }
      memory[s].lastEnded = call + 1
      if memory[s].uuidCall == call + 1 && !mistakes.contains(.conversationNotEnded) {
        if let pending = memory[s].pendingJoin {
          memory[s].pendingJoin = nil
          complete(pending, fulfilled: false, &c)
        }
        endConversation(&c, reason: .remoteEnded)
      }
      memory[s].epoch &+= 1
      if c.login.isLogin && c.tuiLogin.isLogin { scheduleDial(&c) }
    }
  }

  /// A viewer of a random room (from the address book: the phone does not know who is in a live).
  func randomViewer(_ c: inout Client) -> UInt32? {
    let rooms = c.runtime.audienceRange
    guard !rooms.isEmpty else { return nil }
    let range = rooms[Int(c.random.next(below: UInt64(rooms.count)))]
    guard !range.isEmpty else { return nil }
    return range.lowerBound + UInt32(c.random.next(below: UInt64(range.count)))
  }

  public func loginEvent(_ event: LoginEvent, _ c: inout Client) {
    // Logged out by the server: any call is over for this app.
    memory[slot(c)].signedOut = true
    if c.device.microphoneOn { c.device.closeLocalMicrophone() }
    if let pending = memory[slot(c)].pendingJoin {
      memory[slot(c)].pendingJoin = nil
      complete(pending, fulfilled: false, &c)
    }
    endConversation(&c, reason: .failed)
  }

  /// After `calls()` succeeds the caller may give up before anyone answers.
  func armPatience(_ c: inout Client) {
    guard let patience = settings.patience, let call = c.callStore.currentCall else { return }
    c.schedule(after: patience.sampleDuration(&c.random), tag: Tag.giveUp.rawValue, arg: call)
  }
}
