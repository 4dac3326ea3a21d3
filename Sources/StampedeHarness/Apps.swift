import AtomicXCore
import Clients
import LiveStack
import SimKernel
import VirtualPlatform

/// Who a virtual user is, as its app's objects are made.
public struct UserContext: Sendable {
  /// The user's role.
  public enum Role: String, Sendable {
    /// A viewer of a live room.
    case audience
    /// The owner (host) of a live room.
    case host
    /// An admin of a live room.
    case admin
    /// A phone user (calls and VoIP push).
    case phone
  }

  /// The user's ID, as the SDKs take it (`user_17`).
  public let userID: String
  /// The live room the user belongs to (`live_3`), or `nil` for a phone user.
  public let liveID: String?
  /// The role.
  public let role: Role
  /// The app's ID (`sdkAppID`), for login calls.
  public let sdkAppID: Int = 1_400_000_000
  /// A signature login calls accept.
  public let userSig = "simulated-user-sig"
}

/// What the co-guest UI shows, as a UI probe reports it.
public enum UIStatus: Sendable, Equatable {
  /// Not applying and not on a seat.
  case idle
  /// An application is out.
  case applying
  /// On a seat, with the microphone open.
  case connected
}

/// An audience member's app: how to build its objects once the viewer is in its room, the taps the
/// viewer makes (when and how often comes from the profile's `audience` settings) and a UI probe.
///
/// The harness logs the viewer in (`LoginStore.shared.login`) and enters its room
/// (`LiveListStore.shared.joinLive`) before it calls ``make``, as the co-guest view models assume.
public struct AudienceApp<Objects>: Sendable {
  /// Builds the viewer's objects (typically its view model).
  public var make: @MainActor @Sendable (UserContext) -> Objects
  /// The "apply" tap.
  public var apply: (@MainActor @Sendable (Objects) -> Void)?
  /// The "cancel application" tap (made when the profile's `audience.patience` runs out).
  public var cancel: (@MainActor @Sendable (Objects) -> Void)?
  /// The "leave the seat" tap (made after `audience.seatTime` on the seat).
  public var disconnect: (@MainActor @Sendable (Objects) -> Void)?
  /// Leaves the live room for good (made after `audience.stay`); without it the harness does what
  /// a correct room screen does on its way out: closes the camera and microphone
  /// (`DeviceStore.shared`), calls `LiveListStore.shared.leaveLive()`, and lets the objects go
  /// (the screen closed).
  public var leave: (@MainActor @Sendable (Objects) -> Void)?
  /// Answers a host's invitation: the inviter's ID, and whether to accept.
  public var answerInvitation: (@MainActor @Sendable (Objects, _ inviterID: String, _ accept: Bool) -> Void)?
  /// What the UI shows. Without a probe the UI oracles cannot judge this app.
  public var status: (@MainActor @Sendable (Objects) -> UIStatus)?
  /// The probability that an "apply" tap is a double tap (a second tap 150 ms later), as people
  /// make on buttons that stay enabled.
  public var doubleTap: Ratio = Ratio(1, 5)!

  /// An app whose objects `make` builds; set the taps and the probe on the result.
  public init(make: @escaping @MainActor @Sendable (UserContext) -> Objects) { self.make = make }
}

/// A host's or admin's app: its objects and taps (timing and probabilities from the profile's
/// `host` or `admin` settings).
public struct HostApp<Objects>: Sendable {
  /// Builds the host's objects once it is in its room.
  public var make: @MainActor @Sendable (UserContext) -> Objects
  /// "Accept" on the applications list (made `thinkTime` after an application arrived, with
  /// probability `acceptProbability`); the closure picks which applicant, as the UI would.
  public var accept: (@MainActor @Sendable (Objects) -> Void)?
  /// "Reject" on the applications list.
  public var reject: (@MainActor @Sendable (Objects) -> Void)?
  /// Invites the given member of the room (every `inviteEvery`). The member is any viewer in the
  /// room, as the room's audience list shows them: seated, applying or already invited ones
  /// included, so an app must check before it invites.
  public var invite: (@MainActor @Sendable (Objects, _ userID: String) -> Void)?
  /// Kicks the given guest off its seat (every `kickEvery`; a guest the host's seat list shows).
  public var kick: (@MainActor @Sendable (Objects, _ userID: String) -> Void)?
  /// Locks the given guest seat (every `lockEvery`); ``unlock`` follows `lockFor` later.
  public var lock: (@MainActor @Sendable (Objects, _ seatIndex: Int) -> Void)?
  /// Unlocks the given seat, `lockFor` after ``lock`` locked it.
  public var unlock: (@MainActor @Sendable (Objects, _ seatIndex: Int) -> Void)?
  /// Moves the given guest to the given guest seat (every `moveEvery`).
  public var move: (@MainActor @Sendable (Objects, _ userID: String, _ seatIndex: Int) -> Void)?
  /// The owner ends the live (`host.endLiveAfter` after entering it; admins never do).
  public var endLive: (@MainActor @Sendable (Objects) -> Void)?
  /// The user IDs the applications list shows, in any order. With it the UI oracles hold the list
  /// to what the SDK lists (`CoGuestStore.state.applicants`) once the host has been quiet for a
  /// settle time (`ui.applicants-match-sdk`); without it they cannot judge the list.
  public var applicants: (@MainActor @Sendable (Objects) -> [String])?

