import CThreadState
import Clients

/// Letting go of app objects as their user's code (see ``AppHost/releaseObjects(of:processGone:holding:_:)``).
extension AppHost {
  /// Runs `body`, which releases app objects of `user`'s process that is gone (killed, replaced
  /// by a new launch, or at the end of the run), as that user's code: a `deinit` that removes a
  /// NotificationCenter observer or reads a `.shared` store finds its own process's. What the
  /// released code starts (SDK calls, queue work, tasks, sleeps) dies with the process, as on a
  /// phone, where a killed process runs nothing more.
  ///
  /// With `processGone` false the process lives on: what the released code starts goes on as that
  /// user's work.
  ///
  /// The release is a piece of the current entry (see ``AppCrash``). `roots` are the objects
  /// `body` lets go of: where a `deinit` crashed in an earlier run of the seed, they are kept for
  /// the rest of the run instead (no `deinit` of theirs runs), and the user's process dies there
  /// if it was alive; once a `deinit` of a dead process crashed, every dead process's objects are
  /// kept from there on, as a phone runs no code of a process that is gone.
  package func releaseObjects(
    of user: UInt32, processGone: Bool = true, holding roots: @autoclosure () -> Any?, _ body: () -> Void
  ) {
    pieces &+= 1
    let previousPiece = piece
    piece = pieces
    var held: Any?
    var crash: AppCrash?
    if followsCrashes {
      if let planned = runtime.appCrashes.take(at: entries, piece: pieces) {
        if planned.atDeath { keepsDeadObjects = true } else { crash = planned }
        held = roots()
      } else if processGone && keepsDeadObjects {
        held = roots()
      }
      if held != nil && processGone && keepsDeadObjects { runtime.appCrashes.keptAtDeath += 1 }
    }
    let previousUser = self.user
    let previousHost = AppHost.current
    self.user = user
    if previousHost !== self { AppHost.current = self }
    depth += 1
    let gone = processGone ? 1 : 0
    releasingGone += gone
    stampede_add_app_releasing(Int32(gone))
    stampede_set_app_piece(user, pieces)
    defer {
      stampede_add_app_releasing(-Int32(gone))
      stampede_set_app_piece(previousUser, previousPiece)
    }
    let mark = runtime.commands.count
    body()
    if processGone { dropCommands(from: mark) }
    releasingGone -= gone
    depth -= 1
    self.user = previousUser
    piece = previousPiece
    if previousHost !== self { AppHost.current = previousHost }
    if let held { keptObjects.append(held) }
    if let crash { crashed(crash) }
  }

  /// Drops the commands from `index` on (what released code of a process that is gone asked for),
  /// their completions released here, inside the release.
  func dropCommands(from index: Int) {
    let commands = runtime.commands
    guard commands.count > index else { return }
    commands.dropLast(from: index) { command in
      if case .operation(let op) = command, op.kind.hasCalleeList { _ = runtime.callLists.take(op.calleeList) }
    }
  }
}
