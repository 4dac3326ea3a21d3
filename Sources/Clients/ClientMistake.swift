/// The catalogue of client mistakes: each turns the built-in clients into a variant
/// that makes one real mistake, so that a run shows which invariant catches it. None is on by
/// default; a profile's `mistakes` or `--mistake ID` selects them.
public enum ClientMistake: String, Sendable, CaseIterable, Codable {
  /// 1. The host's event subscription is not retained: it never hears of applications.
  case hostEventsNotRetained = "host.events-not-retained"
  /// 2. The viewer subscribes again on every apply: handlers multiply and open the devices again.
  case resubscribeOnApply = "audience.resubscribe-on-apply"
  /// 3. The host "kicks" with `disConnect()`, which leaves the caller's own seat; the guest stays.
  case kickWithDisconnect = "host.kick-with-disconnect"
  /// 4. The UI status is set from callbacks instead of the seat list.
  case statusFromCallbacks = "audience.status-from-callbacks"
  /// 5. -2340 (package limit) is taken for "wait for a free seat": the viewer waits forever.
  case seatLimitAsWait = "audience.seat-limit-as-wait"
  /// 6. The wrong `inviterID` is passed to `acceptInvitation`, with the UI moving on regardless.
  case wrongInviter = "audience.wrong-inviter"
  /// 7. `ProcessedByOtherHost`, cancellations and timeouts are ignored: the host answers requests
  /// that are over.
  case staleApplicants = "host.stale-applicants"
  /// 8. The VoIP handler reports in a task that runs after the deadline.
  case pushNotReported = "phone.push-not-reported"
  /// 9. A Join is fulfilled before `CallStore.accept` finished, and never failed.
  case fulfillBeforeAccept = "phone.fulfill-before-accept"
  /// 10. No `.conversationEnded` when the call ends: the phone keeps ringing.
  case conversationNotEnded = "phone.conversation-not-ended"
  /// 11. Actions the app does not handle are never failed: they time out.
  case unhandledActionsNotFailed = "phone.unhandled-actions-not-failed"
  /// 12. A Join is matched against the wrong conversation UUID (a single "current" slot that a
  /// duplicate push overwrote) and fulfilled without answering.
  case joinWrongUUID = "phone.join-wrong-uuid"
  /// 13. The token is uploaded as soon as PushKit gives it, before the logins finished.
  case tokenBeforeLogin = "phone.token-before-login"
  /// 14. A push beyond `maximumConversationGroups` is neither shown nor declined: the caller rings
  /// on with no UI.
  case noFallbackBeyondLimit = "phone.no-fallback-beyond-limit"
  /// 15. `calls()` before login and to oneself.
  case callsBeforeLogin = "phone.calls-before-login"
  /// 16. The push registry is created only after sign-in: a push that cold-starts the app finds no
  /// handler.
  case lateRegistry = "phone.late-push-registry"
  /// 17. A double tap files two applications; the second's error (100202, already in the queue)
  /// resets the UI to idle while the first application stands.
  case doubleTapApply = "audience.double-tap-apply"
  /// 18. A failed microphone open is ignored: the guest shows connected, seated and silent.
  case micFailureIgnored = "audience.mic-failure-ignored"
  /// 19. A seat-list delta that takes the viewer off a seat is read as leaving it (a host moving the
  /// guest, or swapping it, sends one), and only an accepted application connects: the moved guest
  /// shows idle on its new seat.
  case moveReadAsLeave = "audience.move-read-as-leave"
  /// 20. The VoIP handler reports from a task it does not await (as the integration guide's
  /// sample does): the handler returns first, with nothing reported.
  case reportInUnawaitedTask = "phone.report-in-unawaited-task"
  /// 21. The VoIP handler returns without reporting when the payload has no `voip_caller_name`.
  case returnOnMalformedPush = "phone.return-on-malformed-push"
  /// 22. The viewer trusts the seat list to arrive before the accept event: an accept whose seat
  /// is not in the list yet is taken for a failure, and only an accept connects, so the seat that
  /// arrives a moment later is ignored.
  case seatExpectedWithAccept = "audience.seat-expected-with-accept"
  /// 23. The guest's camera is left on when the app enters the background: iOS suspends capture,
  /// and the room sees a frozen picture.
  case cameraOnInBackground = "audience.camera-on-in-background"
  /// 24. The caller of a group call adds someone while it still rings: `invite` before anyone
  /// answered, which the SDK refuses (-1203), and the person added never rings.
  case inviteWhileRinging = "phone.invite-while-ringing"
  /// 25. A rejection that reached the app is ignored: the UI stays on "applying" until the user
  /// gives up and cancels.
  case rejectionIgnored = "audience.rejection-ignored"

