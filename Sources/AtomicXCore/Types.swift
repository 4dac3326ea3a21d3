internal import Clients
@_exported import Combine
import Foundation
internal import LiveStack
internal import SimKernel
internal import VirtualPlatform

/// An SDK error: its numeric code and a message.
public struct ErrorInfo: Error, Equatable, Sendable {
  /// The SDK's error code (for example -2340: the room's co-guest limit is reached).
  public var code: Int
  /// A readable message.
  public var message: String

  /// An error.
  public init(code: Int, message: String) {
    self.code = code
    self.message = message
  }
}

/// The completion of an SDK call.
public typealias CompletionClosure = (Result<Void, ErrorInfo>) -> Void

/// The strings of user infos, stored as numbers so that user lists copy as plain memory: a user
/// ID the model knows (`user_17`) is its number, the empty string and any other string get a
/// number from a table (shared by every run in the process; it only grows).
enum InternedString {
  static let empty: UInt32 = 0x8000_0000
  nonisolated(unsafe) static var table: [String] = [""]
  nonisolated(unsafe) static var index: [String: UInt32] = ["": 0]
  static let lock = NSLock()

  static func number(_ s: String) -> UInt32 {
    if s.hasPrefix("user_"), let n = UInt32(s.dropFirst(5)), n < empty, "user_\(n)" == s { return n }
    lock.lock()
    defer { lock.unlock() }
    if let i = index[s] { return empty | i }
    let i = UInt32(table.count)
    table.append(s)
    index[s] = i
    return empty | i
  }

  static func string(_ n: UInt32) -> String {
    if n & empty == 0 { return VirtualIDs.userID(n) }
    lock.lock()
    defer { lock.unlock() }
    return table[Int(n & ~empty)]
  }
}

/// A user as live rooms show it.
public struct LiveUserInfo: Equatable, Hashable, Sendable {
  var id: UInt32
  var name: UInt32
  var avatar: UInt32

  /// The user's ID.
  public var userID: String {
    get { InternedString.string(id) }
    set { id = InternedString.number(newValue) }
  }
  /// The display name.
  public var userName: String {
    get { InternedString.string(name) }
    set { name = InternedString.number(newValue) }
  }
  /// The avatar's URL.
  public var avatarURL: String {
    get { InternedString.string(avatar) }
    set { avatar = InternedString.number(newValue) }
  }

  /// A user.
  public init(userID: String = "", userName: String = "", avatarURL: String = "") {
    id = InternedString.number(userID)
    name = InternedString.number(userName)
    avatar = InternedString.number(avatarURL)
  }

  /// A user the model knows, named by its ID.
  init(user: UInt32) {
    id = user
    name = user
    avatar = InternedString.empty
  }
}

/// A user on a seat.
public struct SeatUserInfo: Equatable, Hashable, Sendable {
  var id: UInt32
  var name: UInt32
  var avatar: UInt32
  /// The seat's index.
  public var seatIndex: Int

  /// The user's ID.
  public var userID: String {
    get { InternedString.string(id) }
    set { id = InternedString.number(newValue) }
  }
  /// The display name.
  public var userName: String {
    get { InternedString.string(name) }
    set { name = InternedString.number(newValue) }
  }
  /// The avatar's URL.
  public var avatarURL: String {
    get { InternedString.string(avatar) }
    set { avatar = InternedString.number(newValue) }
  }

  /// A seated user.
  public init(userID: String = "", userName: String = "", avatarURL: String = "", seatIndex: Int = -1) {
    id = InternedString.number(userID)
    name = InternedString.number(userName)
    avatar = InternedString.number(avatarURL)
    self.seatIndex = seatIndex
  }

  /// A seated user the model knows (`nil`: an empty seat).
  init(user: UInt32?, seatIndex: Int) {
    id = user ?? InternedString.empty
    name = id
    avatar = InternedString.empty
    self.seatIndex = seatIndex
  }
}

/// One seat of a room's seat list.
public struct SeatInfo: Equatable, Sendable {
  /// The seat's index.
  public var index: Int
  /// Whether the seat is locked.
  public var isLocked: Bool
  /// Its occupant (an empty `userID` when the seat is free).
  public var userInfo: SeatUserInfo

  /// A seat.
  public init(index: Int, isLocked: Bool = false, userInfo: SeatUserInfo = SeatUserInfo()) {
    self.index = index
    self.isLocked = isLocked
    self.userInfo = userInfo
  }
}

/// Why an application or invitation got no answer.
public enum NoResponseReason: Equatable, Sendable {
  /// Nobody answered within the timeout.
  case timeout
  /// The user already sits on a seat.
  case alreadySeated
}

/// Events `CoGuestStore.guestEventPublisher` delivers to an audience member.
public enum GuestEvent: Equatable, Sendable {
  /// A host invited this user to a seat.
  case onHostInvitationReceived(hostUser: LiveUserInfo)
  /// The host withdrew its invitation.
  case onHostInvitationCancelled(hostUser: LiveUserInfo)
  /// A host answered this user's application.
  case onGuestApplicationResponded(isAccept: Bool, hostUser: LiveUserInfo)
  /// The application got no answer.
  case onGuestApplicationNoResponse(reason: NoResponseReason)
  /// A host removed this user from its seat.
  case onKickedOffSeat(seatIndex: Int, hostUser: LiveUserInfo)
}

