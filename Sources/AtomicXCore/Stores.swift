package import Clients
import Foundation
internal import LiveStack
internal import SimKernel
package import VirtualPlatform

/// One virtual user's AtomicXCore instances (its process's SDK).
final class AtomicXUser {
  let bridge: Bridge
  var coGuest: [CoGuestStore] = []
  var liveSeat: [LiveSeatStore] = []
  var login: LoginStore?
  var liveList: LiveListStore?
  var device: DeviceStore?
  var call: CallStore?
  /// The media type of the call the SDK is in, as far as this user learnt it.
  var mediaType: CallMediaType = .audio

  init(bridge: Bridge) { self.bridge = bridge }

  static var current: AtomicXUser {
    let b = Bridge.current
    return b.host.singleton(.atomicX) { AtomicXUser(bridge: b) }
  }

  /// The current user's instance of a `.shared` store, made the first time it is asked for.
  static func shared<T: AnyObject>(_ slot: ReferenceWritableKeyPath<AtomicXUser, T?>, _ make: (Bridge) -> T) -> T {
    let sdk = current
    if let existing = sdk[keyPath: slot] { return existing }
    let made = make(sdk.bridge)
    sdk[keyPath: slot] = made
    return made
  }

  static func of(_ host: AppHost, _ user: UInt32) -> AtomicXUser {
    host.existingSingleton(.atomicX, of: user) ?? host.run(as: user) { current }
  }

  /// Whether any co-guest store's state is watched; likewise for the other kinds below. They
  /// mirror the stores' publishers, kept up to date as subscriptions come and go
  /// (``watchingChanged()``), so that settling a user reads them here, beside the object's
  /// header, and never touches a store that nothing watches.
  private var watchesCoGuest = false
  private var watchesLiveSeat = false
  private var watchesDevice = false
  private var watchesCall = false
  private var watchesLogin = false

  /// Some state publisher of this user's stores gained or lost subscribers: the flags above follow.
  func watchingChanged() {
    watchesCoGuest = coGuest.contains { $0.statePublisher.watched }
    watchesLiveSeat = liveSeat.contains { $0.statePublisher.watched }
    watchesDevice = device?.statePublisher.watched ?? false
    watchesCall = call?.statePublisher.watched ?? false
    watchesLogin = login?.statePublisher.watched ?? false
  }

  /// Hooks `publisher` (of a `.shared` store of the user of `bridge`) to ``watchingChanged()``.
  static func mirrorWatching<S>(of publisher: StatePublisher<S>, _ bridge: Bridge) {
    publisher.onSubscriberCountChange = { _ in
      let sdk: AtomicXUser? = bridge.host.existingSingleton(.atomicX, of: bridge.user)
      sdk?.watchingChanged()
    }
  }

  /// A co-guest or live-seat state gained or lost subscribers: the SDK keeps the seat list flowing
  /// while any is watched.
  func stateSubscribersChanged() {
    watchingChanged()
    bridge.subscribe(.seatList, watchesCoGuest || watchesLiveSeat)
  }

  /// Brings every watched state up to date.
  func settle() {
    if watchesCoGuest { for s in coGuest where s.statePublisher.watched { s.refresh() } }
    if watchesLiveSeat { for s in liveSeat where s.statePublisher.watched { s.refresh() } }
    if watchesDevice, let d = device { d.refresh() }
    if watchesCall, let c = call { c.refresh() }
    if watchesLogin, let l = login { l.refresh() }
  }
}

/// What the harness hands the SDK of one user: the model's events, turned into the publishers'.
package enum AtomicXDelivery {
  /// Delivers `callback` (an SDK event of `user`) to its publishers, as `user`'s code.
  package static func deliver(_ callback: ClientCallback, to user: UInt32, host: AppHost) {
    guard let sdk: AtomicXUser = host.existingSingleton(.atomicX, of: user) else { return }
    switch callback {
    case .guestEvent(let e): for s in sdk.coGuest { s.deliver(e) }
    case .hostEvent(let e): for s in sdk.coGuest { s.deliver(e) }
    case .loginEvent(let e): sdk.login?.deliver(e)
    case .liveEnded: sdk.liveList?.deliverEnded()
    case .callEvent(let e): sdk.call?.deliver(e)
    case .seatList: break  // the states below are refreshed after every callback
    default: break
    }
  }

  /// Refreshes the watched states of `user` (after any of its code ran).
  package static func settle(_ user: UInt32, host: AppHost) {
    guard let sdk: AtomicXUser = host.existingSingleton(.atomicX, of: user) else { return }
    sdk.settle()
  }

}

