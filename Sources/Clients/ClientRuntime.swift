import LiveStack
import SimKernel

/// A completion handler of an SDK call, run when the call's result reaches the client. It gets the
/// client back `inout`, so it can update the UI status and make further calls.
public typealias Completion = (inout Client, Result<Void, SeatError>) -> Void

/// The SDK calls a client can make. Each becomes one request to the server (or to the phone, for
/// devices) and one completion back.
public enum OperationKind: UInt8, Sendable, CaseIterable {
  /// `LoginStore.login`.
  case login
  /// `LoginStore.logout`.
  case logout
  /// `LiveListStore.joinLive`.
  case joinLive
  /// `LiveListStore.leaveLive`.
  case leaveLive
  /// `LiveListStore.endLive` (owner).
  case endLive
  /// `CoGuestStore.applyForSeat`.
  case applyForSeat
  /// `CoGuestStore.cancelApplication`.
  case cancelApplication
  /// `CoGuestStore.acceptApplication`.
  case acceptApplication
  /// `CoGuestStore.rejectApplication`.
  case rejectApplication
  /// `CoGuestStore.inviteToSeat`.
  case inviteToSeat
  /// `CoGuestStore.cancelInvitation`.
  case cancelInvitation
  /// `CoGuestStore.acceptInvitation`.
  case acceptInvitation
  /// `CoGuestStore.rejectInvitation`.
  case rejectInvitation
  /// `CoGuestStore.disConnect`: the caller leaves its own seat.
  case disConnect
  /// `LiveSeatStore.takeSeat`.
  case takeSeat
  /// `LiveSeatStore.leaveSeat`.
  case leaveSeat
  /// `LiveSeatStore.lockSeat`.
  case lockSeat
  /// `LiveSeatStore.unlockSeat`.
  case unlockSeat
  /// `LiveSeatStore.kickUserOutOfSeat`.
  case kickUserOutOfSeat
  /// `LiveSeatStore.moveUserToSeat`.
  case moveUserToSeat
  /// `DeviceStore.openLocalMicrophone`.
  case openLocalMicrophone
  /// `DeviceStore.openLocalCamera`.
  case openLocalCamera
  /// `CallStore.calls(participantIds:mediaType:params:)`.
  case placeCall
  /// `CallStore.accept()`.
  case acceptCall
  /// `CallStore.reject()`.
  case rejectCall
  /// `CallStore.hangup()`.
  case hangupCall
  /// `CallStore.join(callId:)`.
  case joinCall
  /// `TUILogin.login`: the second login, after `LoginStore.login`.
  case tuiLogin
  /// `V2TIMManager.setVOIP(config:)`: uploads the VoIP token with a certificate ID.
  case setVOIP
  /// `CallStore.invite(participantIds:)`: more callees into the running group call.
  case inviteToCall

  /// Whether the call is answered by the phone rather than the server.
  @inlinable public var isLocal: Bool {
    switch self {
    case .openLocalMicrophone, .openLocalCamera: return true
    default: return false
    }
  }

  /// Whether it is a `CallStore` call.
  @inlinable public var isCallStore: Bool {
    switch self {
    case .placeCall, .acceptCall, .rejectCall, .hangupCall, .joinCall, .inviteToCall: return true
    default: return false
    }
  }

  /// Whether it is `applyForSeat` or `cancelApplication`.
  @inlinable public var isApplyOrWithdrawal: Bool { self == .applyForSeat || self == .cancelApplication }
  /// Whether it enters or leaves a room (`joinLive`, `leaveLive`): serving it reads membership.
  @inlinable public var isRoomEntryOrExit: Bool { self == .joinLive || self == .leaveLive }
  /// Whether its participant list waits in ``ClientRuntime/callLists`` (`calls` and `invite`).
  @inlinable public var hasCalleeList: Bool {
    switch self {
    case .placeCall, .inviteToCall: return true
    default: return false
    }
  }
}

/// Something a client asked for while handling an event; the world carries it out afterwards.
public enum ClientCommand {
  /// An SDK call.
  case operation(PendingOperation)
  /// Turn a capture device off (immediate and infallible).
  case closeDevice(user: UInt32, CaptureDevice)
  /// Wake the client's behaviour after `delay` with `tag` and `arg`.
  case timer(user: UInt32, delay: SimDuration, tag: UInt32, arg: UInt32)
  /// A host or admin (a person) takes up the application of `guest` (`started`), or is done with
  /// it: what the review metrics and the reviewers' resource figures are made of.
  case review(user: UInt32, guest: UInt32, started: Bool)
}

