import LiveStack
import SimKernel

/// Where the app stands on its phone.
public enum AppState: UInt8, Sendable, CaseIterable {
  /// On screen: the SDK is connected.
  case foreground
  /// Off screen: suspended, unless a push or a call keeps it running.
  case background
  /// Not running: the next launch is a cold start.
  case killed
}

/// How `ConversationManager` is configured (`ConversationManager.Configuration`).
public struct ConversationLimits: Sendable, Equatable {
  /// `maximumConversationGroups`: how many conversation groups may be active at once (each new
  /// conversation is its own group until a Merge joins it to another).
  public var maximumConversationGroups: Int
  /// `maximumConversationsPerConversationGroup`: the most conversations a Merge may join in one
  /// group (the system offers "merge" only where the merged group stays within it).
  public var maximumConversationsPerConversationGroup: Int
  /// `supportsVideo`.
  public var supportsVideo: Bool
  /// How long an action waits for `fulfill()` or `fail()` before the system times it out.
  public var actionTimeout: SimDuration

  /// The defaults: two groups of one, video, 30 s.
  public static let standard = ConversationLimits(
    maximumConversationGroups: 2, maximumConversationsPerConversationGroup: 1, supportsVideo: true,
    actionTimeout: .seconds(30))

  /// Creates limits.
  public init(
    maximumConversationGroups: Int, maximumConversationsPerConversationGroup: Int, supportsVideo: Bool,
    actionTimeout: SimDuration
  ) {
    self.maximumConversationGroups = maximumConversationGroups
    self.maximumConversationsPerConversationGroup = maximumConversationsPerConversationGroup
    self.supportsVideo = supportsVideo
    self.actionTimeout = actionTimeout
  }
}

/// Why `reportNewIncomingConversation` threw.
public enum ConversationError: String, Error, Sendable, CaseIterable {
  /// A conversation with this UUID is already active.
  case duplicateUUID
  /// The configured conversation limits are reached.
  case limitExceeded
}

/// The conversation actions the system hands to the delegate.
public enum ConversationActionKind: UInt8, Sendable, CaseIterable {
  /// `JoinConversationAction`: the user answered.
  case join
  /// `EndConversationAction`: the user declined or hung up.
  case end
  /// `StartConversationAction`: the user started a conversation from the system UI.
  case start
  /// `MergeConversationAction`: the user merged two conversations.
  case merge
}

/// One action for the delegate. It needs exactly one `fulfill()` or `fail()`.
public struct ConversationAction: Sendable, Equatable {
  /// The action's ID.
  public var id: UInt32
  /// Which action.
  public var kind: ConversationActionKind
  /// The conversation it is about.
  public var uuid: UInt32
  /// When the system times it out (`timeoutDate`); a completion after it is ignored.
  public var deadline: SimInstant = .zero
  /// For a Merge, the conversation to merge with (`conversationUUIDToMergeWith`); 0 otherwise.
  public var other: UInt32 = 0

  /// An action.
  public init(id: UInt32, kind: ConversationActionKind, uuid: UInt32, deadline: SimInstant = .zero, other: UInt32 = 0) {
    self.id = id
    self.kind = kind
    self.uuid = uuid
    self.deadline = deadline
    self.other = other
  }
}

/// Why a conversation ended (`Conversation.EndedReason`).
public enum ConversationEndReason: UInt8, Sendable, CaseIterable {
  /// The call failed.
  case failed
  /// The remote party ended it.
  case remoteEnded
  /// Nobody answered.
  case unanswered
  /// Answered on another device.
  case joinedElsewhere
  /// Declined on another device.
  case declinedElsewhere

  /// The name in counters: `failed`, `remote_ended`, `unanswered`, `joined_elsewhere`,
  /// `declined_elsewhere`.
  public var name: String {
    switch self {
    case .failed: "failed"
    case .remoteEnded: "remote_ended"
    case .unanswered: "unanswered"
    case .joinedElsewhere: "joined_elsewhere"
    case .declinedElsewhere: "declined_elsewhere"
    }
  }
}

