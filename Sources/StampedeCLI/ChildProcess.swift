import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A process this one started and watches: the same program, with a pipe for its crash
/// breadcrumbs (and results) on file descriptor 3, its standard error read through a pipe, and
/// optionally its standard input written through one.
final class ChildProcess {
  /// The child's process ID.
  let pid: pid_t
  /// Read end of the child's descriptor 3.
  let messages: FileHandle
  /// Read end of the child's standard error.
  let errors: FileHandle
  /// Write end of the child's standard input, when it was asked for.
  let input: FileHandle?

  /// How the child ended.
  enum Ending: Equatable {
    case exited(Int32)
    case signalled(Int32)
  }

  struct SpawnError: Error, CustomStringConvertible {
    let description: String
  }

  /// Starts `arguments` (the first is the program, found on the `PATH` as `execvp` would) with
  /// `environment`. Standard output is this process's.
  init(arguments: [String], environment: [String: String], writesInput: Bool) throws {
    // One start at a time: a pipe made on one thread must not leak into a child another starts
    // before its descriptors are marked close-on-exec.
    ChildProcess.starting.lock()
    defer { ChildProcess.starting.unlock() }
    func makePipe() throws -> (read: Int32, write: Int32) {
      var fds: [Int32] = [0, 0]
      guard pipe(&fds) == 0 else {
        throw SpawnError(description: "cannot make a pipe: \(String(cString: strerror(errno)))")
      }
      for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
      return (fds[0], fds[1])
    }
    let message = try makePipe()
    let error = try makePipe()
    let stdin = writesInput ? try makePipe() : nil
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    // dup2 clears close-on-exec on the copy; the originals close at the exec.
    posix_spawn_file_actions_adddup2(&actions, message.write, 3)
    posix_spawn_file_actions_adddup2(&actions, error.write, 2)
    if let stdin { posix_spawn_file_actions_adddup2(&actions, stdin.read, 0) }
    let argv = arguments.map { strdup($0) } + [nil]
    let envp = environment.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer {
      for p in argv { free(p) }
      for p in envp { free(p) }
    }
    // The child starts with no signal blocked and the signals this process ignores or handles at
    // their defaults: posix_spawn would pass on the calling thread's mask (a Dispatch worker
    // thread blocks most signals, which kept a worker's hang watch from stopping it) and the
    // signals ignored here (SIGINT in a supervisor, SIGPIPE in a pool).
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var none = sigset_t()
    sigemptyset(&none)
    posix_spawnattr_setsigmask(&attributes, &none)
    var defaults = sigset_t()
    sigemptyset(&defaults)
    for sig in [SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT] { sigaddset(&defaults, sig) }
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    var child: pid_t = 0
    let rc = posix_spawnp(&child, arguments[0], &actions, &attributes, argv, envp)
    close(message.write)
    close(error.write)
    if let stdin { close(stdin.read) }
    guard rc == 0 else {
      close(message.read)
      close(error.read)
      if let stdin { close(stdin.write) }
      throw SpawnError(description: "cannot start \(arguments[0]): \(String(cString: strerror(rc)))")
    }
    pid = child
    messages = FileHandle(fileDescriptor: message.read, closeOnDealloc: true)
    errors = FileHandle(fileDescriptor: error.read, closeOnDealloc: true)
    input = stdin.map { FileHandle(fileDescriptor: $0.write, closeOnDealloc: true) }
  }

  private static let starting = NSLock()

  /// Waits for the child to end.
  func wait() -> Ending {
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    // WIFEXITED / WTERMSIG, spelled out (the macros do not import).
    let signal = status & 0x7f
    return signal == 0 ? .exited((status >> 8) & 0xff) : .signalled(signal)
  }

  /// The program as this process was started (a path, or a name found on the `PATH`), for
  /// starting it again: under a wrapper such as valgrind, /proc/self/exe would be the wrapper.
  static var program: String {
    if let first = CommandLine.arguments.first, !first.isEmpty { return first }
    return "/proc/self/exe"
  }
}

