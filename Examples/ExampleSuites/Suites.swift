import ExampleApps
import SeedApps
import StampedeHarness

// The glue between the example view models and the harness: which objects a virtual user has,
// which taps it makes, and what its UI shows. The view models know nothing of Stampede.

/// What a phone user's app holds: its push manager and its call screen.
public struct PhoneObjects {
  public let push: VoIPPushManager
  public let call: CallViewModel
}

func audience<VM>(
  _ make: @escaping @MainActor @Sendable (UserContext) -> VM, apply: @escaping @MainActor @Sendable (VM) -> Void,
  cancel: @escaping @MainActor @Sendable (VM) -> Void, disconnect: @escaping @MainActor @Sendable (VM) -> Void,
  answer: @escaping @MainActor @Sendable (VM, String, Bool) -> Void,
  status: @escaping @MainActor @Sendable (VM) -> UIStatus,
  leave: (@MainActor @Sendable (VM) -> Void)? = nil
) -> AudienceApp<VM> {
  var app = AudienceApp(make: make)
  app.leave = leave
  app.apply = apply
  app.cancel = cancel
  app.disconnect = disconnect
  app.answerInvitation = answer
  app.status = status
  return app
}

/// What a view model's three-state status shows, as a UI probe reports it.
func ui<Status: Equatable>(_ status: Status, idle: Status, applying: Status) -> UIStatus {
  status == idle ? .idle : status == applying ? .applying : .connected
}

let correctAudience = audience(
  { AudienceCoGuestViewModel(liveID: $0.liveID!, userID: $0.userID) },
  apply: { $0.applyForSeat() }, cancel: { $0.cancelApplication() }, disconnect: { $0.disconnect() },
  answer: { vm, inviter, accept in
    accept ? vm.acceptInvitation(inviterID: inviter) : vm.rejectInvitation(inviterID: inviter)
  },
  status: { ui($0.status, idle: .idle, applying: .applying) }, leave: { $0.leaveRoom() })

let hostApp: HostApp<HostCoGuestViewModel> = {
  var app = HostApp { HostCoGuestViewModel(liveID: $0.liveID!) }
  app.accept = { vm in vm.firstApplicant.map { vm.acceptApplication(userID: $0.userID) } }
  app.reject = { vm in vm.firstApplicant.map { vm.rejectApplication(userID: $0.userID) } }
  app.invite = { vm, userID in vm.inviteToSeat(userID: userID) }
  app.kick = { vm, userID in vm.kick(userID: userID) }
  app.lock = { vm, seat in vm.lockSeat(seat) }
  app.unlock = { vm, seat in vm.unlockSeat(seat) }
  app.move = { vm, userID, seat in vm.move(userID: userID, toSeat: seat) }
  app.endLive = { vm in vm.endLive() }
  app.applicants = { vm in vm.pendingApplicants.map(\.userID) }
  return app
}()

/// A phone app of a push manager (made by `manager`) and the example call screen, held together
/// by `wrap`: `parts` finds them in what it holds, `shows` reads what the user sees.
func examplePhone<Objects>(
  _ manager: @escaping @Sendable (Int) -> VoIPPushManager,
  _ wrap: @escaping @MainActor @Sendable (VoIPPushManager, CallViewModel) -> Objects,
  parts: @escaping @MainActor @Sendable (Objects) -> (push: VoIPPushManager, call: CallViewModel),
  shows: @escaping @MainActor @Sendable (Objects) -> Bool
) -> PhoneApp<Objects> {
  var app = PhoneApp { context in
    let push = manager(1234)
    push.logIn(sdkAppID: context.sdkAppID, userID: context.userID, userSig: context.userSig)
    return wrap(push, CallViewModel())
  }
  // Through the system's call UI: the push manager starts the outgoing conversation, and dials
  // when the system hands its Start action back.
  app.dial = { o, users, video in
    let (push, call) = parts(o)
    push.startOutgoingCall(to: users, video: video) { placed in call.call(users, video: video, placed: placed) }
  }
  app.answer = { parts($0).call.answer() }
  app.decline = { parts($0).call.decline() }
  app.hangUp = { parts($0).call.hangUp() }
  app.callScreen = shows
  return app
}

/// The phone app with `manager` as its push manager.
func phoneApp(_ manager: @escaping @Sendable (Int) -> VoIPPushManager) -> PhoneApp<PhoneObjects> {
  examplePhone(
    manager, { PhoneObjects(push: $0, call: $1) }, parts: { ($0.push, $0.call) }, shows: { $0.call.isShowingCall })
}

