import SimKernel

/// Audio or video.
public enum CallMediaType: UInt8, Sendable, Codable, CaseIterable {
  /// Audio only.
  case audio
  /// Video.
  case video
}

/// Why a call ended for someone (`CallEndReason` of the SDK).
public enum CallEndReason: String, Sendable, Codable, CaseIterable {
  /// Not known.
  case unknown
  /// Someone hung up a connected call.
  case hangup
  /// The callee declined.
  case reject
  /// The callee did not answer before the timeout.
  case noResponse
  /// The callee could not be reached (not logged in).
  case offline
  /// The callee was in another call.
  case lineBusy
  /// The caller cancelled before anyone answered.
  case canceled
  /// Another device of the callee answered.
  case otherDeviceAccepted
  /// Another device of the callee declined.
  case otherDeviceReject
  /// The server ended the call.
  case endByServer
}

/// Where a user stands in its call.
public enum CallParticipantState: UInt8, Sendable, Codable, CaseIterable {
  /// In no call.
  case none
  /// Calling (caller) or ringing (callee).
  case waiting
  /// In the call.
  case accept
}

/// Error codes of `CallStore`.
public enum CallError: Int32, Error, Sendable, Codable, CaseIterable {
  /// Not logged in.
  case notLoggedIn = -1201
  /// A participant list that is empty, holds the caller, repeats someone, names an unknown user, or
  /// exceeds the group limit.
  case invalidParticipant = -1202
  /// Refused in the current state (calling while in a call, answering while not ringing).
  case refusedInState = -1203
  /// The same operation again (accepting an accepted call).
  case repeated = -1204
}

/// One call.
public struct CallRecord: Sendable {
  /// The caller.
  public var caller: UInt32
  /// The callees, as asked.
  public var callees: [UInt32]
  /// Users who joined later with `join(callId)`.
  public var joined: [UInt32] = []
  /// Audio or video.
  public var mediaType: CallMediaType
  /// When the server created it.
  public var createdAt: SimInstant
  /// When the first callee accepted, if one did.
  public var startedAt: SimInstant?
  /// When it ended, if it did.
  public var endedAt: SimInstant?
  /// Why it ended (for the caller).
  public var endReason: CallEndReason?
  /// Callees invited but not in the call: offline when called, their invitation waiting as an
  /// offline message (`calls.offlineCallee: "ringsOut"`), or busy in another call until their SDK
  /// declines it (`calls.busyCallee: "rejectedByCallee"`). The caller rings on for them until
  /// the timeout.
  public var invitedOutside: [UInt32] = []
  /// Callees who answered on another device (`otherDeviceAccepted`): connected there, outside the
  /// model, until the call ends.
  public var answeredElsewhere: UInt8 = 0
  /// Callees invited while busy in another call (kept after they declined or the call ended): the
  /// invitation that reaches their SDK is declined, whenever it arrives.
  public var invitedWhileBusy: [UInt32] = []
  /// Callees `invite` rang into the running call, with when: each rings for the call's timeout
  /// from its own invitation (the first callees from ``createdAt``).
  public var invitedLater: [(user: UInt32, at: SimInstant)] = []

  /// When `user`'s invitation to this call began ringing.
  public func ringingSince(_ user: UInt32) -> SimInstant {
    invitedLater.last { $0.user == user }?.at ?? createdAt
  }

  /// Whether more than one callee was called.
  public var isGroup: Bool { callees.count > 1 }
  /// Whether it has ended.
  public var isOver: Bool { endedAt != nil }
}

/// What the server tells users about calls.
public enum CallEvent: Sendable, Equatable {
  /// `onCallReceived`: `user` is being called.
  case received(user: UInt32, call: UInt32)
  /// `onCallStarted`: `user` is connected in the call.
  case started(user: UInt32, call: UInt32)
  /// `onCallEnded(reason, userId)`: the call ended for `user` because of `other`'s `reason`.
  case ended(user: UInt32, call: UInt32, reason: CallEndReason, other: UInt32)
}

