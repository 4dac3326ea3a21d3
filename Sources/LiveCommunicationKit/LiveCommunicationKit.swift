package import Clients
internal import LiveStack
internal import SimKernel
@_exported import VirtualPlatform

/// Someone in a conversation.
public struct Handle: Hashable, Sendable {
  /// What the value is.
  public enum Kind: Hashable, Sendable {
    case generic, phoneNumber, emailAddress
  }
  /// The kind of value.
  public var type: Kind
  /// The value (a user ID, a number, an address).
  public var value: String
  /// The name the system UI shows.
  public var displayName: String?

  /// A handle.
  public init(type: Kind, value: String, displayName: String? = nil) {
    self.type = type
    self.value = value
    self.displayName = displayName
  }
}

/// A conversation the system knows about.
public final class Conversation: @unchecked Sendable {
  /// Its UUID, as the app reported it.
  public let uuid: UUID
  /// The latest update reported.
  public internal(set) var update: Conversation.Update
  init(uuid: UUID, update: Conversation.Update) {
    self.uuid = uuid
    self.update = update
  }

  /// What a conversation can do.
  public struct Capabilities: OptionSet, Hashable, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public static let video = Capabilities(rawValue: 1)
    public static let playingTones = Capabilities(rawValue: 2)
    public static let pausing = Capabilities(rawValue: 4)
    public static let merging = Capabilities(rawValue: 8)
    public static let unmerging = Capabilities(rawValue: 16)
  }

  /// The details of a conversation, reported with it and whenever they change.
  public struct Update: Sendable {
    /// The local user.
    public var localMember: Handle?
    /// The other members.
    public var members: [Handle]?
    /// The members currently connected.
    public var activeRemoteMembers: [Handle]?
    /// What the conversation can do.
    public var capabilities: Capabilities?

    /// An update.
    public init(
      localMember: Handle? = nil, members: [Handle]? = nil, activeRemoteMembers: [Handle]? = nil,
      capabilities: Capabilities? = nil
    ) {
      self.localMember = localMember
      self.members = members
      self.activeRemoteMembers = activeRemoteMembers
      self.capabilities = capabilities
    }
  }

  /// Why a conversation ended.
  public enum EndedReason: Sendable, Equatable {
    case failed, remoteEnded, unanswered, joinedElsewhere, declinedElsewhere
  }

  /// Something that happened to a conversation, as the app reports it.
  public enum Event: Sendable {
    case conversationStartedConnecting(Date)
    case conversationConnected(Date)
    case conversationEnded(Date, EndedReason)
    case conversationUpdated(Update)
  }
}

/// Why the system refused a report.
public enum ConversationManagerError: Error, Equatable, Sendable {
  /// A conversation with this UUID exists already.
  case duplicateUUID
  /// The configured limits are reached.
  case maximumConversationsReached
  /// What the app asked is not modelled (an action other than a Start in `perform`).
  case unsupported
}

/// An action the system asks the app to carry out; it needs exactly one `fulfill()` or `fail()`.
public class ConversationAction: @unchecked Sendable {
  /// The action's own identifier (the system's actions are numbered by the model, so the same run
  /// gives the same ones; an action the app makes gets a `UUID()` of its own).
  public let uuid: UUID
  /// The conversation the action is about.
  public let conversationUUID: UUID
  var model: Clients.ConversationAction
  let user: UInt32
  let host: AppHost
  /// Whether the action was fulfilled or failed.
  public private(set) var isComplete = false

  init(uuid: UUID, model: Clients.ConversationAction, user: UInt32, host: AppHost) {
    conversationUUID = uuid
    self.uuid = model.id == .max ? UUID() : ConversationAction.uuid(ofAction: model.id)
    self.model = model
    self.user = user
    self.host = host
  }

  /// The identifier of the system's action number `id`: distinct from every conversation's (those
  /// the model makes have zeros where this has its mark).
  static func uuid(ofAction id: UInt32) -> UUID {
    let b = (UInt8(id >> 24), UInt8((id >> 16) & 0xFF), UInt8((id >> 8) & 0xFF), UInt8(id & 0xFF))
    return UUID(uuid: (0x41, 0x43, 0x54, 0x4E, 0, 0, 0x40, 0, 0x80, 0, 0, 0, b.0, b.1, b.2, b.3))
  }

