import LiveStack
import SimKernel

/// One simulated phone, as a behaviour sees it while handling an event: who it is, the SDK stores
/// it can call, a random stream, and timers.
///
/// Calls made through the stores do not act at once: each becomes a message that crosses the
/// network, and its completion runs when the answer comes back, exactly as with the real SDK.
public struct Client {
  /// The user's ID.
  public let user: UInt32
  /// The room the user belongs to.
  public let room: UInt32
  /// The user's role in that room.
  public let role: RoomRole
  /// The SDK state of every client. A `Client` is valid only during the callback it is handed to;
  /// the world keeps the runtime alive meanwhile.
  public unowned(unsafe) let runtime: ClientRuntime
  /// This user's own random stream, seeded from the run's seed and the user's identity (see
  /// `Layout.identity(of:)`). Draw only from this (or from the behaviour's own seeded streams) to
  /// keep runs reproducible and each user's decisions independent of every other user's.
  public var random: SplitMix64

  /// Creates the view of `user` (the world does this for each callback).
  public init(user: UInt32, room: UInt32, role: RoomRole, runtime: ClientRuntime, random: SplitMix64) {
    self.user = user
    self.room = room
    self.role = role
    self.runtime = runtime
    self.random = random
  }

  /// The simulated time now.
  public var now: SimInstant { runtime.now }

  /// The co-guest status the UI shows. Setting it is what a view model's `status = …` does.
  public var status: CoGuestStatus {
    get { runtime.clients[Int(user)].status }
    nonmutating set { runtime.setStatus(user, newValue) }
  }

  /// `CoGuestStore.create(liveID:)` for this client's room.
  public var coGuest: CoGuestStore { CoGuestStore(user: user, runtime: runtime) }
  /// `LiveSeatStore` for this client's room.
  public var liveSeat: LiveSeatStore { LiveSeatStore(user: user, room: room, runtime: runtime) }
  /// `DeviceStore.shared`.
  public var device: DeviceStore { DeviceStore(user: user, runtime: runtime) }
  /// `LoginStore.shared`.
  public var login: LoginStore { LoginStore(user: user, runtime: runtime) }
  /// `LiveListStore.shared`.
  public var liveList: LiveListStore { LiveListStore(user: user, room: room, runtime: runtime) }
  /// `CallStore.shared`.
  public var callStore: CallStore { CallStore(user: user, runtime: runtime) }
  /// `TUILogin`.
  public var tuiLogin: TUILoginStore { TUILoginStore(user: user, runtime: runtime) }
  /// `V2TIMManager`'s offline-push calls.
  public var timPush: TIMPushStore { TIMPushStore(user: user, runtime: runtime) }
  /// The app's `PKPushRegistry`.
  public var pushRegistry: PushRegistry { PushRegistry(user: user, runtime: runtime) }
  /// The app's LiveCommunicationKit `ConversationManager`.
  public var conversations: ConversationManager { ConversationManager(user: user, runtime: runtime) }
  /// The app's state on the phone.
  public var app: AppInfo { AppInfo(user: user, runtime: runtime) }

  /// Wakes this client's behaviour (`timer(tag:arg:)`) after `delay`.
  public func schedule(after delay: SimDuration, tag: UInt32, arg: UInt32 = 0) {
    runtime.commands.append(.timer(user: user, delay: delay, tag: tag, arg: arg))
  }

  /// A host or admin takes up the application of `guest` to decide on it: the wait for a
  /// reviewer (`seat.wait_for_review`) ends, and the reviewer counts as busy until
  /// ``reviewEnded(_:)``. Review is a person's work, not an SDK call: nothing reaches the server.
  public func reviewStarted(_ guest: UInt32) {
    runtime.commands.append(.review(user: user, guest: guest, started: true))
  }

  /// The host or admin is done with the application of `guest` (decided, or dropped).
  public func reviewEnded(_ guest: UInt32) {
    runtime.commands.append(.review(user: user, guest: guest, started: false))
  }

  /// A random audience member of this room who is in the room and not on a seat, as the audience
  /// list shows it (`LiveAudienceStore`), or `nil` if none was found in a few draws.
  public mutating func randomAudienceMember() -> UInt32? {
    let range = runtime.audienceRange[Int(room)]
    guard !range.isEmpty else { return nil }
    for _ in 0..<8 {
      let u = range.lowerBound + UInt32(random.next(below: UInt64(range.count)))
      if runtime.clients[Int(u)].joinedRoom == room + 1 && runtime.clients[Int(u)].seenSeat < 0
        && runtime.clients[Int(u)].status == .idle
      {
        return u
      }
    }
    return nil
  }
}

