import LiveStack
import SimKernel

/// The SDK model: how the answers to SDK calls and the server's notices change what each
/// client's SDK knows (its login, room, seat list, invitation, applicants and invitees), and the
/// SDK quirk modes that bend it. The world calls one entry point per delivered message, then runs
/// the behaviour's callback; metrics and oracles read the result.
extension ClientRuntime {
  /// Whether SDK quirk `q` is on.
  @inline(__always)
  public func quirk(_ q: SDKQuirk) -> Bool { quirkBits & q.bit != 0 }

  /// Runs `body` with `user`'s staff slot, if it is a host or admin.
  @inline(__always)
  func withStaffSlot(_ user: UInt32, _ body: (Int) -> Void) {
    let slot = clients[Int(user)].staffSlot
    if slot >= 0 { body(Int(slot)) }
  }

  // MARK: - Calls made

  /// A behaviour made SDK call `op`: the SDK fills in what its quirks make it use instead of the
  /// arguments given. Returns the error the SDK fails the call with itself, without sending it.
  public func prepare(_ op: inout PendingOperation) -> SeatError? {
    switch op.kind {
    // A join remembers the room epoch it was asked in (its seat argument is otherwise unused).
    case .joinLive: op.seat = Int16(clients[Int(op.user)].roomEpoch)
    case .leaveLive, .logout: clients[Int(op.user)].roomEpoch &+= 1
    // A device open remembers the closes before it (its seat argument is otherwise unused).
    case .openLocalMicrophone: op.seat = closes(of: .microphone, user: op.user)
    case .openLocalCamera: op.seat = closes(of: .camera, user: op.user)
    default: break
    }
    // An answer is for the call the SDK rings for. Answering when it reported none (a system-UI
    // "answer" before the SDK heard of the call, say) it refuses itself, as not allowed in its
    // current state.
    if op.kind == .acceptCall || op.kind == .rejectCall {
      let known = clients[Int(op.user)].call
      if known == 0 { return .callRefusedInState }
      op.target = known - 1
    }
    if (op.kind == .acceptInvitation || op.kind == .rejectInvitation) && quirk(.acceptIgnoresInviter) {
      let held = clients[Int(op.user)].invitation
      if held != 0 { op.target = held - 1 }
    }
    guard quirk(.secondRequestOverwrites) else { return nil }
    let u = Int(op.user)
    switch op.kind {
    case .inviteToSeat: invitationHandle[u] = op.target + 1
    case .cancelInvitation where invitationHandle[u] != 0: op.target = invitationHandle[u] - 1
    // The handle names a request the server never filed: the SDK fails the call itself.
    case .cancelApplication where applyHandleDead[u]: return .invalidParameter
    default: break
    }
    return nil
  }

  // MARK: - Answers

  /// The answer to SDK call `op` reaches its SDK: the state the call changes follows. Returns
  /// the error its completion reports (a quirk can turn a failure into a success).
  public func answered(_ op: OperationRecord, _ error: SeatError?) -> SeatError? {
    let u = Int(op.user)
    switch op.kind {
    case .login:
      if error == nil { clients[u].loggedIn = true }
    case .tuiLogin:
      if error == nil { phoneSystem?.setTUILoggedIn(op.user, true) }
    case .logout:
      clients[u].loggedIn = false
      leftRoom(op.user)
    case .joinLive:
      // The SDK left the room after asking to join it: the join is over for it, whatever the
      // server did (a member it let in and never hears from is dropped for want of heartbeats).
      if error == nil && op.seat != Int16(clients[u].roomEpoch) { return .failed }
    case .leaveLive:
      // The SDK left whatever the answer.
      leftRoom(op.user)
    case .applyForSeat:
      if quirk(.secondRequestOverwrites) { applyHandleDead[u] = error != nil }
    case .acceptInvitation, .rejectInvitation:
      // The answer is about the inviter the call named: an invitation from another host, heard
      // while it was on its way, stays listed.
      if (error == nil || error == .alreadyProcessed) && !quirk(.staleInvitation)
        && clients[u].invitation == op.target + 1
      {
        clients[u].invitation = 0
      }
    case .inviteToSeat:
      if error == nil { withStaffSlot(op.user) { invitees[$0].append(op.target) } }
    case .cancelInvitation:
      withStaffSlot(op.user) { slot in invitees[slot].removeEvery(op.target) }
      if quirk(.cancelInvitationFalseSuccess) { return nil }
    case .acceptApplication, .rejectApplication:
      if error == nil || error == .alreadyProcessed {
        withStaffSlot(op.user) { slot in applicants[slot].removeEvery(op.target) }
      }
    default:
      break
    }
    return error
  }

