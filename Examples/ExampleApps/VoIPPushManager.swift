import AtomicXCore
import Combine
import Foundation
import ImSDK_Plus
import LiveCommunicationKit
import PushKit
import TUICore
import os

extension Notification.Name {
  static let tuiLoginSucceeded = Notification.Name("TUILoginSuccess")
}

/// Receives VoIP pushes and shows incoming calls in the system's call UI, as the TIMPush and
/// LiveCommunicationKit guides describe, with their sharp edges filed off:
/// - the token is kept until both logins succeeded, then uploaded (and again when it changes);
/// - every push is reported to the system before the handler returns (the `async` variant awaits
///   the report), even one it cannot read, and one for a second call while a call is on screen
///   (which it ends at once);
/// - a push that trails its call (the SDK heard the call end, or, logged in, knows no such call)
///   is reported and ended at once;
/// - "answer" in the system UI is fulfilled only once `CallStore.accept` succeeded;
/// - when the call ends, its conversation is ended too;
/// - a call the user places is shown by the system too: started with `perform`, dialled when the
///   system hands the Start action back, which is fulfilled only once the call is placed.
public class VoIPPushManager: NSObject, PKPushRegistryDelegate, ConversationManagerDelegate {
  /// The push manager's log (its lines go into the user's trace as "[VoIP] …").
  static let log = Logger(subsystem: "com.example.calls", category: "VoIP")
  private let pushRegistry: PKPushRegistry
  private let certificateID: Int
  private var voipToken: Data?
  private var cancellables = Set<AnyCancellable>()
  private var loginObserver: NSObjectProtocol?

  /// The conversation shown for the current call, if any.
  var currentCallUUID: UUID?
  /// The call ID the push of the current incoming conversation named (`voip_call_id`), if any.
  private var currentCallID: String?
  /// The last call the SDK rang this phone for.
  private var lastIncomingCallID: String?
  /// The call of a conversation declined before the SDK heard of it (a cold start).
  private var pendingDecline: String?
  /// An "answer" tapped before the SDK heard of the call (a cold start).
  private var pendingJoin: JoinConversationAction?
  /// Calls the user placed, by conversation, until the system hands their Start action back.
  private var pendingDials: [UUID: (@escaping (Bool) -> Void) -> Void] = [:]
  /// Whether the conversation shown is one this app started.
  private var currentIsOutgoing = false
  /// The calls the SDK last heard end, newest last: a push can arrive after its call is over.
  private var endedCallIDs: [String] = []
  /// What the last login used.
  private var credentials: (sdkAppID: Int, userID: String, userSig: String)?
  /// Whether the user was logged in elsewhere (kicked offline) and has not logged in here since:
  /// no call can be answered, nor its end heard, until then.
  private var loggedOut = false
  /// The call of the last push whose conversation was ended at once because the phone was logged
  /// in elsewhere: logged in here again, the SDK may ring for it after all.
  private var endedWhileOut: String?
  /// Kicked offline and not logged in since (by this app or any other path).
  private var loggedOutElsewhere: Bool {
    loggedOut && LoginStore.shared.state.value.loginStatus != .logined
  }
  /// Actions the system timed out while an answer was on its way to complete them.
  private var timedOutActions: Set<ObjectIdentifier> = []

  lazy var conversationManager: ConversationManager = {
    let configuration = ConversationManager.Configuration(
      ringtoneName: "phone_ringing.mp3", iconTemplateImageData: nil, maximumConversationGroups: 1,
      maximumConversationsPerConversationGroup: 1, includesConversationInRecents: true, supportsVideo: true,
      supportedHandleTypes: [.generic])
    let manager = ConversationManager(configuration: configuration)
    manager.delegate = self
    return manager
  }()

  public init(certificateID: Int) {
    self.certificateID = certificateID
    pushRegistry = PKPushRegistry(queue: DispatchQueue.main)
    super.init()
    _ = conversationManager
    pushRegistry.delegate = self
    pushRegistry.desiredPushTypes = [.voIP]
    loginObserver = NotificationCenter.default.addObserver(
      forName: .tuiLoginSucceeded, object: nil, queue: nil
    ) { [weak self] _ in self?.uploadVoIPToken() }
    CallStore.shared.callEventPublisher
      .sink { [weak self] event in self?.callEvent(event) }
      .store(in: &cancellables)
    // Kicked offline or the login expired: the call ends with the session, and no "ended" event
    // follows (the SDK is logged out), so the conversation ends here.
    LoginStore.shared.loginEventPublisher
      .sink { [weak self] event in self?.sessionEnded(event) }
      .store(in: &cancellables)
  }