func call(
  _ runtime: ClientRuntime, _ user: UInt32, _ kind: OperationKind, target: UInt32 = 0, seat: Int = -1,
  policy: MovePolicy = .abortWhenOccupied, timeout: SimDuration = .zero, _ completion: consuming Completion?
) {
  // The queue and the clock are plain values: read here, the runtime is not retained for the call.
  // The app's call site, if a facade recorded one, goes with the call it made.
  let site = runtime.callSite
  if site != 0 { runtime.callSite = 0 }
  runtime.commands.appendOperation(
    user: user, kind: kind, target: target, seat: Int16(clamping: seat), policy: policy, timeout: timeout,
    issuedAt: runtime.now, site: site, armedWhileRinging: runtime.workArmedWhileRinging, completion: completion)
}

/// `CoGuestStore`: applications and invitations.
public struct CoGuestStore {
  let user: UInt32
  // Stores are made for one call inside a callback, while the world keeps the runtime alive.
  unowned(unsafe) let runtime: ClientRuntime

  /// Subscribes to `guestEventPublisher` (audience events).
  public func subscribeGuestEvents() { runtime.clients[Int(user)].subscriptions.insert(.guestEvents) }
  /// Subscribes to `hostEventPublisher` (host and admin events).
  public func subscribeHostEvents() { runtime.clients[Int(user)].subscriptions.insert(.hostEvents) }
  /// Drops both subscriptions (what an unretained `AnyCancellable` does).
  public func unsubscribe() { runtime.clients[Int(user)].subscriptions.subtract([.guestEvents, .hostEvents]) }

  /// Audience: asks for seat `seatIndex` (-1: any). `timeout` zero means the request never times
  /// out. The completion fires when the request is sent or at its final outcome, as the profile's
  /// `seats.applyCompletion` says.
  public func applyForSeat(
    seatIndex: Int = -1, timeout: SimDuration, extraInfo: String? = nil, completion: consuming Completion? = nil
  ) {
    call(runtime, user, .applyForSeat, seat: seatIndex, timeout: timeout, completion)
  }

  /// Audience: withdraws the pending application. Fails with -2311 if an answer won the race.
  public func cancelApplication(completion: consuming Completion? = nil) {
    call(runtime, user, .cancelApplication, completion)
  }

  /// Audience: accepts the invitation sent by `inviterID`.
  public func acceptInvitation(inviterID: UInt32, completion: consuming Completion? = nil) {
    call(runtime, user, .acceptInvitation, target: inviterID, completion)
  }

  /// Audience: declines the invitation sent by `inviterID`.
  public func rejectInvitation(inviterID: UInt32, completion: consuming Completion? = nil) {
    call(runtime, user, .rejectInvitation, target: inviterID, completion)
  }

  /// Leaves the caller's own seat. It takes no user: kicking a guest is
  /// `LiveSeatStore.kickUserOutOfSeat`.
  public func disConnect(completion: consuming Completion? = nil) { call(runtime, user, .disConnect, completion) }

  /// Host or admin: accepts `userID`'s application. Fails with -2311 if another host processed it.
  public func acceptApplication(userID: UInt32, completion: consuming Completion? = nil) {
    call(runtime, user, .acceptApplication, target: userID, completion)
  }

  /// Host or admin: rejects `userID`'s application.
  public func rejectApplication(userID: UInt32, completion: consuming Completion? = nil) {
    call(runtime, user, .rejectApplication, target: userID, completion)
  }

  /// Host or admin: invites `userID` to seat `seatIndex` (-1: any). `timeout` zero: no timeout.
  public func inviteToSeat(
    userID: UInt32, seatIndex: Int = -1, timeout: SimDuration, extraInfo: String? = nil,
    completion: consuming Completion? = nil
  ) {
    call(runtime, user, .inviteToSeat, target: userID, seat: seatIndex, timeout: timeout, completion)
  }

  /// Host or admin: withdraws the invitation to `inviteeID`.
  public func cancelInvitation(inviteeID: UInt32, completion: consuming Completion? = nil) {
    call(runtime, user, .cancelInvitation, target: inviteeID, completion)
  }