/// Reads a child's standard error on a thread of its own: what it writes passes on to this
/// process's standard error as it comes (a progress bar's carriage returns too), except a crash
/// report (from the Swift runtime's "*** Signal" or "Program crashed" on), which is kept for
/// ``CrashReport`` instead; the last lines before it are kept too.
final class ErrorRelay: @unchecked Sendable {
  private let lock = NSLock()
  private var recent = ""
  private var crash = ""
  private var capturing = false
  private let done = DispatchSemaphore(value: 0)
  /// Where a crash's report starts: the runtime's title lines, or its warning that it could not
  /// stop some thread to read its stack (a thread that blocks signals), which comes first and
  /// belongs to the report as much.
  static let markers = ["*** Signal ", "*** Program crashed: ", "swift-runtime: failed to suspend thread"]

  /// Starts relaying `handle` until it ends.
  init(_ handle: FileHandle) {
    Thread.detachNewThread { [self] in
      while true {
        let chunk = handle.availableData
        if chunk.isEmpty { break }
        take(String(decoding: chunk, as: UTF8.self))
      }
      take("", final: true)
      done.signal()
    }
  }

  /// What was read but not passed on yet: the newlines at the end of what was read, and an
  /// unfinished last line that may be the start of a report. So a marker split across two reads is
  /// found, and nothing of a report, nor the blank line before it, reaches this process's
  /// standard error; a line's end is passed on with what follows it.
  private var held = ""
  /// Whether anything was passed on yet.
  private var passedAny = false

  private func take(_ text: String, final: Bool = false) {
    lock.lock()
    defer { lock.unlock() }
    if capturing {
      crash += text
      return
    }
    let combined = held + text
    held = ""
    if let start = ErrorRelay.markers.compactMap({ combined.range(of: $0)?.lowerBound }).min() {
      let lineStart = combined[..<start].lastIndex(of: "\n").map { combined.index(after: $0) } ?? combined.startIndex
      var passed = combined[..<lineStart]
      while passed.hasSuffix("\n") { passed = passed.dropLast() }
      crash = String(combined[lineStart...])
      capturing = true
      // The last line passed on gets its end; the report's blank line does not pass.
      return pass(passed.isEmpty && !passedAny ? "" : String(passed) + "\n")
    }
    guard !final else { return pass(combined) }
    var body = Substring(combined)
    let lastLine = combined.lastIndex(of: "\n").map { combined.index(after: $0) } ?? combined.startIndex
    let tail = combined[lastLine...]
    if !tail.isEmpty && ErrorRelay.markers.contains(where: { $0.hasPrefix(tail) }) {
      held = String(tail)
      body = combined[..<lastLine]
    }
    var newlines = ""
    while body.hasSuffix("\n") {
      body = body.dropLast()
      newlines += "\n"
    }
    held = newlines + held
    pass(String(body))
  }

  private func pass(_ text: String) {
    guard !text.isEmpty else { return }
    passedAny = true
    FileHandle.standardError.write(Data(text.utf8))
    recent += text
    if recent.utf8.count > 16_384 { recent = String(recent.suffix(8_192)) }
  }

  /// Waits for the child's standard error to end; the last lines before a crash report, and the
  /// report's lines.
  func finish() -> (before: [String], crash: [String]) {
    done.wait()
    lock.lock()
    defer { lock.unlock() }
    let split = { (s: String) in s.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) }
    return (Array(split(recent).suffix(20)), split(crash))
  }
}

/// Whether standard error is a terminal, as a progress bar asks: this process's own, or, in a
/// process a supervising one started (whose standard error is a pipe to it), the supervisor's.
enum Terminal {
  static let variable = "STAMPEDE_STDERR_IS_TERMINAL"

  static var standardErrorIsTerminal: Bool {
    isatty(STDERR_FILENO) == 1 || ProcessInfo.processInfo.environment[variable] == "1"
  }
}
