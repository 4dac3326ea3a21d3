/// Every checked invariant, in report order. The raw value is the invariant's index in the
/// catalogue and the violation log; the `id` is its stable name in reports and profiles.
public enum InvariantID: Int, Sendable, CaseIterable {
  case singleOccupancy
  case lockedNoNewcomer
  case capacity
  case requiresGrant
  case oneTerminal
  case noDuplicateApplicants
  case notApplyingWhileSeated
  case captureOnlyWhileSeated
  case terminalWithinTimeout
  case viewMatchesServer
  case oneActiveCall
  case callReleased
  case tokenUploadWhenLoggedIn
  case pushReported
  case actionCompletedOnce
  case joinAfterAccept
  case conversationEndedWithCall
  case conversationLimits
  case conversationEnds
  case eventsHeard
  case openedOnce
  case disconnectByGuest
  case answerListedApplicant
  case actionInTime
  case callShownOrDeclined
  case callValidUse
  case uiIdleWhilePending
  case uiConnectedMeansSeated
  case uiApplyingMeansPending
  case uiIdleMeansOffSeat
  case uiCallScreenMatchesCall
  case cameraOffInBackground
  case appInsideUser
  case appPlatformContract
  case appCrashFree
  case lockReleased
  case inviteIdleOnly
  case noStaleRingTimer
  case uiApplicantsMatchSDK