  /// `user`'s `joinLive` succeeded: its SDK is in `room`, and a host's or admin's SDK takes in the
  /// applicants the server listed when it joined (`pending`). Returns whether the SDK then leaves
  /// the seat it finds itself on (quirk `auto-disconnect-on-join`).
  public func enteredRoom(_ user: UInt32, room: UInt32, pending: [UInt32], isOwner: Bool) -> Bool {
    let u = Int(user)
    clients[u].joinedRoom = room + 1
    let staff = Int(clients[u].staffSlot)
    if staff >= 0 {
      if quirk(.duplicateApplicants) {
        applicants[staff] += pending
      } else {
        applicants[staff] = pending
      }
      if quirk(.reentryApplicationsAsInvitations) && isOwner { invitees[staff] += pending }
      return false
    }
    return quirk(.autoDisconnectOnJoin) && clients[u].seenSeat >= 0
  }

  // MARK: - Notices

  /// A co-guest event reaches an audience member's SDK. Returns whether it is an invitation that
  /// arrived while the client showed "applying" (a probe).
  public func received(_ event: GuestEvent, user: UInt32) -> Bool {
    let u = Int(user)
    switch event {
    case .onHostInvitationReceived(let host):
      invitationRepeated = clients[u].invitation == host + 1
      clients[u].invitation = host + 1
      return clients[u].status == .applying
    case .onHostInvitationCancelled(let host):
      if clients[u].invitation == host + 1 && !quirk(.staleInvitation) { clients[u].invitation = 0 }
    default:
      break
    }
    return false
  }

  /// A co-guest event reaches a host's or admin's SDK: its applicants and invitees follow.
  public func received(_ event: HostEvent, user: UInt32) {
    let slot = Int(clients[Int(user)].staffSlot)
    precondition(slot >= 0, "host events go to hosts and admins")
    switch event {
    case .onGuestApplicationReceived(let guest):
      if !applicants[slot].contains(guest) { applicants[slot].append(guest) }
    case .onGuestApplicationCancelled(let guest), .onGuestApplicationProcessedByOtherHost(let guest, _):
      applicants[slot].removeEvery(guest)
    case .onHostInvitationResponded(_, let guest), .onHostInvitationNoResponse(let guest, _):
      invitees[slot].removeEvery(guest)
    }
  }

  /// A list update that raises no event reaches an SDK (`applicantRemoved`, `inviteeRemoved`,
  /// `invitationRemoved`).
  public func receivedListUpdate(_ notice: Notice) {
    switch notice {
    case .applicantRemoved(let host, let guest):
      withStaffSlot(host) { slot in applicants[slot].removeEvery(guest) }
    case .inviteeRemoved(let host, let guest):
      withStaffSlot(host) { slot in invitees[slot].removeEvery(guest) }
    case .invitationRemoved(let guest, let host):
      let u = Int(guest)
      if clients[u].invitation == host + 1 && !quirk(.staleInvitation) { clients[u].invitation = 0 }
    default:
      preconditionFailure("not a list update: \(notice)")
    }
  }

  /// A seat-list batch reaches `user`'s SDK: its own seat and, for staff, the room's seat list
  /// follow. Returns whether the batch told it that it left its seat, and how many rows seated it
  /// while it showed "applying" (a probe: the seat list beat the answer).
  public func received(_ batch: SeatBatch, user: UInt32) -> (ownLeave: Bool, seatedWhileApplying: Int) {
    let u = Int(user)
    let slot = Int(clients[u].staffSlot)
    var ownLeave = false
    var early = 0
    if batch.startsList && slot >= 0 {
      for i in seatView[slot].indices { seatView[slot][i] = 0 }
    }
    for i in 0..<batch.count {
      let c = batch[i]
      if c.user == user {
        if c.seated {
          if clients[u].status == .applying { early += 1 }
          clients[u].seenSeat = c.seat
        } else if clients[u].seenSeat == c.seat {
          clients[u].seenSeat = -1
          ownLeave = true
        }
      }
      if slot >= 0 {
        if c.seated {
          seatView[slot][Int(c.seat)] = c.user + 1
        } else if seatView[slot][Int(c.seat)] == c.user + 1 {
          seatView[slot][Int(c.seat)] = 0
        }
      }
    }
    return (ownLeave, early)
  }

