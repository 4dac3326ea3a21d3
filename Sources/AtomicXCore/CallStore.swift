internal import Clients
import Foundation
internal import LiveStack
internal import SimKernel
internal import VirtualPlatform

/// Audio or video.
public enum CallMediaType: Equatable, Sendable {
  /// Audio only.
  case audio
  /// Video.
  case video
}

/// Options of `calls(participantIds:callMediaType:params:)`.
public struct CallParams: Sendable {
  /// Seconds to ring before giving up (0: the server's 30 s).
  public var timeout: Int = 30
  /// Data handed to the callees: each one's `onCallReceived` carries it.
  public var userData: String = ""
  /// The room ID of the call (not modelled).
  public var roomID: String = ""

  /// Default options.
  public init() {}
}

/// Why a call ended.
public enum CallEndReason: Equatable, Sendable {
  case unknown, hangup, reject, noResponse, offline, lineBusy, canceled, otherDeviceAccepted, otherDeviceReject,
    endByServer
}

/// A participant's state in its call.
public enum CallParticipantStatus: Equatable, Sendable {
  /// In no call.
  case none
  /// Calling or ringing.
  case waiting
  /// In the call.
  case accept
}

/// This user in its call.
public struct CallParticipantInfo: Equatable, Sendable {
  /// The user's ID.
  public var id: String
  /// Its state.
  public var status: CallParticipantStatus
}

/// The call state.
public struct CallState: Equatable, Sendable {
  /// This user.
  public var selfInfo: CallParticipantInfo
  /// The call's ID ("" when in none).
  public var callId: String
}

/// Events of `CallStore`.
public enum CallEvent: Equatable, Sendable {
  /// A call rings this user.
  case onCallReceived(callId: String, mediaType: CallMediaType, userData: String)
  /// This user is connected in the call.
  case onCallStarted(callId: String, mediaType: CallMediaType)
  /// The call ended for this user, because of `userId`'s `reason`.
  case onCallEnded(callId: String, mediaType: CallMediaType, reason: CallEndReason, userId: String)
}

/// One-to-one and group calls: `CallStore.shared`.
public final class CallStore {
  let bridge: Bridge
  let events = PassthroughSubject<CallEvent, Never>()
  let statePublisher: StatePublisher<CallState>

  init(bridge: Bridge) {
    self.bridge = bridge
    statePublisher = StatePublisher(
      CallState(selfInfo: CallParticipantInfo(id: VirtualIDs.userID(bridge.user), status: .none), callId: ""))
    events.onSubscriberCountChange = { bridge.subscribe(.callEvents, $0 > 0) }
    statePublisher.refresher = { [unowned self] in self.refresh() }
    AtomicXUser.mirrorWatching(of: statePublisher, bridge)
  }

  /// The current user's instance.
  public static var shared: CallStore { AtomicXUser.shared(\.call, CallStore.init(bridge:)) }

  /// Call events.
  public var callEventPublisher: AnyPublisher<CallEvent, Never> { events.eraseToAnyPublisher() }
  /// The call state.
  public var state: StatePublisher<CallState> { statePublisher }

  var model: Clients.CallStore { bridge.client().callStore }

  /// Calls `participantIds` (up to eight). Fails with -1201 when not logged in, -1202 for a bad
  /// list, -1203 when already in a call.
  public func calls(
    participantIds: [String], callMediaType: CallMediaType, params: CallParams? = nil,
    completion: CompletionClosure? = nil, file: StaticString = #fileID, line: UInt = #line
  ) {
    guard let ids = users(participantIds, completion) else { return }
    AtomicXUser.of(bridge.host, bridge.user).mediaType = callMediaType
    let timeout = SimDuration.seconds(Int64(max(0, params?.timeout ?? 0)))
    model.calls(
      participantIds: ids, mediaType: callMediaType == .video ? .video : .audio, timeout: timeout,
      userData: params?.userData ?? "", completion: bridge.completion(completion, file, line))
  }