/// A VoIP push as the app's PushKit handler gets it.
public struct VoIPPush: Sendable, Equatable {
  /// The call it announces (carried in the payload's `ext`).
  public var call: UInt32
  /// `voip_caller_name` (`nil` in a malformed payload).
  public var callerName: UInt32?
  /// `ext.voip_ext.voip_media_type`.
  public var mediaType: CallMediaType
  /// Whether `ext` is JSON (if not, the media type cannot be read and reads as audio).
  public var extReadable: Bool

  /// Creates a push.
  public init(call: UInt32, callerName: UInt32?, mediaType: CallMediaType, extReadable: Bool = true) {
    self.call = call
    self.callerName = callerName
    self.mediaType = extReadable ? mediaType : .audio
    self.extReadable = extReadable
  }
}

/// What the phone's system did on behalf of apps during a callback, for the world to act on.
public enum PhoneSystemEvent: Sendable, Equatable {
  /// The app created its `PKPushRegistry` for VoIP.
  case registryCreated(phone: UInt32)
  /// `reportNewIncomingConversation` was called; `error` says whether it threw, `active` how many
  /// conversations the phone had right after.
  case reported(phone: UInt32, uuid: UInt32, error: ConversationError?, active: UInt8)
  /// A conversation ended; `reason` is the one the app reported (`nil`: the system ended it, after
  /// an action or with the app's process).
  case ended(phone: UInt32, uuid: UInt32, call: UInt32, reason: ConversationEndReason?)
  /// The app asked the system to start outgoing conversation `uuid` (`perform` with a Start
  /// action); `error` says whether that threw. If not, action `action` goes to its delegate.
  case startRequested(phone: UInt32, uuid: UInt32, action: UInt32, error: ConversationError?, active: UInt8)
  /// The app of `phone` called `fulfill()` (or `fail()`) on an action.
  case completed(phone: UInt32, action: UInt32, fulfilled: Bool)
  /// The push handler of `phone`'s process `generation` finished with push `serial` (a count of
  /// pushes handed) the last it was given: its completion handler ran or its `async` method
  /// returned; `reported` says whether that push had been reported by then.
  case handlerReturned(phone: UInt32, serial: UInt32, generation: UInt16, reported: Bool)
}

/// The phone's operating system for every phone user: app state, PushKit and LiveCommunicationKit's
/// `ConversationManager`. Apps reach it through ``PushRegistry`` and ``ConversationManager``;
/// what it did is queued in ``events`` for the world.
public final class PhoneSystem {
  /// The phone users.
  public let phones: Range<UInt32>
  /// The configuration of every app's conversation manager.
  public let limits: ConversationLimits

  struct Cell {
    var app: AppState = .foreground
    /// Running in the background (woken by a push, or kept alive by a call).
    var awake = false
    var registry = false
    var suppressed = false
    var tuiLoggedIn = false
    var failures: UInt8 = 0
    var activeConversations: UInt8 = 0
    /// Active conversations a Merge joined to another's group (groups = active − merged).
    var merged: UInt8 = 0
    /// Calls of other apps (a cellular call) holding conversation groups.
    var foreignCalls: UInt8 = 0
    var generation: UInt16 = 0
    var token: UInt16 = 1
    /// Actions of this phone the system keeps (waiting for a completion, or timed out without one).
    var actions: UInt16 = 0
    /// The call of the last push handed to the app, as call ID + 1.
    var pushCall: UInt32 = 0
    var pushesHanded: UInt32 = 0
    var pushesReported: UInt32 = 0
    /// The handler of the last push handed will say when it finishes (a completion handler or an
    /// `async` method), rather than finishing when the callback returns.
    var handlerDeferred = false
  }

