import LiveStack
import SimKernel

/// Timing the SDK and the built-in clients share.
public enum SDKTiming {
  /// How long the SDK waits for an answer before it reports a request as failed (-1), whether or
  /// not the server carried it out.
  public static let requestTimeout = SimDuration.seconds(10)
  /// How long the built-in clients wait before sending again a request that failed with -1 (the
  /// server may never have heard it): a cancel, a seat leave, a login.
  public static let resendAfter = SimDuration.seconds(5)
}

/// The logic of a client: what a view model does with the SDK. Implement it to run your own view
/// model against the simulated stack; ``StandardAudience`` and ``StandardHost`` are the built-in,
/// correct ones.
///
/// Every callback gets the client `inout`. Calls made through its stores are carried out after the
/// callback returns. A behaviour is shared by every client of its population, so per-client state
/// belongs in arrays indexed by `client.user` (or in the UI `status`).
public protocol ClientBehavior: AnyObject {
  /// The user arrives: log in, subscribe, join the room.
  func start(_ client: inout Client)
  /// The user taps "apply" (workloads such as a flash crowd send this too).
  func applyIntent(_ client: inout Client)
  /// A timer set with `client.schedule(after:tag:arg:)` fired.
  func timer(tag: UInt32, arg: UInt32, _ client: inout Client)
  /// What a timer with `tag` is for, in a trace's words ("answer", "hangUp"), if this behaviour
  /// names its timers.
  func timerName(tag: UInt32) -> String?
  /// Whether a phone user's app hears its app leave the foreground and come back
  /// (``appStateChanged(foreground:_:)``); a viewer's always does.
  var hearsAppLifecycle: Bool { get }
  /// An audience event arrived (only if subscribed).
  func guestEvent(_ event: GuestEvent, _ client: inout Client)
  /// A host event arrived (only if subscribed).
  func hostEvent(_ event: HostEvent, _ client: inout Client)
  /// The seat list changed (only if subscribed). The SDK's own state is already updated.
  func seatListChanged(_ change: SeatChangeEvent, _ client: inout Client)
  /// A login event arrived (only if subscribed).
  func loginEvent(_ event: LoginEvent, _ client: inout Client)
  /// The live ended (only if subscribed to live events).
  func liveEnded(_ client: inout Client)
  /// A call event arrived (only if subscribed to call events). The SDK's call state is already
  /// updated.
  func callEvent(_ event: CallEvent, _ client: inout Client)
  /// A new process of the app started (a cold start by a VoIP push, or the user opening a killed
  /// app). The previous process's state is gone. Phone users only.
  func appLaunched(_ client: inout Client)
  /// PushKit delivered the device's VoIP token (`didUpdate pushCredentials`).
  func pushTokenUpdated(_ token: UInt16, _ client: inout Client)
  /// PushKit delivered a VoIP push (`didReceiveIncomingPushWith`). The app must report an
  /// incoming conversation before the deadline, or the system kills it.
  func incomingPush(_ push: VoIPPush, _ client: inout Client)
  /// The conversation manager's delegate got an action; it needs exactly one `fulfill()` or
  /// `fail()`.
  func conversationAction(_ action: ConversationAction, _ client: inout Client)
  /// An action the delegate got timed out before the app completed it (`timedOutPerforming`): the
  /// system failed it, and a later `fulfill()` or `fail()` does nothing.
  func conversationActionTimedOut(_ action: ConversationAction, _ client: inout Client)
  /// A viewer's app entered the background (`foreground` false: iOS suspends camera capture, the
  /// microphone goes on) or came back (`audience.background`). Viewers in rooms only.
  func appStateChanged(foreground: Bool, _ client: inout Client)
  /// The SDK's state changed with no callback to tell the behaviour (an answer with no completion,
  /// an event of a stream nothing subscribes to, a list the SDK keeps updated by itself): app code
  /// that watches the SDK's state publishers hears it now, as the SDK publishes every change.
  func sdkStateChanged(_ client: inout Client)
  /// Whether the behaviour runs app code whose UI is probed (the UI oracles then check it).
  var showsUI: Bool { get }
  /// Whether a viewer's ``Client/status`` is what its user sees, so that the UI oracles judge it
  /// against the SDK and the server while the run goes on (the built-in viewers: yes).
  var statusIsUI: Bool { get }
}