// MARK: - LoginStore

/// Login status.
public enum LoginStatus: Equatable, Sendable {
  /// Not logged in.
  case unlogin
  /// Logged in.
  case logined
}

/// The logged-in user.
public struct UserProfile: Equatable, Sendable {
  /// The user's ID.
  public var userID: String
  /// The nickname.
  public var nickname: String?
}

/// The login state.
public struct LoginState: Equatable, Sendable {
  /// The logged-in user, if any.
  public var loginUserInfo: UserProfile?
  /// Whether logged in.
  public var loginStatus: LoginStatus = .unlogin
}

/// Events of `LoginStore`.
public enum LoginEvent: Equatable, Sendable {
  /// The same user logged in on another device.
  case onKickedOffline
  /// The UserSig expired.
  case onLoginExpired
}

/// Login to the IM SDK: `LoginStore.shared`.
public final class LoginStore {
  let bridge: Bridge
  let events = PassthroughSubject<LoginEvent, Never>()
  let statePublisher = StatePublisher(LoginState())

  init(bridge: Bridge) {
    self.bridge = bridge
    events.onSubscriberCountChange = { bridge.subscribe(.loginEvents, $0 > 0) }
    statePublisher.refresher = { [unowned self] in self.refresh() }
    AtomicXUser.mirrorWatching(of: statePublisher, bridge)
  }

  /// The current user's instance.
  public static var shared: LoginStore { AtomicXUser.shared(\.login, LoginStore.init(bridge:)) }

  /// Login events.
  public var loginEventPublisher: AnyPublisher<LoginEvent, Never> { events.eraseToAnyPublisher() }
  /// The login state.
  public var state: StatePublisher<LoginState> { statePublisher }

  /// Logs in as `userID` (the virtual user's own ID; another ID fails with -2).
  public func login(
    sdkAppID: Int, userID: String, userSig: String, completion: CompletionClosure? = nil, file: StaticString = #fileID,
    line: UInt = #line
  ) {
    guard VirtualIDs.user(userID) == bridge.user else { return bridge.fail(completion, .noSuchUser(userID)) }
    bridge.client().login.login(completion: bridge.completion(completion, file, line))
  }

  /// Logs out.
  public func logout(completion: CompletionClosure? = nil, file: StaticString = #fileID, line: UInt = #line) {
    bridge.client().login.logout(completion: bridge.completion(completion, file, line))
  }

  func refresh() {
    let on = bridge.client().login.isLogin
    statePublisher.update(
      LoginState(
        loginUserInfo: on ? UserProfile(userID: VirtualIDs.userID(bridge.user), nickname: nil) : nil,
        loginStatus: on ? .logined : .unlogin))
  }

  func deliver(_ e: LiveStack.LoginEvent) { events.send(e == .kickedOffline ? .onKickedOffline : .onLoginExpired) }
}

// MARK: - LiveListStore

/// A live room.
public struct LiveInfo: Equatable, Sendable {
  /// The room's ID.
  public var liveID: String
  /// The room's seat count: the guests' seats and, when the owner is kept on a seat, the owner's.
  public var maxSeatCount: Int
  /// Whether the owner takes the first seat as the live starts and keeps it.
  public var keepOwnerOnSeat: Bool = false
  /// The room's owner.
  public var liveOwner = LiveUserInfo()
}

/// Why a live ended for a viewer.
public enum LiveEndedReason: Equatable, Sendable {
  /// The owner ended it.
  case endedByHost
  /// The server ended it.
  case endedByServer
}