  deinit {
    if let loginObserver { NotificationCenter.default.removeObserver(loginObserver) }
  }

  /// Logs in to the IM SDK, then TUICore; the token goes up after both.
  public func logIn(sdkAppID: Int, userID: String, userSig: String) {
    credentials = (sdkAppID, userID, userSig)
    loggedOut = false
    LoginStore.shared.login(sdkAppID: sdkAppID, userID: userID, userSig: userSig) { [weak self] result in
      if case .failure(let error) = result {
        VoIPPushManager.log.error("IM login failed \(error.code, privacy: .public)")
        // No answer (-1): the login may never have reached the server. Without it no call
        // reaches this app but by push, and none can be answered: try again shortly.
        if error.code == -1 { self?.logInAgain(sdkAppID: sdkAppID, userID: userID, userSig: userSig) }
        return
      }
      TUILogin.login(sdkAppID, userID: userID, userSig: userSig) {
        NotificationCenter.default.post(name: .tuiLoginSucceeded, object: nil)
      } fail: { [weak self] code, message in
        VoIPPushManager.log.error("TUILogin failed \(code) \(message ?? "", privacy: .public)")
        if code == -1 { self?.logInAgain(sdkAppID: sdkAppID, userID: userID, userSig: userSig) }
      }
    }
  }

  private func logInAgain(sdkAppID: Int, userID: String, userSig: String) {
    DispatchQueue.main.asyncAfter(deadline: .now() + 2) { [weak self] in
      self?.logIn(sdkAppID: sdkAppID, userID: userID, userSig: userSig)
    }
  }

  private func uploadVoIPToken() {
    // Both logins: TUICore's says nothing of an IM session that ended since (kicked, expired).
    guard let token = voipToken, certificateID != 0, TUILogin.isUserLogined(),
      LoginStore.shared.state.value.loginStatus == .logined
    else { return }
    let config = V2TIMVOIPConfig()
    config.certificateID = certificateID
    config.token = token
    V2TIMManager.sharedInstance().setVOIP(config: config, succ: nil) { code, desc in
      VoIPPushManager.log.error("token upload failed \(code) \(desc ?? "")")
    }
  }

  // MARK: PKPushRegistryDelegate

  public func pushRegistry(
    _ registry: PKPushRegistry, didUpdate pushCredentials: PKPushCredentials, for type: PKPushType
  ) {
    guard type == .voIP else { return }
    voipToken = pushCredentials.token
    // Kept for the settings screen's diagnostics, across launches.
    UserDefaults.standard.set(pushCredentials.token, forKey: "voipToken")
    uploadVoIPToken()
  }

  /// PushKit's `async` variant (iOS 17.4): the handler finishes when this returns, so the report
  /// is awaited here, before it returns, as iOS requires.
  public func pushRegistry(
    _ registry: PKPushRegistry, didReceiveIncomingVoIPPushWith payload: PKPushPayload, metadata: PKVoIPPushMetadata
  ) async {
    let fields = VoIPPushManager.read(payload)
    // Report even a push that cannot be read: iOS kills an app that does not.
    let uuid = UUID()
    let update = VoIPPushManager.update(callerName: fields.callerName ?? "Unknown caller", isVideo: fields.isVideo)
    if let shown = currentCallUUID, conversationManager.conversations.contains(where: { $0.uuid == shown }) {
      let pushedID = payload.dictionaryPayload["voip_call_id"] as? String
      let state = CallStore.shared.state.value
      if !currentIsOutgoing, let pushedID, pushedID != currentCallID, state.selfInfo.status == .waiting,
        state.callId == pushedID
      {
        // The SDK rings for this call, not for the one on screen (whose call it declined as busy,
        // or never heard of): this one is shown instead.
        endConversation(.remoteEnded)
        try? await conversationManager.reportNewIncomingConversation(uuid: uuid, update: update)
        currentCallUUID = uuid
        currentCallID = pushedID
        currentIsOutgoing = false
        return
      }
      // A second call while one is on screen (the SDK declines it as busy): iOS wants it
      // reported all the same, so report it and end it at once, leaving the shown one alone.
      try? await conversationManager.reportNewIncomingConversation(uuid: uuid, update: update)
      if let second = conversationManager.conversations.first(where: { $0.uuid == uuid }) {
        conversationManager.reportConversationEvent(.conversationEnded(Date(), .failed), for: second)
      }
      return
    }
    do {
      try await conversationManager.reportNewIncomingConversation(uuid: uuid, update: update)
      if loggedOutElsewhere || isOver(callID: payload.dictionaryPayload["voip_call_id"] as? String),
        let trailing = conversationManager.conversations.first(where: { $0.uuid == uuid })
      {
        if loggedOutElsewhere, let id = payload.dictionaryPayload["voip_call_id"] as? String { endedWhileOut = id }
        // Reported, as iOS requires, but there is nothing to ring for (or, logged in elsewhere,
        // nothing this phone can answer).
        conversationManager.reportConversationEvent(.conversationEnded(Date(), .failed), for: trailing)
        return
      }
      currentCallUUID = uuid
      currentCallID = payload.dictionaryPayload["voip_call_id"] as? String
      currentIsOutgoing = false
      // Unless the SDK already rings for it, make sure it does: it may not have heard of the call
      // yet (a cold start), or be busy in a call of its own that it placed while logging in, and
      // then it declines the pushed one as busy without ringing.
      let state = CallStore.shared.state.value
      if !(state.selfInfo.status == .waiting && state.callId == currentCallID) { expectRing(uuid: uuid) }
    } catch {
      // Nothing shows (a call is already on screen, or a duplicate push): if no call is on the
      // screen, decline so that the caller is not left ringing.
      if currentCallUUID == nil { CallStore.shared.reject(completion: nil) }
    }
  }

