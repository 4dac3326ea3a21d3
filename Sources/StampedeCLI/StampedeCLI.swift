import Foundation
import Profiles
import Runner
import StampedeHarness

#if canImport(Glibc)
  import Glibc
#endif

/// Exit codes of the public contract.
public enum ExitCode: Int32 {
  case pass = 0
  case invariantViolated = 1
  case usage = 2
  case thresholdFailed = 3
  case nondeterminism = 4
  /// The run (or a seed of a sweep) stopped before its end: the event budget (`limits.maxEvents`)
  /// ran out with no invariant violated. Its liveness was never judged.
  case incomplete = 5
  case interrupted = 130
}

/// A usage error: printed with a hint, exit 2.
struct UsageError: Error {
  let message: String
  init(_ message: String) { self.message = message }
}

func printError(_ text: String) {
  // What standard output holds back goes first, so that a line of each never splices into the
  // other where both reach one file or terminal.
  fflush(nil)
  FileHandle.standardError.write(Data((text + "\n").utf8))
}

/// The command line, for `stampede` and for any executable that registers its own apps.
public enum StampedeCLI {
  /// Runs the command line with `arguments` and exits with its code. `apps` are the client
  /// suites `--app NAME` selects; `program` is the executable's name as repro lines print it.
  ///
  /// The process first makes sure Swift's hashing is deterministic (see ``DeterministicHashing``):
  /// app code that iterates a `Set` or a `Dictionary` then runs the same in every process.
  public static func main(
    apps: [AppSuite] = [], program: String = "stampede", arguments: [String] = Array(CommandLine.arguments.dropFirst())
  ) -> Never {
    // A run of app code is supervised, so that a crash of the app's code is followed rather than
    // ending the run (see ``CrashFollowing``); a process started with hashing fixed runs as is (as
    // under valgrind, which follows this process only).
    if CrashFollowing.supervises(arguments) && !DeterministicHashing.isOn {
      CrashFollowing.supervise(program: program)
    }
    DeterministicHashing.ensure(program: program)
    CrashFollowing.installIfSupervised()
    exit(run(apps: apps, program: program, arguments: arguments))
  }

  /// Runs the command line and returns its exit code.
  public static func run(apps: [AppSuite], program: String, arguments: [String]) -> Int32 {
    AppRegistry.apps = apps
    AppRegistry.program = program
    let code: ExitCode
    do {
      code = try CLI.dispatch(arguments)
    } catch let error as UsageError {
      printError("\(program): \(error.message)")
      printError("Run '\(program) help' for usage.")
      code = .usage
    } catch {
      printError("\(program): \(error)")
      code = .usage
    }
    return code.rawValue
  }
}

/// Swift seeds its hashing at random in every process, so the order in which a `Set` or a
/// `Dictionary` iterates differs from one process to the next. Stampede's model never depends on it,
/// but app code does (a host that answers `Set(applicants)` in a loop): the same seed would give
/// another run in another process. The runtime reads `SWIFT_DETERMINISTIC_HASHING` once, before
/// `main`, so a process started without it starts itself again, the same program with the same
/// arguments and the variable set (an exec keeps the PID); if that is impossible it says so on
/// standard error and goes on.
enum DeterministicHashing {
  static let variable = "SWIFT_DETERMINISTIC_HASHING"

  /// Whether this process's hashing was fixed from its start.
  static var isOn: Bool { ProcessInfo.processInfo.environment[variable] == "1" }

  static func ensure(program: String) {
    guard !isOn else { return }
    setenv(variable, "1", 1)
    let argv = CommandLine.arguments.map { strdup($0) } + [nil]
    // The program as it was started (a path, or a name found on the PATH): under a wrapper such
    // as valgrind, /proc/self/exe is the wrapper's own binary. (Run under valgrind with the
    // variable set, so that the tool follows this process rather than a restarted one.)
    if let program = CommandLine.arguments.first, !program.isEmpty {
      execvp(program, argv)
    }
    execv("/proc/self/exe", argv)
    // Only reached if the exec failed.
    printError(
      "\(program): warning: could not restart with \(variable)=1 (\(String(cString: strerror(errno)))): "
        + "app code that iterates a Set or Dictionary may run differently in another process")
  }
}

/// The apps this executable registered, and its name.
enum AppRegistry {
  nonisolated(unsafe) static var apps: [AppSuite] = []
  nonisolated(unsafe) static var program = "stampede"

  /// The app `--app NAME` names, as a run takes it.
  static func app(_ name: String?) throws -> ClientApp? {
    guard let name else { return nil }
    guard let suite = apps.first(where: { $0.name == name }) else {
      let known = apps.map(\.name)
      throw UsageError(
        "--app: no app '\(name)' in \(program)"
          + (known.isEmpty
            ? " (it registers none; run the executable that registers it)"
            : " (known: \(known.joined(separator: ", ")))"))
    }
    return suite.clientApp
  }

  /// Refuses a run of app `name` that `profile` sets up wrong: the built-in phones calling viewers
  /// whose app takes no calls would draw findings against correct code.
  static func checkSetup(_ name: String?, profile: Profile) throws {
    guard let name, let suite = apps.first(where: { $0.name == name }), suite.viewersTakeNoCalls,
      let liveCallees = profile.calls?.phone.liveCallees, liveCallees != .zero
    else { return }
    throw UsageError(
      "calls.liveCallees: the profile's built-in phones call viewers (\(Double(liveCallees.numerator) * 100 / Double(liveCallees.denominator))% of calls), but the viewers of app '\(name)' "
        + "take no calls (an audience app has no call handling); set it to 0 (--set calls.liveCallees=0), "
        + "or give the suite a phone app")
  }
}

extension AppSuite {
  /// The suite as a run takes it (``SimulationRun/app``).
  public var clientApp: ClientApp {
    ClientApp(name: name, summary: summary, makeClients: { self.clients($0) })
  }
}

/// `stampede apps`.
enum AppsCommand {
  static func main(_ args: [String]) throws -> ExitCode {
    guard args.isEmpty else { throw UsageError("apps takes no arguments") }
    if AppRegistry.apps.isEmpty {
      print("\(AppRegistry.program) registers no apps: every run uses the built-in clients.")
      print("Register app code with StampedeCLI.main(apps:) in your own executable (docs/CLIENTS.md).")
      return .pass
    }
    let width = AppRegistry.apps.map(\.name.count).max() ?? 0
    for app in AppRegistry.apps {
      print(app.name.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + app.summary)
    }
    return .pass
  }
}