  /// The mistake's number in the catalogue.
  public var number: Int {
    switch self {
    case .hostEventsNotRetained: return 1
    case .resubscribeOnApply: return 2
    case .kickWithDisconnect: return 3
    case .statusFromCallbacks: return 4
    case .seatLimitAsWait: return 5
    case .wrongInviter: return 6
    case .staleApplicants: return 7
    case .pushNotReported: return 8
    case .fulfillBeforeAccept: return 9
    case .conversationNotEnded: return 10
    case .unhandledActionsNotFailed: return 11
    case .joinWrongUUID: return 12
    case .tokenBeforeLogin: return 13
    case .noFallbackBeyondLimit: return 14
    case .callsBeforeLogin: return 15
    case .lateRegistry: return 16
    case .doubleTapApply: return 17
    case .micFailureIgnored: return 18
    case .moveReadAsLeave: return 19
    case .reportInUnawaitedTask: return 20
    case .returnOnMalformedPush: return 21
    case .seatExpectedWithAccept: return 22
    case .cameraOnInBackground: return 23
    case .inviteWhileRinging: return 24
    case .rejectionIgnored: return 25
    }
  }

  /// The seeds of `profiles/mistakes.json5` within which the oracles must catch every mistake:
  /// a test holds the catalogue to it.
  public static let catchWithinSeeds: ClosedRange<UInt64> = 1...3

  /// The invariant that must catch this mistake (others may too).
  public var caughtBy: String {
    switch self {
    case .hostEventsNotRetained: return "client.events-heard"
    case .resubscribeOnApply: return "device.opened-once"
    case .kickWithDisconnect: return "coguest.disconnect-by-guest"
    case .statusFromCallbacks: return "client.not-applying-while-seated"
    case .seatLimitAsWait: return "client.view-matches-server"
    case .wrongInviter: return "client.view-matches-server"
    case .staleApplicants: return "coguest.answer-listed-applicant"
    case .pushNotReported: return "push.reported-within-deadline"
    case .fulfillBeforeAccept: return "conversation.join-after-accept"
    case .conversationNotEnded: return "conversation.ended-with-call"
    case .unhandledActionsNotFailed: return "conversation.action-completed-in-time"
    case .joinWrongUUID: return "conversation.join-after-accept"
    case .tokenBeforeLogin: return "push.token-upload-when-logged-in"
    case .noFallbackBeyondLimit: return "push.call-shown-or-declined"
    case .callsBeforeLogin: return "call.valid-use"
    case .lateRegistry: return "push.reported-within-deadline"
    case .doubleTapApply: return "ui.idle-means-nothing-pending"
    case .micFailureIgnored: return "ui.connected-means-seated"
    case .moveReadAsLeave: return "ui.idle-means-off-seat"
    case .reportInUnawaitedTask, .returnOnMalformedPush: return "push.reported-within-deadline"
    case .seatExpectedWithAccept: return "ui.idle-means-off-seat"
    case .cameraOnInBackground: return "device.camera-off-in-background"
    case .inviteWhileRinging: return "call.valid-use"
    case .rejectionIgnored: return "ui.applying-means-pending"
    }
  }

