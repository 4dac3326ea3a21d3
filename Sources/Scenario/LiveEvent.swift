/// The event kinds of the live world. `a` and `b` name the entities in the comment.
public enum LiveEvent: UInt16, CaseIterable, Sendable {
  /// a = user: the client starts (arrives); its behaviour logs in and joins.
  case clientStart = 1
  /// a = room: the next viewer of the room's arrival process arrives.
  case arrival
  /// a = operation slot: an SDK call reaches the server.
  case serverCall
  /// a = operation slot, b = error code bit pattern (0: success): the answer reaches the client.
  case clientReply
  /// a = operation slot: the phone answers a device call.
  case deviceReply
  /// a = notice slot: a server event reaches a client.
  case clientNotice
  /// a = user, b = timer slot: a behaviour's timer fires.
  case clientTimer
  /// a = user: the user taps "apply" (flash crowds).
  case applyIntent
  /// a = request: the request's timeout fires on the server.
  case requestTimeout
  /// a = room: the room starts co-hosting with room a + 1.
  case coHostStart
  /// a = room: the room's co-hosting session ends.
  case coHostEnd
  /// The flash crowd: seats open and a share of every room's viewers apply.
  case flashCrowd
  /// A time-series sample.
  case sample
  /// a = user, b = `LoginEvent` raw value: the server ends the user's login (kicked offline by a
  /// login elsewhere, or the UserSig expired); it leaves its room.
  case loginEnded
  /// a = call: the call's ringing timeout fires on the server.
  case callTimeout
}