/// The server side of `CallStore`: one-to-one and group calls, with per-participant states, busy
/// lines and the SDK's errors. At most one call per user at a time. Events are appended to
/// ``events`` for the owner to deliver and drain.
public struct CallService: Sendable {
  /// The most participants in a call, caller included.
  public static let maxParticipants = 9
  /// The timeout used when a call asks for 0.
  public static let defaultTimeout = SimDuration.seconds(30)

  /// Every call, by ID.
  public private(set) var calls: [CallRecord] = []
  /// Each user's call as ID + 1 (0 = none).
  var userCall: [UInt32]
  /// Each user's state in its call.
  var userState: [CallParticipantState]
  /// Events since the last ``drain()``.
  public private(set) var events: [CallEvent] = []
  /// Calls not yet over.
  public private(set) var activeCount = 0
  /// Whether a callee who is offline when called rings out (the invitation waits as an offline
  /// message, and the caller hears `noResponse` at the timeout) rather than ending its part at
  /// once with `offline`. The SDKs' documentation does not say which; a setting.
  public var offlineRingsOut = false
  /// Whether a callee in another call gets the invitation, and its SDK declines it with
  /// `lineBusy` (or, if its app is not connected, it gets a VoIP push), rather than the server
  /// ending its part at once. The SDKs' documentation does not say where busy is decided.
  public var busyRejectedByCallee = false

  /// No calls, `userCount` users.
  public init(userCount: Int) {
    userCall = [UInt32](table: 0, count: userCount)
    userState = [CallParticipantState](table: .none, count: userCount)
  }

  /// Forgets the delivered events.
  public mutating func drain() { if !events.isEmpty { events.removeAll(keepingCapacity: true) } }

  /// The call `user` is in, if any.
  public func call(of user: UInt32) -> UInt32? {
    let c = userCall[Int(user)]
    return c == 0 ? nil : c - 1
  }

  /// `user`'s state.
  public func state(of user: UInt32) -> CallParticipantState { userState[Int(user)] }
  /// Hints that `user`'s call state is about to be read.
  public func prefetchState(of user: UInt32) { userState.prefetch(Int(user)) }

  /// `calls(participantIds, mediaType, params)`: `caller` calls `callees`. Callees in another call
  /// end at once with `lineBusy`, callees not reachable with `offline`; if nobody is left to ring,
  /// the call ends with that reason. Returns the call's ID; the owner arms its timeout (0 means
  /// ``defaultTimeout``).
  public mutating func placeCall(
    caller: UInt32, callees: [UInt32], mediaType: CallMediaType, loggedIn: Bool, now: SimInstant,
    reachable: (UInt32) -> Bool
  ) -> Result<UInt32, CallError> {
    guard loggedIn else { return .failure(.notLoggedIn) }
    guard !callees.isEmpty, callees.count + 1 <= CallService.maxParticipants, !callees.contains(caller),
      !callees.hasDuplicates, callees.allSatisfy({ Int($0) < userCall.count })
    else { return .failure(.invalidParticipant) }
    guard userState[Int(caller)] == .none else { return .failure(.refusedInState) }
    let id = UInt32(calls.count)
    calls.append(CallRecord(caller: caller, callees: callees, mediaType: mediaType, createdAt: now))
    activeCount += 1
    enter(caller, id, .waiting)
    var ringing = 0
    var lastReason = CallEndReason.unknown
    for callee in callees {
      if userState[Int(callee)] != .none {
        lastReason = .lineBusy
        if busyRejectedByCallee {
          calls[Int(id)].invitedOutside.append(callee)
          calls[Int(id)].invitedWhileBusy.append(callee)
          events.append(.received(user: callee, call: id))
          ringing += 1
        }
      } else if !reachable(callee) {
        lastReason = .offline
        if offlineRingsOut {
          calls[Int(id)].invitedOutside.append(callee)
          ringing += 1
        }
      } else {
        enter(callee, id, .waiting)
        events.append(.received(user: callee, call: id))
        ringing += 1
      }
    }
    if ringing == 0 { finish(id, reason: lastReason, by: callees.count == 1 ? callees[0] : caller, now: now) }
    return .success(id)
  }

