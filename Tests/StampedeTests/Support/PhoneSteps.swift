import SimKernel

@testable import Clients
@testable import Profiles
@testable import Scenario

/// Steps a test takes on a staged world's phones, as the system would.
extension LiveWorld {
  /// The app's process dies.
  mutating func killProcess(_ user: UInt32, _ scheduler: inout Scheduler) { phones!.kill(user, &self, &scheduler) }

  /// A new process of the app starts and runs its launch code.
  mutating func launch(_ user: UInt32, foreground: Bool, _ scheduler: inout Scheduler) {
    phones!.launch(user, foreground: foreground, &self, &scheduler)
  }

  /// The user swipes the app away.
  mutating func closeApp(_ user: UInt32, _ scheduler: inout Scheduler) { phones!.close(user, &self, &scheduler) }

  /// The system replaces the device token.
  mutating func tokenRotated(user: UInt32, _ scheduler: inout Scheduler) {
    phones!.rotateToken(user, &self, &scheduler)
  }

  /// The user leaves the app for the home screen.
  mutating func leaveApp(_ user: UInt32) { phones!.leaveApp(user) }

  /// The user opens the app again from the background: its SDK reconnects if it was suspended.
  mutating func reopenApp(_ user: UInt32, _ scheduler: inout Scheduler) {
    phoneOS!.setApp(user, .foreground)
    if runtime.clients[Int(user)].loggedIn { phones!.reconnect(user, &self, &scheduler) }
  }
}
