import Testing

@testable import Clients
@testable import StampedeCLI
@testable import VirtualPlatform

/// A crash is carried out at the piece of its entry where it happened: code of another user that
/// an entry ran nested in it, or a `deinit` run while objects were let go of, not the whole entry
/// around it. A `deinit` of a process that had died is no finding (a phone runs no code of a dead
/// process): its objects are kept instead.
@Suite struct CrashPieceTests {
  /// An object whose `deinit` says that it ran.
  final class Marked {
    let name: String
    let log: Log
    init(_ name: String, _ log: Log) {
      self.name = name
      self.log = log
    }
    deinit { log.lines.append("deinit \(name)") }
  }

  typealias Log = TestLog

  /// A host over `bench`'s runtime with `crashes` planned.
  func host(_ bench: HostBench, _ crashes: [AppCrash]) -> AppHost {
    bench.runtime.appCrashes.plan(crashes)
    return AppHost(runtime: bench.runtime)
  }

  /// User 2's code, run nested in user 1's entry, crashed: only that piece is skipped, user 2's
  /// app dies there (a finding), and user 1's code before and after it runs.
  @Test func aNestedCrashSkipsItsPieceAlone() {
    let log = Log()
    func entry(_ host: AppHost) {
      host.run(as: 1) {
        log.lines.append("1 before")
        host.run(as: 2) { log.lines.append("2 nested") }
        log.lines.append("1 after")
      }
    }
    entry(host(HostBench(), []))
    #expect(log.lines == ["1 before", "2 nested", "1 after"])

    log.lines = []
    let bench = HostBench()
    let h = host(bench, [AppCrash(entry: 1, piece: 1, user: 2, detail: "nested trap")])
    entry(h)
    #expect(log.lines == ["1 before", "1 after"])
    #expect(bench.runtime.appCrashes.happened.map(\.crash.user) == [2])
    #expect(!h.isAlive(2) && h.isAlive(1))
    // User 2 has no process for the rest of the run: its code nested in a later entry does not run.
    log.lines = []
    entry(h)
    #expect(log.lines == ["1 before", "1 after"])
  }

  /// A crash of an entry's own code found after one of its nested pieces crashed is carried out
  /// at the entry's start (the nested piece no longer runs), and the crashes planned after it are
  /// still reached.
  @Test func aPlanPassesOverPiecesTheRunNoLongerReaches() {
    let crashes = AppCrashes()
    crashes.plan([
      AppCrash(entry: 5, piece: 3, user: 2, detail: "b"), AppCrash(entry: 9, user: 4, detail: "c"),
      AppCrash(entry: 5, user: 1, detail: "a"),
    ])
    #expect(crashes.take(at: 5)?.detail == "a")
    #expect(crashes.take(at: 7) == nil)
    #expect(crashes.take(at: 9)?.detail == "c")
  }

  /// A `deinit` that crashed while a dead process's objects were let go of: those objects, and
  /// every dead process's after them, are kept (no `deinit` of theirs runs); nobody's app dies
  /// and there is no finding. A live process's objects still go.
  @Test func aDeinitOfADeadProcessIsNotRunAgain() {
    let log = Log()
    let bench = HostBench()
    // Entry 1 is user 1's; its first piece is the release below.
    let h = host(bench, [AppCrash(entry: 1, piece: 1, user: 2, atDeath: true, detail: "deinit trap")])
    h.run(as: 1) {}
    var first: Marked? = Marked("first", log)
    h.releaseObjects(of: 2, holding: first) { first = nil }
    var second: Marked? = Marked("second", log)
    h.releaseObjects(of: 3, holding: second) { second = nil }
    var live: Marked? = Marked("live", log)
    h.releaseObjects(of: 3, processGone: false, holding: live) { live = nil }
    #expect(log.lines == ["deinit live"])
    #expect(bench.runtime.appCrashes.keptAtDeath == 2)
    #expect(bench.runtime.appCrashes.happened.isEmpty)
    #expect(h.isAlive(2) && h.isAlive(3))
  }

  /// A `deinit` that crashed while a live process let go of its objects (an SDK completion it
  /// never got back): that process dies there (a finding), and its objects are kept.
  @Test func aDeinitOfALiveProcessKillsIt() {
    let log = Log()
    let bench = HostBench()
    let h = host(bench, [AppCrash(entry: 1, piece: 2, user: 3, detail: "deinit trap")])
    h.run(as: 1) {
      var a: Marked? = Marked("a", log)
      h.releaseObjects(of: 3, processGone: false, holding: a) { a = nil }
      var b: Marked? = Marked("b", log)
      h.releaseObjects(of: 3, processGone: false, holding: b) { b = nil }
    }
    #expect(log.lines == ["deinit a"])
    #expect(bench.runtime.appCrashes.happened.map(\.crash.detail) == ["deinit trap"])
    #expect(!h.isAlive(3))
    #expect(bench.runtime.appCrashes.keptAtDeath == 0)
  }

  /// The breadcrumb names the piece, and a hang in a nested piece (the watch names the entry's
  /// outermost user) is still a hang.
  @Test func breadcrumbsNameThePiece() {
    let crumb = CrashFollowing.Breadcrumb("crash 12 7 1 5 3")
    #expect(crumb?.piece == 3 && crumb?.releasing == true && crumb?.user == 7)
    #expect(CrashFollowing.Breadcrumb("crash 12 7 1 5") == nil)
    let died = CrashFollowing.ending(["hang 12 1", "crash 12 7 0 6 2"])
    #expect(died?.hung == true && died?.crumb.piece == 2)
    // A deinit of a dead process is followed once, with its objects kept; after that it is refused.
    let noStderr: (before: [String], crash: [String]) = ([], [])
    guard case .follow(let crash, _) = CrashFollowing.judge(["crash 12 7 1 6 3"], stderr: noStderr, plan: [])
    else {
      Issue.record("a deinit at death is followed")
      return
    }
    #expect(crash.atDeath && crash.piece == 3 && crash.entry == 12)
    guard case .refuse = CrashFollowing.judge(["crash 40 7 1 6 1"], stderr: noStderr, plan: [crash]) else {
      Issue.record("a second deinit at death is refused")
      return
    }
  }
}