/// One client's SDK state and UI status.
public struct ClientState: Sendable {
  /// The UI status (set through `ClientRuntime.setStatus`, which keeps the counts).
  public internal(set) var status: CoGuestStatus = .away
  /// Event streams subscribed to.
  public var subscriptions: Subscriptions = []
  /// Capture devices on: bit 0 microphone, bit 1 camera.
  public internal(set) var deviceBits: UInt8 = 0
  /// Whether the SDK believes it is logged in.
  public var loggedIn = false
  /// Its own seat as its seat list shows it, or -1.
  public var seenSeat: Int16 = -1
  /// How many times the app closed each device (mod 16; low four bits the microphone, high four
  /// the camera): an open asked for before the last close ends with the device closed. (Here, in
  /// the record's padding.)
  public internal(set) var deviceCloses: UInt8 = 0
  /// The room the SDK believes it is in, as room ID + 1.
  public var joinedRoom: UInt32 = 0
  /// A pending invitation, as inviter ID + 1 (0 = none).
  public var invitation: UInt32 = 0
  /// The slot in the staff tables, or -1 for audience.
  public internal(set) var staffSlot: Int32 = -1
  /// The call the SDK believes it is in, as call ID + 1 (0 = none).
  public var call: UInt32 = 0
  /// The SDK's state in that call.
  public var callState: CallParticipantState = .none
  /// Bumped whenever the SDK leaves its room (`leaveLive`, `logout`): a `joinLive` asked for
  /// before carries the old value, and its late answer no longer puts the SDK in the room.
  public var roomEpoch: UInt8 = 0
  /// How many of its SDK calls await their answers (kept by ``CallsInFlight``, here so that a
  /// call's bookkeeping touches the record its handling reads anyway).
  public internal(set) var callsInFlight: UInt16 = 0

  /// A client that has not arrived.
  public init() {}
}

/// The client side of every simulated phone: what each SDK instance knows (seat list, applicants,
/// invitations, subscriptions, devices), the UI status, and the calls made but not yet carried
/// out.
///
/// State is kept in arrays indexed by user ID. Hosts and admins ("staff") also keep a full view
/// of their room's seat list and applicant list; audience members keep only their own seat.
public final class ClientRuntime {
  /// Settings of each room, as the SDK reports them.
  public let rooms: [RoomSettings]
  /// Each room's owner: the first of its staff (`UInt32.max` for a room without staff).
  public private(set) var roomOwner: [UInt32]
  /// Each room's audience user IDs.
  public let audienceRange: [Range<UInt32>]
  /// The simulated time of the event being handled (one cell).
  let clockColumn = Column<SimInstant>(repeating: .zero, count: 1)
  let clock: ColumnView<SimInstant>
  /// The simulated time of the event being handled.
  public var now: SimInstant {
    get { clock[0] }
    set { clock[0] = newValue }
  }
  /// Each user's SDK state and UI status, 28 bytes a user, kept together so that handling one
  /// event for a user touches one cache line.
  /// (Views of columns the runtime owns: a client's code reaches them through an unowned
  /// reference, and a view costs no retain per access.)
  public let clients: ColumnView<ClientState>
  /// How many users show each status, indexed by `CoGuestStatus.rawValue`.
  public let statusCounts: ColumnView<Int>
  /// Capture devices on across all users.
  public let devicesOn: ColumnView<Int>
  let owned: [Column<Int>]
  let clientColumn: Column<ClientState>
  /// Per staff member: the applicants list (`CoGuestStore.state.applicants`).
  @exclusivity(unchecked) public var applicants: [[UInt32]] { didSet { staffListsVersion &+= 1 } }
  /// Per staff member: the invitees list (`CoGuestStore.state.invitees`).
  @exclusivity(unchecked) public var invitees: [[UInt32]] { didSet { staffListsVersion &+= 1 } }
  /// Per staff member: the seat list, occupant user ID + 1 per seat (0 = empty).
  @exclusivity(unchecked) public var seatView: [[UInt32]] { didSet { staffListsVersion &+= 1 } }
  /// Changes whenever any staff member's applicants, invitees or seat list changes (app-facing
  /// state caches compare it before comparing lists).
  @exclusivity(unchecked) public private(set) var staffListsVersion: UInt64 = 0
  /// Calls and timers requested during the current callback.
  public let commands = CommandQueue()

