import Clients
import LiveStack

/// The named latencies and counters a live-seat run records.
public struct LiveMetrics: Sendable {
  /// Latency histograms, index-aligned with ``latencyNames``.
  public var latencies: [Histogram]
  /// Exact counters.
  public var counters = Counters()
  /// The outcomes the SDK calls got and the events the handlers heard.
  public var coverage = OutcomeCoverage()
  /// When the intervals being measured started (see ``track(users:phones:)``).
  var starts = IntervalStarts()
  /// The first phone user's ID.
  var firstPhone: UInt32 = 0

  /// Latency names, in report order.
  public static let latencyNames = [
    "seat.apply_to_response", "seat.accept_to_connected", "seat.invite_to_response", "login.to_room",
    "call.dial_to_ring", "call.dial_to_connected", "push.send_to_delivery", "push.delivery_to_report",
    "login.to_token_upload", "seat.wait_for_review",
  ]
  /// Index of `seat.apply_to_response`: from the user tapping "apply" to the client receiving the
  /// first terminal answer (the apply call failing, an accept, a rejection, a timeout).
  public static let applyToResponse = 0
  /// Index of `seat.accept_to_connected`: from the server seating the guest to the client's status
  /// becoming connected (microphone, then camera, open).
  public static let acceptToConnected = 1
  /// Index of `seat.invite_to_response`: from the host's `inviteToSeat` call to the host learning the
  /// outcome (or the call failing).
  public static let inviteToResponse = 2
  /// Index of `login.to_room`: from a client's `login` call to its `joinLive` completing.
  public static let loginToRoom = 3
  /// Index of `call.dial_to_ring`: from the caller's `calls()` to a callee's `onCallReceived`.
  public static let dialToRing = 4
  /// Index of `call.dial_to_connected`: from `calls()` to the caller's `onCallStarted`.
  public static let dialToConnected = 5
  /// Index of `push.send_to_delivery`: from the backend sending a VoIP push to it reaching the phone.
  public static let pushSendToDelivery = 6
  /// Index of `push.delivery_to_report`: from PushKit handing the push to the app (after a cold start
  /// if the app was killed) to the app reporting the incoming conversation.
  public static let pushDeliveryToReport = 7
  /// Index of `login.to_token_upload`: from a phone app's `login` call to its VoIP token reaching the
  /// push backend.
  public static let loginToTokenUpload = 8
  /// Index of `seat.wait_for_review`: from the server filing an application to the first host or
  /// admin taking it up (the wait for a free reviewer; the think time is not part of it).
  public static let waitForReview = 9

  // Counter indices, registered in this order.
  public let applications: Int
  public let connected: Int
  public let rejectedSeatLimit: Int
  public let rejectedAllTaken: Int
  public let accepted: Int
  public let rejected: Int
  public let timedOut: Int
  public let cancelled: Int
  public let alreadyProcessed: Int
  public let invitations: Int
  public let invitationsAccepted: Int
  public let kicked: Int
  public let moved: Int
  public let locked: Int
  public let serverRemoved: Int
  public let micFailed: Int
  public let audioOnly: Int
  public let viewersJoined: Int
  /// Times a viewer's app entered the background (`viewers.backgrounded`).
  public let viewersBackgrounded: Int
  public let viewersLeft: Int
  public let livesEnded: Int
  public let coHostSessions: Int
  public let seatTakes: Int
  public var errorCounter: [Int]
  public let callsPlaced: Int
  public let callEnded: [Int]
  public let pushSent: Int
  public let pushDropped: Int
  public let pushLost: [Int]
  public let pushAppKilled: Int
  public let pushApnsAlert: Int
  public let pushSuppressedApps: Int
  public let coldStarts: Int
  public let conversationsReported: Int
  public let conversationReportFailed: Int
  /// Successful `CallStore.invite` calls (`call.invites`).
  public let callInvites: Int
  /// Outgoing conversations the apps started (`conversation.started_outgoing`), and the starts
  /// the system refused (`conversation.start_failed`).
  public let outgoingStarted: Int
  public let outgoingStartFailed: Int
  /// Conversations the apps reported ended, by reason (`conversation.ended.<reason>`).
  public let conversationEnded: [Int]
  public let actionTimeouts: Int
  public let actionsFulfilled: Int
  public let actionsFailed: Int
  public let tokenRotations: Int
  public let pushDuplicated: Int
  /// VoIP pushes sent with a malformed payload (`push.malformed`).
  public let pushMalformed: Int
  /// Server messages held back for later ones of other channels to overtake (`network.reordered`).
  public let messagesReordered: Int
  // "Sometimes" probes: rare interleavings worth knowing a run exercised.
  public let probeCancelLostToAccept: Int
  public let probeAcceptLostToOtherHost: Int
  public let probeAcceptAfterCancel: Int
  public let probeAcceptAfterTimeout: Int
  public let probeInvitationWhileApplying: Int
  public let probeSeatListBeforeResponse: Int
  public let probePushAfterCallEnded: Int
  public let probeAnswerAfterCancel: Int
  public let probeJoinDuringColdStart: Int
  /// Reviews taken up by hosts and admins (two reviewers taking up one application count twice).
  public let reviews: Int
  /// Changes to the rooms' seat lists on the server.
  public let seatChanges: Int
  /// Room messaging: broadcasts of seat lists, the downlink messages they carried (one per
  /// member of the room), changes merged into a broadcast that was already waiting, and the most
  /// messages one room sent in one second.
  public let messagingBroadcasts: Int
  /// Capacity lost: milliseconds of guest seats locked with nobody on them, summed over seats.
  public let lockedEmptyMs: Int
  /// Per seat (flat across rooms, from ``seatBase``): since when it has been locked and empty
  /// (nanoseconds + 1; 0: it is not).
  var lockedEmptySince: [Int64] = []
  /// Each room's first seat in ``lockedEmptySince``.
  var seatBase: [Int] = []
  public let messagingDownlink: Int
  public let messagingMerged: Int
  public let messagingPeakRoomPerSecond: Int

