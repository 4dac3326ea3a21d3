import StampedeHarness

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
/// applicant its list shows, as its screen would.
let seedHost: HostApp<HostCoGuestViewModel> = {
  var app = HostApp { HostCoGuestViewModel(liveID: $0.liveID!) }
  app.accept = { vm in vm.pendingApplicants.first.map { vm.acceptApplication(userID: $0.userID) } }
  app.reject = { vm in vm.pendingApplicants.first.map { vm.rejectApplication(userID: $0.userID) } }
  app.invite = { vm, userID in vm.inviteToSeat(userID: userID) }
  return app
}()

/// The seed documents' code as app suites: `seed-coguest` (seed 000's viewer and host view
/// models).
public let seedSuites: [AppSuite] = [
  AppSuite(name: "seed-coguest", summary: "the co-guest guide's own viewer and host view models, as printed")
    .with(audience: seedAudience).with(host: seedHost)
]