  /// The server ended `user`'s login (kicked offline, UserSig expired): its SDK is logged out and
  /// out of its room.
  public func loginEnded(_ user: UInt32) {
    let u = Int(user)
    clients[u].loggedIn = false
    leftRoom(user)
    // Its call ends with its session (the server hangs it up): `CallStore.state` shows none.
    ownCallEnded(user)
  }

  /// `user`'s live ended: its SDK is out of the room, and a host's lists are empty (the server
  /// ended every request of the room).
  public func liveEnded(_ user: UInt32) {
    leftRoom(user)
    withStaffSlot(user) { slot in invitees[slot].removeAll() }
  }

  /// `user`'s SDK is out of its room (it left, logged out, was kicked offline, or the live
  /// ended): it shows no seat and no invitation, and a host's or admin's applicants and seat list
  /// are empty, since the room's messages no longer reach it; entering again brings them afresh
  /// (the seat list and the pending applicants). The invitations a host sent are its own requests
  /// and stay listed until they are answered.
  func leftRoom(_ user: UInt32) {
    let u = Int(user)
    clients[u].joinedRoom = 0
    clients[u].seenSeat = -1
    clients[u].invitation = 0
    withStaffSlot(user) { slot in
      applicants[slot].removeAll()
      for i in seatView[slot].indices { seatView[slot][i] = 0 }
    }
  }

  /// `user`'s app process died: its SDK state is gone (subscriptions, login, call, devices).
  public func processDied(_ user: UInt32) {
    let u = Int(user)
    clients[u].subscriptions = []
    clients[u].loggedIn = false
    clients[u].call = 0
    clients[u].callState = .none
    setDevice(.microphone, user: user, on: false)
    setDevice(.camera, user: user, on: false)
  }

  // MARK: - Calls

  /// A call event reaches the SDK of `user`: its call state follows.
  public func received(_ event: CallEvent, user: UInt32) {
    let u = Int(user)
    switch event {
    case .received(_, let id):
      clients[u].call = id + 1
      clients[u].callState = .waiting
    case .started(_, let id):
      clients[u].call = id + 1
      clients[u].callState = .accept
    case .ended(_, let id, _, _):
      if clients[u].call == id + 1 { ownCallEnded(user) }
    }
  }

  /// Whether a call message reaching a phone app's SDK is stale, so the SDK drops it: one about a
  /// call a reconnect already ended (`endSynced`, as ID + 1), one the SDK already has from a
  /// reconnect, or one about a call it has since left (`serverCall`: the call the server has the
  /// user in). The SDK orders and drops messages by sequence.
  public func isStale(_ event: CallEvent, user: UInt32, endSynced: UInt32, serverCall: UInt32?) -> Bool {
    if endSynced == event.call + 1 { return true }
    let c = clients[Int(user)]
    if c.call == event.call + 1 {
      if case .received = event { return true }
      if case .started = event, c.callState == .accept { return true }
    } else if c.call != 0, serverCall != event.call {
      if case .received = event { return true }
      if case .started = event { return true }
    }
    return false
  }

  /// `user`'s SDK is in `call`, still ringing the callees: it learnt so from the answer to
  /// `calls()`, or took it up again on reconnecting.
  public func dialing(_ user: UInt32, call: UInt32) {
    clients[Int(user)].call = call + 1
    clients[Int(user)].callState = .waiting
  }

  /// `user`'s SDK is in no call any more.
  func ownCallEnded(_ user: UInt32) {
    clients[Int(user)].call = 0
    clients[Int(user)].callState = .none
  }

  /// `user`'s SDK reconnects and learns that the server ended its session while it was away.
  public func sessionEndedWhileAway(_ user: UInt32) {
    clients[Int(user)].loggedIn = false
    ownCallEnded(user)
  }
}