  // The cases in order, built once (`allCases` builds an array on every use).
  public static let errors = SeatError.allCases
  public static let endReasons = CallEndReason.allCases
  public static let pushLosses = PushLoss.allCases

  /// Empty metrics with every counter registered (so zero counts are reported too).
  public init() {
    latencies = LiveMetrics.latencyNames.map { _ in Histogram() }
    applications = counters.register("seat.applications")
    connected = counters.register("seat.connected")
    rejectedSeatLimit = counters.register("seat.rejected.seat_limit")
    rejectedAllTaken = counters.register("seat.rejected.all_taken")
    accepted = counters.register("seat.accepted")
    rejected = counters.register("seat.rejected_by_host")
    timedOut = counters.register("seat.timed_out")
    cancelled = counters.register("seat.cancelled")
    alreadyProcessed = counters.register("seat.already_processed")
    invitations = counters.register("seat.invitations")
    invitationsAccepted = counters.register("seat.invitations_accepted")
    kicked = counters.register("seat.kicked")
    moved = counters.register("seat.moved")
    locked = counters.register("seat.locks")
    serverRemoved = counters.register("seat.removed_by_server")
    micFailed = counters.register("device.microphone_failed")
    audioOnly = counters.register("device.audio_only")
    viewersJoined = counters.register("viewers.joined")
    viewersBackgrounded = counters.register("viewers.backgrounded")
    viewersLeft = counters.register("viewers.left")
    livesEnded = counters.register("live.ended")
    coHostSessions = counters.register("live.co_host_sessions")
    seatTakes = counters.register("seat.free_takes")
    errorCounter = [Int](repeating: -1, count: SeatError.allCases.count)
    callsPlaced = counters.register("call.placed")
    var ended: [Int] = []
    for reason in CallEndReason.allCases { ended.append(counters.register("call.ended.\(reason.rawValue)")) }
    callEnded = ended
    pushSent = counters.register("push.sent")
    pushDropped = counters.register("push.dropped")
    var lost: [Int] = []
    for reason in PushLoss.allCases { lost.append(counters.register("push.lost.\(reason.rawValue)")) }
    pushLost = lost
    pushAppKilled = counters.register("push.app_killed")
    pushApnsAlert = counters.register("push.apns_alert")
    pushSuppressedApps = counters.register("push.suppressed_apps")
    coldStarts = counters.register("app.cold_starts")
    conversationsReported = counters.register("conversation.reported")
    conversationReportFailed = counters.register("conversation.report_failed")
    callInvites = counters.register("call.invites")
    outgoingStarted = counters.register("conversation.started_outgoing")
    outgoingStartFailed = counters.register("conversation.start_failed")
    var endedByReason: [Int] = []
    for reason in ConversationEndReason.allCases {
      endedByReason.append(counters.register("conversation.ended.\(reason.name)"))
    }
    conversationEnded = endedByReason
    actionTimeouts = counters.register("conversation.action_timeout")
    actionsFulfilled = counters.register("conversation.actions_fulfilled")
    actionsFailed = counters.register("conversation.actions_failed")
    tokenRotations = counters.register("push.token_rotations")
    pushDuplicated = counters.register("push.duplicated")
    pushMalformed = counters.register("push.malformed")
    messagesReordered = counters.register("network.reordered")
    probeCancelLostToAccept = counters.register("probe.cancel_lost_to_accept")
    probeAcceptLostToOtherHost = counters.register("probe.accept_lost_to_other_host")
    probeAcceptAfterCancel = counters.register("probe.accept_after_cancel")
    probeAcceptAfterTimeout = counters.register("probe.accept_after_timeout")
    probeInvitationWhileApplying = counters.register("probe.invitation_while_applying")
    probeSeatListBeforeResponse = counters.register("probe.seat_list_before_response")
    probePushAfterCallEnded = counters.register("probe.push_after_call_ended")
    probeAnswerAfterCancel = counters.register("probe.answer_after_cancel")
    probeJoinDuringColdStart = counters.register("probe.join_during_cold_start")
    reviews = counters.register("seat.reviews")
    seatChanges = counters.register("seat.changes")
    messagingBroadcasts = counters.register("messaging.broadcasts")
    lockedEmptyMs = counters.register("seat.locked_empty_ms")
    messagingDownlink = counters.register("messaging.downlink")
    messagingMerged = counters.register("messaging.merged")
    messagingPeakRoomPerSecond = counters.register("messaging.peak_room_per_second")
  }