  /// One line saying what the variant does wrong.
  public var summary: String {
    switch self {
    case .hostEventsNotRetained: return "the host's event subscription is not retained: applications go unheard"
    case .resubscribeOnApply: return "re-subscribing on every apply: handlers multiply and open the devices again"
    case .kickWithDisconnect: return "the host kicks with disConnect(): it leaves its own seat, the guest stays"
    case .statusFromCallbacks: return "the UI status follows callbacks, not the seat list"
    case .seatLimitAsWait: return "-2340 is treated as \"wait for a free seat\": the viewer waits forever"
    case .wrongInviter: return "acceptInvitation gets the wrong inviterID and the UI moves on regardless"
    case .staleApplicants: return "ProcessedByOtherHost, cancellations and timeouts ignored: answers to dead requests"
    case .pushNotReported: return "the VoIP handler reports in a task that runs after the deadline"
    case .fulfillBeforeAccept: return "Join fulfilled before CallStore.accept finished, never failed"
    case .conversationNotEnded: return "no .conversationEnded when the call ends"
    case .unhandledActionsNotFailed: return "unhandled conversation actions are never failed"
    case .joinWrongUUID: return "a Join matched against the wrong conversation UUID"
    case .tokenBeforeLogin: return "the VoIP token uploaded before IM login and TUILogin finished"
    case .noFallbackBeyondLimit: return "no fallback when a report exceeds maximumConversationGroups"
    case .callsBeforeLogin: return "calls() before login and to oneself"
    case .lateRegistry: return "the push registry is created behind the sign-in"
    case .doubleTapApply: return "a double-tapped apply: the second tap's 100202 resets the UI to idle"
    case .micFailureIgnored: return "a failed microphone open is ignored: connected, seated and silent"
    case .moveReadAsLeave: return "a move read as leaving the seat: the moved guest shows idle on its new seat"
    case .reportInUnawaitedTask:
      return "the VoIP handler reports from an unawaited task: it returns with nothing reported"
    case .returnOnMalformedPush: return "the VoIP handler returns without reporting a push with no voip_caller_name"
    case .seatExpectedWithAccept:
      return "an accept whose seat is not in the seat list yet is taken for a failure; the seat that follows is ignored"
    case .cameraOnInBackground: return "the camera is left on when the app enters the background: a frozen picture"
    case .inviteWhileRinging:
      return "invite() into a group call that still rings: refused, and the person added never rings"
    case .rejectionIgnored: return "a rejection that reached the app is ignored: the UI stays applying"
    }
  }
}

/// A set of mistakes as bits, tested without hashing on the clients' hot paths.
public struct MistakeSet: Sendable, Equatable {
  /// Bit `number - 1` per mistake.
  public var bits: UInt32 = 0

  /// No mistakes.
  public init() {}

  /// The mistakes in `mistakes`.
  public init<S: Sequence>(_ mistakes: S) where S.Element == ClientMistake {
    for m in mistakes { bits |= 1 << UInt32(m.number - 1) }
  }

  /// Whether `m` is in the set.
  @inline(__always) public func contains(_ m: ClientMistake) -> Bool { bits & (1 << UInt32(m.number - 1)) != 0 }

  /// Whether the set is empty.
  public var isEmpty: Bool { bits == 0 }
}

/// The built-in clients of a run: correct, or with the catalogued mistakes planted.
public struct StandardClients {
  /// The viewers' behaviour.
  public let audience: StandardAudience
  /// The owners' behaviour.
  public let host: StandardHost
  /// The admins' behaviour.
  public let admin: StandardHost
  /// The phone users' behaviour (`nil` without phones).
  public let phone: StandardPhone?

  /// The built-in clients with these settings (`phone`: of the phone users in `phones`, who
  /// may also call viewers), among `userCount` users, with `mistakes` planted.
  public init(
    audience: AudienceSettings, host: HostSettings, admin: HostSettings, phone: PhoneSettings?,
    phones: Range<UInt32>, userCount: Int, mistakes: Set<ClientMistake>
  ) {
    let planted = MistakeSet(mistakes)
    self.audience = StandardAudience(settings: audience, userCount: userCount)
    if let phone, phone.liveCallees != .zero { self.audience.callSettings = phone }
    self.audience.mistakes = planted
    let desk = ReviewDesk()
    self.host = StandardHost(settings: host, desk: desk)
    self.host.mistakes = planted
    self.admin = StandardHost(settings: admin, desk: desk)
    self.admin.mistakes = planted
    self.phone = phone.map { StandardPhone(settings: $0, phones: phones, userCount: userCount) }
    self.phone?.mistakes = planted
  }
}
