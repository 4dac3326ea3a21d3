import CThreadState
import Clients
import Foundation
import VirtualPlatform

#if canImport(Glibc)
  import Glibc
#endif

/// Following app code's crashes: a trap in a virtual user's code (a nil force-unwrapped, an index
/// out of range, `fatalError`) ends the process that runs the simulation, since Swift cannot
/// recover from one. A process that runs app code is therefore started by a supervising one,
/// which reads the crash breadcrumb (which entry into whose code, see ``AppCrash``) and the
/// runtime's crash report, and runs the seed again with that user's app process dying at that
/// entry. The crash becomes an `app.crash-free` finding of the run, and the run goes on, as the
/// world goes on when one phone's app crashes.
enum CrashFollowing {
  /// The descriptor a supervised process writes its breadcrumbs to.
  static let fdVariable = "STAMPEDE_CRASH_FD"
  /// The crashes found so far, for the supervised process to carry out (``AppCrash/encode(_:)``).
  static let planVariable = "STAMPEDE_APP_CRASHES"
  /// Crashes followed in one run before giving up, and crashes with one detail (the same message
  /// at the same place).
  static let limit = 100
  static let sameLimit = 25

  /// Why a crash with `detail` is not followed after those of `plan`, if it is not: each crash
  /// followed costs a run of the seed up to it, so a crash that every user meets (at launch, in a
  /// view model's `init`) would cost a run per user.
  static func refusal(_ plan: [AppCrash], next detail: String) -> String? {
    if plan.count >= limit { return "app code crashed more than \(limit) times in this run; not following more" }
    if plan.count(where: { $0.detail == detail }) >= sameLimit - 1 {
      return "the same crash in \(sameLimit) users' apps (\(detail)): a crash that every user meets is not "
        + "followed one user at a time; fix it first"
    }
    return nil
  }

  /// How long one piece of app code may run without returning before it counts as hung
  /// (`STAMPEDE_APP_HANG_SECONDS`, 0 for never).
  static let hangVariable = "STAMPEDE_APP_HANG_SECONDS"
  static let defaultHangSeconds: UInt32 = 5

  /// In a supervised process: writes breadcrumbs from now on, and watches for app code that hangs.
  static func installIfSupervised() {
    let env = ProcessInfo.processInfo.environment
    guard let text = env[fdVariable], let fd = Int32(text) else { return }
    if stampede_install_crash_breadcrumbs(fd) != 0 {
      printError("warning: cannot install the crash breadcrumbs: a crash of app code will end the run")
    }
    AppHost.keepsObjectsAtEnd = true
    let seconds = env[hangVariable].flatMap(UInt32.init) ?? defaultHangSeconds
    if stampede_start_hang_watch(fd, seconds) != 0 {
      printError("warning: cannot start the hang watch: app code that never returns will hang the run")
    }
  }

  /// What a process that died wrote on descriptor 3: its crash breadcrumb, and whether the hang
  /// watch stopped it (`hang <entry> <user>` before the breadcrumb).
  static func ending(_ lines: [Substring]) -> (crumb: Breadcrumb, hung: Bool)? {
    guard let crumb = lines.lazy.compactMap(Breadcrumb.init).first else { return nil }
    // The watch names the entry and its outermost user; the breadcrumb names whose code ran (a
    // nested piece's user).
    let hung = lines.contains { $0.hasPrefix("hang \(crumb.entry) ") }
    return (crumb, hung)
  }

  /// What becomes of a process that died, from what it wrote on descriptor 3 (`lines`) and on
  /// standard error, after the crashes of `plan` were followed.
  enum Judgement {
    /// App code crashed: follow it with this crash (`stopped`: where a hung loop was stopped,
    /// for standard error only).
    case follow(AppCrash, stopped: String)
    /// App code crashed, and it is not followed: why.
    case refuse(user: UInt32, String)
    /// The process died outside app code.
    case outside
  }