  /// Counts an SDK call that failed with `error` (as `errors.<name>`), and the contract's seat-limit
  /// and all-taken counters.
  public mutating func countError(_ error: SeatError) {
    let i = LiveMetrics.errors.firstIndex(of: error)!
    if errorCounter[i] < 0 { errorCounter[i] = counters.register("errors." + error.name) }
    counters.add(errorCounter[i])
    switch error {
    case .seatLimitExceeded: counters.add(rejectedSeatLimit)
    case .allSeatsTaken: counters.add(rejectedAllTaken)
    case .alreadyProcessed: counters.add(alreadyProcessed)
    default: break
    }
  }
}

extension LiveMetrics {
  /// Counts an SDK call the server carried out successfully (`audience`: made by a viewer).
  public mutating func countSucceeded(_ kind: OperationKind, audience: Bool) {
    let counter: Int
    switch kind {
    case .joinLive where audience: counter = viewersJoined
    case .leaveLive where audience: counter = viewersLeft
    case .endLive: counter = livesEnded
    case .applyForSeat: counter = applications
    case .cancelApplication: counter = cancelled
    case .acceptApplication: counter = accepted
    case .rejectApplication: counter = rejected
    case .inviteToSeat: counter = invitations
    case .acceptInvitation: counter = invitationsAccepted
    case .takeSeat: counter = seatTakes
    case .lockSeat: counter = locked
    case .kickUserOutOfSeat: counter = kicked
    case .moveUserToSeat: counter = moved
    case .placeCall: counter = callsPlaced
    default: return
    }
    counters.add(counter)
  }

  /// Counts a call that ended for `reason` (once per call, as its caller hears it).
  public mutating func callEnded(_ reason: CallEndReason) {
    counters.add(callEnded[LiveMetrics.endReasons.firstIndex(of: reason)!])
  }

  /// Counts a push that reached nobody, as `push.dropped` and `push.lost.<reason>`.
  public mutating func countLostPush(_ reason: PushLoss) {
    counters.add(pushDropped)
    counters.add(pushLost[LiveMetrics.pushLosses.firstIndex(of: reason)!])
  }

  /// Counts the race a `kind` call lost with "already processed", by the state the application it
  /// named ended in (the probes of rare interleavings).
  public mutating func probeLostRace(_ kind: OperationKind, application state: RequestState?) {
    switch (kind, state) {
    case (.cancelApplication, .accepted): counters.add(probeCancelLostToAccept)
    case (.acceptApplication, .accepted), (.acceptApplication, .rejected): counters.add(probeAcceptLostToOtherHost)
    case (.acceptApplication, .cancelled): counters.add(probeAcceptAfterCancel)
    case (.acceptApplication, .timedOut): counters.add(probeAcceptAfterTimeout)
    default: break
    }
  }
}

extension LiveMetrics {
  /// The gauges sampled over time, in column order.
  public static let gaugeNames = [
    "seats.occupied", "requests.pending", "clients.idle", "clients.applying", "clients.connecting",
    "clients.connected", "devices.on", "messaging.downlink_per_second",
  ]

  /// The gauges read as rates per second since the previous sample (``TimeSeries`` keeps their
  /// running totals, which add across room shards).
  public static let rateGauges: Set<String> = ["messaging.downlink_per_second"]

  /// The gauges' values now (see ``gaugeNames``): the server's seats and pending requests, the
  /// clients' UI statuses and open devices, and room messaging's downlink so far (read as its
  /// rate since the last sample).
  public static func gauges(seats: SeatService, runtime: ClientRuntime, feed: RoomFeed) -> [Int64] {
    let c = runtime.statusCounts
    return [
      Int64(seats.occupiedTotal), Int64(seats.pendingCount), Int64(c[Int(CoGuestStatus.idle.rawValue)]),
      Int64(c[Int(CoGuestStatus.applying.rawValue)]), Int64(c[Int(CoGuestStatus.connecting.rawValue)]),
      Int64(c[Int(CoGuestStatus.connected.rawValue)]), Int64(runtime.devicesOn[0]), Int64(feed.downlink),
    ]
  }
}