/// Events `CoGuestStore.hostEventPublisher` delivers to a host or admin.
public enum HostEvent: Equatable, Sendable {
  /// A viewer applied for a seat.
  case onGuestApplicationReceived(guestUser: LiveUserInfo)
  /// The viewer withdrew its application.
  case onGuestApplicationCancelled(guestUser: LiveUserInfo)
  /// Another host or admin answered the application first.
  case onGuestApplicationProcessedByOtherHost(guestUser: LiveUserInfo, hostUser: LiveUserInfo)
  /// The invited viewer answered.
  case onHostInvitationResponded(isAccept: Bool, guestUser: LiveUserInfo)
  /// The invited viewer did not answer.
  case onHostInvitationNoResponse(guestUser: LiveUserInfo, reason: NoResponseReason)
}

/// A store's state, published: the current value, and every change after it.
public final class StatePublisher<State: Equatable>: Publisher {
  public typealias Output = State
  public typealias Failure = Never
  let subject: CurrentValueSubject<State, Never>
  var onSubscriberCountChange: ((Int) -> Void)?
  /// Whether anything subscribes (kept here, where reading it costs nothing).
  var watched = false
  /// Brings the state up to date with the SDK (before it is read or subscribed to).
  var refresher: (() -> Void)?

  /// How this publisher's cancellables reach it (made with the first; see `Link`).
  private var link: Link<StatePublisher>?

  init(_ initial: State) { subject = CurrentValueSubject(initial) }

  deinit { link?.target = nil }

  /// The current state.
  public var value: State {
    refresher?()
    return subject.value
  }

  public func subscribe(_ downstream: Downstream<State, Never>) -> AnyCancellable {
    refresher?()
    let inner = subject.subscribe(downstream)
    watched = true
    onSubscriberCountChange?(subject.subscriberCount)
    let link = self.link ?? Link(self)
    self.link = link
    return AnyCancellable {
      inner.cancel()
      guard let self = link.target else { return }
      self.watched = self.subject.subscriberCount > 0
      self.onSubscriberCountChange?(self.subject.subscriberCount)
    }
  }

  var hasSubscribers: Bool { watched }

  /// Makes `new` the state and sends it to the subscribers.
  func send(_ new: State) { subject.send(new) }

  func update(_ new: State) {
    if new != subject.value { subject.send(new) }
  }
}

// MARK: - The bridge to the model

extension ErrorInfo {
  init(_ error: SeatError) {
    self.init(code: Int(error.rawValue), message: "\(error)")
  }

  static func noSuchUser(_ id: String) -> ErrorInfo {
    ErrorInfo(code: Int(SeatError.invalidParameter.rawValue), message: "invalid parameter: no user \"\(id)\"")
  }
}

/// The model's view of one virtual user, for the stores' calls.
struct Bridge {
  let host: AppHost
  let user: UInt32

  static var current: Bridge {
    let host = AppHost.required("AtomicXCore")
    return Bridge(host: host, user: host.user)
  }

  var runtime: ClientRuntime { host.runtime }

  func client(room: UInt32 = 0) -> Client {
    host.client(user, room: room)
  }

  /// A model completion that runs `completion` as this user's code.
  /// `completion`, adapted, for an SDK call app code made at `file`:`line`: the call about to be
  /// issued carries that site, so that a violation it causes names the app's line.
  func completion(_ completion: CompletionClosure?, _ file: StaticString, _ line: UInt) -> Clients.Completion? {
    runtime.callSite = runtime.site(file: file, line: line)
    return self.completion(completion)
  }

  func completion(_ completion: CompletionClosure?) -> Clients.Completion? {
    guard let completion else { return nil }
    let host = self.host
    let user = self.user
    // The app's closure is let go of as the user's code, whether or not it is called.
    let held = UserBound(completion, host: host, user: user)
    return { _, result in
      host.run(as: user) {
        guard let completion = held.take() else { return }
        switch result {
        case .success: completion(.success(()))
        case .failure(let e): completion(.failure(ErrorInfo(e)))
        }
      }
    }
  }

  /// Fails `completion` later with `error`, without reaching the server (the SDK's own check).
  func fail(_ completion: CompletionClosure?, _ error: ErrorInfo) {
    guard let completion else { return }
    host.post({ completion(.failure(error)) })
  }

  func subscribe(_ stream: Subscriptions, _ on: Bool) {
    if on {
      runtime.clients[Int(user)].subscriptions.insert(stream)
      // App code watching a viewer's seat list hears every change as room messaging brings it.
      if stream == .seatList { runtime.hearEverySeatChange(user) }
    } else {
      runtime.clients[Int(user)].subscriptions.remove(stream)
    }
  }

  func userInfo(_ u: UInt32) -> LiveUserInfo { LiveUserInfo(user: u) }
}

/// Milliseconds of a `TimeInterval` timeout as the model's duration (zero or less: none).
func duration(_ seconds: TimeInterval) -> SimDuration {
  seconds <= 0 ? .zero : .nanoseconds(Int64((seconds * 1e9).rounded()))
}