extension ClientBehavior {
  /// Does nothing.
  public func applyIntent(_ client: inout Client) {}
  /// No name: traces give the tag's number.
  public func timerName(tag: UInt32) -> String? { nil }
  /// A phone user does not listen.
  public var hearsAppLifecycle: Bool { false }
  /// Does nothing.
  public func timer(tag: UInt32, arg: UInt32, _ client: inout Client) {}
  /// Does nothing.
  public func guestEvent(_ event: GuestEvent, _ client: inout Client) {}
  /// Does nothing.
  public func hostEvent(_ event: HostEvent, _ client: inout Client) {}
  /// Does nothing.
  public func seatListChanged(_ change: SeatChangeEvent, _ client: inout Client) {}
  /// Does nothing.
  public func loginEvent(_ event: LoginEvent, _ client: inout Client) {}
  /// Does nothing.
  public func liveEnded(_ client: inout Client) {}
  /// Does nothing.
  public func callEvent(_ event: CallEvent, _ client: inout Client) {}
  /// Runs `start`, as a fresh process does.
  public func appLaunched(_ client: inout Client) { start(&client) }
  /// Does nothing.
  public func pushTokenUpdated(_ token: UInt16, _ client: inout Client) {}
  /// Does nothing (which gets the app killed: a real app must report).
  public func incomingPush(_ push: VoIPPush, _ client: inout Client) {}
  /// Does nothing (the action times out).
  public func conversationAction(_ action: ConversationAction, _ client: inout Client) {}
  /// Does nothing.
  public func conversationActionTimedOut(_ action: ConversationAction, _ client: inout Client) {}
  /// Does nothing.
  public func appStateChanged(foreground: Bool, _ client: inout Client) {}
  /// Does nothing (the built-in clients read the SDK's state when they act).
  public func sdkStateChanged(_ client: inout Client) {}
  /// `false`: the built-in clients' status is their UI, and no UI probe is read.
  public var showsUI: Bool { false }
  /// `false`: a status is bookkeeping unless the behaviour says it is its UI.
  public var statusIsUI: Bool { false }
}

/// A `seated` or `left` delta of the seat list.
public struct SeatChangeEvent: Sendable, Equatable {
  /// The seat index.
  public var seatIndex: Int
  /// The user who sat down or left.
  public var user: UInt32
  /// `true` for seated, `false` for left.
  public var seated: Bool

  /// Creates a delta.
  public init(seatIndex: Int, user: UInt32, seated: Bool) {
    self.seatIndex = seatIndex
    self.user = user
    self.seated = seated
  }
}

/// One callback of a ``ClientBehavior`` as a value: what the simulation hands a client.
public enum ClientCallback: Sendable {
  /// ``ClientBehavior/start(_:)``.
  case start
  /// ``ClientBehavior/applyIntent(_:)``.
  case applyIntent
  /// ``ClientBehavior/timer(tag:arg:_:)``.
  case timer(tag: UInt32, arg: UInt32)
  /// ``ClientBehavior/guestEvent(_:_:)``.
  case guestEvent(GuestEvent)
  /// ``ClientBehavior/hostEvent(_:_:)``.
  case hostEvent(HostEvent)
  /// ``ClientBehavior/seatListChanged(_:_:)``, once per change of the batch, in order.
  case seatList(SeatBatch)
  /// ``ClientBehavior/loginEvent(_:_:)``.
  case loginEvent(LoginEvent)
  /// ``ClientBehavior/liveEnded(_:)``.
  case liveEnded
  /// ``ClientBehavior/callEvent(_:_:)``.
  case callEvent(CallEvent)
  /// ``ClientBehavior/appLaunched(_:)``.
  case appLaunched
  /// ``ClientBehavior/pushTokenUpdated(_:_:)``.
  case pushTokenUpdated(UInt16)
  /// ``ClientBehavior/incomingPush(_:_:)``.
  case incomingPush(VoIPPush)
  /// ``ClientBehavior/conversationAction(_:_:)``.
  case conversationAction(ConversationAction)
  /// ``ClientBehavior/conversationActionTimedOut(_:_:)``.
  case conversationActionTimedOut(ConversationAction)
  /// ``ClientBehavior/appStateChanged(foreground:_:)``.
  case appStateChanged(foreground: Bool)
  /// ``ClientBehavior/sdkStateChanged(_:)``.
  case sdkStateChanged

  /// The SDK stream a client must subscribe to in order to hear it (nil: always heard).
  public var stream: Subscriptions? {
    switch self {
    case .guestEvent: return .guestEvents
    case .hostEvent: return .hostEvents
    case .seatList: return .seatList
    case .loginEvent: return .loginEvents
    case .liveEnded: return .liveEvents
    case .callEvent: return .callEvents
    case .start, .applyIntent, .timer, .appLaunched, .pushTokenUpdated, .incomingPush, .conversationAction,
      .conversationActionTimedOut, .appStateChanged, .sdkStateChanged:
      return nil
    }
  }
}

extension ClientCallback {
  /// The event kinds outcome coverage counts, named as the SDKs name them, by ``coverageIndex``.
  public static let coverageNames: [String] = [
    "onHostInvitationReceived", "onHostInvitationCancelled", "onGuestApplicationResponded(accept)",
    "onGuestApplicationResponded(reject)", "onGuestApplicationNoResponse(timeout)",
    "onGuestApplicationNoResponse(alreadySeated)", "onKickedOffSeat",
    "onGuestApplicationReceived", "onGuestApplicationCancelled", "onGuestApplicationProcessedByOtherHost",
    "onHostInvitationResponded(accept)", "onHostInvitationResponded(reject)", "onHostInvitationNoResponse",
    "seat list change", "onKickedOffline", "onLoginExpired", "onLiveEnded",
    "onCallReceived", "onCallStarted", "onCallEnded",
    "app launched", "didUpdate pushCredentials", "didReceiveIncomingPush",
    "perform Join", "perform End", "perform Start", "perform Merge", "timedOutPerforming",
    "app state changed",
  ]

