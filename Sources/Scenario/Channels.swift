import Chaos
import Clients
import LiveStack

/// Which SDK channel an answer travels on, and which server service an SDK call belongs to: what
/// the network's ordering, chaos's channel and service faults and the server's desk key on (a
/// server message's channel: ``Notice/faultChannel``).
extension OperationKind {
  /// The SDK channel the answer to a call of this kind travels on: its store's (`nil`: login,
  /// rooms and devices, never reordered).
  var answerChannel: FaultChannel? {
    switch self {
    case .applyForSeat, .cancelApplication, .acceptApplication, .rejectApplication, .inviteToSeat, .cancelInvitation,
      .acceptInvitation, .rejectInvitation, .disConnect:
      return .signalling
    case .takeSeat, .leaveSeat, .lockSeat, .unlockSeat, .kickUserOutOfSeat, .moveUserToSeat: return .seats
    case .placeCall, .acceptCall, .rejectCall, .hangupCall, .joinCall, .inviteToCall: return .calls
    case .login, .logout, .joinLive, .leaveLive, .endLive, .openLocalMicrophone, .openLocalCamera, .tuiLogin, .setVOIP:
      return nil
    }
  }

  /// The server service a call of this kind belongs to, for outages and slowdowns.
  var faultService: FaultService {
    switch self {
    case .login, .logout, .tuiLogin, .setVOIP: return .login
    case .placeCall, .acceptCall, .rejectCall, .hangupCall, .joinCall, .inviteToCall: return .calls
    default: return .seats
    }
  }

  /// Which service of the server's desk (`server.seats`, `server.login`, `server.calls`) serves a
  /// call of this kind.
  var deskService: Int {
    switch faultService {
    case .login: return ServiceDesk.Service.login.rawValue
    case .calls: return ServiceDesk.Service.calls.rawValue
    default: return ServiceDesk.Service.seats.rawValue
    }
  }

  /// What a request of this kind by `user` carries on its server-side events (``WireTag``).
  func tag(for user: UInt32) -> UInt32 {
    WireTag.request(user: user, service: deskService, entersOrLeavesRoom: isRoomEntryOrExit)
  }
}
