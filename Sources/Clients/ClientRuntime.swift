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

  /// Whether the call is answered by the phone rather than the server.
  public var isLocal: Bool { self == .openLocalMicrophone || self == .openLocalCamera }
}

/// One SDK call in flight: what was asked, and what to run when the answer arrives.
public struct PendingOperation {
  /// The calling user.
  public var user: UInt32
  /// Which call.
  public var kind: OperationKind
  /// The other user involved (applicant, invitee, inviter, kicked or moved user), if any.
  public var target: UInt32
  /// The seat index argument (-1: any), if any.
  public var seat: Int16
  /// The move policy, for `moveUserToSeat`.
  public var policy: MovePolicy
  /// The timeout argument of `applyForSeat` / `inviteToSeat` (zero: none).
  public var timeout: SimDuration
  /// When the call was made.
  public var issuedAt: SimInstant
  /// The completion, if one was given.
  public var completion: Completion?
}

/// Something a client asked for while handling an event; the world carries it out afterwards.
public enum ClientCommand {
  /// An SDK call.
  case operation(PendingOperation)
  /// Turn a capture device off (immediate and infallible).
  case closeDevice(user: UInt32, CaptureDevice)
  /// Wake the client's behaviour after `delay` with `tag` and `arg`.
  case timer(user: UInt32, delay: SimDuration, tag: UInt32, arg: UInt32)
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
  /// Each room's audience user IDs.
  public let audienceRange: [Range<UInt32>]
  /// The simulated time of the event being handled (one cell).
  let clock = Column<SimInstant>(repeating: .zero, count: 1)
  /// The simulated time of the event being handled.
  public var now: SimInstant {
    get { clock[0] }
    set { clock[0] = newValue }
  }
  /// UI status per user.
  public let status: Column<CoGuestStatus>
  /// How many users show each status, indexed by `CoGuestStatus.rawValue`.
  public let statusCounts: Column<Int>
  /// Event streams each user subscribed to.
  public let subscriptions: Column<Subscriptions>
  /// Each user's own seat as its seat list shows it, or -1.
  public let seenSeat: Column<Int16>
  /// The room each user's SDK believes it is in, as room ID + 1.
  public let joinedRoom: Column<UInt32>
  /// Whether each user's SDK believes it is logged in.
  public let loggedIn: Column<Bool>
  /// Each audience member's pending invitation as inviter ID + 1 (0 = none).
  public let invitation: Column<UInt32>
  /// Each user's slot in the staff tables, or -1 for audience.
  public let staffSlot: Column<Int32>
  /// Capture devices on, per user: bit 0 microphone, bit 1 camera.
  public let deviceBits: Column<UInt8>
  /// Capture devices on across all users.
  public let devicesOn: Column<Int>
  /// Per staff member: the applicants list (`CoGuestStore.state.applicants`).
  public var applicants: [[UInt32]]
  /// Per staff member: the invitees list (`CoGuestStore.state.invitees`).
  public var invitees: [[UInt32]]
  /// Per staff member: the seat list, occupant user ID + 1 per seat (0 = empty).
  public var seatView: [[UInt32]]
  /// Calls and timers requested during the current callback.
  public let commands = CommandQueue()

  /// Creates the runtime for `userCount` users; `staff` lists (user, room) for every host and admin.
  public init(
    rooms: [RoomSettings], audienceRange: [Range<UInt32>], userCount: Int, staff: [(user: UInt32, room: UInt32)]
  ) {
    self.rooms = rooms
    self.audienceRange = audienceRange
    status = Column(repeating: .away, count: userCount)
    statusCounts = Column(repeating: 0, count: CoGuestStatus.allCases.count)
    statusCounts[Int(CoGuestStatus.away.rawValue)] = userCount
    subscriptions = Column(repeating: [], count: userCount)
    seenSeat = Column(repeating: -1, count: userCount)
    joinedRoom = Column(repeating: 0, count: userCount)
    loggedIn = Column(repeating: false, count: userCount)
    invitation = Column(repeating: 0, count: userCount)
    deviceBits = Column(repeating: 0, count: userCount)
    devicesOn = Column(repeating: 0, count: 1)
    let slots = Column<Int32>(repeating: -1, count: userCount)
    var views: [[UInt32]] = []
    for (i, s) in staff.enumerated() {
      slots[Int(s.user)] = Int32(i)
      views.append([UInt32](repeating: 0, count: rooms[Int(s.room)].maxSeatCount))
    }
    staffSlot = slots
    applicants = [[UInt32]](repeating: [], count: staff.count)
    invitees = [[UInt32]](repeating: [], count: staff.count)
    seatView = views
  }

  /// Whether `device` of `user` is on.
  public func isOn(_ device: CaptureDevice, user: UInt32) -> Bool {
    deviceBits[Int(user)] & (1 << device.rawValue) != 0
  }

  /// Whether any capture device of `user` is on.
  public func anyDeviceOn(user: UInt32) -> Bool { deviceBits[Int(user)] != 0 }

  /// Turns `device` of `user` on or off.
  public func setDevice(_ device: CaptureDevice, user: UInt32, on: Bool) {
    let mask: UInt8 = 1 << device.rawValue
    let was = deviceBits[Int(user)] & mask != 0
    guard was != on else { return }
    deviceBits[Int(user)] ^= mask
    devicesOn[0] += on ? 1 : -1
  }

  /// Sets the UI status of `user`, keeping the per-status counts.
  public func setStatus(_ user: UInt32, _ new: CoGuestStatus) {
    let old = status[Int(user)]
    guard old != new else { return }
    statusCounts[Int(old.rawValue)] -= 1
    statusCounts[Int(new.rawValue)] += 1
    status[Int(user)] = new
  }
}
