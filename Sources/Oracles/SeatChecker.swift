import Clients
import LiveStack
import SimKernel

/// The live-seat invariants of STACK.md §6: safety ones checked at the moment of each event, and
/// liveness ones judged once the run is over.
///
/// The world calls the `observe…` methods after the server or a client changed state. Each method
/// reads, never writes, what it is given; findings go to ``log``.
public struct SeatChecker: Sendable {
  /// The seat invariants, in report order.
  public static let catalogue: [Invariant] = [
    Invariant(
      id: "seat.single-occupancy", kind: .safety,
      description: "a seat holds at most one user and a user sits on at most one seat"),
    Invariant(
      id: "seat.locked-no-newcomer", kind: .safety,
      description: "nobody sits on a locked seat they were not on when it was locked"),
    Invariant(
      id: "seat.capacity", kind: .safety,
      description: "occupied seats never exceed the usable seat count, connected guests never the package limit"),
    Invariant(
      id: "seat.connected-requires-grant", kind: .safety,
      description: "a guest sits only after an accepted application, an accepted invitation, a free take or a move"),
    Invariant(
      id: "request.one-terminal-outcome", kind: .safety,
      description: "each request reaches its client with at most one terminal answer, and nothing after it"),
    Invariant(
      id: "coguest.no-duplicate-applicants", kind: .safety,
      description: "a host's applicants list holds no one twice and no one already connected"),
    Invariant(
      id: "client.not-applying-while-seated", kind: .safety,
      description: "no client shows \"applying\" while its seat list shows it seated"),
    Invariant(
      id: "device.capture-only-while-seated", kind: .safety,
      description:
        "capture devices are on only while the client is connecting or connected on a seat, or in an accepted call"),
    Invariant(
      id: "request.terminal-within-timeout", kind: .liveness,
      description: "every application or invitation with a timeout ends within the timeout plus the slack"),
    Invariant(
      id: "client.view-matches-server", kind: .liveness,
      description:
        "once nothing is in flight for a client, its status, seat, devices, invitation, seat list and applicants agree with the server"
    ),
    Invariant(
      id: "call.one-active-per-user", kind: .safety,
      description: "a user is in at most one call: no call rings or starts for a phone already in another"),
    Invariant(
      id: "call.released-within-timeout", kind: .liveness,
      description: "a call nobody answered ends within its timeout plus the slack, releasing the caller"),
    Invariant(
      id: "push.token-upload-when-logged-in", kind: .safety,
      description: "the VoIP token is uploaded only after IM login and TUILogin, with a non-zero certificate and token"),
    Invariant(
      id: "push.reported-within-deadline", kind: .liveness,
      description: "every VoIP push handed to the app is reported as an incoming conversation within the deadline"),
    Invariant(
      id: "conversation.action-completed-once", kind: .safety,
      description: "each conversation action gets at most one fulfill() or fail(), never after its timeout"),
    Invariant(
      id: "conversation.join-after-accept", kind: .safety,
      description: "a Join is fulfilled only once CallStore.accept succeeded for its call"),
    Invariant(
      id: "conversation.ended-with-call", kind: .safety,
      description: "no conversation stays active longer than the grace period after its call ended"),
    Invariant(
      id: "conversation.within-limits", kind: .safety,
      description: "active conversations never exceed the conversation manager's configured limits"),
    Invariant(
      id: "conversation.ends", kind: .liveness,
      description: "every reported conversation ends once its call is over"),
    Invariant(
      id: "client.events-heard", kind: .safety,
      description: "every SDK event a client's role relies on reaches a subscribed handler (subscriptions are retained)"
    ),
    Invariant(
      id: "device.opened-once", kind: .safety,
      description: "a capture device is opened only while it is off and not already opening"),
    Invariant(
      id: "coguest.disconnect-by-guest", kind: .safety,
      description: "only a guest leaves a seat with disConnect(); hosts and admins remove guests with kickUserOutOfSeat"
    ),
    Invariant(
      id: "coguest.answer-listed-applicant", kind: .safety,
      description: "a host or admin answers only applications its SDK still lists"),
    Invariant(
      id: "conversation.action-completed-in-time", kind: .liveness,
      description: "every conversation action gets fulfill() or fail() before its timeout"),
    Invariant(
      id: "push.call-shown-or-declined", kind: .liveness,
      description: "by the report deadline, a call announced by a push is shown as a conversation or no longer rings"),
    Invariant(
      id: "call.valid-use", kind: .safety,
      description: "calls() is made only when logged in, never to oneself, an unknown user or too many"),
  ]