  /// Whether the push's call is already over: the SDK heard it end, or the SDK, logged in (and so
  /// told of every call that rings it), has another call or none.
  private func isOver(callID: String?) -> Bool {
    guard let callID else { return false }
    if endedCallIDs.contains(callID) { return true }
    let loggedIn = LoginStore.shared.state.value.loginStatus == .logined && TUILogin.isUserLogined()
    return loggedIn && CallStore.shared.state.value.callId != callID
  }

  /// TIMPush's VoIP payload: `voip_caller_name` (`nil` when missing) and whether `ext` says video.
  static func read(_ payload: PKPushPayload) -> (callerName: String?, isVideo: Bool) {
    let fields = payload.dictionaryPayload
    var isVideo = false
    if let ext = fields["ext"] as? String, let data = ext.data(using: .utf8),
      let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
      let voip = json["voip_ext"] as? [String: String]
    {
      isVideo = voip["voip_media_type"] == "video"
    }
    return (fields["voip_caller_name"] as? String, isVideo)
  }

  /// What the system's call UI shows for a call from `callerName`.
  static func update(callerName: String, isVideo: Bool) -> Conversation.Update {
    var update = Conversation.Update(members: [Handle(type: .generic, value: callerName, displayName: callerName)])
    update.capabilities = isVideo ? .video : .playingTones
    return update
  }

  /// Places a call through the system's call UI: the outgoing conversation is started with
  /// `perform`, and when the system hands its Start action back, `dial` places the call and says
  /// whether it did, which fulfils or fails the action.
  public func startOutgoingCall(to userIDs: [String], video: Bool, dial: @escaping (@escaping (Bool) -> Void) -> Void) {
    let uuid = UUID()
    let handles = userIDs.map { Handle(type: .generic, value: $0) }
    pendingDials[uuid] = dial
    let start = StartConversationAction(conversationUUID: uuid, handles: handles, isVideo: video)
    Task {
      do {
        try await conversationManager.perform([start])
      } catch {
        // The system shows no more calls (one is on screen, or a cellular call): nothing is dialled.
        pendingDials[uuid] = nil
        VoIPPushManager.log.error("the system refused the outgoing call: \(error, privacy: .public)")
      }
    }
  }

  // MARK: ConversationManagerDelegate

