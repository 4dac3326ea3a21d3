import AtomicXCore
import StampedeHarness
import UIKit

// The glue between the seed documents' code and the harness: which objects a virtual user has,
// which taps it makes and what its UI shows. The view models beside this file are the documents'
// own, as printed; only the edits a build forced were made (docs/CLIENTS.md lists them).

/// Seed 000's viewer: the guide's `AudienceCoGuestViewModel`, its buttons and its status.
let seedAudience: AudienceApp<AudienceCoGuestViewModel> = {
  var app = AudienceApp { AudienceCoGuestViewModel(liveID: $0.liveID!) }
  app.apply = { $0.applyForSeat() }
  app.cancel = { $0.cancelApplication() }
  app.disconnect = { $0.disconnect() }
  app.answerInvitation = { vm, inviter, accept in
    accept ? vm.acceptInvitation(inviterID: inviter) : vm.rejectInvitation(inviterID: inviter)
  }
  app.status = { vm in
    switch vm.status {
    case .idle: return .idle
    case .applying: return .applying
    case .connected: return .connected
    }
  }
  return app
}()

/// Seed 000's host: the guide's `HostCoGuestViewModel`; "accept" and "reject" act on the first
/// applicant its list shows, as its screen would, and the list it publishes is its screen's.
let seedHost: HostApp<HostCoGuestViewModel> = {
  var app = HostApp { HostCoGuestViewModel(liveID: $0.liveID!) }
  app.accept = { vm in vm.pendingApplicants.first.map { vm.acceptApplication(userID: $0.userID) } }
  app.reject = { vm in vm.pendingApplicants.first.map { vm.rejectApplication(userID: $0.userID) } }
  app.invite = { vm, userID in vm.inviteToSeat(userID: userID) }
  app.applicants = { vm in vm.pendingApplicants.map(\.userID) }
  return app
}()

/// The seed documents' code as app suites: `seed-coguest` (seed 000's viewer and host view
/// models) and `seed-push` (seed 003's push manager, login and call).
public let seedSuites: [AppSuite] = [
  AppSuite(name: "seed-coguest", summary: "the co-guest guide's own viewer and host view models, as printed")
    .with(audience: seedAudience).with(host: seedHost),
  AppSuite(name: "seed-push", summary: "the VoIP push guide's own push manager, login and call, as printed")
    .with(phone: seedPhone),
]

/// The call screen seed 003's view controller presents, which the guide leaves to the app team:
/// it only holds what it was handed.
final class YourCallViewController: UIViewController {
  var callId = ""
  var mediaType: CallMediaType = .audio
  var userData = ""
}

/// What seed 003's phone app holds: its app delegate (which makes the push manager) and the
/// screen that listens for calls.
struct SeedPhone {
  let delegate: AppDelegate
  let screen: YourViewController
}

/// Seed 003's phone: at each launch, the app delegate finishes launching (making its push manager
/// for certificate 1234, the console's VoIP certificate in the shipped profiles), the guide's login
/// runs, and its view controller loads and listens for calls. Calls are placed with the guide's
/// `calls` snippet; answering and hanging up go through the system's call UI (the push manager's
/// `ConversationManagerDelegate`). The call screen is up while the view controller presents one.
let seedPhone: PhoneApp<SeedPhone> = {
  var app = PhoneApp { context in
    let delegate = AppDelegate()
    _ = delegate.application(UIApplication.shared, didFinishLaunchingWithOptions: nil)
    seedLogIn(sdkAppID: context.sdkAppID, userID: context.userID, userSig: context.userSig)
    let screen = YourViewController()
    screen.loadViewIfNeeded()
    return SeedPhone(delegate: delegate, screen: screen)
  }
  app.dial = { _, users, video in seedCall(users, video: video) }
  app.callScreen = { $0.screen.presentedViewController != nil }
  return app
}()