  /// The SDK of `user`, busy in another call, declines the invitation to call `id` with
  /// `lineBusy`: a call nobody else rings for or answered ends. Returns whether anything changed.
  @discardableResult
  public mutating func rejectBusy(user: UInt32, call id: UInt32, now: SimInstant) -> Bool {
    guard !calls[Int(id)].isOver, let i = calls[Int(id)].invitedOutside.firstIndex(of: user) else { return false }
    calls[Int(id)].invitedOutside.remove(at: i)
    let rest = participants(of: id)
    let ringing = rest.contains { userState[Int($0)] == .waiting && $0 != calls[Int(id)].caller }
    if calls[Int(id)].startedAt == nil && !ringing && calls[Int(id)].invitedOutside.isEmpty {
      finish(id, reason: .lineBusy, by: user, now: now)
    }
    return true
  }

  /// Another device of `user`, ringing for call `id` as this one is, answers (`accepts`) or
  /// declines it first: this device's part ends with `otherDeviceAccepted` or `otherDeviceReject`.
  /// An answer there starts the call for the caller (with the other device); a decline there is a
  /// decline. Returns whether anything changed.
  @discardableResult
  public mutating func otherDevice(of user: UInt32, call id: UInt32, accepts: Bool, now: SimInstant) -> Bool {
    guard call(of: user) == id, userState[Int(user)] == .waiting, calls[Int(id)].caller != user else { return false }
    exit(user)
    events.append(
      .ended(user: user, call: id, reason: accepts ? .otherDeviceAccepted : .otherDeviceReject, other: user))
    if accepts {
      calls[Int(id)].answeredElsewhere &+= 1
      if calls[Int(id)].startedAt == nil {
        calls[Int(id)].startedAt = now
        let caller = calls[Int(id)].caller
        userState[Int(caller)] = .accept
        events.append(.started(user: caller, call: id))
      }
      return true
    }
    settle(id, reason: .reject, by: user, now: now)
    return true
  }

  /// Whether `user` was invited to call `id` without being in it (offline, or busy in another).
  public func isInvitedOutside(_ user: UInt32, call id: UInt32) -> Bool {
    Int(id) < calls.count && calls[Int(id)].invitedOutside.contains(user)
  }

  /// Whether `user` was invited to call `id` while busy in another call.
  public func wasInvitedWhileBusy(_ user: UInt32, call id: UInt32) -> Bool {
    Int(id) < calls.count && calls[Int(id)].invitedWhileBusy.contains(user)
  }

  /// `accept()`: a ringing callee answers. The first answer starts the call for the caller too.
  public mutating func accept(user: UInt32, call named: UInt32? = nil, now: SimInstant) -> CallError? {
    // The SDK names the call it rings for: another one (which rang after the answer left) is not
    // answered by it.
    guard let id = call(of: user), calls[Int(id)].caller != user, named == nil || named == id else {
      return .refusedInState
    }
    switch userState[Int(user)] {
    case .accept: return .repeated
    case .none: return .refusedInState
    case .waiting: break
    }
    userState[Int(user)] = .accept
    if calls[Int(id)].startedAt == nil {
      calls[Int(id)].startedAt = now
      let caller = calls[Int(id)].caller
      userState[Int(caller)] = .accept
      events.append(.started(user: caller, call: id))
    }
    events.append(.started(user: user, call: id))
    return nil
  }

  /// `reject()`: a ringing callee declines. A one-to-one call ends with `reject`; a group call ends
  /// when nobody is left ringing or connected.
  public mutating func reject(user: UInt32, call named: UInt32? = nil, now: SimInstant) -> CallError? {
    guard let id = call(of: user), calls[Int(id)].caller != user, userState[Int(user)] == .waiting,
      named == nil || named == id
    else {
      return .refusedInState
    }
    leave(user, id, reason: .reject, now: now)
    return nil
  }

