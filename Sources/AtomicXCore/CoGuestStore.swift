internal import Clients
import Foundation
internal import LiveStack
internal import VirtualPlatform

/// The co-guest lists of a room as one user's SDK sees them.
public struct CoGuestState: Equatable, Sendable {
  /// The users on seats.
  public var connected: [SeatUserInfo] = []
  /// Invitations this host sent that are still open.
  public var invitees: [LiveUserInfo] = []
  /// Applications this host or admin can still answer.
  public var applicants: [LiveUserInfo] = []
  /// Viewers a host could invite (not modelled: always empty).
  public var candidates: [LiveUserInfo] = []

  /// Empty lists.
  public init() {}
}

/// Co-guest signalling of one live room: applications, invitations and leaving a seat.
///
/// Make it with ``create(liveID:)``; the instance for a room is the same for every call in one
/// virtual user's process.
public final class CoGuestStore {
  let bridge: Bridge
  let room: UInt32
  let guestEvents = PassthroughSubject<GuestEvent, Never>()
  let hostEvents = PassthroughSubject<HostEvent, Never>()
  let statePublisher = StatePublisher(CoGuestState())
  /// The seat lists the host's SDK instances share.
  let seatLists: SharedSeatLists

  init(bridge: Bridge, room: UInt32) {
    self.bridge = bridge
    self.room = room
    seatLists = SharedSeatLists.of(bridge.host)
    guestEvents.onSubscriberCountChange = { bridge.subscribe(.guestEvents, $0 > 0) }
    hostEvents.onSubscriberCountChange = { bridge.subscribe(.hostEvents, $0 > 0) }
    statePublisher.onSubscriberCountChange = { [unowned self] _ in self.sdk.stateSubscribersChanged() }
    statePublisher.refresher = { [unowned self] in self.refresh() }
  }

  var sdk: AtomicXUser { AtomicXUser.of(bridge.host, bridge.user) }

  /// The store of room `liveID` for the current user.
  public static func create(liveID: String) -> CoGuestStore {
    let sdk = AtomicXUser.current
    let room = VirtualIDs.room(liveID) ?? UInt32.max
    if let s = sdk.coGuest.first(where: { $0.room == room }) { return s }
    let store = CoGuestStore(bridge: sdk.bridge, room: room)
    sdk.coGuest.append(store)
    store.refresh()
    return store
  }

  /// Audience events (`GuestEvent`).
  public var guestEventPublisher: AnyPublisher<GuestEvent, Never> { guestEvents.eraseToAnyPublisher() }
  /// Host and admin events (`HostEvent`).
  public var hostEventPublisher: AnyPublisher<HostEvent, Never> { hostEvents.eraseToAnyPublisher() }
  /// The co-guest lists.
  public var state: StatePublisher<CoGuestState> { statePublisher }

  var model: Clients.CoGuestStore { bridge.client(room: room).coGuest }

  /// Audience: applies for seat `seatIndex` (-1: any free seat). `timeout` in seconds (0: none).
  public func applyForSeat(
    seatIndex: Int = -1, timeout: TimeInterval, extraInfo: String? = nil, completion: CompletionClosure? = nil,
    file: StaticString = #fileID, line: UInt = #line
  ) {
    model.applyForSeat(
      seatIndex: seatIndex, timeout: duration(timeout), completion: bridge.completion(completion, file, line))
  }