  /// `state.applicants`: applications this host or admin can still answer (empty for audience).
  public var applicants: [UInt32] {
    let slot = runtime.clients[Int(user)].staffSlot
    return slot < 0 ? [] : runtime.applicants[Int(slot)]
  }

  /// Whether `userID` is in `state.applicants` (without copying the list).
  public func hasApplicant(_ userID: UInt32) -> Bool {
    let slot = runtime.clients[Int(user)].staffSlot
    return slot >= 0 && runtime.applicants[Int(slot)].contains(userID)
  }

  /// How many guests are connected, as the seat list shows it (without building the list).
  public var connectedCount: Int {
    let slot = runtime.clients[Int(user)].staffSlot
    if slot < 0 { return runtime.clients[Int(user)].seenSeat >= 0 ? 1 : 0 }
    var n = 0
    for occupant in runtime.seatView[Int(slot)] where occupant != 0 { n += 1 }
    return n
  }

  /// `state.invitees`: invitations this host or admin sent that are still open.
  public var invitees: [UInt32] {
    let slot = runtime.clients[Int(user)].staffSlot
    return slot < 0 ? [] : runtime.invitees[Int(slot)]
  }

  /// `state.connected`: the guests on seats, derived from the seat list (an audience member's
  /// as room messaging brought it).
  public var connected: [UInt32] {
    runtime.seatList(of: user).compactMap { $0 == 0 ? nil : $0 - 1 }
  }

  /// The host whose invitation this audience member holds, if any.
  public var invitation: UInt32? {
    let i = runtime.clients[Int(user)].invitation
    return i == 0 ? nil : i - 1
  }

  /// In `onHostInvitationReceived`: whether it repeats the invitation the SDK already listed from
  /// that host (a duplicated message) rather than bringing a new one.
  public var invitationHeardAgain: Bool { runtime.invitationRepeated }
}

/// `LiveSeatStore`: the seat list and direct seat operations.
public struct LiveSeatStore {
  let user: UInt32
  let room: UInt32
  // Stores are made for one call inside a callback, while the world keeps the runtime alive.
  unowned(unsafe) let runtime: ClientRuntime

  /// Subscribes to seat-list changes (`seated`/`left` deltas): a host or admin hears every
  /// change; an audience member hears those of its own seat (see ``subscribeEveryChange()``).
  public func subscribe() { runtime.clients[Int(user)].subscriptions.insert(.seatList) }

  /// Subscribes an audience member to every change of its room's seat list, each heard when room
  /// messaging brings it (one event per change per such viewer: for code that acts on others'
  /// seats; a viewer that only reads ``seatList`` needs none).
  public func subscribeEveryChange() {
    subscribe()
    runtime.hearEverySeatChange(user)
  }

  /// The room's seat count as the SDK gives it: the guests' seats and, where the owner sits on
  /// seat 0 (`seats.ownerSeat`), the owner's.
  public var maxSeatCount: Int { runtime.rooms[Int(room)].seatCount }
  /// The index of the first seat a guest may sit on: 1 where the owner sits on seat 0, else 0.
  public var firstGuestSeat: Int { runtime.rooms[Int(room)].firstGuestSeat }
  /// The room's package limit on connected co-guests.
  public var packageLimit: Int { runtime.rooms[Int(room)].packageLimit }
  /// This user's seat as the seat list shows it.
  public var mySeatIndex: Int? {
    let s = runtime.clients[Int(user)].seenSeat
    return s < 0 ? nil : Int(s)
  }

  /// The seat list (occupant per seat) as this user's SDK shows it: a viewer's as room messaging
  /// brought it. Empty outside the room.
  public var seatList: [UInt32?] {
    runtime.seatList(of: user).map { $0 == 0 ? nil : $0 - 1 }
  }

  /// The user on seat `index` as this user's SDK shows it, if any (without building the list for
  /// a host or admin).
  public func occupant(ofSeat index: Int) -> UInt32? {
    let list = runtime.seatList(of: user)
    return index >= 0 && index < list.count && list[index] != 0 ? list[index] - 1 : nil
  }