  /// Reports that the action succeeded.
  public func fulfill() { complete(true) }
  /// Reports that the action failed.
  public func fail() { complete(false) }

  func complete(_ ok: Bool) {
    isComplete = true
    if let box: WeakManager = host.existingSingleton(.conversationManager, of: user) {
      box.manager?.pendingActions[model.id] = nil
    }
    let m = host.client(user).conversations
    if ok { m.fulfill(model) } else { m.fail(model) }
  }
}

/// The user answered.
public final class JoinConversationAction: ConversationAction, @unchecked Sendable {
  /// Fulfils the action; the conversation connected at `dateConnected`.
  public func fulfill(dateConnected: Date) { fulfill() }
}

/// The user hung up or declined.
public final class EndConversationAction: ConversationAction, @unchecked Sendable {
  /// Fulfils the action; the conversation ended at `dateEnded`.
  public func fulfill(dateEnded: Date) { fulfill() }
}

/// The user started a conversation from the system UI (the recents list).
public final class StartConversationAction: ConversationAction, @unchecked Sendable {
  /// Who to call.
  public let handles: [Handle]
  /// Whether it is a video call.
  public let isVideo: Bool

  /// An action the app asks the system for with `perform([startAction])`: an outgoing
  /// conversation to `handles`. The system hands this same object back to the delegate.
  public init(conversationUUID: UUID, handles: [Handle], isVideo: Bool) {
    self.handles = handles
    self.isVideo = isVideo
    let host = AppHost.required("StartConversationAction")
    super.init(
      uuid: conversationUUID, model: Clients.ConversationAction(id: .max, kind: .start, uuid: 0), user: host.user,
      host: host)
  }

  init(uuid: UUID, model: Clients.ConversationAction, user: UInt32, host: AppHost, handles: [Handle]) {
    self.handles = handles
    isVideo = false
    super.init(uuid: uuid, model: model, user: user, host: host)
  }
}

/// The user merged two conversations.
public final class MergeConversationAction: ConversationAction, @unchecked Sendable {
  /// The conversation to merge with.
  public let conversationUUIDToMergeWith: UUID
  init(uuid: UUID, with other: UUID, model: Clients.ConversationAction, user: UInt32, host: AppHost) {
    conversationUUIDToMergeWith = other
    super.init(uuid: uuid, model: model, user: user, host: host)
  }
}

/// The delegate of a conversation manager.
public protocol ConversationManagerDelegate: AnyObject {
  /// The system asks the app to carry out `action`.
  func conversationManager(_ manager: ConversationManager, perform action: ConversationAction)
  /// The manager began.
  func conversationManagerDidBegin(_ manager: ConversationManager)
  /// The manager reset: every conversation ended.
  func conversationManagerDidReset(_ manager: ConversationManager)
  /// A conversation changed.
  func conversationManager(_ manager: ConversationManager, conversationChanged conversation: Conversation)
  /// An action timed out before the app completed it.
  func conversationManager(_ manager: ConversationManager, timedOutPerforming action: ConversationAction)
}

extension ConversationManagerDelegate {
  public func conversationManagerDidBegin(_ manager: ConversationManager) {}
  public func conversationManagerDidReset(_ manager: ConversationManager) {}
  public func conversationManager(_ manager: ConversationManager, conversationChanged conversation: Conversation) {}
  public func conversationManager(_ manager: ConversationManager, timedOutPerforming action: ConversationAction) {}
}

/// The system's conversation UI for this app: `reportNewIncomingConversation` rings the phone.
///
/// Conversation UUIDs are the app's own `UUID()`s; the model numbers each at first sight, so its
/// random value never steers a run.
public final class ConversationManager: @unchecked Sendable {
  /// The configuration.
  public struct Configuration: Sendable {
    public var ringtoneName: String?
    public var iconTemplateImageData: Data?
    public var maximumConversationGroups: Int
    public var maximumConversationsPerConversationGroup: Int
    public var includesConversationInRecents: Bool
    public var supportsVideo: Bool
    public var supportedHandleTypes: Set<Handle.Kind>