  /// Audience: withdraws the pending application.
  public func cancelApplication(completion: CompletionClosure? = nil, file: StaticString = #fileID, line: UInt = #line)
  {
    model.cancelApplication(completion: bridge.completion(completion, file, line))
  }

  /// Audience: accepts the invitation of host `inviterID`.
  public func acceptInvitation(
    inviterID: String, completion: CompletionClosure? = nil, file: StaticString = #fileID, line: UInt = #line
  ) {
    guard let u = VirtualIDs.user(inviterID) else { return bridge.fail(completion, .noSuchUser(inviterID)) }
    model.acceptInvitation(inviterID: u, completion: bridge.completion(completion, file, line))
  }

  /// Audience: declines the invitation of host `inviterID`.
  public func rejectInvitation(
    inviterID: String, completion: CompletionClosure? = nil, file: StaticString = #fileID, line: UInt = #line
  ) {
    guard let u = VirtualIDs.user(inviterID) else { return bridge.fail(completion, .noSuchUser(inviterID)) }
    model.rejectInvitation(inviterID: u, completion: bridge.completion(completion, file, line))
  }

  /// Leaves the caller's own seat (it takes no user: a host removes a guest with
  /// `LiveSeatStore.kickUserOutOfSeat`).
  public func disConnect(completion: CompletionClosure? = nil, file: StaticString = #fileID, line: UInt = #line) {
    model.disConnect(completion: bridge.completion(completion, file, line))
  }

  /// Host or admin: accepts `userID`'s application.
  public func acceptApplication(
    userID: String, completion: CompletionClosure? = nil, file: StaticString = #fileID, line: UInt = #line
  ) {
    guard let u = VirtualIDs.user(userID) else { return bridge.fail(completion, .noSuchUser(userID)) }
    model.acceptApplication(userID: u, completion: bridge.completion(completion, file, line))
  }

  /// Host or admin: rejects `userID`'s application.
  public func rejectApplication(
    userID: String, completion: CompletionClosure? = nil, file: StaticString = #fileID, line: UInt = #line
  ) {
    guard let u = VirtualIDs.user(userID) else { return bridge.fail(completion, .noSuchUser(userID)) }
    model.rejectApplication(userID: u, completion: bridge.completion(completion, file, line))
  }

  /// Host or admin: invites `userID` to seat `seatIndex` (-1: any). `timeout` in seconds.
  public func inviteToSeat(
    userID: String, seatIndex: Int = -1, timeout: TimeInterval, extraInfo: String? = nil,
    completion: CompletionClosure? = nil, file: StaticString = #fileID, line: UInt = #line
  ) {
    guard let u = VirtualIDs.user(userID) else { return bridge.fail(completion, .noSuchUser(userID)) }
    model.inviteToSeat(
      userID: u, seatIndex: seatIndex, timeout: duration(timeout), completion: bridge.completion(completion, file, line)
    )
  }

  /// Host or admin: withdraws the invitation to `inviteeID`.
  public func cancelInvitation(
    inviteeID: String, completion: CompletionClosure? = nil, file: StaticString = #fileID, line: UInt = #line
  ) {
    guard let u = VirtualIDs.user(inviteeID) else { return bridge.fail(completion, .noSuchUser(inviteeID)) }
    model.cancelInvitation(inviteeID: u, completion: bridge.completion(completion, file, line))
  }

  func deliver(_ event: LiveStack.GuestEvent) {
    let e: GuestEvent
    switch event {
    case .onHostInvitationReceived(let h): e = .onHostInvitationReceived(hostUser: bridge.userInfo(h))
    case .onHostInvitationCancelled(let h): e = .onHostInvitationCancelled(hostUser: bridge.userInfo(h))
    case .onGuestApplicationResponded(let a, let h):
      e = .onGuestApplicationResponded(isAccept: a, hostUser: bridge.userInfo(h))
    case .onGuestApplicationNoResponse(let r):
      e = .onGuestApplicationNoResponse(reason: r == .timeout ? .timeout : .alreadySeated)
    case .onKickedOffSeat(let s, let h): e = .onKickedOffSeat(seatIndex: s, hostUser: bridge.userInfo(h))
    }
    guestEvents.send(e)
  }

  func deliver(_ event: LiveStack.HostEvent) {
    let e: HostEvent
    switch event {
    case .onGuestApplicationReceived(let g): e = .onGuestApplicationReceived(guestUser: bridge.userInfo(g))
    case .onGuestApplicationCancelled(let g): e = .onGuestApplicationCancelled(guestUser: bridge.userInfo(g))
    case .onGuestApplicationProcessedByOtherHost(let g, let h):
      e = .onGuestApplicationProcessedByOtherHost(guestUser: bridge.userInfo(g), hostUser: bridge.userInfo(h))
    case .onHostInvitationResponded(let a, let g):
      e = .onHostInvitationResponded(isAccept: a, guestUser: bridge.userInfo(g))
    case .onHostInvitationNoResponse(let g, let r):
      e = .onHostInvitationNoResponse(guestUser: bridge.userInfo(g), reason: r == .timeout ? .timeout : .alreadySeated)
    }
    hostEvents.send(e)
  }

  // What the state was last built from, so that an unchanged SDK costs nothing and a changed list
  // rebuilds only the entries that changed.
  var builtSeats: [UInt32] = []
  var built = CoGuestState()
  var builtVersion: UInt64 = .max

  func refresh() {
    let runtime = bridge.runtime
    let u = Int(bridge.user)
    let slot = Int(runtime.clients[u].staffSlot)
    var changed = false
    if slot >= 0 {
      guard runtime.staffListsVersion != builtVersion else { return }
      builtVersion = runtime.staffListsVersion
      let seats = runtime.seatView[slot]
      if seats != builtSeats {
        built.connected = seatLists.connected(seats, room: room)
        builtSeats = seats
        changed = true
      }
      // The model's lists are read in place (holding on to them would make the model copy them
      // on its next change).
      if patch(&built.applicants, to: runtime.applicants, slot) { changed = true }
      if patch(&built.invitees, to: runtime.invitees, slot) { changed = true }
    } else {
      // A viewer's SDK: the room's list as room messaging brought it, its own seat as its own
      // deltas say.
      if runtime.updateSeatList(of: bridge.user, &builtSeats) {
        built.connected = seatLists.connected(builtSeats, room: room)
        changed = true
      }
    }
    if changed { statePublisher.send(built) }
  }

  /// The seated users of a seat list (occupant + 1 per seat, 0 for an empty seat), in seat order.
  /// (Sized up front with `reserveCapacity`, which is specialized for the element type, where
  /// `init(unsafeUninitializedCapacity:)` calls the runtime's generic allocation.)
  static func connected(_ seats: [UInt32]) -> [SeatUserInfo] {
    var out: [SeatUserInfo] = []
    out.reserveCapacity(seats.count)
    for (i, o) in seats.enumerated() where o != 0 { out.append(SeatUserInfo(user: o - 1, seatIndex: i)) }
    return out
  }

  /// Brings `infos` in line with the model's list `lists[slot]`, rebuilding only what lies
  /// between their common head and tail; returns whether anything changed.
  func patch(_ infos: inout [LiveUserInfo], to lists: [[UInt32]], _ slot: Int) -> Bool {
    lists.withUnsafeBufferPointer { all in
      all[slot].withUnsafeBufferPointer { new in
        let oldCount = infos.count
        var head = 0
        while head < oldCount && head < new.count && infos[head].id == new[head] { head += 1 }
        if head == oldCount && head == new.count { return false }
        var tail = 0
        while tail < oldCount - head && tail < new.count - head
          && infos[oldCount - 1 - tail].id == new[new.count - 1 - tail]
        {
          tail += 1
        }
        infos.replaceSubrange(
          head..<(oldCount - tail), with: new[head..<(new.count - tail)].map(LiveUserInfo.init(user:)))
        return true
      }
    }
  }
}

/// The `connected` lists of one host's SDK instances, one per room: the list last built for a room
/// is handed to every instance whose seat list is the same, instead of each building its own.
///
/// A seat change reaches every viewer of a room, one after another, and each viewer's SDK then
/// rebuilds its co-guest state: without sharing, a room of a thousand viewers allocated a thousand
/// equal arrays and freed as many. App code cannot tell the difference: the lists are values, and
/// a shared buffer is copied before anyone changes it.
final class SharedSeatLists {
  /// Per room: the seat list (occupant + 1 per seat) `infos` was built from.
  private var seats: [[UInt32]]
  /// Per room: the seated users of `seats`.
  private var infos: [[SeatUserInfo]]

  init(rooms: Int) {
    seats = Array(repeating: [], count: rooms)
    infos = Array(repeating: [], count: rooms)
  }

  /// The instance `host` keeps, made on first use.
  static func of(_ host: AppHost) -> SharedSeatLists {
    if let shared = host.atomicXShared { return unsafeDowncast(shared, to: SharedSeatLists.self) }
    let shared = SharedSeatLists(rooms: host.runtime.rooms.count)
    host.atomicXShared = shared
    return shared
  }

  /// The seated users of seat list `list` (occupant + 1 per seat) in room `room`.
  func connected(_ list: [UInt32], room: UInt32) -> [SeatUserInfo] {
    let r = Int(room)
    guard r < seats.count else { return CoGuestStore.connected(list) }
    if seats[r] != list {
      // Copied into this table's own storage: keeping the caller's array would make its owner
      // copy it on its next change.
      seats[r].removeAll(keepingCapacity: true)
      seats[r].append(contentsOf: list)
      infos[r] = CoGuestStore.connected(list)
    }
    return infos[r]
  }
}