  /// Takes seat `index` (-1: any) directly: free mode, or staff.
  public func takeSeat(index: Int = -1, completion: consuming Completion? = nil) {
    call(runtime, user, .takeSeat, seat: index, completion)
  }
  /// Leaves the caller's seat.
  public func leaveSeat(completion: consuming Completion? = nil) { call(runtime, user, .leaveSeat, completion) }
  /// Locks seat `index`: its occupant stays, nobody new may sit.
  public func lockSeat(index: Int, completion: consuming Completion? = nil) {
    call(runtime, user, .lockSeat, seat: index, completion)
  }
  /// Unlocks seat `index`.
  public func unlockSeat(index: Int, completion: consuming Completion? = nil) {
    call(runtime, user, .unlockSeat, seat: index, completion)
  }
  /// Removes `userID` from its seat.
  public func kickUserOutOfSeat(userID: UInt32, completion: consuming Completion? = nil) {
    call(runtime, user, .kickUserOutOfSeat, target: userID, completion)
  }
  /// Moves `userID` to seat `targetIndex`, resolving an occupied target by `policy`.
  public func moveUserToSeat(
    userID: UInt32, targetIndex: Int, policy: MovePolicy, completion: consuming Completion? = nil
  ) {
    call(runtime, user, .moveUserToSeat, target: userID, seat: targetIndex, policy: policy, completion)
  }
}

/// `DeviceStore`: the phone's microphone and camera.
public struct DeviceStore {
  let user: UInt32
  // Stores are made for one call inside a callback, while the world keeps the runtime alive.
  unowned(unsafe) let runtime: ClientRuntime

  /// Opens the microphone. May fail with -1105 (denied) or -1106 (occupied).
  public func openLocalMicrophone(completion: consuming Completion? = nil) {
    call(runtime, user, .openLocalMicrophone, completion)
  }
  /// Opens the camera. May fail with -1101 (denied) or -1102 (occupied).
  public func openLocalCamera(isFront: Bool = true, completion: consuming Completion? = nil) {
    call(runtime, user, .openLocalCamera, completion)
  }
  /// Closes the microphone at once.
  public func closeLocalMicrophone() { runtime.commands.append(.closeDevice(user: user, .microphone)) }
  /// Closes the camera at once.
  public func closeLocalCamera() { runtime.commands.append(.closeDevice(user: user, .camera)) }
  /// Whether the microphone is on.
  public var microphoneOn: Bool { runtime.isOn(.microphone, user: user) }
  /// Whether the camera is on.
  public var cameraOn: Bool { runtime.isOn(.camera, user: user) }
}

/// `LoginStore`: login state and events.
public struct LoginStore {
  let user: UInt32
  // Stores are made for one call inside a callback, while the world keeps the runtime alive.
  unowned(unsafe) let runtime: ClientRuntime

  /// Subscribes to `kickedOffline` and `loginExpired`. Subscribing after `login` misses events that
  /// came before.
  public func subscribeEvents() { runtime.clients[Int(user)].subscriptions.insert(.loginEvents) }
  /// Logs in (`login(sdkAppID, userID, userSig)`).
  public func login(completion: consuming Completion? = nil) { call(runtime, user, .login, completion) }
  /// Logs out.
  public func logout(completion: consuming Completion? = nil) { call(runtime, user, .logout, completion) }
  /// Whether the SDK believes it is logged in.
  public var isLogin: Bool { runtime.clients[Int(user)].loggedIn }
}

/// `LiveListStore`: entering, leaving and ending lives.
public struct LiveListStore {
  let user: UInt32
  let room: UInt32
  // Stores are made for one call inside a callback, while the world keeps the runtime alive.
  unowned(unsafe) let runtime: ClientRuntime

  /// Subscribes to live events (the live ending).
  public func subscribe() { runtime.clients[Int(user)].subscriptions.insert(.liveEvents) }
  /// Enters this client's room.
  public func joinLive(completion: consuming Completion? = nil) { call(runtime, user, .joinLive, completion) }
  /// Leaves the room: a pending application or invitation fails and a seat is vacated.
  public func leaveLive(completion: consuming Completion? = nil) { call(runtime, user, .leaveLive, completion) }
  /// Owner: ends the live for everyone.
  public func endLive(completion: consuming Completion? = nil) { call(runtime, user, .endLive, completion) }
  /// Whether the SDK believes it is in the room.
  public var isInRoom: Bool { runtime.clients[Int(user)].joinedRoom == room + 1 }
}