    /// A configuration (the limits in force are the profile's `calls.conversations`).
    public init(
      ringtoneName: String? = nil, iconTemplateImageData: Data? = nil, maximumConversationGroups: Int = 1,
      maximumConversationsPerConversationGroup: Int = 1, includesConversationInRecents: Bool = true,
      supportsVideo: Bool = false, supportedHandleTypes: Set<Handle.Kind> = [.generic]
    ) {
      self.ringtoneName = ringtoneName
      self.iconTemplateImageData = iconTemplateImageData
      self.maximumConversationGroups = maximumConversationGroups
      self.maximumConversationsPerConversationGroup = maximumConversationsPerConversationGroup
      self.includesConversationInRecents = includesConversationInRecents
      self.supportsVideo = supportsVideo
      self.supportedHandleTypes = supportedHandleTypes
    }
  }

  /// The configuration.
  public let configuration: Configuration
  /// The delegate (held weakly, as the system does).
  public weak var delegate: ConversationManagerDelegate?
  let user: UInt32
  let host: AppHost
  var numbers: [UUID: UInt32] = [:]
  var reported: [Conversation] = []
  var modelUUIDs: [UInt32: UUID] = [:]
  /// The Start actions the app performed, by the model's action ID, until the delegate gets them.
  var started: [UInt32: StartConversationAction] = [:]
  /// The actions the delegate got and the app has not completed, by the model's action ID, until
  /// they time out.
  var pendingActions: [UInt32: ConversationAction] = [:]

  /// A manager for the current virtual user's app.
  public init(configuration: Configuration) {
    self.configuration = configuration
    host = AppHost.required("ConversationManager")
    user = host.user
    host.setSingleton(.conversationManager, WeakManager(self))
  }

  var model: Clients.ConversationManager {
    host.client(user).conversations
  }

  /// The conversations the system shows, in the order they were reported.
  public var conversations: [Conversation] {
    reported.filter { c in numbers[c.uuid].map { model.isActive(uuid: $0) } ?? false }
  }

  /// Reports an incoming conversation: the system UI starts ringing. Throws on a duplicate UUID or
  /// when the limits are reached.
  public func reportNewIncomingConversation(uuid: UUID, update: Conversation.Update) async throws {
    try reportNow(uuid: uuid, update: update)
  }

  func reportNow(uuid: UUID, update: Conversation.Update) throws {
    let n = number(for: uuid)
    do {
      try model.reportNewIncomingConversation(uuid: n)
    } catch ConversationError.duplicateUUID {
      throw ConversationManagerError.duplicateUUID
    } catch {
      throw ConversationManagerError.maximumConversationsReached
    }
    shown(Conversation(uuid: uuid, update: update))
  }

  /// The model's number for `uuid`, given at first sight.
  func number(for uuid: UUID) -> UInt32 {
    if let known = numbers[uuid] { return known }
    let n = model.makeUUID()
    numbers[uuid] = n
    modelUUIDs[n] = uuid
    return n
  }

  /// `conversation` is on screen now (the ended ones leave the list).
  func shown(_ conversation: Conversation) {
    // A system that shows no video shows a video conversation as audio.
    if !model.supportsVideo, var caps = conversation.update.capabilities, caps.contains(.video) {
      caps.remove(.video)
      conversation.update.capabilities = caps
    }
    reported.removeAll { !(numbers[$0.uuid].map { model.isActive(uuid: $0) } ?? false) }
    reported.append(conversation)
  }

  /// Reports what happened to `conversation`; `conversationEnded` stops the system UI.
  public func reportConversationEvent(_ event: Conversation.Event, for conversation: Conversation) {
    guard let n = numbers[conversation.uuid] else { return }
    switch event {
    case .conversationEnded(_, let reason):
      let r: ConversationEndReason =
        switch reason {
        case .failed: .failed
        case .remoteEnded: .remoteEnded
        case .unanswered: .unanswered
        case .joinedElsewhere: .joinedElsewhere
        case .declinedElsewhere: .declinedElsewhere
        }
      model.reportEnded(uuid: n, reason: r)
    case .conversationUpdated(var update):
      if !model.supportsVideo { update.capabilities?.remove(.video) }
      conversation.update = update
    case .conversationConnected:
      model.reportConnected(uuid: n)
    case .conversationStartedConnecting:
      break
    }
  }