  /// `hangup()`: the caller cancels a call nobody answered (`canceled`), or anyone leaves a
  /// connected call (`hangup`). A ringing callee hanging up declines.
  public mutating func hangup(user: UInt32, now: SimInstant) -> CallError? {
    guard let id = call(of: user) else { return .refusedInState }
    let c = calls[Int(id)]
    if user == c.caller && c.startedAt == nil {
      finish(id, reason: .canceled, by: user, now: now)
    } else if userState[Int(user)] == .waiting {
      leave(user, id, reason: .reject, now: now)
    } else {
      leave(user, id, reason: .hangup, now: now)
    }
    return nil
  }

  /// `invite(participantIds)`: `user`, connected in a started group call, rings `callees` into
  /// it, each as `calls()` would (a busy or offline callee as the settings say). Fails with -1203
  /// outside a connected group call and -1202 for a bad list (empty, repeated, already in the
  /// call, or more than ``maxParticipants`` in all). The owner arms a timeout for them.
  public mutating func invite(
    by user: UInt32, callees: [UInt32], now: SimInstant, reachable: (UInt32) -> Bool
  ) -> CallError? {
    guard let id = call(of: user), userState[Int(user)] == .accept, calls[Int(id)].isGroup,
      calls[Int(id)].startedAt != nil
    else { return .refusedInState }
    let inCall = participants(of: id)
    guard !callees.isEmpty, !callees.hasDuplicates, callees.allSatisfy({ Int($0) < userCall.count }),
      !callees.contains(where: { inCall.contains($0) || calls[Int(id)].invitedOutside.contains($0) }),
      inCall.count + calls[Int(id)].invitedOutside.count + callees.count <= CallService.maxParticipants
    else { return .invalidParticipant }
    for callee in callees {
      if !calls[Int(id)].callees.contains(callee) { calls[Int(id)].callees.append(callee) }
      calls[Int(id)].invitedLater.append((callee, now))
      if userState[Int(callee)] != .none {
        // Busy: its SDK declines (or, decided on the server, it is not rung at all).
        if busyRejectedByCallee {
          calls[Int(id)].invitedOutside.append(callee)
          calls[Int(id)].invitedWhileBusy.append(callee)
          events.append(.received(user: callee, call: id))
        }
      } else if !reachable(callee) {
        if offlineRingsOut { calls[Int(id)].invitedOutside.append(callee) }
      } else {
        enter(callee, id, .waiting)
        events.append(.received(user: callee, call: id))
      }
    }
    return nil
  }

  /// `join(callId)`: `user` joins a started group call it is not in.
  public mutating func join(user: UInt32, call id: UInt32, now: SimInstant) -> CallError? {
    guard Int(id) < calls.count else { return .invalidParticipant }
    guard userState[Int(user)] == .none, !calls[Int(id)].isOver, calls[Int(id)].startedAt != nil else {
      return .refusedInState
    }
    guard participants(of: id).count < CallService.maxParticipants else { return .invalidParticipant }
    enter(user, id, .accept)
    if !calls[Int(id)].joined.contains(user) && !calls[Int(id)].callees.contains(user) {
      calls[Int(id)].joined.append(user)
    }
    events.append(.started(user: user, call: id))
    return nil
  }