  /// One active conversation.
  public struct Conversation: Sendable, Equatable {
    /// The phone.
    public var phone: UInt32
    /// The UUID the app reported.
    public var uuid: UInt32
    /// The call of the push it answered, as call ID + 1 (0: reported without a push).
    public var call: UInt32
    /// Whether a Join was fulfilled, or the app reported it connected.
    public var connected: Bool
    /// When it was reported.
    public var reportedAt: SimInstant
    /// Whether the app started it (an outgoing conversation, `perform` with a Start action).
    public var outgoing = false
    /// The group it is in, named by the UUID of the group's first conversation (its own UUID
    /// until a Merge joins it to another).
    public var group: UInt32 = 0
  }

  struct PendingAction {
    var phone: UInt32
    var uuid: UInt32
    /// The call of its conversation when the action was made, as ID + 1 (0: none).
    var call: UInt32
    var kind: ConversationActionKind
    var deadline: Int64
    var timedOut: Bool
    var other: UInt32 = 0
  }

  let cells: Column<Cell>
  /// Active conversations by phone << 32 | UUID.
  @exclusivity(unchecked) public internal(set) var conversations: [UInt64: Conversation] = [:]
  /// Per phone (by ``index(_:)``): the UUIDs of its active conversations, ascending. A phone's
  /// conversations are found here, not by a scan of every phone's (which grew with the number of
  /// calls under way).
  @exclusivity(unchecked) var uuidsByPhone: [[UInt32]]
  @exclusivity(unchecked) var actions: [UInt32: PendingAction] = [:]
  /// The next action ID (IDs are never reused).
  @exclusivity(unchecked) public private(set) var nextAction: UInt32 = 0
  @exclusivity(unchecked) var nextUUID: UInt32 = 1
  /// What happened since the world last drained it.
  @exclusivity(unchecked) public var events: [PhoneSystemEvent] = []

  /// Whether anything happened since the last ``takeEvents()`` (checked after every callback).
  public var hasEvents: Bool { !events.isEmpty }

  /// What happened since the last call, oldest first; the list starts anew.
  public func takeEvents() -> [PhoneSystemEvent] {
    var taken: [PhoneSystemEvent] = []
    takeEvents(into: &taken)
    return taken
  }

  /// Hands over what happened since the last call, oldest first, in `taken`, which must be empty;
  /// the list starts anew in `taken`'s storage. (Trading buffers: a copy of the list, then
  /// emptying it, allocated a new buffer at every drain.)
  public func takeEvents(into taken: inout [PhoneSystemEvent]) {
    precondition(taken.isEmpty, "the buffer to take events into holds some")
    swap(&events, &taken)
  }
  let clock: Column<SimInstant>
  /// The time now (shared with the runtime, which the world keeps current).
  public var now: SimInstant {
    get { clock[0] }
    set { clock[0] = newValue }
  }

  /// A system for `phones`, every app in the foreground with token 1, reading the time from
  /// `runtime` (or keeping its own).
  public init(phones: Range<UInt32>, limits: ConversationLimits, runtime: ClientRuntime? = nil) {
    self.phones = phones
    self.limits = limits
    clock = runtime?.clockColumn ?? Column(repeating: .zero, count: 1)
    cells = Column(repeating: Cell(), count: phones.count)
    uuidsByPhone = Array(repeating: [], count: phones.count)
  }

  @inline(__always) func index(_ phone: UInt32) -> Int { Int(phone - phones.lowerBound) }

  // MARK: - State the world reads and drives