  /// Performs actions the app starts itself: a ``StartConversationAction`` starts an outgoing
  /// conversation. It counts against the limits like an incoming one (it throws
  /// ``ConversationManagerError/maximumConversationsReached``, or
  /// ``ConversationManagerError/duplicateUUID``), and the system then hands the same action to the
  /// delegate's `perform`, which must fulfill it (once `CallStore.calls` succeeded: the
  /// conversation is bound to the call the SDK is in then) or fail it. Other actions throw
  /// ``ConversationManagerError/unsupported``.
  public func perform(_ actions: [ConversationAction]) async throws {
    try performNow(actions)
  }

  func performNow(_ actions: [ConversationAction]) throws {
    guard actions.allSatisfy({ $0 is StartConversationAction }) else { throw ConversationManagerError.unsupported }
    for case let start as StartConversationAction in actions {
      let n = number(for: start.conversationUUID)
      do {
        start.model = try model.startOutgoing(uuid: n)
      } catch ConversationError.duplicateUUID {
        throw ConversationManagerError.duplicateUUID
      } catch {
        throw ConversationManagerError.maximumConversationsReached
      }
      started[start.model.id] = start
      var update = Conversation.Update(members: start.handles)
      if start.isVideo { update.capabilities = .video }
      shown(Conversation(uuid: start.conversationUUID, update: update))
    }
  }

  func uuid(for n: UInt32) -> UUID {
    if let u = modelUUIDs[n] { return u }
    // A conversation this process never reported (the system remembers it from before): a UUID
    // made from its number.
    var bytes = [UInt8](repeating: 0, count: 16)
    bytes[12] = UInt8(n >> 24)
    bytes[13] = UInt8((n >> 16) & 0xFF)
    bytes[14] = UInt8((n >> 8) & 0xFF)
    bytes[15] = UInt8(n & 0xFF)
    let u = UUID(
      uuid: (
        bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9], bytes[10],
        bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
      ))
    modelUUIDs[n] = u
    numbers[u] = n
    return u
  }
}

final class WeakManager {
  weak var manager: ConversationManager?
  init(_ m: ConversationManager) { manager = m }
}

/// The bridge from the model's conversation actions to the app's delegate.
package enum ConversationDelivery {
  /// Hands `callback` to `user`'s conversation manager delegate, as `user`'s code.
  package static func deliver(_ callback: ClientCallback, to user: UInt32, host: AppHost) {
    if case .conversationActionTimedOut(let a) = callback { return timedOut(a, user: user, host: host) }
    guard case .conversationAction(let a) = callback,
      let box: WeakManager = host.existingSingleton(.conversationManager, of: user),
      let manager = box.manager, let delegate = manager.delegate
    else { return }
    let uuid = manager.uuid(for: a.uuid)
    // A Start the app performed comes back as the object it passed.
    if a.kind == .start, let own = manager.started.removeValue(forKey: a.id) {
      own.model = a
      manager.pendingActions[a.id] = own
      return delegate.conversationManager(manager, perform: own)
    }
    let action: ConversationAction =
      switch a.kind {
      case .join: JoinConversationAction(uuid: uuid, model: a, user: user, host: host)
      case .end: EndConversationAction(uuid: uuid, model: a, user: user, host: host)
      case .start: StartConversationAction(uuid: uuid, model: a, user: user, host: host, handles: [])
      case .merge:
        MergeConversationAction(uuid: uuid, with: manager.uuid(for: a.other), model: a, user: user, host: host)
      }
    manager.pendingActions[a.id] = action
    delegate.conversationManager(manager, perform: action)
  }

  /// The system timed out an action the delegate got and the app has not completed: the delegate
  /// hears of it with the same action object (`conversationManager(_:timedOutPerforming:)`).
  static func timedOut(_ a: Clients.ConversationAction, user: UInt32, host: AppHost) {
    guard let box: WeakManager = host.existingSingleton(.conversationManager, of: user), let manager = box.manager,
      let action = manager.pendingActions.removeValue(forKey: a.id), !action.isComplete
    else { return }
    manager.delegate?.conversationManager(manager, timedOutPerforming: action)
  }
}