  /// The call's timeout fired: callees still ringing stop with `noResponse`; a call nobody
  /// answered ends. With `after` (the call's timeout), a callee `invite` rang later than that
  /// ago rings on, for its own timeout. Returns whether anything changed.
  @discardableResult
  public mutating func timeOut(call id: UInt32, now: SimInstant, after timeout: SimDuration? = nil) -> Bool {
    guard !calls[Int(id)].isOver else { return false }
    let c = calls[Int(id)]
    func due(_ u: UInt32) -> Bool {
      guard let timeout, !c.invitedLater.isEmpty else { return true }
      return c.ringingSince(u).nanoseconds + timeout.nanoseconds <= now.nanoseconds
    }
    let ringing = c.callees.filter { userCall[Int($0)] == id + 1 && userState[Int($0)] == .waiting && due($0) }
    let offline = c.invitedOutside.filter(due)
    calls[Int(id)].invitedOutside.removeAll { due($0) }
    guard !ringing.isEmpty || !offline.isEmpty else { return false }
    if calls[Int(id)].startedAt == nil {
      finish(id, reason: .noResponse, by: ringing.first ?? offline[0], now: now)
    } else {
      for u in ringing { leave(u, id, reason: .noResponse, now: now) }
    }
    return true
  }

  /// The server ends call `id` for everyone (`endByServer`).
  public mutating func endByServer(call id: UInt32, now: SimInstant) {
    guard !calls[Int(id)].isOver else { return }
    finish(id, reason: .endByServer, by: calls[Int(id)].caller, now: now)
  }

  /// Users in call `id` now (caller included while it is in).
  public func participants(of id: UInt32) -> [UInt32] {
    // (One array, built in place: the concatenation allocated three.)
    let c = calls[Int(id)]
    var out: [UInt32] = []
    out.reserveCapacity(1 + c.callees.count + c.joined.count)
    if userCall[Int(c.caller)] == id + 1 { out.append(c.caller) }
    for u in c.callees where userCall[Int(u)] == id + 1 { out.append(u) }
    for u in c.joined where userCall[Int(u)] == id + 1 { out.append(u) }
    return out
  }

  // MARK: - Bookkeeping

  mutating func enter(_ user: UInt32, _ id: UInt32, _ state: CallParticipantState) {
    precondition(userCall[Int(user)] == 0, "user \(user) is already in a call")
    userCall[Int(user)] = id + 1
    userState[Int(user)] = state
  }

  mutating func exit(_ user: UInt32) {
    userCall[Int(user)] = 0
    userState[Int(user)] = .none
  }

  /// `user` leaves `id` for `reason` (and hears `onCallEnded`); the call ends for everyone when at
  /// most one connected participant and nobody ringing remains, or the caller is left alone.
  mutating func leave(_ user: UInt32, _ id: UInt32, reason: CallEndReason, now: SimInstant) {
    exit(user)
    events.append(.ended(user: user, call: id, reason: reason, other: user))
    settle(id, reason: reason, by: user, now: now)
  }

  /// After `by` left call `id`: the call ends for everyone when at most one connected participant
  /// (a device elsewhere counting) and nobody ringing remains, or the caller is left alone.
  mutating func settle(_ id: UInt32, reason: CallEndReason, by user: UInt32, now: SimInstant) {
    let rest = participants(of: id)
    let connected = rest.filter { userState[Int($0)] == .accept }.count + Int(calls[Int(id)].answeredElsewhere)
    let ringing = rest.filter { userState[Int($0)] == .waiting && $0 != calls[Int(id)].caller }
    // An offline callee still "ringing" keeps a call nobody answered going until the timeout.
    let callerAlone =
      rest == [calls[Int(id)].caller] && calls[Int(id)].invitedOutside.isEmpty
      && calls[Int(id)].answeredElsewhere == 0
    if (connected <= 1 && ringing.isEmpty
      && (calls[Int(id)].startedAt != nil || calls[Int(id)].invitedOutside.isEmpty))
      || callerAlone
    {
      finish(id, reason: reason, by: user, now: now)
    }
  }

  /// Ends call `id`: everyone still in it hears `reason` caused by `by`.
  mutating func finish(_ id: UInt32, reason: CallEndReason, by: UInt32, now: SimInstant) {
    guard !calls[Int(id)].isOver else { return }
    for u in participants(of: id) {
      exit(u)
      events.append(.ended(user: u, call: id, reason: reason, other: by))
    }
    calls[Int(id)].endedAt = now
    calls[Int(id)].endReason = reason
    activeCount -= 1
  }
}