  deinit {
    commands.deallocate()
    seatScratch.deallocate()
  }
  /// How long the SDK waits for an answer before it reports -1 (`network.requestTimeout`).
  public var requestTimeout = SDKTiming.requestTimeout
  /// Where app code made its SDK calls (see ``CallSites``).
  public var callSites = CallSites()
  /// The site of the SDK call app code is making now, taken by the call it issues (0: none).
  public var callSite: UInt32 = 0
  /// While app code runs delayed work (a timer, `asyncAfter`, a sleep's end), the call (ID + 1)
  /// its user's SDK showed ringing or dialing when the work was armed (0: none): each SDK call the
  /// work makes carries it (``PendingOperation/armedWhileRinging``), so that a hang-up of a
  /// connected call by a ring timeout left running is told from a user's tap.
  public var workArmedWhileRinging: UInt32 = 0
  /// Per user whose person tapped to end a call (hang up, give up, decline), the call its SDK
  /// showed then (call ID + 1; `UInt32.max` while its placed call was not known yet), until it
  /// taps dial again: a hang-up of that call from delayed work (a retry of a hang-up that got
  /// -1) is what the person asked for. Only app code's users have entries.
  public var endTapped: [UInt32: UInt32] = [:]

  /// `user`'s person taps to end its call (see ``endTapped``).
  public func noteEndTap(_ user: UInt32) {
    let c = clients[Int(user)]
    endTapped[user] = c.callState == .none ? .max : c.call
  }
  /// Per user: the media type of the last call its SDK heard of (the call's, not the user's own
  /// dialling choice), for the events the SDK-compatible `CallStore` publishes. Dense by user (it
  /// is written at every call event), grown to the highest user that heard one.
  @exclusivity(unchecked) var callMedia: [CallMediaType?] = []

  /// The media type of the last call `user`'s SDK heard of (`nil`: none yet).
  public func callMedia(of user: UInt32) -> CallMediaType? {
    Int(user) < callMedia.count ? callMedia[Int(user)] : nil
  }

  /// Notes that `user`'s SDK heard of a call of media type `media`.
  public func setCallMedia(_ media: CallMediaType, of user: UInt32) {
    callMedia.grow(toInclude: Int(user), filling: nil)
    callMedia[Int(user)] = media
  }
  /// The `userData` of every call placed with one, by call ID: it travels with the invitation,
  /// so a callee's SDK hands it to `onCallReceived`. Calls without it are not listed.
  @exclusivity(unchecked) public var callUserData: [UInt32: String] = [:]
  /// Viewers whose app is in the background now (`audience.background`), with when it went.
  @exclusivity(unchecked) public var inBackground: [UInt32: SimInstant] = [:]
  /// Whether the invitation event being delivered repeats one the SDK still listed from the same
  /// host (a duplicated message), rather than a new one; set by every `onHostInvitationReceived`.
  @exclusivity(unchecked) public internal(set) var invitationRepeated = false
  /// What app UIs show (empty unless app code with UI probes runs).
  public let ui: UIProbes
  /// The lines app code printed, for traces.
  public let appLog = AppLog()
  /// Uses of the virtual platform by app code outside every virtual user's code, in order: when
  /// (simulated nanoseconds) and what was used. The world turns them into findings.
  public var appOutsideUser: [(timeNs: Int64, what: String)] = []
  /// Platform contracts app code broke that stop or hang an iOS app (an unbalanced
  /// `DispatchGroup.leave()`, a `DispatchSemaphore.wait()` nothing can signal), in order: when, whose code, and what. The world turns them into
  /// findings; the run goes on.
  public var appContractBroken: [(timeNs: Int64, user: UInt32, what: String)] = []
  /// App crashes: those planned for this run and those that happened (see ``AppCrash``).
  public let appCrashes = AppCrashes()
  /// Participant lists of `calls()` in flight, by slot.
  public let callLists = ListTable()
  /// The phones' operating system (PushKit, LiveCommunicationKit, app state), when there are
  /// phone users.
  @exclusivity(unchecked) public var phoneSystem: PhoneSystem?
  /// Room messaging, from which an audience member's SDK reads its room's whole seat list (set by
  /// the world; without it a viewer's list holds only its own seat).
  public var feed: RoomFeed?
  /// The SDK quirk modes in force, as bits (see `SDKQuirk.bit`).
  public internal(set) var quirkBits: UInt32 = 0
  /// Per user, quirk `second-request-overwrites`: the SDK's one invitation handle (invitee + 1),
  /// and whether its application handle belongs to a refused apply.
  @exclusivity(unchecked) var invitationHandle: [UInt32]
  @exclusivity(unchecked) var applyHandleDead: [Bool]

