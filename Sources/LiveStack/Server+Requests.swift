import SimKernel

/// A request a client's SDK sends the server, with its arguments typed.
public enum ServerRequest: Sendable {
  /// `LoginStore.login`.
  case login
  /// `LoginStore.logout`.
  case logout
  /// `LiveListStore.joinLive`, into the user's home room.
  case joinLive
  /// `LiveListStore.leaveLive`.
  case leaveLive
  /// `LiveListStore.endLive` (owner).
  case endLive
  /// `CoGuestStore.applyForSeat` (seat -1: any).
  case applyForSeat(seat: Int)
  /// `CoGuestStore.cancelApplication`.
  case cancelApplication
  /// `CoGuestStore.acceptApplication`.
  case acceptApplication(guest: UInt32)
  /// `CoGuestStore.rejectApplication`.
  case rejectApplication(guest: UInt32)
  /// `CoGuestStore.inviteToSeat` (seat -1: any).
  case inviteToSeat(guest: UInt32, seat: Int)
  /// `CoGuestStore.cancelInvitation`.
  case cancelInvitation(guest: UInt32)
  /// `CoGuestStore.acceptInvitation`.
  case acceptInvitation(inviter: UInt32)
  /// `CoGuestStore.rejectInvitation`.
  case rejectInvitation(inviter: UInt32)
  /// `CoGuestStore.disConnect` or `LiveSeatStore.leaveSeat`: the caller leaves its own seat.
  case leaveSeat
  /// `LiveSeatStore.takeSeat`.
  case takeSeat(seat: Int)
  /// `LiveSeatStore.lockSeat` / `unlockSeat`.
  case setLocked(seat: Int, locked: Bool)
  /// `LiveSeatStore.kickUserOutOfSeat`.
  case kick(guest: UInt32)
  /// `LiveSeatStore.moveUserToSeat`.
  case move(user: UInt32, seat: Int, policy: MovePolicy)
  /// `CallStore.calls`, ringing for `timeout`.
  case placeCall(callees: [UInt32], mediaType: CallMediaType, timeout: SimDuration)
  /// `CallStore.accept`, of the call the SDK rings for (`nil`: whichever rings).
  case acceptCall(call: UInt32?)
  /// `CallStore.reject`, of the call the SDK rings for (`nil`: whichever rings).
  case rejectCall(call: UInt32?)
  /// `CallStore.hangup`.
  case hangupCall
  /// `CallStore.join(callId:)`.
  case joinCall(call: UInt32)
  /// `CallStore.invite(participantIds:)`.
  case inviteToCall(callees: [UInt32])
  /// `TUILogin.login` (the TUI layer's own login; the server keeps nothing).
  case tuiLogin
  /// `V2TIMManager.setVOIP`: the VoIP token and the certificate it is for.
  case setVOIP(certificateID: UInt32, token: UInt16)
}

/// What carrying out a request gave: its answer, and what it created.
public struct ServerOutcome: Sendable {
  /// The answer (nil: success).
  public var error: SeatError?
  /// The application or invitation it filed.
  public var filed: UInt32?
  /// The call it placed.
  public var placed: UInt32?
  /// Whether a token upload was registered.
  public var registered = false

  init(_ error: SeatError? = nil) { self.error = error }
}