  /// Invites `participantIds` into the running group call this user is connected in; each rings
  /// for the call's timeout. Fails with -1203 outside a connected group call, -1202 for a bad
  /// list (someone already in the call, or more than nine in all). `params` is accepted for its
  /// shape; the invited ring for the call's own timeout.
  public func invite(
    participantIds: [String], params: CallParams? = nil, completion: CompletionClosure? = nil,
    file: StaticString = #fileID, line: UInt = #line
  ) {
    guard let ids = users(participantIds, completion) else { return }
    model.invite(participantIds: ids, completion: bridge.completion(completion, file, line))
  }

  /// The users `participantIds` name, or `nil` after failing `completion` with -1202 for an ID
  /// that names nobody.
  func users(_ participantIds: [String], _ completion: CompletionClosure?) -> [UInt32]? {
    var ids: [UInt32] = []
    for p in participantIds {
      guard let u = VirtualIDs.user(p) else {
        bridge.fail(
          completion, ErrorInfo(code: Int(SeatError.invalidCallParticipant.rawValue), message: "no user \"\(p)\""))
        return nil
      }
      ids.append(u)
    }
    return ids
  }

  /// Answers the ringing call.
  public func accept(completion: CompletionClosure? = nil, file: StaticString = #fileID, line: UInt = #line) {
    model.accept(completion: bridge.completion(completion, file, line))
  }
  /// Declines the ringing call.
  public func reject(completion: CompletionClosure? = nil, file: StaticString = #fileID, line: UInt = #line) {
    model.reject(completion: bridge.completion(completion, file, line))
  }
  /// Cancels an unanswered call, or leaves a connected one.
  public func hangup(completion: CompletionClosure? = nil, file: StaticString = #fileID, line: UInt = #line) {
    model.hangup(completion: bridge.completion(completion, file, line))
  }
  /// Joins the started group call `callId`.
  public func join(
    callId: String, completion: CompletionClosure? = nil, file: StaticString = #fileID, line: UInt = #line
  ) {
    guard let c = VirtualIDs.call(callId) else {
      return bridge.fail(
        completion, ErrorInfo(code: Int(SeatError.invalidParameter.rawValue), message: "no call \"\(callId)\""))
    }
    model.join(callId: c, completion: bridge.completion(completion, file, line))
  }

  func refresh() {
    let m = model
    let status: CallParticipantStatus =
      switch m.state {
      case .none: .none
      case .waiting: .waiting
      case .accept: .accept
      }
    statePublisher.update(
      CallState(
        selfInfo: CallParticipantInfo(id: VirtualIDs.userID(bridge.user), status: status),
        callId: m.currentCall.map(VirtualIDs.callID) ?? ""))
  }

  func deliver(_ e: LiveStack.CallEvent) {
    // The call's media type, as the server announced it (not this user's own last choice).
    let media: CallMediaType =
      switch model.mediaType {
      case .video?: .video
      case .audio?: .audio
      case nil: AtomicXUser.of(bridge.host, bridge.user).mediaType
      }
    switch e {
    case .received(_, let call):
      events.send(
        .onCallReceived(callId: VirtualIDs.callID(call), mediaType: media, userData: model.userData(of: call)))
    case .started(_, let call):
      events.send(.onCallStarted(callId: VirtualIDs.callID(call), mediaType: media))
    case .ended(_, let call, let reason, let other):
      let r: CallEndReason =
        switch reason {
        case .unknown: .unknown
        case .hangup: .hangup
        case .reject: .reject
        case .noResponse: .noResponse
        case .offline: .offline
        case .lineBusy: .lineBusy
        case .canceled: .canceled
        case .otherDeviceAccepted: .otherDeviceAccepted
        case .otherDeviceReject: .otherDeviceReject
        case .endByServer: .endByServer
        }
      events.send(
        .onCallEnded(callId: VirtualIDs.callID(call), mediaType: media, reason: r, userId: VirtualIDs.userID(other)))
    }
  }
}