  static func judge(_ lines: [Substring], stderr: (before: [String], crash: [String]), plan: [AppCrash])
    -> Judgement
  {
    guard let died = ending(lines) else { return .outside }
    let crumb = died.crumb
    let detail = self.detail(crumb, hung: died.hung, stderr: stderr)
    // A deinit of a dead process: followed once, after which no dead process's objects go.
    if !crumb.releasing, let why = refusal(plan, next: detail) { return .refuse(user: crumb.user, why) }
    if crumb.releasing && plan.contains(where: \.atDeath) {
      return .refuse(
        user: crumb.user,
        "user \(crumb.user)'s app code crashed while the objects of its process that was gone were let go of, "
          + "after such objects were kept; please report it with the command line")
    }
    let crash = AppCrash(
      entry: crumb.entry, piece: crumb.piece, user: crumb.user, atDeath: crumb.releasing, detail: detail)
    return .follow(crash, stopped: died.hung ? whereHung(stderr) : "")
  }

  /// The finding's detail for a crash (or a hang) whose process wrote `stderr`.
  static func detail(_ crumb: Breadcrumb, hung: Bool, stderr: (before: [String], crash: [String])) -> String {
    guard hung else { return CrashReport.detail(before: stderr.before, crash: stderr.crash, signal: crumb.signal) }
    // Where an endless loop is stopped differs from run to run, so the finding does not say (the
    // supervisor prints it on standard error, see ``whereHung(_:)``): the same seed gives the same
    // report.
    return "hung: one piece of its code did not return (iOS's watchdog ends an app whose main thread stops "
      + "answering)"
  }

  /// Where a hung piece of code was when it was stopped, for standard error.
  static func whereHung(_ stderr: (before: [String], crash: [String])) -> String {
    CrashReport.firstAppFrame(stderr.crash).map { " (stopped in \($0))" } ?? ""
  }

  /// The crashes the supervising process asks this run to carry out.
  static var planned: [AppCrash] {
    ProcessInfo.processInfo.environment[planVariable].flatMap(AppCrash.decode) ?? []
  }

  /// Whether a command that may run app code in its process is supervised: `run` and `replay`
  /// (whose crashes are followed, see ``follows(_:)``) and `shrink` (a crash is said plainly).
  static func supervises(_ arguments: [String]) -> Bool {
    ["run", "replay", "shrink"].contains(arguments.first ?? "")
  }

  /// Whether the command runs one seed, whose crashes the supervisor can follow.
  static func follows(_ arguments: [String]) -> Bool { ["run", "replay"].contains(arguments.first ?? "") }

  /// The environment of a supervised process: this one's, with deterministic hashing, the
  /// breadcrumb descriptor, the crash plan, and a terse crash report from the Swift runtime.
  static func childEnvironment(plan: [AppCrash]) -> [String: String] {
    var env = ProcessInfo.processInfo.environment
    env[DeterministicHashing.variable] = "1"
    env[fdVariable] = "3"
    env[planVariable] = AppCrash.encode(plan)
    if Terminal.standardErrorIsTerminal { env[Terminal.variable] = "1" }
    if env["SWIFT_BACKTRACE"] == nil {
      env["SWIFT_BACKTRACE"] = "enable=yes,interactive=no,color=no,registers=none,images=none,limit=24"
    }
    return env
  }

  /// A breadcrumb line: `crash <entry> <user> <releasing> <signal> <piece>`.
  struct Breadcrumb: Equatable {
    var entry: UInt64
    var user: UInt32
    /// Whether objects of a process that was gone were being let go of (a `deinit` of a dead
    /// process, see ``AppCrash/atDeath``).
    var releasing: Bool
    var signal: Int32
    /// The piece of the entry (see ``AppCrash/piece``).
    var piece: UInt32

    init?(_ line: Substring) {
      let f = line.split(separator: " ")
      guard f.count == 6, f[0] == "crash", let entry = UInt64(f[1]), let user = UInt32(f[2]),
        let releasing = UInt32(f[3]), let signal = Int32(f[4]), let piece = UInt32(f[5])
      else { return nil }
      self.entry = entry
      self.user = user
      self.releasing = releasing != 0
      self.signal = signal
      self.piece = piece
    }
  }