  /// Creates the runtime for `userCount` users; `staff` lists (user, room) for every host and admin.
  public init(
    rooms: [RoomSettings], audienceRange: [Range<UInt32>], userCount: Int, staff: [(user: UInt32, room: UInt32)],
    quirks: Set<SDKQuirk> = []
  ) {
    self.rooms = rooms
    var owners = [UInt32](repeating: .max, count: rooms.count)
    for (u, r) in staff where owners[Int(r)] == .max { owners[Int(r)] = u }
    roomOwner = owners
    for q in quirks { quirkBits |= q.bit }
    let handles = quirks.contains(.secondRequestOverwrites) ? userCount : 0
    invitationHandle = [UInt32](repeating: 0, count: handles)
    applyHandleDead = [Bool](repeating: false, count: handles)
    self.audienceRange = audienceRange
    ui = UIProbes(userCount: userCount)
    clientColumn = Column(repeating: ClientState(), count: userCount)
    let clients = clientColumn.view
    let counts = Column(repeating: 0, count: CoGuestStatus.allCases.count)
    counts[Int(CoGuestStatus.away.rawValue)] = userCount
    let on = Column(repeating: 0, count: 1)
    owned = [counts, on]
    statusCounts = counts.view
    devicesOn = on.view
    clock = clockColumn.view
    var views: [[UInt32]] = []
    for (i, s) in staff.enumerated() {
      clients[Int(s.user)].staffSlot = Int32(i)
      views.append([UInt32](repeating: 0, count: rooms[Int(s.room)].seatCount))
    }
    self.clients = clients
    applicants = [[UInt32]](repeating: [], count: staff.count)
    invitees = [[UInt32]](repeating: [], count: staff.count)
    seatView = views
  }

  /// Room for one seat list, reused by ``updateSeatList(of:_:)``.
  var seatScratch = UnsafeMutableBufferPointer<UInt32>(start: nil, count: 0)

  /// `user`'s code hears every change of its room's seat list, not only its own (an audience
  /// member's SDK delivers them as room messaging brings them).
  public func hearEverySeatChange(_ user: UInt32) {
    guard clients[Int(user)].staffSlot < 0, let room = audienceRoom(of: user) else { return }
    feed?.watch(user, room: room)
  }

  /// The room whose audience `user` belongs to, if it is an audience member.
  public func audienceRoom(of user: UInt32) -> UInt32? {
    var lo = 0
    var hi = audienceRange.count
    while lo < hi {
      let mid = (lo + hi) / 2
      if audienceRange[mid].upperBound <= user { lo = mid + 1 } else { hi = mid }
    }
    return lo < audienceRange.count && audienceRange[lo].contains(user) ? UInt32(lo) : nil
  }

  /// Whether `device` of `user` is on.
  public func isOn(_ device: CaptureDevice, user: UInt32) -> Bool {
    clients[Int(user)].deviceBits & (1 << device.rawValue) != 0
  }

  /// The capture devices of `user` that are on, named for messages ("microphone", "camera",
  /// "microphone and camera").
  public func deviceNames(user: UInt32) -> StaticString {
    switch (isOn(.microphone, user: user), isOn(.camera, user: user)) {
    case (true, true): return "microphone and camera"
    case (true, false): return "microphone"
    case (false, true): return "camera"
    case (false, false): return "capture devices"
    }
  }

  /// Whether any capture device of `user` is on.
  public func anyDeviceOn(user: UInt32) -> Bool { clients[Int(user)].deviceBits != 0 }

  /// Turns `device` of `user` on or off.
  /// The app closes `device` (`closeLocalMicrophone`, `closeLocalCamera`): it is off, and an
  /// open asked for before ends with it closed (the SDK carries out its calls in order).
  public func closeDevice(_ device: CaptureDevice, user: UInt32) {
    let shift = device == .microphone ? 0 : 4
    let count = (clients[Int(user)].deviceCloses >> shift) &+ 1
    clients[Int(user)].deviceCloses =
      clients[Int(user)].deviceCloses & ~(0xF << shift) | (count & 0xF) << shift
    setDevice(device, user: user, on: false)
  }