  public func conversationManager(_ manager: ConversationManager, perform action: ConversationAction) {
    switch action {
    case let join as JoinConversationAction:
      // The conversation is for the call its push named: if the SDK rings for another call (two
      // calls pushed at once; the SDK declines the second as busy), answering would answer a
      // call the user never saw in the system UI.
      let state = CallStore.shared.state.value
      if let pushed = currentCallID, state.selfInfo.status != .none, state.callId != pushed {
        join.fail()
        endConversation(.failed)
        // The call that does ring is shown, so that the user can answer or decline it (an
        // incoming one: "waiting" is also a call this phone is placing).
        if state.selfInfo.status == .waiting, state.callId == lastIncomingCallID {
          showRinging(callId: state.callId, isVideo: false)
        }
        return
      }
      switch state.selfInfo.status {
      case .waiting: accept(join)
      case .accept: join.fulfill(dateConnected: Date())  // already answered in the app
      case .none where loggedOutElsewhere:
        // Logged in elsewhere: this phone can answer nothing.
        join.fail()
        endConversation(.failed)
      case .none: pendingJoin = join  // a cold start: the SDK has not heard of the call yet
      }
    case let start as StartConversationAction:
      // Only a call this app asked for (a call back from the system's recents is not supported).
      guard let dial = pendingDials.removeValue(forKey: start.conversationUUID) else { return start.fail() }
      // The conversation becomes the current call's only once the call is placed: a second Start
      // whose call cannot be placed (one is under way) must not take the first one's place.
      dial { [weak self] placed in
        guard self?.timedOutActions.remove(ObjectIdentifier(start)) == nil else { return }
        // Placed as the session ended (logged in elsewhere): this phone hears nothing of the call,
        // and the conversation would stay on screen for good.
        guard placed, self?.loggedOutElsewhere != true else { return start.fail() }
        // The SDK is in this call now: a conversation still current (a pushed call the SDK never
        // rang for) is over for this phone.
        if let shown = self?.currentCallUUID, shown != start.conversationUUID { self?.endConversation(.remoteEnded) }
        self?.currentCallUUID = start.conversationUUID
        self?.currentCallID = nil
        self?.currentIsOutgoing = true
        start.fulfill()
      }
    case let end as EndConversationAction:
      // The system UI has already ended the conversation: say so at once (waiting for the
      // server's answer can outlast the action's deadline), then leave or decline the call.
      end.fulfill(dateEnded: Date())
      // Only the current conversation stands for the SDK's call: another one (its call over or
      // replaced) ends alone.
      guard end.conversationUUID == currentCallUUID else { return }
      switch CallStore.shared.state.value.selfInfo.status {
      case .accept: CallStore.shared.hangup(completion: nil)
      case .waiting: CallStore.shared.reject(completion: nil)
      // A cold start: the SDK has not heard of the call yet (the SDK refuses a reject of a call it
      // never reported). It is declined when the SDK rings for it.
      case .none: pendingDecline = currentIsOutgoing ? nil : currentCallID
      }
      currentCallUUID = nil
    default:
      action.fail()
    }
  }

  private func accept(_ join: JoinConversationAction) {
    CallStore.shared.accept { [weak self] result in
      // The system may have given up on the action while the answer was on its way.
      guard self?.timedOutActions.remove(ObjectIdentifier(join)) == nil else { return }
      switch result {
      case .success: join.fulfill(dateConnected: Date())
      case .failure: join.fail()
      }
    }
  }

  /// A pushed call the SDK does not ring for yet (a cold start, still logging in; or a payload
  /// with no call ID): once both logins hold, the SDK has caught up, and a call it does not ring
  /// for is over (no call at all, or another one: a call this phone placed, which made it busy for
  /// the pushed one). Its conversation ends, and an answer waiting for it fails.
  private func expectRing(uuid: UUID, after delay: Double = 2) {
    DispatchQueue.main.asyncAfter(deadline: .now() + delay) { [weak self] in
      guard let self, self.currentCallUUID == uuid else { return }
      let loggedIn = LoginStore.shared.state.value.loginStatus == .logined && TUILogin.isUserLogined()
      guard loggedIn else {
        // Still logging in (or logged out: the session's end ends the conversation).
        if !self.loggedOutElsewhere { self.expectRing(uuid: uuid, after: min(delay * 2, 8)) }
        return
      }
      let state = CallStore.shared.state.value
      let ringsForIt = state.selfInfo.status != .none && (self.currentCallID.map { $0 == state.callId } ?? true)
      if !ringsForIt { self.endConversation(.remoteEnded) }
    }
  }

  /// Shows a call the SDK rings for in the system's call UI (outside a push: the app is running).
  private func showRinging(callId: String, isVideo: Bool) {
    let uuid = UUID()
    let update = VoIPPushManager.update(callerName: "Incoming call", isVideo: isVideo)
    Task {
      do {
        try await conversationManager.reportNewIncomingConversation(uuid: uuid, update: update)
      } catch {
        return  // the system shows no more calls: the SDK's ring goes on in the app
      }
      // The call may have stopped ringing while the report was under way.
      let state = CallStore.shared.state.value
      guard state.callId == callId, state.selfInfo.status == .waiting, currentCallUUID == nil else {
        if let shown = conversationManager.conversations.first(where: { $0.uuid == uuid }) {
          conversationManager.reportConversationEvent(.conversationEnded(Date(), .remoteEnded), for: shown)
        }
        return
      }
      currentCallUUID = uuid
      currentCallID = callId
      currentIsOutgoing = false
    }
  }