  /// The invariant's stable ID, kind and description.
  public var invariant: Invariant {
    switch self {
    case .singleOccupancy:
      return Invariant(
        id: "seat.single-occupancy", kind: .safety,
        description: "a seat holds at most one user and a user sits on at most one seat")
    case .lockedNoNewcomer:
      return Invariant(
        id: "seat.locked-no-newcomer", kind: .safety,
        description: "nobody sits on a locked seat they were not on when it was locked")
    case .capacity:
      return Invariant(
        id: "seat.capacity", kind: .safety,
        description: "occupied seats never exceed the usable seat count, connected guests never the package limit")
    case .requiresGrant:
      return Invariant(
        id: "seat.connected-requires-grant", kind: .safety,
        description: "a guest sits only after an accepted application, an accepted invitation, a free take or a move")
    case .oneTerminal:
      return Invariant(
        id: "request.one-terminal-outcome", kind: .safety,
        description: "each request reaches its client with at most one terminal answer, and nothing after it")
    case .noDuplicateApplicants:
      return Invariant(
        id: "coguest.no-duplicate-applicants", kind: .safety,
        description: "a host's applicants list holds no one twice and no one already connected")
    case .notApplyingWhileSeated:
      return Invariant(
        id: "client.not-applying-while-seated", kind: .safety,
        description: "no client shows \"applying\" while its seat list shows it seated")
    case .captureOnlyWhileSeated:
      return Invariant(
        id: "device.capture-only-while-seated", kind: .safety,
        description:
          "capture devices are on only while the client is connecting or connected on a seat, or in an accepted call")
    case .terminalWithinTimeout:
      return Invariant(
        id: "request.terminal-within-timeout", kind: .liveness,
        description: "every application or invitation with a timeout ends within the timeout plus the slack")
    case .viewMatchesServer:
      return Invariant(
        id: "client.view-matches-server", kind: .liveness,
        description:
          "once nothing is in flight for a client, its status, seat, devices, invitation, seat list and applicants agree with the server"
      )
    case .oneActiveCall:
      return Invariant(
        id: "call.one-active-per-user", kind: .safety,
        description: "a user is in at most one call: no call rings or starts for a phone already in another")
    case .callReleased:
      return Invariant(
        id: "call.released-within-timeout", kind: .liveness,
        description: "a call nobody answered ends within its timeout plus the slack, releasing the caller")
    case .tokenUploadWhenLoggedIn:
      return Invariant(
        id: "push.token-upload-when-logged-in", kind: .safety,
        description:
          "the VoIP token is uploaded only after IM login and TUILogin, with a non-zero certificate and token")
    case .pushReported:
      return Invariant(
        id: "push.reported-within-deadline", kind: .liveness,
        description:
          "every VoIP push handed to the app is reported as an incoming conversation before its handler finishes and within the deadline"
      )
    case .actionCompletedOnce:
      return Invariant(
        id: "conversation.action-completed-once", kind: .safety,
        description: "each conversation action gets at most one fulfill() or fail(), never after its timeout")
    case .joinAfterAccept:
      return Invariant(
        id: "conversation.join-after-accept", kind: .safety,
        description: "a Join is fulfilled only once CallStore.accept succeeded for its call")
    case .conversationEndedWithCall:
      return Invariant(
        id: "conversation.ended-with-call", kind: .safety,
        description: "no conversation stays active longer than the grace period after its call ended")
    case .conversationLimits:
      return Invariant(
        id: "conversation.within-limits", kind: .safety,
        description: "active conversations never exceed the conversation manager's configured limits")
    case .conversationEnds:
      return Invariant(
        id: "conversation.ends", kind: .liveness,
        description: "every reported conversation ends once its call is over")
    case .eventsHeard:
      return Invariant(
        id: "client.events-heard", kind: .safety,
        description:
          "every SDK event a client's role relies on reaches a subscribed handler (subscriptions are retained)")
    case .openedOnce:
      return Invariant(
        id: "device.opened-once", kind: .safety,
        description: "a capture device is opened only while it is off and not already opening")
    case .disconnectByGuest:
      return Invariant(
        id: "coguest.disconnect-by-guest", kind: .safety,
        description:
          "only a guest leaves a seat with disConnect(); hosts and admins remove guests with kickUserOutOfSeat")
    case .answerListedApplicant:
      return Invariant(
        id: "coguest.answer-listed-applicant", kind: .safety,
        description: "a host or admin answers only applications its SDK still lists")
    case .actionInTime:
      return Invariant(
        id: "conversation.action-completed-in-time", kind: .liveness,
        description: "every conversation action gets fulfill() or fail() before its timeout")
    case .callShownOrDeclined:
      return Invariant(
        id: "push.call-shown-or-declined", kind: .liveness,
        description:
          "by the report deadline, a call announced by a push is shown as a conversation or no longer rings")
    case .callValidUse:
      return Invariant(
        id: "call.valid-use", kind: .safety,
        description:
          "calls() is made only when logged in, never to oneself, an unknown user or too many; invite() only from a connected call"
      )
    case .uiIdleWhilePending:
      return Invariant(
        id: "ui.idle-means-nothing-pending", kind: .safety,
        description:
          "a viewer's UI (an app's, or a built-in client's status) does not show idle for longer than the settle time while the server holds an application of the user"
      )
    case .uiConnectedMeansSeated:
      return Invariant(
        id: "ui.connected-means-seated", kind: .safety,
        description:
          "a viewer's UI does not show connected for longer than the settle time while the user is off its seat or its microphone is closed"
      )
    case .uiApplyingMeansPending:
      return Invariant(
        id: "ui.applying-means-pending", kind: .safety,
        description:
          "a viewer's UI does not show applying for longer than the settle time while the server holds no application of the user (an answer lost on its way excuses it until the client moves on)"
      )
    case .uiIdleMeansOffSeat:
      return Invariant(
        id: "ui.idle-means-off-seat", kind: .safety,
        description:
          "a viewer's UI does not show idle for longer than the settle time while the server has the user on a seat"
      )
    case .uiCallScreenMatchesCall:
      return Invariant(
        id: "ui.call-screen-matches-call", kind: .safety,
        description:
          "an app's call screen is not up for longer than the settle time once the user is in no call, nor down while the call is connected"
      )
    case .cameraOffInBackground:
      return Invariant(
        id: "device.camera-off-in-background", kind: .safety,
        description:
          "a viewer's camera is closed within the settle time of its app entering the background (iOS suspends capture: the room would see a frozen picture)"
      )
    case .appInsideUser:
      return Invariant(
        id: "app.inside-virtual-user", kind: .safety,
        description:
          "app code uses the platform (queues, notifications, sleeps, the SDKs) only as some virtual user's code: a thread of its own, or an object no user's code released, belongs to no app process"
      )
    case .appPlatformContract:
      return Invariant(
        id: "app.platform-contract", kind: .safety,
        description:
          "app code keeps the platform's contracts whose breach stops or hangs an iOS app: every DispatchGroup.leave() matches an enter(), no DispatchSemaphore.wait() waits for what only the same thread could signal, and every CheckedContinuation is resumed"
      )
    case .appCrashFree:
      return Invariant(
        id: "app.crash-free", kind: .safety,
        description:
          "app code never crashes: a trap (a nil force-unwrapped, an index out of range, a failed precondition, fatalError) or a fault in a virtual user's code kills that user's app process; the run goes on without it (see docs/CLIENTS.md)"
      )
    case .lockReleased:
      return Invariant(
        id: "seat.lock-released", kind: .liveness,
        description:
          "a guest seat a host or admin locked is unlocked again within seats.lockLimit while nobody sits on it (off unless the profile sets the limit: a lock's intention is the app's)"
      )
    case .inviteIdleOnly:
      return Invariant(
        id: "coguest.invite-idle-only", kind: .safety,
        description:
          "a host or admin invites only a viewer its own SDK shows neither seated nor applying (the server answers an invitee already seated with 100201)"
      )
    case .noStaleRingTimer:
      return Invariant(
        id: "call.no-stale-ring-timer", kind: .safety,
        description:
          "app code never hangs up a connected call from a timer (or other delayed work) it armed while that call still rang or was being placed: a ring timeout left running when the call connected"
      )
    case .uiApplicantsMatchSDK:
      return Invariant(
        id: "ui.applicants-match-sdk", kind: .safety,
        description:
          "a host's or admin's applications list (an app's, read by its probe) does not differ for longer than the settle time from the applicants its SDK lists (CoGuestStore.state.applicants)"
      )
    }
  }

  /// The stable ID (`seat.single-occupancy`).
  public var id: String { invariant.id }

  /// Every invariant, in report order.
  public static let catalogue: [Invariant] = allCases.map(\.invariant)
}