  /// Index of `push.token-upload-when-logged-in`.
  public static let tokenUploadWhenLoggedIn = 12
  /// Index of `push.reported-within-deadline`.
  public static let pushReported = 13
  /// Index of `conversation.action-completed-once`.
  public static let actionCompletedOnce = 14
  /// Index of `conversation.join-after-accept`.
  public static let joinAfterAccept = 15
  /// Index of `conversation.ended-with-call`.
  public static let conversationEndedWithCall = 16
  /// Index of `conversation.within-limits`.
  public static let conversationLimits = 17
  /// Index of `conversation.ends`.
  public static let conversationEnds = 18
  /// Index of `client.events-heard`.
  public static let eventsHeard = 19
  /// Index of `device.opened-once`.
  public static let openedOnce = 20
  /// Index of `coguest.disconnect-by-guest`.
  public static let disconnectByGuest = 21
  /// Index of `coguest.answer-listed-applicant`.
  public static let answerListedApplicant = 22
  /// Index of `conversation.action-completed-in-time`.
  public static let actionInTime = 23
  /// Index of `push.call-shown-or-declined`.
  public static let callShownOrDeclined = 24
  /// Index of `call.valid-use`.
  public static let callValidUse = 25

  /// Records a finding of invariant `index` (for checks the world makes on both sides' state).
  public mutating func record(_ index: Int, at now: SimInstant, entities: [String], _ message: String) {
    log.record(index, at: now, entities: entities, message)
  }

  /// Index of `call.one-active-per-user`.
  public static let oneActiveCall = 10
  /// Index of `call.released-within-timeout`.
  public static let callReleased = 11

  /// Index of `request.terminal-within-timeout`.
  public static let terminalWithinTimeout = 8
  /// Index of `client.view-matches-server`.
  public static let viewMatchesServer = 9

  static let singleOccupancy = 0
  static let lockedNoNewcomer = 1
  static let capacity = 2
  static let requiresGrant = 3
  static let oneTerminal = 4
  static let noDuplicateApplicants = 5
  static let notApplyingWhileSeated = 6
  static let captureOnlyWhileSeated = 7

  /// What was found.
  public private(set) var log = ViolationLog(catalogue: SeatChecker.catalogue)
  /// Per request: terminal answers delivered to its client.
  var terminalAnswers: [UInt8] = []
  /// Per flat seat: occupant + 1 when the seat was locked (0: empty or unlocked).
  var lockedOccupant: [UInt32]
  let seatBase: [Int]

  /// A checker for the rooms of `seats`.
  public init(seats: SeatService) {
    var base: [Int] = []
    var total = 0
    for r in 0..<seats.roomCount {
      base.append(total)
      total += seats.settings[r].maxSeatCount
    }
    seatBase = base
    lockedOccupant = [UInt32](repeating: 0, count: total)
  }

  /// Switches off the invariants whose IDs are in `ids` (see ``ViolationLog/switchOff(_:)``).
  public mutating func switchOff(_ ids: Set<String>) { log.switchOff(ids) }

  /// A call event reached `user`, whose SDK was in `current` (call ID + 1, 0 for none): a call
  /// ringing or starting while the user is in another breaks `call.one-active-per-user`.
  public mutating func observeCallEvent(user: UInt32, call: UInt32, current: UInt32, ends: Bool, at now: SimInstant) {
    guard !ends, current != 0, current != call + 1 else { return }
    log.record(
      SeatChecker.oneActiveCall, at: now, entities: ["user:\(user)", "call:\(call)", "call:\(current - 1)"],
      "call \(call) reached user \(user) while it was in call \(current - 1)")
  }

  /// `user` called `setVOIP`: it must be logged in to IM and TUILogin, with a non-zero certificate
  /// and a token.
  public mutating func observeTokenUpload(
    user: UInt32, imLoggedIn: Bool, tuiLoggedIn: Bool, certificateID: UInt32, token: UInt16, at now: SimInstant
  ) {
    var why: [String] = []
    if !imLoggedIn { why.append("before IM login") }
    if !tuiLoggedIn { why.append("before TUILogin") }
    if certificateID == 0 { why.append("with certificate ID 0") }
    if token == 0 { why.append("without a token") }
    guard !why.isEmpty else { return }
    log.record(
      SeatChecker.tokenUploadWhenLoggedIn, at: now, entities: ["user:\(user)"],
      "user \(user) uploaded its VoIP token " + why.joined(separator: ", "))
  }

