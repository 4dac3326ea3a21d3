import Clients

/// Crashes of app code carried out (see ``AppCrash``): the entry where a user's app crashed in an
/// earlier run of the seed does not run, and that user's process dies there.
extension AppHost {
  /// Whether the piece just counted (an outermost entry, or one nested in it), into `user`'s
  /// code, is skipped: the app crashed here in an earlier run of the seed (its process dies now
  /// instead), or `user`'s app crashed before and is gone.
  func crashSkips(_ user: UInt32) -> Bool {
    if let crash = runtime.appCrashes.take(at: entries, piece: pieces) {
      crashed(crash)
      return true
    }
    return goneByCrash(user)
  }

  /// Whether `user` (not a phone's) has no app process left: it crashed.
  @inline(__always)
  func goneByCrash(_ user: UInt32) -> Bool { !crashedUsers.isEmpty && crashedUsers.contains(user) }

  /// `crash` happens: the finding is recorded, and the user's app process dies as a phone's does
  /// when the system kills it (its SDK state, singletons and pending work are gone).
  func crashed(_ crash: AppCrash) {
    runtime.appCrashes.happened.append((now.nanoseconds, crash))
    // In the user's trace too, after the events that led to it.
    runtime.appLog.record(user: crash.user, timeNs: now.nanoseconds, "app crashed: \(crash.detail)")
    let user = crash.user
    if let os = runtime.phoneSystem, os.phones.contains(user) {
      if os.appState(user) != .killed { os.setApp(user, .killed) }
    } else {
      crashedUsers.insert(user)
    }
    runtime.processDied(user)
    if goneByCrash(user) { runtime.clients[Int(user)].subscriptions = .appGone }
    forgetSingletons(of: user)
  }
}