/// `CallStore`: one-to-one and group calls.
public struct CallStore {
  let user: UInt32
  // Stores are made for one call inside a callback, while the world keeps the runtime alive.
  unowned(unsafe) let runtime: ClientRuntime

  /// Subscribes to `onCallReceived`, `onCallStarted` and `onCallEnded`.
  public func subscribe() { runtime.clients[Int(user)].subscriptions.insert(.callEvents) }

  /// The media type of the last call the SDK heard of (`nil`: none yet).
  public var mediaType: CallMediaType? { runtime.callMedia(of: user) }

  /// The `userData` call `call` was placed with ("" if none): what `onCallReceived` carries.
  public func userData(of call: UInt32) -> String {
    runtime.callUserData.isEmpty ? "" : runtime.callUserData[call] ?? ""
  }

  /// `calls(participantIds, mediaType, params)`: calls `participantIds` (up to eight). `timeout`
  /// zero means the server's default (30 s); `userData` (`params.userData`) reaches every callee
  /// with the invitation. Fails with -1201 when not logged in, -1202 for a bad list, -1203 when
  /// already in a call.
  public func calls(
    participantIds: [UInt32], mediaType: CallMediaType, timeout: SimDuration = .zero, userData: String = "",
    completion: consuming Completion? = nil
  ) {
    let packed = OperationPacking.placeCall(
      calleeList: runtime.callLists.store(participantIds, userData: userData), mediaType: mediaType)
    call(runtime, user, .placeCall, target: packed.target, seat: packed.seat, timeout: timeout, completion)
  }
  /// `accept()`: answers the ringing call.
  public func accept(completion: consuming Completion? = nil) { call(runtime, user, .acceptCall, completion) }
  /// `reject()`: declines the ringing call.
  public func reject(completion: consuming Completion? = nil) { call(runtime, user, .rejectCall, completion) }
  /// `hangup()`: cancels an unanswered call, or leaves a connected one.
  public func hangup(completion: consuming Completion? = nil) { call(runtime, user, .hangupCall, completion) }
  /// `invite(participantIds)`: rings `participantIds` into the running group call this user is
  /// connected in. Fails with -1203 outside a connected group call, -1202 for a bad list (someone
  /// already in the call, or more than nine in all).
  public func invite(participantIds: [UInt32], completion: consuming Completion? = nil) {
    call(runtime, user, .inviteToCall, target: runtime.callLists.store(participantIds), completion)
  }
  /// `join(callId)`: joins a started group call.
  public func join(callId: UInt32, completion: consuming Completion? = nil) {
    call(runtime, user, .joinCall, target: callId, completion)
  }

  /// The call the SDK believes this user is in.
  public var currentCall: UInt32? {
    let c = runtime.clients[Int(user)].call
    return c == 0 ? nil : c - 1
  }
  /// `selfInfo.status`: none, waiting or accept.
  public var state: CallParticipantState { runtime.clients[Int(user)].callState }
}

/// `TUILogin`: TUICore's login, made after `LoginStore.login` succeeded.
public struct TUILoginStore {
  let user: UInt32
  // Stores are made for one call inside a callback, while the world keeps the runtime alive.
  unowned(unsafe) let runtime: ClientRuntime

  /// `TUILogin.login(sdkAppID, userID, userSig)`. Fails with -1201 unless the IM login succeeded.
  public func login(completion: consuming Completion? = nil) { call(runtime, user, .tuiLogin, completion) }
  /// Whether TUILogin succeeded in this process.
  public var isLogin: Bool { runtime.phoneSystem?.isTUILoggedIn(user) ?? false }
}

/// The offline-push calls of `V2TIMManager` (TIMPush).
public struct TIMPushStore {
  let user: UInt32
  // Stores are made for one call inside a callback, while the world keeps the runtime alive.
  unowned(unsafe) let runtime: ClientRuntime

  /// `setVOIP(config: {certificateID, token})`: uploads the VoIP token. The backend records it only
  /// for a logged-in user with a non-zero certificate and token.
  public func setVOIP(certificateID: UInt32, token: UInt16, completion: consuming Completion? = nil) {
    let packed = OperationPacking.setVOIP(certificateID: certificateID, token: token)
    call(runtime, user, .setVOIP, target: packed.target, seat: packed.seat, completion)
  }
}