  /// The app of `user` was handed a VoIP push for `call` at `handedAt` and had not reported it when
  /// the deadline passed.
  public mutating func observeMissedReport(
    user: UInt32, call: UInt32, handedAt: SimInstant, noHandler: Bool = false, at now: SimInstant
  ) {
    log.record(
      SeatChecker.pushReported, at: now, entities: ["user:\(user)", "call:\(call)"],
      noHandler
        ? "the VoIP push for call \(call) reached user \(user)'s app at \(handedAt) before it created its push registry; the system killed the app"
        : "user \(user) did not report the VoIP push for call \(call) handed to it at \(handedAt); the system killed the app"
    )
  }

  /// An action was completed again, or after its timeout.
  public mutating func observeLateCompletion(
    user: UInt32, action: UInt32, repeated: Bool, fulfilled: Bool, at now: SimInstant
  ) {
    let verb = fulfilled ? "fulfilled" : "failed"
    log.record(
      SeatChecker.actionCompletedOnce, at: now, entities: ["user:\(user)", "action:\(action)"],
      repeated
        ? "user \(user) \(verb) conversation action \(action), which was already completed"
        : "user \(user) \(verb) conversation action \(action) after it had timed out")
  }

  /// A Join for `call` was fulfilled while the server had `user` in `state` (not `accept`).
  public mutating func observeJoinFulfilled(
    user: UInt32, call: UInt32?, accepted: Bool, at now: SimInstant
  ) {
    guard !accepted else { return }
    log.record(
      SeatChecker.joinAfterAccept, at: now,
      entities: ["user:\(user)"] + (call.map { ["call:\($0)"] } ?? []),
      "user \(user) fulfilled a Join before CallStore.accept succeeded"
        + (call.map { " for call \($0)" } ?? " (the conversation has no call)"))
  }

  /// Conversation `uuid` of `user` was still active `grace` after its call ended.
  public mutating func observeConversationAfterCall(
    user: UInt32, uuid: UInt32, call: UInt32, endedAt: SimInstant, at now: SimInstant
  ) {
    log.record(
      SeatChecker.conversationEndedWithCall, at: now,
      entities: ["user:\(user)", "call:\(call)", "conversation:\(uuid)"],
      "user \(user) still shows conversation \(uuid) for call \(call), which ended at \(endedAt)")
  }

  /// After a report, `user` has `active` conversations against a limit of `limit`.
  public mutating func observeConversationCount(user: UInt32, active: Int, limit: Int, at now: SimInstant) {
    guard active > limit else { return }
    log.record(
      SeatChecker.conversationLimits, at: now, entities: ["user:\(user)"],
      "user \(user) has \(active) active conversations; the limit is \(limit)")
  }

  /// Records a liveness finding (judged after the run by the world, which sees both sides).
  public mutating func recordLiveness(_ index: Int, at now: SimInstant, entities: [String], _ message: String) {
    precondition(SeatChecker.catalogue[index].kind == .liveness, "only liveness findings are recorded this way")
    log.record(index, at: now, entities: entities, message)
  }

  /// A seat was locked or unlocked: remember who was on it.
  public mutating func observeLock(room: UInt32, seat: Int, seats: SeatService) {
    let slot = seatBase[Int(room)] + seat
    lockedOccupant[slot] =
      seats.isLocked(room: room, seat: seat) ? (seats.occupant(room: room, seat: seat).map { $0 + 1 } ?? 0) : 0
  }

  /// A seat changed: check the grant, then the whole room.
  public mutating func observe(_ change: SeatChange, seats: SeatService, at now: SimInstant) {
    if change.seated && change.grant == nil {
      log.record(
        SeatChecker.requiresGrant, at: now, entities: ["room:\(change.room)", "user:\(change.user)"],
        "user \(change.user) was seated on seat \(change.seat) of room \(change.room) without an accept, an accepted invitation, a free take or a move"
      )
    }
    observeRoom(change.room, seats: seats, at: now)
  }