  /// The app state of `phone`.
  public func appState(_ phone: UInt32) -> AppState { cells[index(phone)].app }
  /// Whether the app of `phone` runs (in the foreground, or awake in the background).
  public func isRunning(_ phone: UInt32) -> Bool {
    let c = cells[index(phone)]
    return c.app == .foreground || (c.app == .background && c.awake)
  }
  /// Whether the app of `phone` is awake in the background.
  public func isAwake(_ phone: UInt32) -> Bool { cells[index(phone)].awake }
  /// The process generation of `phone`'s app (bumped at every launch).
  public func generation(_ phone: UInt32) -> UInt16 { cells[index(phone)].generation }
  /// The VoIP token the phone holds now.
  public func token(_ phone: UInt32) -> UInt16 { cells[index(phone)].token }
  /// Whether the OS stopped delivering VoIP pushes to the app.
  public func isSuppressed(_ phone: UInt32) -> Bool { cells[index(phone)].suppressed }
  /// How many times the app was killed for not reporting a push.
  public func reportFailures(_ phone: UInt32) -> Int { Int(cells[index(phone)].failures) }
  /// Whether this process created its VoIP push registry.
  public func hasRegistry(_ phone: UInt32) -> Bool { cells[index(phone)].registry }
  /// Whether TUILogin succeeded in this process.
  public func isTUILoggedIn(_ phone: UInt32) -> Bool { cells[index(phone)].tuiLoggedIn }
  /// Pushes handed to the app but not yet reported.
  public func unreportedPushes(_ phone: UInt32) -> UInt32 {
    cells[index(phone)].pushesHanded &- cells[index(phone)].pushesReported
  }
  /// The number of pushes handed to the app so far.
  public func pushesHanded(_ phone: UInt32) -> UInt32 { cells[index(phone)].pushesHanded }
  /// The number of handed pushes that are settled (reported, or died with their process).
  public func pushesReported(_ phone: UInt32) -> UInt32 { cells[index(phone)].pushesReported }
  /// The call of the last push handed to the app, as call ID + 1 (0: none).
  public func lastPushCall(_ phone: UInt32) -> UInt32 { cells[index(phone)].pushCall }
  /// Active conversations of `phone`.
  public func activeConversations(_ phone: UInt32) -> Int { Int(cells[index(phone)].activeConversations) }
  /// The conversation `uuid` of `phone`, if active.
  public func conversation(_ phone: UInt32, _ uuid: UInt32) -> Conversation? {
    conversations[UInt64(phone) << 32 | UInt64(uuid)]
  }
  /// The phone and conversation of action `id`, while it waits for a completion (or timed out
  /// uncompleted).
  public func pendingAction(_ id: UInt32) -> (phone: UInt32, uuid: UInt32, call: UInt32)? {
    actions[id].map { ($0.phone, $0.uuid, $0.call) }
  }

  /// Moves the app of `phone` to `state`; a killed app loses its process state (registry, TUILogin,
  /// conversations, which the system ends).
  public func setApp(_ phone: UInt32, _ state: AppState) {
    let i = index(phone)
    cells[i].app = state
    if state == .foreground { cells[i].awake = false }
    if state == .killed {
      // The process is gone: nothing it started reaches it any more.
      cells[i].generation &+= 1
      // Pushes the dead process never reported no longer count against it.
      cells[i].pushesReported = cells[i].pushesHanded
      cells[i].awake = false
      cells[i].registry = false
      cells[i].tuiLoggedIn = false
      endAll(phone)
      // Actions for a dead process can never be completed: the system drops them.
      if cells[i].actions > 0 {
        for id in actions.keys.sorted() where actions[id]!.phone == phone { actions.removeValue(forKey: id) }
        cells[i].actions = 0
      }
    }
  }

  /// A call of another app (a cellular call) starts or ends on `phone`; it holds a conversation
  /// group meanwhile.
  public func setForeignCall(_ phone: UInt32, _ on: Bool) {
    let i = index(phone)
    if on { cells[i].foreignCalls &+= 1 } else if cells[i].foreignCalls > 0 { cells[i].foreignCalls -= 1 }
  }

  /// Whether `phone` is in a call of another app.
  public func inForeignCall(_ phone: UInt32) -> Bool { cells[index(phone)].foreignCalls > 0 }

  /// Keeps the app of `phone` running in the background (or lets it suspend).
  public func setAwake(_ phone: UInt32, _ awake: Bool) { cells[index(phone)].awake = awake }