/// Events of `LiveListStore`.
public enum LiveListEvent: Equatable, Sendable {
  /// The live ended.
  case onLiveEnded(liveID: String, reason: LiveEndedReason, message: String)
  /// The user was put out of the live. The model has no such removal yet, so it never comes; an
  /// app's handling of it compiles as written.
  case onKickedOutOfLive(liveID: String, reason: LiveKickedOutReason, message: String)
}

/// Why a user was put out of a live (the room engine's reasons).
public enum LiveKickedOutReason: Equatable, Sendable {
  /// The owner or an admin removed the user.
  case byAdmin
  /// The user entered the live from another device.
  case byLoggedOnOtherDevice
  /// The server removed the user.
  case byServer
  /// The network was lost for too long.
  case forNetworkDisconnected
  /// The user's entry was no longer valid when it came back online.
  case forJoinRoomStatusInvalidDuringOffline
  /// The user is in more lives than allowed.
  case forCountOfJoinedRoomsExceedLimit
}

/// The live the user is in.
public struct LiveListState: Equatable, Sendable {
  /// The live the user is in (an empty `liveID` outside any).
  public var currentLive = LiveInfo(liveID: "", maxSeatCount: 0)
}

/// Entering, leaving and ending lives: `LiveListStore.shared`.
public final class LiveListStore {
  let bridge: Bridge
  let events = PassthroughSubject<LiveListEvent, Never>()
  let statePublisher = StatePublisher(LiveListState())
  var room: UInt32 = .max

  init(bridge: Bridge) {
    self.bridge = bridge
    events.onSubscriberCountChange = { bridge.subscribe(.liveEvents, $0 > 0) }
    statePublisher.refresher = { [unowned self] in self.refresh() }
  }

  /// The live the user is in: `state.value.currentLive`.
  public var state: StatePublisher<LiveListState> { statePublisher }

  /// The live `r` as the SDK describes it.
  func info(_ r: UInt32) -> LiveInfo {
    var info = LiveInfo(liveID: VirtualIDs.liveID(r), maxSeatCount: 0)
    guard r < UInt32(bridge.runtime.rooms.count) else { return info }
    info.maxSeatCount = bridge.client(room: r).liveSeat.maxSeatCount
    info.keepOwnerOnSeat = bridge.runtime.rooms[Int(r)].ownerSeat
    let owner = bridge.runtime.roomOwner[Int(r)]
    if owner != .max { info.liveOwner = LiveUserInfo(user: owner) }
    return info
  }

  func refresh() {
    // The room the SDK entered, whoever entered it (the app, or the harness for a host).
    let joined = bridge.runtime.clients[Int(bridge.user)].joinedRoom
    statePublisher.update(
      LiveListState(currentLive: joined == 0 ? LiveInfo(liveID: "", maxSeatCount: 0) : info(joined - 1)))
  }

  /// The current user's instance.
  public static var shared: LiveListStore { AtomicXUser.shared(\.liveList, LiveListStore.init(bridge:)) }

  /// Live events.
  public var liveListEventPublisher: AnyPublisher<LiveListEvent, Never> { events.eraseToAnyPublisher() }

  /// Enters live `liveID` (a virtual user can enter only the room the profile put it in).
  public func joinLive(
    liveID: String, completion: ((Result<LiveInfo, ErrorInfo>) -> Void)? = nil, file: StaticString = #fileID,
    line: UInt = #line
  ) {
    guard let r = VirtualIDs.room(liveID) else {
      guard let completion else { return }
      return bridge.host.post(
        {
          completion(.failure(ErrorInfo(code: Int(SeatError.roomNotExist.rawValue), message: "no live \"\(liveID)\"")))
        })
    }
    room = r
    var info = self.info(r)
    info.liveID = liveID
    bridge.client(room: r).liveList.joinLive(
      completion: bridge.completion(
        completion.map { c in
          { result in c(result.map { info }) }
        }, file, line))
  }

