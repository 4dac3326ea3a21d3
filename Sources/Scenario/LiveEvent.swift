/// The event kinds of the live-seat world. `a` and `b` name the entities in the comment.
public enum LiveEvent: UInt16, CaseIterable, Sendable {
  /// a = viewer: arrives and sends a join.
  case viewerArrive = 1
  /// a = viewer: the server receives the join.
  case serverJoin
  /// a = viewer: the client learns it joined.
  case viewerJoined
  /// a = viewer: the user taps "apply".
  case viewerApply
  /// a = viewer, b = seat index + 1 (0 = any): the server receives the application.
  case serverApply
  /// a = viewer, b = error code bit pattern: the apply call failed.
  case viewerApplyFailed
  /// a = viewer, b = request: the apply call succeeded (the application is out).
  case viewerApplySent
  /// a = request, b = host: `onGuestApplicationReceived`.
  case hostApplicationReceived
  /// a = request, b = host: the host has thought and answers.
  case hostDecide
  /// a = request, b = host: the server receives an accept.
  case serverAccept
  /// a = request, b = host: the server receives a reject.
  case serverReject
  /// a = request, b = host: the accept failed; the host rejects instead.
  case hostAcceptFailed
  /// a = request, b = host: the application ended elsewhere (cancelled, processed by another host,
  /// timed out).
  case hostApplicationGone
  /// a = request, b = 1 accepted / 0 rejected: `onGuestApplicationResponded`.
  case viewerResponded
  /// a = request: `onGuestApplicationNoResponse(timeout)`.
  case viewerNoResponse
  /// a = request: the application's timeout fires on the server.
  case serverTimeout
  /// a = viewer: microphone and camera are open.
  case viewerDevicesOpen
  /// a = viewer: the guest decides to leave the seat.
  case viewerLeaveSeat
  /// a = viewer: the server receives the leave-seat.
  case serverLeaveSeat
  /// a = viewer: the viewer closes the room.
  case viewerLeave
  /// a = viewer: the server receives the leave.
  case serverLeave
}