extension Server {
  /// Carries out `request` from `user` (its SDK call is in operation slot `slot`) now, and returns
  /// the answer. The notices it causes go to ``outbox``; seat changes and ended requests wait for
  /// ``fanOut()``, call events in `calls.events`.
  public mutating func perform(_ request: ServerRequest, by user: UInt32, slot: UInt32, now: SimInstant)
    -> ServerOutcome
  {
    func seatResult<T>(_ r: Result<T, SeatError>) -> ServerOutcome {
      if case .failure(let e) = r { return ServerOutcome(e) }
      return ServerOutcome()
    }
    func callResult(_ e: CallError?) -> ServerOutcome { ServerOutcome(e.flatMap { SeatError(rawValue: $0.rawValue) }) }
    switch request {
    case .login:
      // Logging in again while logged in (a login sent again after its answer was lost, or a
      // phone app's new process resuming the session its previous process left) succeeds: the
      // IM service answers a repeated login of the same user as a login.
      _ = login.login(user)
      return ServerOutcome()
    case .logout:
      login.logout(user)
      _ = seats.leave(user: user, now: now)
      return ServerOutcome()
    case .joinLive: return ServerOutcome(joinLive(user: user, slot: slot))
    case .leaveLive: return ServerOutcome(seats.leave(user: user, now: now))
    case .endLive: return ServerOutcome(endLive(user: user, now: now))
    case .applyForSeat(let seat):
      switch apply(user: user, seatIndex: seat, now: now) {
      case .failure(let e): return ServerOutcome(e)
      case .success(let id):
        lastApplication[Int(user)] = id + 1
        var outcome = ServerOutcome()
        outcome.filed = id
        return outcome
      }
    case .cancelApplication: return ServerOutcome(seats.cancelApplication(user: user, now: now))
    case .acceptApplication(let guest): return seatResult(seats.acceptApplication(guest: guest, by: user, now: now))
    case .rejectApplication(let guest): return ServerOutcome(seats.rejectApplication(guest: guest, by: user, now: now))
    case .inviteToSeat(let guest, let seat):
      switch invite(guest: guest, by: user, seatIndex: seat, now: now) {
      case .failure(let e): return ServerOutcome(e)
      case .success(let id):
        var outcome = ServerOutcome()
        outcome.filed = id
        return outcome
      }
    case .cancelInvitation(let guest): return ServerOutcome(seats.cancelInvitation(guest: guest, by: user, now: now))
    case .acceptInvitation(let inviter):
      return seatResult(seats.acceptInvitation(user: user, inviter: inviter, now: now))
    case .rejectInvitation(let inviter):
      return ServerOutcome(seats.rejectInvitation(user: user, inviter: inviter, now: now))
    case .leaveSeat: return seatResult(seats.leaveSeat(user: user))
    case .takeSeat(let seat): return seatResult(seats.takeSeat(user: user, seatIndex: seat, now: now))
    case .setLocked(let seat, let locked):
      let error = seats.setLocked(seat: seat, locked, by: user)
      // The lock is part of the room's seat list: room messaging sends it to the room.
      if error == nil, let room = seats.room(of: user) { feed.recordLock(room: room, seat: seat, locked) }
      return ServerOutcome(error)
    case .kick(let guest): return seatResult(seats.kick(guest: guest, by: user))
    case .move(let target, let seat, let policy):
      return seatResult(seats.move(user: target, to: seat, policy: policy, by: user))
    case .placeCall(let callees, let media, _):
      let logins = login
      switch calls.placeCall(
        caller: user, callees: callees, mediaType: media, loggedIn: true, now: now,
        reachable: { logins.isLoggedIn($0) })
      {
      case .failure(let e): return ServerOutcome(SeatError(rawValue: e.rawValue))
      case .success(let id):
        var outcome = ServerOutcome()
        outcome.placed = id
        return outcome
      }
    case .acceptCall(let call): return callResult(calls.accept(user: user, call: call, now: now))
    case .rejectCall(let call): return callResult(calls.reject(user: user, call: call, now: now))
    case .hangupCall: return callResult(calls.hangup(user: user, now: now))
    case .joinCall(let call): return callResult(calls.join(user: user, call: call, now: now))
    case .inviteToCall(let callees):
      let logins = login
      return callResult(
        calls.invite(by: user, callees: callees, now: now, reachable: { logins.isLoggedIn($0) }))
    case .tuiLogin: return ServerOutcome()
    case .setVOIP(let certificate, let token):
      var outcome = ServerOutcome()
      outcome.registered = push.register(user: user, certificateID: certificate, token: token)
      return outcome
    }
  }
}