  /// The number of closes of `device` by `user`'s app so far (mod 16).
  public func closes(of device: CaptureDevice, user: UInt32) -> Int16 {
    Int16(clients[Int(user)].deviceCloses >> (device == .microphone ? 0 : 4) & 0xF)
  }

  public func setDevice(_ device: CaptureDevice, user: UInt32, on: Bool) {
    let mask: UInt8 = 1 << device.rawValue
    let was = clients[Int(user)].deviceBits & mask != 0
    guard was != on else { return }
    clients[Int(user)].deviceBits ^= mask
    devicesOn[0] += on ? 1 : -1
  }

  /// Sets the UI status of `user`, keeping the per-status counts.
  public func setStatus(_ user: UInt32, _ new: CoGuestStatus) {
    let old = clients[Int(user)].status
    guard old != new else { return }
    statusCounts[Int(old.rawValue)] -= 1
    statusCounts[Int(new.rawValue)] += 1
    clients[Int(user)].status = new
  }
}

/// Lists of user IDs in slots with a free list (the participants of a `calls()` in flight), each
/// with the call's `userData` when it has one.
public final class ListTable {
  @exclusivity(unchecked) var lists: [[UInt32]] = []
  @exclusivity(unchecked) var free: [UInt32] = []
  /// The non-empty `userData` of the lists that have one, by slot (looked up, never walked).
  @exclusivity(unchecked) var userData: [UInt32: String] = [:]

  /// An empty table.
  public init() {}

  /// Stores `list` (and the call's `userData`, if any) and returns its slot.
  public func store(_ list: [UInt32], userData data: String = "") -> UInt32 {
    let slot: UInt32
    if let s = free.popLast() {
      lists[Int(s)] = list
      slot = s
    } else {
      lists.append(list)
      slot = UInt32(lists.count - 1)
    }
    if !data.isEmpty { userData[slot] = data }
    return slot
  }

  /// The list in `slot`, which is freed with its `userData`.
  public func take(_ slot: UInt32) -> [UInt32] {
    let list = lists[Int(slot)]
    lists[Int(slot)] = []
    if !userData.isEmpty { userData[slot] = nil }
    free.append(slot)
    return list
  }

  /// The `userData` stored with the list in `slot` ("" if none), left in place.
  public func userData(_ slot: UInt32) -> String { userData.isEmpty ? "" : userData[slot] ?? "" }

  /// The list in `slot`, left in place.
  public func peek(_ slot: UInt32) -> [UInt32] { lists[Int(slot)] }
}

extension ClientRuntime {
  /// The client side of `layout`'s rooms, each with `settings`, and its phones, with the SDK
  /// quirks `quirks` switched on.
  public convenience init(layout: Layout, settings: RoomSettings, quirks: Set<SDKQuirk>) {
    var staff: [(user: UInt32, room: UInt32)] = []
    for r in 0..<UInt32(layout.rooms) {
      for u in layout.staff(of: r) { staff.append((u, r)) }
    }
    self.init(
      rooms: [RoomSettings](repeating: settings, count: layout.rooms),
      audienceRange: (0..<UInt32(layout.rooms)).map { layout.audience(of: $0) }, userCount: layout.totalUsers,
      staff: staff, quirks: quirks)
  }
}

/// The arguments of an SDK call as the command queue and the calls in flight keep them: one user
/// and one seat field, which calls without a user or a seat argument use for their own arguments.
/// Read those through the typed accessors below, never through `target` and `seat` directly.
public protocol OperationArguments {
  /// Which call.
  var kind: OperationKind { get }
  /// The other user involved, or a call's own first argument (see the accessors).
  var target: UInt32 { get }
  /// The seat index, or a call's own second argument (see the accessors).
  var seat: Int16 { get }
}

extension OperationArguments {
  /// `calls(participantIds:mediaType:)`: where its callee list waits in ``ClientRuntime/callLists``.
  public var calleeList: UInt32 {
    precondition(kind.hasCalleeList, "\(kind) has no callee list")
    return target
  }

  /// `calls(participantIds:mediaType:)`: the media type.
  public var mediaType: CallMediaType {
    precondition(kind == .placeCall, "\(kind) has no media type")
    return CallMediaType(rawValue: UInt8(truncatingIfNeeded: seat)) ?? .audio
  }

  /// `join(callId:)`: the call joined.
  public var joinedCall: UInt32 {
    precondition(kind == .joinCall, "\(kind) joins no call")
    return target
  }