let correctPhone = phoneApp { VoIPPushManager(certificateID: $0) }

/// The example phone app with its call screen's "add people" button in use.
let groupCallingPhone: PhoneApp<PhoneObjects> = {
  var app = correctPhone
  app.invite = { o, users in o.call.addParticipants(users) }
  return app
}()

/// What a phone user's app holds in the `one-shot-observation` variant: the correct push manager
/// and call screen, with the screen presented through an observation that fires once.
public struct PresentedPhoneObjects {
  public let push: VoIPPushManager
  public let presenter: OneShotCallPresenter
}

/// The phone app of the `one-shot-observation` variant: what the user sees is the presenter's.
let oneShotPhone = examplePhone(
  { VoIPPushManager(certificateID: $0) },
  { PresentedPhoneObjects(push: $0, presenter: OneShotCallPresenter(model: $1)) },
  parts: { ($0.push, $0.presenter.model) }, shows: { $0.presenter.isPresented })

/// What a phone user's app holds in the `guarded-screen` app: the correct push manager, and the
/// call screen behind a coordinator that asserts in `deinit` that no call is on it.
public struct GuardedPhoneObjects {
  public let push: VoIPPushManager
  public let screen: GuardedCallScreen
}

/// The phone app of `guarded-screen`: correct, with a `deinit` that traps if it ever ran in a
/// process killed during a call (a phone runs none).
let guardedPhone = examplePhone(
  { VoIPPushManager(certificateID: $0) }, { GuardedPhoneObjects(push: $0, screen: GuardedCallScreen(model: $1)) },
  parts: { ($0.push, $0.screen.model) }, shows: { $0.screen.model.isShowingCall })

/// What a phone user's app holds in the `ring-timeout` variant: the correct push manager, and the
/// call screen behind a ring timeout that is not cancelled when the call connects.
public struct RingTimeoutPhoneObjects {
  public let push: VoIPPushManager
  public let screen: RingTimeoutCallScreen
}

/// The phone app of the `ring-timeout` variant: its calls are placed, and hung up, through the
/// screen with the ring timeout.
let ringTimeoutPhone: PhoneApp<RingTimeoutPhoneObjects> = {
  var app = examplePhone(
    { VoIPPushManager(certificateID: $0) },
    { RingTimeoutPhoneObjects(push: $0, screen: RingTimeoutCallScreen(model: $1)) },
    parts: { ($0.push, $0.screen.model) }, shows: { $0.screen.model.isShowingCall })
  app.dial = { o, users, video in
    o.push.startOutgoingCall(to: users, video: video) { placed in o.screen.call(users, video: video, placed: placed) }
  }
  app.hangUp = { $0.screen.hangUp() }
  return app
}()

/// The host app of the `lock-leak` variant: the correct panel, with a seat lock kept in one variable.
let lockLeakHost: HostApp<SingleLockHostViewModel> = {
  var app = HostApp { SingleLockHostViewModel(liveID: $0.liveID!) }
  app.accept = { vm in vm.panel.firstApplicant.map { vm.panel.acceptApplication(userID: $0.userID) } }
  app.reject = { vm in vm.panel.firstApplicant.map { vm.panel.rejectApplication(userID: $0.userID) } }
  app.invite = { vm, userID in vm.panel.inviteToSeat(userID: userID) }
  app.kick = { vm, userID in vm.panel.kick(userID: userID) }
  app.lock = { vm, seat in vm.lockSeat(seat) }
  app.unlock = { vm, seat in vm.unlockSeat(seat) }
  app.move = { vm, userID, seat in vm.panel.move(userID: userID, toSeat: seat) }
  return app
}()

/// The host app of the `invite-any` variant: the correct panel, with an unguarded invite.
let inviteAnyHost: HostApp<UnguardedInviteHostViewModel> = {
  var app = HostApp { UnguardedInviteHostViewModel(liveID: $0.liveID!) }
  app.accept = { vm in vm.panel.firstApplicant.map { vm.panel.acceptApplication(userID: $0.userID) } }
  app.reject = { vm in vm.panel.firstApplicant.map { vm.panel.rejectApplication(userID: $0.userID) } }
  app.invite = { vm, userID in vm.inviteToSeat(userID: userID) }
  return app
}()