  /// A new process of `phone`'s app starts; returns its generation.
  @discardableResult
  public func launch(_ phone: UInt32, foreground: Bool) -> UInt16 {
    let i = index(phone)
    cells[i].generation &+= 1
    cells[i].registry = false
    cells[i].tuiLoggedIn = false
    cells[i].app = foreground ? .foreground : .background
    cells[i].awake = !foreground
    return cells[i].generation
  }

  /// The OS hands a VoIP push for `call` to the app's handler.
  public func handPush(_ phone: UInt32, call: UInt32) {
    let i = index(phone)
    cells[i].pushCall = call + 1
    cells[i].pushesHanded &+= 1
    cells[i].handlerDeferred = false
  }

  /// Whether the handler of the last push handed to `phone` finishes later than its callback's
  /// return (see ``PushRegistry/deferHandlerReturn()``).
  public func handlerDeferred(_ phone: UInt32) -> Bool { cells[index(phone)].handlerDeferred }

  func deferHandler(_ phone: UInt32) -> UInt32 {
    let i = index(phone)
    cells[i].handlerDeferred = true
    return cells[i].pushesHanded
  }

  func handlerReturned(_ phone: UInt32, serial: UInt32) {
    let c = cells[index(phone)]
    events.append(
      .handlerReturned(phone: phone, serial: serial, generation: c.generation, reported: c.pushesReported >= serial))
  }

  /// The app missed the report deadline: it is killed, and after `suppressAfter` such kills the
  /// system stops delivering its VoIP pushes. Returns whether it is now suppressed.
  @discardableResult
  public func killForMissedReport(_ phone: UInt32, suppressAfter: Int) -> Bool {
    let i = index(phone)
    cells[i].failures &+= 1
    cells[i].pushesReported = cells[i].pushesHanded
    if Int(cells[i].failures) >= suppressAfter { cells[i].suppressed = true }
    setApp(phone, .killed)
    return cells[i].suppressed
  }

  /// The device's VoIP token changes (the old one is invalid). Returns the new token.
  @discardableResult
  public func rotateToken(_ phone: UInt32) -> UInt16 {
    let i = index(phone)
    cells[i].token = cells[i].token == UInt16.max ? 1 : cells[i].token + 1
    return cells[i].token
  }

  /// Records TUILogin's state for the process.
  public func setTUILoggedIn(_ phone: UInt32, _ on: Bool) { cells[index(phone)].tuiLoggedIn = on }

  /// The system hands `kind` about conversation `uuid` to the app's delegate; returns the action.
  public func makeAction(_ phone: UInt32, uuid: UInt32, kind: ConversationActionKind, other: UInt32 = 0)
    -> ConversationAction
  {
    let id = nextAction
    nextAction += 1
    cells[index(phone)].actions += 1
    actions[id] = PendingAction(
      phone: phone, uuid: uuid, call: conversation(phone, uuid)?.call ?? 0, kind: kind,
      deadline: now.nanoseconds + limits.actionTimeout.nanoseconds,
      timedOut: false, other: other)
    return ConversationAction(id: id, kind: kind, uuid: uuid, deadline: now + limits.actionTimeout, other: other)
  }

  /// Action `id` timed out without a completion: the system gives up on it (a Join or End ends
  /// its conversation). Returns the action if it was still waiting.
  @discardableResult
  public func timeOut(action id: UInt32) -> ConversationAction? {
    guard var a = actions[id], !a.timedOut else { return nil }
    a.timedOut = true
    actions[id] = a
    if a.kind == .join || a.kind == .end || (a.kind == .start && isOutgoing(a.phone, a.uuid)) {
      endConversation(a.phone, a.uuid)
    }
    return ConversationAction(
      id: id, kind: a.kind, uuid: a.uuid, deadline: SimInstant(nanoseconds: a.deadline))
  }