  /// The event kind this callback is, as an index into ``coverageNames`` (`nil`: not an event the
  /// SDK or the system raises, such as a timer or the first start).
  public var coverageIndex: Int? {
    switch self {
    case .start, .applyIntent, .timer, .sdkStateChanged: return nil
    case .guestEvent(let e):
      switch e {
      case .onHostInvitationReceived: return 0
      case .onHostInvitationCancelled: return 1
      case .onGuestApplicationResponded(let accept, _): return accept ? 2 : 3
      case .onGuestApplicationNoResponse(let reason): return reason == .timeout ? 4 : 5
      case .onKickedOffSeat: return 6
      }
    case .hostEvent(let e):
      switch e {
      case .onGuestApplicationReceived: return 7
      case .onGuestApplicationCancelled: return 8
      case .onGuestApplicationProcessedByOtherHost: return 9
      case .onHostInvitationResponded(let accept, _): return accept ? 10 : 11
      case .onHostInvitationNoResponse: return 12
      }
    case .seatList: return 13
    case .loginEvent(let e): return e == .kickedOffline ? 14 : 15
    case .liveEnded: return 16
    case .callEvent(let e):
      switch e {
      case .received: return 17
      case .started: return 18
      case .ended: return 19
      }
    case .appLaunched: return 20
    case .pushTokenUpdated: return 21
    case .incomingPush: return 22
    case .conversationAction(let a):
      switch a.kind {
      case .join: return 23
      case .end: return 24
      case .start: return 25
      case .merge: return 26
      }
    case .conversationActionTimedOut: return 27
    case .appStateChanged: return 28
    }
  }
}

extension ClientBehavior {
  /// Runs `callback` on `client`.
  @inline(__always)
  public func run(_ callback: ClientCallback, _ client: inout Client) {
    switch callback {
    case .start: start(&client)
    case .applyIntent: applyIntent(&client)
    case .timer(let tag, let arg): timer(tag: tag, arg: arg, &client)
    case .guestEvent(let event): guestEvent(event, &client)
    case .hostEvent(let event): hostEvent(event, &client)
    case .seatList(let batch):
      for i in 0..<batch.count {
        let ch = batch[i]
        seatListChanged(SeatChangeEvent(seatIndex: Int(ch.seat), user: ch.user, seated: ch.seated), &client)
      }
    case .loginEvent(let event): loginEvent(event, &client)
    case .liveEnded: liveEnded(&client)
    case .callEvent(let event): callEvent(event, &client)
    case .appLaunched: appLaunched(&client)
    case .pushTokenUpdated(let token): pushTokenUpdated(token, &client)
    case .incomingPush(let push): incomingPush(push, &client)
    case .conversationAction(let action): conversationAction(action, &client)
    case .conversationActionTimedOut(let action): conversationActionTimedOut(action, &client)
    case .appStateChanged(let foreground): appStateChanged(foreground: foreground, &client)
    case .sdkStateChanged: sdkStateChanged(&client)
    }
  }
}

/// What a run tells the maker of its client behaviours: who is who, and the profile's settings for
/// each role.
public struct ClientSetup: Sendable {
  /// Who is who.
  public let layout: Layout
  /// The audience's settings (`audience`).
  public let audience: AudienceSettings
  /// The owners' settings (`host`).
  public let host: HostSettings
  /// The admins' settings (`admin`).
  public let admin: HostSettings
  /// The phone users' settings (`calls.phone`), when the profile has calls.
  public let phone: PhoneSettings?
  /// A random stream of the run's own, for the behaviours' decisions.
  public let random: Xoshiro256

  /// A setup.
  public init(
    layout: Layout, audience: AudienceSettings, host: HostSettings, admin: HostSettings, phone: PhoneSettings?,
    random: Xoshiro256
  ) {
    self.random = random
    self.layout = layout
    self.audience = audience
    self.host = host
    self.admin = admin
    self.phone = phone
  }

  /// The number of users.
  public var userCount: Int { layout.totalUsers }
}

/// The behaviours of one run, per role; `nil` means the built-in client.
public struct ClientSet {
  /// Audience members.
  public var audience: (any ClientBehavior)?
  /// Owners.
  public var host: (any ClientBehavior)?
  /// Admins.
  public var admin: (any ClientBehavior)?
  /// Phone users.
  public var phone: (any ClientBehavior)?

  /// A set.
  public init(
    audience: (any ClientBehavior)? = nil, host: (any ClientBehavior)? = nil, admin: (any ClientBehavior)? = nil,
    phone: (any ClientBehavior)? = nil
  ) {
    self.audience = audience
    self.host = host
    self.admin = admin
    self.phone = phone
  }
}

/// The timer tag of app code's deferred work (a queued block, an `asyncAfter`, a task's step, a
/// sleep's end), which the harness runs as its user's event; traces name such events as app work.
public let appWorkTimerTag: UInt32 = 0xFFFF_FF01