/// The host app of the `event-list` variant: the correct panel's buttons, with an applications
/// list of its own kept from the host events.
let eventListHost: HostApp<EventListHostViewModel> = {
  var app = HostApp { EventListHostViewModel(liveID: $0.liveID!) }
  app.accept = { vm in vm.acceptFirst() }
  app.reject = { vm in vm.rejectFirst() }
  app.invite = { vm, userID in vm.panel.inviteToSeat(userID: userID) }
  app.applicants = { vm in vm.rows }
  return app
}()

/// The host app of the `accept-all` variant: the correct panel, whose accept button answers every
/// waiting application at once.
let acceptAllHost: HostApp<AcceptAllHostViewModel> = {
  var app = HostApp { AcceptAllHostViewModel(liveID: $0.liveID!) }
  app.accept = { vm in vm.acceptAll() }
  app.reject = { vm in vm.panel.firstApplicant.map { vm.panel.rejectApplication(userID: $0.userID) } }
  return app
}()

/// The host app of the `review-timer` variant: the correct panel, whose accept button times the
/// review and force-unwraps the application's arrival time.
let reviewTimerHost: HostApp<ReviewTimingHostViewModel> = {
  var app = HostApp { ReviewTimingHostViewModel(liveID: $0.liveID!) }
  app.accept = { vm in vm.acceptFirst() }
  app.reject = { vm in vm.panel.firstApplicant.map { vm.panel.rejectApplication(userID: $0.userID) } }
  return app
}()

/// The host app of the `serial-accept` variant: the correct panel, whose accept button spins until
/// the accept before it was answered.
let serialAcceptHost: HostApp<SerialAcceptHostViewModel> = {
  var app = HostApp { SerialAcceptHostViewModel(liveID: $0.liveID!) }
  app.accept = { vm in vm.acceptFirst() }
  app.reject = { vm in vm.panel.firstApplicant.map { vm.panel.rejectApplication(userID: $0.userID) } }
  return app
}()