  /// The call is over: its conversation ends, and an answer still waiting for the SDK fails.
  private func endConversation(_ reason: Conversation.EndedReason) {
    pendingJoin?.fail()
    pendingJoin = nil
    if let uuid = currentCallUUID,
      let conversation = conversationManager.conversations.first(where: { $0.uuid == uuid })
    {
      conversationManager.reportConversationEvent(.conversationEnded(Date(), reason), for: conversation)
    }
    currentCallUUID = nil
    currentCallID = nil
    currentIsOutgoing = false
  }

  private func sessionEnded(_ event: LoginEvent) {
    endConversation(.failed)
    loggedOut = event == .onKickedOffline
    // An expired login is renewed (a real app first fetches a fresh UserSig); a user logged in
    // elsewhere stays out until they log in here again.
    if event == .onLoginExpired, let login = credentials {
      logInAgain(sdkAppID: login.sdkAppID, userID: login.userID, userSig: login.userSig)
    }
  }

  /// The system gave up on an action and failed it itself: completing it now would complete it a
  /// second time, so whatever was going to complete it is told to let it be.
  public func conversationManager(_ manager: ConversationManager, timedOutPerforming action: ConversationAction) {
    if action === pendingJoin {
      pendingJoin = nil
    } else {
      timedOutActions.insert(ObjectIdentifier(action))
    }
  }

  private func callEvent(_ event: CallEvent) {
    switch event {
    case .onCallReceived(let callId, let mediaType, _):
      lastIncomingCallID = callId
      if let declined = pendingDecline, declined == callId {
        pendingDecline = nil
        return CallStore.shared.reject(completion: nil)
      }
      if pendingJoin == nil, !currentIsOutgoing, let pushed = currentCallID, pushed != callId {
        // The conversation on screen is for a pushed call the SDK does not ring for: two calls
        // were pushed at once, the second one's conversation was ended as a second call, and the
        // SDK, logged in at last, rings for that one (the first it declines as busy). Show the
        // call that rings instead, or the user can neither answer nor decline it.
        endConversation(.remoteEnded)
        return showRinging(callId: callId, isVideo: mediaType == .video)
      }
      if let join = pendingJoin {
        pendingJoin = nil
        if let pushed = currentCallID, pushed != callId {
          // The user answered the conversation of a pushed call the SDK, logged in at last, does
          // not ring for: that call is over. Answering this other call in its name would answer a
          // call the user never saw; the answer fails and its conversation ends.
          join.fail()
          endConversation(.remoteEnded)
          showRinging(callId: callId, isVideo: mediaType == .video)
        } else {
          accept(join)
        }
      } else if currentCallUUID == nil, conversationManager.conversations.isEmpty,
        UIApplication.shared.applicationState == .background || endedWhileOut == callId
      {
        // Rung over signalling with no conversation in the system at all (not while a call the
        // user dials is being placed): in the background, where no push came for it or its
        // conversation ended with a session since renewed, only the system's call UI can show
        // it; so too a pushed call whose conversation was ended as the phone was logged in
        // elsewhere, rung for once logged in here again.
        showRinging(callId: callId, isVideo: mediaType == .video)
      }
    case .onCallEnded(let callId, _, _, _):
      endedCallIDs.append(callId)
      if endedCallIDs.count > 8 { endedCallIDs.removeFirst() }
      // A late message about an earlier call leaves the current one alone: the SDK is still in a
      // call, or the conversation on screen is for another pushed call (one the SDK, not logged
      // in yet, has not heard of).
      guard CallStore.shared.state.value.selfInfo.status == .none else { return }
      if !currentIsOutgoing, let shown = currentCallID, shown != callId { return }
      endConversation(.remoteEnded)
    case .onCallStarted:
      // The system's UI shows an outgoing call in progress once it is answered.
      if currentIsOutgoing, let uuid = currentCallUUID,
        let conversation = conversationManager.conversations.first(where: { $0.uuid == uuid })
      {
        conversationManager.reportConversationEvent(.conversationConnected(Date()), for: conversation)
      }
    }
  }
}