  /// Leaves the live: a pending application or invitation fails and a seat is vacated.
  public func leaveLive(completion: CompletionClosure? = nil, file: StaticString = #fileID, line: UInt = #line) {
    bridge.client(room: room).liveList.leaveLive(completion: bridge.completion(completion, file, line))
  }

  /// Owner: ends the live for everyone.
  public func endLive(completion: CompletionClosure? = nil, file: StaticString = #fileID, line: UInt = #line) {
    bridge.client(room: room).liveList.endLive(completion: bridge.completion(completion, file, line))
  }

  func deliverEnded() {
    events.send(.onLiveEnded(liveID: VirtualIDs.liveID(room), reason: .endedByHost, message: ""))
  }
}

// MARK: - LiveSeatStore

/// How `moveUserToSeat` treats an occupied target seat.
public enum MoveSeatPolicy: Equatable, Sendable {
  /// Fail.
  case abortWhenOccupied
  /// Remove the occupant.
  case forceReplace
  /// Swap the two users.
  case swapPosition
}

/// A room's seat list.
public struct LiveSeatState: Equatable, Sendable {
  /// Every seat, in order.
  public var seatList: [SeatInfo] = []
}

/// The seats of one live room: `LiveSeatStore.create(liveID:)`.
public final class LiveSeatStore {
  let bridge: Bridge
  let room: UInt32
  let statePublisher = StatePublisher(LiveSeatState())

  init(bridge: Bridge, room: UInt32) {
    self.bridge = bridge
    self.room = room
    statePublisher.onSubscriberCountChange = { [unowned self] _ in self.sdk.stateSubscribersChanged() }
    statePublisher.refresher = { [unowned self] in self.refresh() }
  }

  var sdk: AtomicXUser { AtomicXUser.of(bridge.host, bridge.user) }
  var model: Clients.LiveSeatStore { bridge.client(room: room).liveSeat }

  /// The store of room `liveID` for the current user.
  public static func create(liveID: String) -> LiveSeatStore {
    let sdk = AtomicXUser.current
    let room = VirtualIDs.room(liveID) ?? UInt32.max
    if let s = sdk.liveSeat.first(where: { $0.room == room }) { return s }
    let store = LiveSeatStore(bridge: sdk.bridge, room: room)
    sdk.liveSeat.append(store)
    return store
  }

  /// The seat list.
  public var state: StatePublisher<LiveSeatState> { statePublisher }

  /// Takes seat `seatIndex` (-1: any) directly.
  public func takeSeat(
    seatIndex: Int = -1, completion: CompletionClosure? = nil, file: StaticString = #fileID, line: UInt = #line
  ) {
    model.takeSeat(index: seatIndex, completion: bridge.completion(completion, file, line))
  }
  /// Leaves the caller's seat.
  public func leaveSeat(completion: CompletionClosure? = nil, file: StaticString = #fileID, line: UInt = #line) {
    model.leaveSeat(completion: bridge.completion(completion, file, line))
  }
  /// Locks seat `seatIndex`.
  public func lockSeat(
    seatIndex: Int, completion: CompletionClosure? = nil, file: StaticString = #fileID, line: UInt = #line
  ) {
    model.lockSeat(index: seatIndex, completion: bridge.completion(completion, file, line))
  }
  /// Unlocks seat `seatIndex`.
  public func unlockSeat(
    seatIndex: Int, completion: CompletionClosure? = nil, file: StaticString = #fileID, line: UInt = #line
  ) {
    model.unlockSeat(index: seatIndex, completion: bridge.completion(completion, file, line))
  }
  /// Removes `userID` from its seat.
  public func kickUserOutOfSeat(
    userID: String, completion: CompletionClosure? = nil, file: StaticString = #fileID, line: UInt = #line
  ) {
    guard let u = VirtualIDs.user(userID) else { return bridge.fail(completion, .noSuchUser(userID)) }
    model.kickUserOutOfSeat(userID: u, completion: bridge.completion(completion, file, line))
  }
  /// Moves `userID` to seat `targetIndex`.
  public func moveUserToSeat(
    userID: String, targetIndex: Int, policy: MoveSeatPolicy = .abortWhenOccupied, completion: CompletionClosure? = nil,
    file: StaticString = #fileID, line: UInt = #line
  ) {
    guard let u = VirtualIDs.user(userID) else { return bridge.fail(completion, .noSuchUser(userID)) }
    let p: MovePolicy =
      switch policy {
      case .abortWhenOccupied: .abortWhenOccupied
      case .forceReplace: .forceReplace
      case .swapPosition: .swapPosition
      }
    model.moveUserToSeat(
      userID: u, targetIndex: targetIndex, policy: p, completion: bridge.completion(completion, file, line))
  }