  /// Runs this command line in a supervised process, again with each crash of app code followed,
  /// and exits as the last run does. SIGINT, SIGTERM and SIGHUP sent to this process are passed on
  /// to the child, which writes its report marked incomplete; no run starts again after one.
  static func supervise(program: String) -> Never {
    var plan: [AppCrash] = []
    unblockStops()
    while true {
      let child: ChildProcess
      do {
        child = try ChildProcess(
          arguments: [ChildProcess.program] + CommandLine.arguments.dropFirst(),
          environment: childEnvironment(plan: plan), writesInput: false)
      } catch {
        printError("\(program): \(error)")
        exit(ExitCode.usage.rawValue)
      }
      Supervised.pid = child.pid
      signal(SIGTERM) { sig in
        Supervised.stopping = 1
        if Supervised.pid > 0 { kill(Supervised.pid, sig) }
      }
      signal(SIGHUP) { sig in
        Supervised.stopping = 1
        if Supervised.pid > 0 { kill(Supervised.pid, sig) }
      }
      // An interrupt sent to this process alone (a script that stops what it started, by PID) is
      // passed on; from a terminal the child has it already, and a second is the same request.
      signal(SIGINT) { sig in
        Supervised.stopping = 1
        if Supervised.pid > 0 { kill(Supervised.pid, sig) }
      }
      let relay = ErrorRelay(child.errors)
      let crumbs = child.messages.readDataToEndOfFile()
      let ending = child.wait()
      let stderr = relay.finish()
      guard case .signalled(let sig) = ending else {
        if case .exited(let code) = ending { exit(code) }
        exit(1)
      }
      // Asked to stop: no run again (a child stuck in app code ends by the hang watch).
      if Supervised.stopping != 0 { exit(ExitCode.interrupted.rawValue) }
      let judgement = judge(String(decoding: crumbs, as: UTF8.self).split(separator: "\n"), stderr: stderr, plan: plan)
      if case .follow(let crash, let stopped) = judgement, follows(Array(CommandLine.arguments.dropFirst())) {
        plan.append(crash)
        printError(
          crash.atDeath
            ? "\(program): a deinit in user \(crash.user)'s app crashed while the objects of its process that had "
              + "died were let go of (\(crash.detail)); a phone runs no code of a dead process, so this is not a "
              + "finding: running the seed again with dead processes' objects kept from there on"
            : "\(program): user \(crash.user)'s app crashed (\(crash.detail)\(stopped)); running the seed again with its process dying there"
        )
        continue
      }
      for line in stderr.crash { printError(line) }
      switch judgement {
      case .follow(let crash, _):
        printError(
          "\(program): user \(crash.user)'s app crashed (\(crash.detail)); \(CommandLine.arguments.dropFirst().first ?? "") "
            + "in this process does not follow crashes: without --in-process its runs are in worker processes "
            + "that do, or run the seed that crashed with `run` to see it as a finding")
      case .refuse(_, let why):
        printError("\(program): \(why)")
      case .outside:
        printError("\(program): crashed outside app code (signal \(sig)); please report it with the command line")
      }
      // App code's crash that is not followed is the app's failure, and said so; no report was made.
      if case .outside = judgement {} else { exit(ExitCode.invariantViolated.rawValue) }
      signal(sig, SIG_DFL)
      raise(sig)
      exit(128 + sig)
    }
  }
}

/// Unblocks SIGINT, SIGTERM and SIGHUP on this thread: a process started from a thread that
/// blocks signals (a test runner's, a job engine's) inherits that mask, and a request to stop
/// would never reach its handler.
func unblockStops() {
  var stops = sigset_t()
  sigemptyset(&stops)
  for sig in [SIGINT, SIGTERM, SIGHUP] { sigaddset(&stops, sig) }
  pthread_sigmask(SIG_UNBLOCK, &stops, nil)
}

/// The supervised process, for the signal handlers that pass signals on.
enum Supervised {
  nonisolated(unsafe) static var pid: pid_t = 0
  /// Set when this process was asked to stop.
  nonisolated(unsafe) static var stopping: sig_atomic_t = 0
}