  /// An app whose objects `make` builds.
  public init(make: @escaping @MainActor @Sendable (UserContext) -> Objects) { self.make = make }
}

/// A phone user's app: its objects are built at every launch of its process (the first start, a
/// cold start by a VoIP push, the user opening a killed app), and hold its PushKit registry,
/// conversation manager and call view model. Taps come from the profile's `calls.phone` settings.
public struct PhoneApp<Objects>: Sendable {
  /// Builds the app's objects in a fresh process (the app delegate's launch).
  public var launch: @MainActor @Sendable (UserContext) -> Objects
  /// Dials the given users (one, or several for a group call), video or not.
  public var dial: (@MainActor @Sendable (Objects, _ userIDs: [String], _ video: Bool) -> Void)?
  /// Answers the ringing call in the app.
  public var answer: (@MainActor @Sendable (Objects) -> Void)?
  /// Declines the ringing call in the app.
  public var decline: (@MainActor @Sendable (Objects) -> Void)?
  /// Hangs up (or cancels an unanswered call).
  public var hangUp: (@MainActor @Sendable (Objects) -> Void)?
  /// Whether the app's call screen is up. Without a probe the call-screen oracle cannot judge it.
  public var callScreen: (@MainActor @Sendable (Objects) -> Bool)?
  /// Adds the given users to the group call in progress (an "add people" button): tapped in a
  /// group call the app placed, once it runs, at the profile's `calls.phone.inviteProbability`.
  /// Without it the harness never invites.
  public var invite: (@MainActor @Sendable (Objects, _ userIDs: [String]) -> Void)?

  /// An app whose objects `launch` builds.
  public init(launch: @escaping @MainActor @Sendable (UserContext) -> Objects) { self.launch = launch }
}

/// The apps of one product, per role, under a name the command line takes (`--app NAME`).
/// Roles left out run the built-in clients. Build it with the `with…` methods:
///
/// ```swift
/// let suite = AppSuite(name: "coguest", summary: "our co-guest view models")
///   .with(audience: audienceApp)
///   .with(host: hostApp)
/// ```
public struct AppSuite: Sendable {
  /// The name.
  public let name: String
  /// One line on what it is.
  public let summary: String
  /// For a suite with a planted mistake: the shipped profile (`nightly-chaos`, for
  /// `profiles/nightly-chaos.json5`) whose behaviours reach the mistake, where `bench catch` runs
  /// it instead of the apps' profile (`nil`: the apps' profile, smoke by default).
  public private(set) var catchProfile: String?
  var audience: (@Sendable (Harness, AudienceSettings) -> any ClientBehavior)?
  var host: (@Sendable (Harness, HostSettings) -> any ClientBehavior)?
  var admin: (@Sendable (Harness, HostSettings) -> any ClientBehavior)?
  var phone: (@Sendable (Harness, PhoneSettings, Range<UInt32>) -> any ClientBehavior)?

  /// A suite with no apps yet (every role built-in).
  public init(name: String, summary: String) {
    self.name = name
    self.summary = summary
  }

  /// This suite, run by `bench catch` on `profile` (see ``catchProfile``).
  public func caught(on profile: String) -> AppSuite {
    var s = self
    s.catchProfile = profile
    return s
  }

  /// This suite with `app` as the audience.
  public func with<A>(audience app: AudienceApp<A>) -> AppSuite {
    var s = self
    s.audience = { h, settings in AudienceDriver(app: app, settings: settings, harness: h) }
    return s
  }

  /// This suite with `app` as the owners (and as the admins, unless ``with(admin:)`` says
  /// otherwise).
  public func with<H>(host app: HostApp<H>) -> AppSuite {
    var s = self
    s.host = { h, settings in HostDriver(app: app, settings: settings, harness: h) }
    if s.admin == nil { s.admin = s.host }
    return s
  }

  /// This suite with `app` as the admins.
  public func with<H>(admin app: HostApp<H>) -> AppSuite {
    var s = self
    s.admin = { h, settings in HostDriver(app: app, settings: settings, harness: h) }
    return s
  }

  /// This suite with `app` as the phone users.
  public func with<P>(phone app: PhoneApp<P>) -> AppSuite {
    var s = self
    s.phone = { [audience = s.audience] h, settings, phones in
      // Viewers the built-in clients play take calls; an audience app has no call handling.
      PhoneDriver(app: app, settings: settings, phones: phones, dialsViewers: audience == nil, harness: h)
    }
    return s
  }

  /// Whether the suite's viewers are app code that takes no calls while the phones are the
  /// built-in ones, which may call viewers (`calls.liveCallees`): an audience app has no call
  /// handling.
  public var viewersTakeNoCalls: Bool { audience != nil && phone == nil }

  /// The behaviours of one run.
  public func clients(_ setup: ClientSetup) -> ClientSet {
    let h = Harness(random: setup.random, userCount: setup.userCount)
    var set = ClientSet()
    set.audience = audience?(h, setup.audience)
    set.host = host?(h, setup.host)
    set.admin = admin?(h, setup.admin)
    if let phone, let s = setup.phone { set.phone = phone(h, s, setup.layout.phones) }
    return set
  }
}