  /// How a completion relates to its action.
  public enum Completion: Sendable, Equatable {
    /// The first completion, in time.
    case onTime(phone: UInt32, uuid: UInt32, kind: ConversationActionKind)
    /// After the action timed out (ignored by the system).
    case afterTimeout
    /// A second completion of a completed action.
    case repeated
    /// An ID the system never issued.
    case unknown
  }

  /// Classifies and applies a completion of action `id` (for the world, after draining
  /// ``events``): a fulfilled Join connects its conversation, a fulfilled End or failed Join ends it.
  public func settle(action id: UInt32, fulfilled: Bool) -> Completion {
    guard id < nextAction else { return .unknown }
    guard let a = actions.removeValue(forKey: id) else { return .repeated }
    cells[index(a.phone)].actions -= 1
    if a.timedOut { return .afterTimeout }
    let key = UInt64(a.phone) << 32 | UInt64(a.uuid)
    switch (a.kind, fulfilled) {
    case (.join, true): conversations[key]?.connected = true
    case (.join, false), (.end, true): endConversation(a.phone, a.uuid)
    // A Start the app failed: its outgoing conversation goes (a Start from the system UI has none).
    case (.start, false) where conversations[key]?.outgoing == true: endConversation(a.phone, a.uuid)
    case (.merge, true): merge(a.phone, a.uuid, with: a.other)
    default: break
    }
    return .onTime(phone: a.phone, uuid: a.uuid, kind: a.kind)
  }

  // MARK: - What apps call

  /// A fresh conversation UUID, standing for `UUID()`: a counter, so that a run depends only on
  /// its seed.
  public func makeUUID() -> UInt32 {
    let u = nextUUID
    nextUUID &+= 1
    return u
  }

  func createRegistry(_ phone: UInt32) {
    let i = index(phone)
    guard !cells[i].registry else { return }
    cells[i].registry = true
    events.append(.registryCreated(phone: phone))
  }

  /// Reports conversation `uuid`. It is bound to the call of the pending push if there is one,
  /// else to `sdkCall` (the call the app's SDK is in, as ID + 1), which is what the oracles check
  /// it against.
  func report(_ phone: UInt32, uuid: UInt32, sdkCall: UInt32) throws(ConversationError) {
    let i = index(phone)
    let call = cells[i].pushesHanded != cells[i].pushesReported ? cells[i].pushCall : sdkCall
    // Calling report at all answers the pending pushes, even when it throws.
    cells[i].pushesReported = cells[i].pushesHanded
    let key = UInt64(phone) << 32 | UInt64(uuid)
    if conversations[key] != nil {
      events.append(.reported(phone: phone, uuid: uuid, error: .duplicateUUID, active: cells[i].activeConversations))
      throw .duplicateUUID
    }
    if groups(phone) + Int(cells[i].foreignCalls) >= limits.maximumConversationGroups {
      events.append(.reported(phone: phone, uuid: uuid, error: .limitExceeded, active: UInt8(groups(phone))))
      throw .limitExceeded
    }
    add(Conversation(phone: phone, uuid: uuid, call: call, connected: false, reportedAt: now, group: uuid))
    events.append(.reported(phone: phone, uuid: uuid, error: nil, active: UInt8(groups(phone))))
  }

  func complete(_ phone: UInt32, _ action: ConversationAction, fulfilled: Bool) {
    events.append(.completed(phone: phone, action: action.id, fulfilled: fulfilled))
  }
}

/// `PKPushRegistry` for VoIP pushes.
public struct PushRegistry {
  let user: UInt32
  // Stores are made for one call inside a callback, while the world keeps the runtime alive.
  unowned(unsafe) let runtime: ClientRuntime

  /// Creates the registry with `desiredPushTypes = [.voIP]`. The token arrives later through
  /// ``ClientBehavior/pushTokenUpdated(_:_:)``; pushes reach the app only once this exists.
  public func register() { runtime.phoneSystem!.createRegistry(user) }