  /// `setVOIP(config:)`: the certificate ID and the device token.
  public var voipConfig: (certificateID: UInt32, token: UInt16) {
    precondition(kind == .setVOIP, "\(kind) has no VoIP config")
    return (target, UInt16(bitPattern: seat))
  }
}

/// How calls without a user or seat argument pack their own arguments into `target` and `seat`
/// (the inverse of the ``OperationArguments`` accessors).
enum OperationPacking {
  /// `calls(participantIds:mediaType:)`.
  static func placeCall(calleeList: UInt32, mediaType: CallMediaType) -> (target: UInt32, seat: Int) {
    (calleeList, Int(mediaType.rawValue))
  }

  /// `setVOIP(config:)`.
  static func setVOIP(certificateID: UInt32, token: UInt16) -> (target: UInt32, seat: Int) {
    (certificateID, Int(Int16(bitPattern: token)))
  }
}

extension PendingOperation: OperationArguments {}
extension OperationRecord: OperationArguments {}

/// What app UIs show, as their probes report it (the built-in clients' status is their UI and is
/// not recorded here).
public final class UIProbes {
  /// Per user, one byte (a check reads one table, not three): ``statusBit``, and the call screen
  /// in the bits of ``screenMask`` (``screenDown`` or ``screenUp``; neither: no call-screen
  /// probe). Any bit set: some probe reads the user's UI.
  let bits: ColumnView<UInt8>
  /// The table behind ``bits`` (a view reads and hints it without retaining anything).
  let column: Column<UInt8>
  static let statusBit: UInt8 = 1
  static let screenDown: UInt8 = 2
  static let screenUp: UInt8 = 4
  static let screenMask: UInt8 = 6
  static let applicantsBit: UInt8 = 8
  /// Per host or admin whose applications list a probe reads: the users it shows, sorted and
  /// without repeats (looked up by key only).
  var applicantRows: [UInt32: [UInt32]] = [:]

  init(userCount: Int) {
    column = Column(repeating: 0, count: userCount)
    bits = column.view
  }

  /// Whether any probe reads `user`'s UI.
  @inline(__always)
  public func isProbed(_ user: UInt32) -> Bool { bits[Int(user)] != 0 }

  /// Hints that `user`'s byte is about to be read (see ``prefetchHint(_:)``): every client
  /// callback ends by asking whether a probe reads the user's UI.
  @inline(__always)
  public func prefetch(_ user: UInt32) { bits.prefetch(Int(user)) }

  /// Whether `user`'s co-guest status comes from a probe.
  @inline(__always)
  public func isStatusProbed(_ user: UInt32) -> Bool { bits[Int(user)] & UIProbes.statusBit != 0 }

  /// Whether `user`'s call screen is up: 1 up, 0 down, -1 no call-screen probe.
  @inline(__always)
  public func callScreen(of user: UInt32) -> Int8 {
    switch bits[Int(user)] & UIProbes.screenMask {
    case UIProbes.screenUp: return 1
    case UIProbes.screenDown: return 0
    default: return -1
    }
  }

  /// Records that `user`'s co-guest status (``ClientState/status``) is read from its UI.
  public func noteStatusProbe(_ user: UInt32) {
    bits[Int(user)] |= UIProbes.statusBit
  }

  /// Records whether `user`'s call screen is up.
  public func setCallScreen(_ user: UInt32, shown: Bool) {
    bits[Int(user)] = bits[Int(user)] & ~UIProbes.screenMask | (shown ? UIProbes.screenUp : UIProbes.screenDown)
  }
}

/// The lines app code printed (`print` in a view model), each with its user and time. They are kept
/// only while a trace asks for them (``keeps``), and taken by it after each event.
public final class AppLog {
  /// One printed line.
  public struct Line: Sendable {
    /// The user whose code printed it.
    public var user: UInt32
    /// When, in simulated nanoseconds.
    public var timeNs: Int64
    /// The text.
    public var text: String
  }

  /// Whether lines are kept (a trace is being written).
  public var keeps = false
  /// Lines printed, kept or not.
  public private(set) var count = 0
  var lines: [Line] = []

  init() {}

  /// Records a line (kept only if ``keeps``).
  public func record(user: UInt32, timeNs: Int64, _ text: @autoclosure () -> String) {
    count += 1
    if keeps { lines.append(Line(user: user, timeNs: timeNs, text: text())) }
  }

  /// Takes the lines kept so far.
  public func take() -> [Line] {
    defer { lines.removeAll(keepingCapacity: true) }
    return lines
  }
}