/// What a crash report says, in one line: the runtime's fatal error message (with its file and
/// line, where the build has them) and the first frame of code that is not the Swift runtime's or
/// the C library's, from the backtrace the runtime prints.
enum CrashReport {
  static func detail(before: [String], crash: [String], signal: Int32) -> String {
    var parts: [String] = []
    let frame = firstAppFrame(crash)
    if let fatal = before.last(where: { $0.contains("Fatal error") }) {
      // "path/File.swift:12: Fatal error: message": the file's name, not the machine's path (the
      // frame names it when the backtrace has it).
      if let colon = fatal.range(of: ": Fatal error") {
        let location = String(fatal[..<colon.lowerBound])
        let file = (location as NSString).lastPathComponent
        let named = file.isEmpty || frame?.contains(" at ") == true
        parts.append("Fatal error" + fatal[colon.upperBound...] + (named ? "" : " (\(file))"))
      } else {
        parts.append(String(fatal[fatal.range(of: "Fatal error")!.lowerBound...]))
      }
    } else if let failure = crash.first(where: { $0.hasPrefix("*** Swift runtime failure: ") }) {
      // A release build: the runtime names the failure in the report's title.
      var message = failure.dropFirst("*** Swift runtime failure: ".count)
      if message.hasSuffix(" ***") { message = message.dropLast(4) }
      parts.append("Fatal error: " + message)
    } else {
      parts.append(name(of: signal))
    }
    if let frame { parts.append("in \(frame)") }
    return parts.joined(separator: " ")
  }

  static func name(of signal: Int32) -> String {
    switch signal {
    case SIGILL: return "illegal instruction (a Swift runtime trap)"
    case SIGTRAP: return "trap"
    case SIGSEGV: return "segmentation fault"
    case SIGBUS: return "bus error"
    case SIGFPE: return "arithmetic fault"
    case SIGABRT: return "abort"
    default: return "signal \(signal)"
    }
  }

  /// "VM.tap() at VM.swift:2" from "  2 [ra] 0x… VM.tap() + 197 in d2 at /tmp/VM.swift:2:34": the
  /// first frame in a source file of the program (a frame of the standard library specialized
  /// into it, `<compiler-generated>`, is passed over), else the first frame of the program.
  static func firstAppFrame(_ lines: [String]) -> String? {
    let frames = programFrames(lines).filter { !$0.symbol.hasPrefix("Swift runtime failure") }
    // The app's own code first: Stampede's sources (the harness that called it, the SDK modules
    // it called) only if no frame of the app's has a file.
    let app = frames.first { f in f.path.map { !$0.hasPrefix(stampedeSources) } ?? false }
    return (app ?? frames.first { $0.path != nil } ?? frames.first)
      .map { f in f.location.map { "\(f.symbol) at \($0)" } ?? f.symbol }
  }

  /// Where Stampede's own sources were when it was built (`…/Sources/`).
  static let stampedeSources: String = {
    let here = "\(#filePath)"
    guard let r = here.range(of: "/Sources/StampedeCLI/") else { return "/nonexistent/" }
    return String(here[..<r.lowerBound]) + "/Sources/"
  }()

  /// The frames of a backtrace outside the Swift runtime and the C library, in order: each one's
  /// function and, where the program has debug information for it, its source file's path and
  /// its file name and line.
  static func programFrames(_ lines: [String]) -> [(symbol: String, path: String?, location: String?)] {
    let system = [
      "libswift", "libc.so", "libc-", "ld-linux", "libFoundation", "libdispatch", "libpthread", "libstdc++",
    ]
    var out: [(symbol: String, path: String?, location: String?)] = []
    for line in lines {
      let t = line.trimmingCharacters(in: .whitespaces)
      guard let first = t.first, first.isNumber, let hex = t.range(of: " 0x") else { continue }
      guard let afterAddress = t[hex.upperBound...].firstIndex(of: " ") else { continue }
      let rest = t[afterAddress...].trimmingCharacters(in: .whitespaces)
      guard let inImage = rest.range(of: " in ", options: .backwards) else { continue }
      var symbol = String(rest[..<inImage.lowerBound])
      var image = String(rest[inImage.upperBound...])
      var location: String?
      var file: String?
      if let at = rest.range(of: " at ", options: .backwards), at.lowerBound > inImage.lowerBound {
        image = String(rest[inImage.upperBound..<at.lowerBound])
        let path = String(rest[at.upperBound...])
        // "file.swift:2:34" -> "file.swift:2"; no file for code the compiler made.
        if !path.contains("<compiler-generated>") {
          let pieces = (path as NSString).lastPathComponent.split(separator: ":")
          location = pieces.prefix(2).joined(separator: ":")
          file = path
        }
      }
      if system.contains(where: { image.hasPrefix($0) }) { continue }
      if let plus = symbol.range(of: " + ", options: .backwards) { symbol = String(symbol[..<plus.lowerBound]) }
      out.append((symbol, file, location))
    }
    return out
  }
}