  /// Says that the handler of the push being delivered finishes later than the callback returns
  /// (PushKit's completion-handler and `async` variants); returns the push's serial, for
  /// ``handlerReturned(serial:)``. Without it, the handler finishes when the callback returns.
  public func deferHandlerReturn() -> UInt32 { runtime.phoneSystem!.deferHandler(user) }

  /// The handler of push `serial` finished: its completion handler ran, or its `async` method
  /// returned. A push not reported by then gets the app killed (`push.reportBeforeReturn`).
  public func handlerReturned(serial: UInt32) { runtime.phoneSystem!.handlerReturned(user, serial: serial) }
}

/// LiveCommunicationKit's `ConversationManager`, as configured by the profile.
public struct ConversationManager {
  let user: UInt32
  // Stores are made for one call inside a callback, while the world keeps the runtime alive.
  unowned(unsafe) let runtime: ClientRuntime

  /// A new UUID for a conversation.
  public func makeUUID() -> UInt32 { runtime.phoneSystem!.makeUUID() }

  /// `reportNewIncomingConversation(uuid:update:)`: the system UI starts ringing. Throws on a
  /// duplicate UUID or when the configured limits are reached. Calling it answers the pending
  /// VoIP pushes either way.
  public func reportNewIncomingConversation(uuid: UInt32) throws(ConversationError) {
    try runtime.phoneSystem!.report(user, uuid: uuid, sdkCall: runtime.clients[Int(user)].call)
  }

  /// `reportConversationEvent(.conversationEnded(reason))`: the system UI stops; the reason is
  /// counted (`conversation.ended.<reason>`).
  public func reportEnded(uuid: UInt32, reason: ConversationEndReason) {
    runtime.phoneSystem!.endConversation(user, uuid, reason: reason)
  }

  /// `reportConversationEvent(.conversationConnected)`: the system UI shows the conversation in
  /// progress.
  public func reportConnected(uuid: UInt32) { runtime.phoneSystem!.markConnected(user, uuid) }

  /// `perform([StartConversationAction])`: the app starts outgoing conversation `uuid`. Throws on
  /// a duplicate UUID or when the configured limits are reached; otherwise the system hands the
  /// returned Start action to the app's delegate (a moment later), which must fulfill or fail it.
  public func startOutgoing(uuid: UInt32) throws(ConversationError) -> ConversationAction {
    try runtime.phoneSystem!.startOutgoing(user, uuid: uuid, sdkCall: runtime.clients[Int(user)].call)
  }

  /// Whether the system shows video conversations (`supportsVideo` in force).
  public var supportsVideo: Bool { runtime.phoneSystem!.limits.supportsVideo }

  /// `action.fulfill()`. A fulfilled Start binds its outgoing conversation to the call the SDK is in.
  public func fulfill(_ action: ConversationAction) {
    if action.kind == .start {
      runtime.phoneSystem!.bindOutgoing(user, action.uuid, sdkCall: runtime.clients[Int(user)].call)
    }
    runtime.phoneSystem!.complete(user, action, fulfilled: true)
  }

  /// `action.fail()`.
  public func fail(_ action: ConversationAction) { runtime.phoneSystem!.complete(user, action, fulfilled: false) }

  /// Whether conversation `uuid` is active.
  public func isActive(uuid: UInt32) -> Bool { runtime.phoneSystem!.conversation(user, uuid) != nil }

  /// The active conversations, in the order they were made.
  public var activeUUIDs: [UInt32] { runtime.phoneSystem!.activeUUIDs(of: user) }
}

/// The app's own view of the phone: whether it is in the foreground.
public struct AppInfo {
  let user: UInt32
  // Stores are made for one call inside a callback, while the world keeps the runtime alive.
  unowned(unsafe) let runtime: ClientRuntime

  /// `UIApplication.shared.applicationState`: a phone app's, or a viewer's (foreground unless
  /// `audience.background` sent it away).
  public var state: AppState {
    if let os = runtime.phoneSystem, os.phones.contains(user) { return os.appState(user) }
    return runtime.inBackground[user] != nil ? .background : .foreground
  }
}