  /// Checks occupancy, capacity and locks of `room`. O(seats of the room).
  public mutating func observeRoom(_ room: UInt32, seats: SeatService, at now: SimInstant) {
    let s = seats.settings[Int(room)]
    var occupied = 0
    for i in 0..<s.maxSeatCount {
      guard let user = seats.occupant(room: room, seat: i) else { continue }
      occupied += 1
      if seats.seat(of: user) != i || seats.room(of: user) != room {
        log.record(
          SeatChecker.singleOccupancy, at: now, entities: ["room:\(room)", "user:\(user)"],
          "user \(user) occupies seat \(i) of room \(room) but its own seat is \(seats.seat(of: user).map(String.init) ?? "none")"
        )
      }
      let slot = seatBase[Int(room)] + i
      if seats.isLocked(room: room, seat: i) && lockedOccupant[slot] != user + 1 {
        log.record(
          SeatChecker.lockedNoNewcomer, at: now, entities: ["room:\(room)", "user:\(user)"],
          "user \(user) sits on locked seat \(i) of room \(room)")
      }
    }
    let connected = Int(seats.connectedCount[Int(room)])
    if occupied > seats.usableSeats(room: room) || connected > s.packageLimit || connected != occupied {
      log.record(
        SeatChecker.capacity, at: now, entities: ["room:\(room)"],
        "room \(room) has \(occupied) occupied seats (\(seats.usableSeats(room: room)) usable, package limit \(s.packageLimit), \(seats.connectedCount[Int(room)]) counted connected)"
      )
    }
  }

  /// A terminal answer to `request` (accepted, rejected, no response) reached its client.
  public mutating func observeTerminalAnswer(request: UInt32, user: UInt32, at now: SimInstant) {
    let i = Int(request)
    if i >= terminalAnswers.count {
      terminalAnswers.append(contentsOf: repeatElement(0, count: i + 1 - terminalAnswers.count))
    }
    terminalAnswers[i] &+= 1
    if terminalAnswers[i] > 1 {
      log.record(
        SeatChecker.oneTerminal, at: now, entities: ["request:\(request)", "user:\(user)"],
        "request \(request) reached user \(user) with a second terminal answer")
    }
  }

  /// An event about `request` reached its client after its terminal answer.
  public mutating func observeEventAfterTerminal(request: UInt32, user: UInt32, at now: SimInstant) {
    let i = Int(request)
    guard i < terminalAnswers.count, terminalAnswers[i] > 0 else { return }
    log.record(
      SeatChecker.oneTerminal, at: now, entities: ["request:\(request)", "user:\(user)"],
      "an event for request \(request) reached user \(user) after its terminal answer")
  }

  /// A host's applicants list changed: check it holds no duplicate and no connected guest.
  public mutating func observeApplicants(host: UInt32, applicants: [UInt32], connected: [UInt32], at now: SimInstant) {
    guard let last = applicants.last else { return }
    if applicants.dropLast().contains(last) {
      log.record(
        SeatChecker.noDuplicateApplicants, at: now, entities: ["user:\(host)", "user:\(last)"],
        "host \(host) lists applicant \(last) twice")
    } else if connected.contains(last) {
      log.record(
        SeatChecker.noDuplicateApplicants, at: now, entities: ["user:\(host)", "user:\(last)"],
        "host \(host) lists applicant \(last), who is already connected")
    }
  }

  /// A client finished handling an event (and its commands ran). `sawOwnLeave` says the event told
  /// it that it left its seat; `inCall` that its SDK is in an accepted call (which may capture).
  public mutating func observeClient(
    user: UInt32, status: CoGuestStatus, seenSeat: Int?, captureOn: Bool, inCall: Bool = false, sawOwnLeave: Bool,
    at now: SimInstant
  ) {
    if status == .applying && seenSeat != nil {
      log.record(
        SeatChecker.notApplyingWhileSeated, at: now, entities: ["user:\(user)"],
        "user \(user) shows \"applying\" while its seat list shows it on seat \(seenSeat!)")
    }
    if captureOn && !inCall && (sawOwnLeave || (status != .connecting && status != .connected)) {
      log.record(
        SeatChecker.captureOnlyWhileSeated, at: now, entities: ["user:\(user)"],
        sawOwnLeave
          ? "user \(user) kept capturing after its seat list showed it left the seat"
          : "user \(user) has a capture device on while \(status.name)")
    }
  }
}