/// The example apps, by the name `--app` takes: `examples` (the correct view models),
/// `examples-phones` (the phone app adding people to its calls), `guarded-screen` (the phone app
/// with a coordinator that asserts in `deinit`, which only a dead process would run), and the
/// wrong variants, each with one mistake: `double-tap`, `seat-list-guest`, `guide-push`,
/// `ring-timeout`, `lock-leak`, `invite-any`, `event-list`, `minus-one-refused`, and in today's styles `await-then-set`
/// (main actor, async/await), `one-shot-observation` (Observation), `stale-watchdog` (Dispatch
/// from a Foundation file), `accept-all` (a `DispatchGroup` left more often than entered),
/// `foreground-camera` (UIKit's lifecycle notifications), `review-timer` (a force-unwrap that
/// crashes the host's app) and `serial-accept` (a spin that hangs it).
public let exampleSuites: [AppSuite] =
  [
    AppSuite(name: "examples", summary: "the example co-guest, VoIP push and call view models")
      .with(audience: correctAudience).with(host: hostApp).with(phone: correctPhone),
    AppSuite(
      name: "examples-phones",
      summary: "the example phone app, adding people to its group calls, calling the built-in viewers too"
    ).with(phone: groupCallingPhone),
    AppSuite(
      name: "guarded-screen",
      summary: "the example phone app, whose call screen's coordinator asserts in deinit that no call is on it"
    ).with(phone: guardedPhone),
    AppSuite(name: "double-tap", summary: "wrong: an audience view model without the idle guard on apply")
      .with(
        audience: audience(
          { DoubleTapAudienceViewModel(liveID: $0.liveID!, userID: $0.userID) }, apply: { $0.applyForSeat() },
          cancel: { $0.cancelApplication() }, disconnect: { $0.disconnect() }, answer: { _, _, _ in },
          status: { ui($0.status, idle: .idle, applying: .applying) })
      ).with(host: hostApp).with(phone: correctPhone),
    AppSuite(
      name: "seat-list-guest", summary: "wrong: connected from the seat list, microphone opened on one path only"
    )
    .with(
      audience: audience(
        { SeatListGuestViewModel(liveID: $0.liveID!, userID: $0.userID) }, apply: { $0.applyForSeat() },
        cancel: { $0.cancelApplication() }, disconnect: { $0.disconnect() },
        answer: { vm, inviter, accept in
          accept ? vm.acceptInvitation(inviterID: inviter) : vm.rejectInvitation(inviterID: inviter)
        },
        status: { ui($0.status, idle: .idle, applying: .applying) })
    ).with(host: hostApp).with(phone: correctPhone),
    AppSuite(
      name: "guide-push", summary: "wrong: the integration guide's push handler, which can return before reporting"
    )
    .with(audience: correctAudience).with(host: hostApp).with(phone: phoneApp { GuidePushManager(certificateID: $0) }),
    AppSuite(
      name: "ring-timeout",
      summary: "wrong: a call screen whose 45 s ring timeout is cancelled on hang-up but not on connect"
    )
    .with(audience: correctAudience).with(host: hostApp).with(phone: ringTimeoutPhone),
    AppSuite(
      name: "lock-leak", summary: "wrong: a host panel that remembers one locked seat, so overlapping locks leak"
    )
    .with(audience: correctAudience).with(host: lockLeakHost).with(phone: correctPhone),
    AppSuite(name: "invite-any", summary: "wrong: a host panel that invites whoever is tapped, seated or applying")
      .with(audience: correctAudience).with(host: inviteAnyHost).with(phone: correctPhone),
    AppSuite(
      name: "event-list", summary: "wrong: a host panel whose applications list is its own, kept from the host events"
    )
    .with(audience: correctAudience).with(host: eventListHost).with(phone: correctPhone).caught(on: "nightly-chaos"),
    AppSuite(name: "minus-one-refused", summary: "wrong: an audience view model that reads no answer (-1) as a refusal")
      .with(
        audience: audience(
          { MinusOneRefusedAudienceViewModel(liveID: $0.liveID!, userID: $0.userID) }, apply: { $0.applyForSeat() },
          cancel: { $0.cancelApplication() }, disconnect: { $0.disconnect() }, answer: { _, _, _ in },
          status: { ui($0.status, idle: .idle, applying: .applying) })
      ).with(host: hostApp).with(phone: correctPhone),
    AppSuite(
      name: "await-then-set", summary: "wrong: a main-actor view model that sets \"applying\" only after its await"
    )
    .with(
      audience: audience(
        { AwaitingApplyViewModel(liveID: $0.liveID!, userID: $0.userID) }, apply: { $0.applyForSeat() },
        cancel: { $0.cancelApplication() }, disconnect: { $0.disconnect() }, answer: { _, _, _ in },
        status: { ui($0.status, idle: .idle, applying: .applying) })
    ).with(host: hostApp).with(phone: correctPhone),
    AppSuite(
      name: "one-shot-observation",
      summary: "wrong: a call screen presented through withObservationTracking that never tracks again"
    )
    .with(audience: correctAudience).with(host: hostApp).with(phone: oneShotPhone),
    AppSuite(name: "stale-watchdog", summary: "wrong: an apply watchdog on DispatchQueue.main that is never cancelled")
      .with(
        audience: audience(
          { StaleWatchdogViewModel(liveID: $0.liveID!, userID: $0.userID) }, apply: { $0.applyForSeat() },
          cancel: { $0.cancelApplication() }, disconnect: { $0.disconnect() }, answer: { _, _, _ in },
          status: { ui($0.status, idle: .idle, applying: .applying) })
      ).with(host: hostApp).with(phone: correctPhone),
    AppSuite(
      name: "accept-all", summary: "wrong: an accept-all button whose DispatchGroup is entered once and left per accept"
    )
    .with(audience: correctAudience).with(host: acceptAllHost).with(phone: correctPhone),
    AppSuite(
      name: "review-timer",
      summary: "wrong: a host panel whose accept completion force-unwraps a review timer a withdrawal removed (crashes)"
    )
    .with(audience: correctAudience).with(host: reviewTimerHost).with(phone: correctPhone),
    AppSuite(
      name: "serial-accept",
      summary:
        "wrong: a host panel that spins until its previous accept is answered, on the thread that answers it (hangs)"
    )
    .with(audience: correctAudience).with(host: serialAcceptHost).with(phone: correctPhone),
    AppSuite(
      name: "foreground-camera", summary: "wrong: a camera reopened on every willEnterForeground, seated or not"
    )
    .with(
      audience: audience(
        { ForegroundCameraViewModel(liveID: $0.liveID!, userID: $0.userID) }, apply: { $0.screen.applyForSeat() },
        cancel: { $0.screen.cancelApplication() }, disconnect: { $0.screen.disconnect() },
        answer: { vm, inviter, accept in
          accept ? vm.screen.acceptInvitation(inviterID: inviter) : vm.screen.rejectInvitation(inviterID: inviter)
        },
        status: { ui($0.screen.status, idle: .idle, applying: .applying) }, leave: { $0.screen.leaveRoom() })
    ).with(host: hostApp).with(phone: correctPhone).caught(on: "nightly-chaos"),
  ] + seedSuites