  var builtSeats: [UInt32] = []
  var builtLocks: [Bool] = []

  func refresh() {
    let runtime = bridge.runtime
    let u = Int(bridge.user)
    let slot = Int(runtime.clients[u].staffSlot)
    let count = room < UInt32(runtime.rooms.count) ? runtime.rooms[Int(room)].seatCount : 0
    var s = LiveSeatState()
    // A viewer's SDK shows the room's list as room messaging brought it; outside the room, every
    // seat empty.
    var seats = slot >= 0 ? runtime.seatView[slot] : runtime.seatList(of: bridge.user)
    if seats.isEmpty { seats = [UInt32](repeating: 0, count: count) }
    // No lock to show is an empty list (nothing allocated on every refresh).
    var locks = runtime.seatLocks(of: bridge.user)
    if !locks.contains(true) { locks = [] }
    guard seats != builtSeats || locks != builtLocks else { return }
    builtSeats = seats
    builtLocks = locks
    for (i, o) in seats.enumerated() {
      s.seatList.append(
        SeatInfo(
          index: i, isLocked: i < locks.count && locks[i],
          userInfo: SeatUserInfo(user: o == 0 ? nil : o - 1, seatIndex: i)))
    }
    statePublisher.send(s)
  }
}

// MARK: - DeviceStore

/// A capture device's state.
public enum DeviceStatus: Equatable, Sendable {
  /// Off.
  case off
  /// On.
  case on
}

/// The phone's capture devices.
public struct DeviceState: Equatable, Sendable {
  /// The microphone.
  public var microphoneStatus: DeviceStatus = .off
  /// The camera.
  public var cameraStatus: DeviceStatus = .off
}

/// The phone's microphone and camera: `DeviceStore.shared`.
public final class DeviceStore {
  let bridge: Bridge
  let statePublisher = StatePublisher(DeviceState())

  init(bridge: Bridge) {
    self.bridge = bridge
    statePublisher.refresher = { [unowned self] in self.refresh() }
    AtomicXUser.mirrorWatching(of: statePublisher, bridge)
  }

  /// The current user's instance.
  public static var shared: DeviceStore { AtomicXUser.shared(\.device, DeviceStore.init(bridge:)) }

  /// The devices' state.
  public var state: StatePublisher<DeviceState> { statePublisher }

  /// Opens the microphone (may fail with -1105 denied, -1106 occupied).
  public func openLocalMicrophone(
    completion: CompletionClosure? = nil, file: StaticString = #fileID, line: UInt = #line
  ) {
    bridge.client().device.openLocalMicrophone(completion: bridge.completion(completion, file, line))
  }
  /// Opens the camera (may fail with -1101 denied, -1102 occupied).
  public func openLocalCamera(
    isFront: Bool = true, completion: CompletionClosure? = nil, file: StaticString = #fileID, line: UInt = #line
  ) {
    bridge.client().device.openLocalCamera(isFront: isFront, completion: bridge.completion(completion, file, line))
  }
  /// Closes the microphone.
  public func closeLocalMicrophone() { bridge.client().device.closeLocalMicrophone() }
  /// Closes the camera.
  public func closeLocalCamera() { bridge.client().device.closeLocalCamera() }

  func refresh() {
    let d = bridge.client().device
    statePublisher.update(
      DeviceState(microphoneStatus: d.microphoneOn ? .on : .off, cameraStatus: d.cameraOn ? .on : .off))
  }
}
