import Clients
import Foundation
import Profiles
import Reports
import Runner

#if canImport(Glibc)
  import Glibc
#endif

/// A sweep of app code runs its seeds in worker processes, for two reasons a process of its own
/// answers: a crash of the app's code ends only its worker (the pool follows it, as a supervised
/// `run` does, and the seed runs again with that app process dying there; see
/// ``CrashFollowing``), and objects of app processes that died, which app code can keep alive past
/// their seed (a task still awaiting), are freed when the worker that held them is replaced once
/// its memory has grown past a limit.
///
/// The parent starts `program sweep PROFILE --worker BYTES` once per job; each worker
/// reads ``SeedJob``s, one JSON object a line, on its standard input, and answers on descriptor 3
/// with `report <length>` and the report's JSON, then `next`, or `recycle` when it has grown past
/// `BYTES` (and ends); or with a crash breadcrumb as it dies. Seeds run in a worker exactly as in one process:
/// the same profile, overrides, app and seed give the same report.
final class WorkerPool: @unchecked Sendable {
  /// One worker process.
  final class Worker {
    let process: ChildProcess
    let relay: ErrorRelay
    var buffer = Data()

    init(_ process: ChildProcess) {
      self.process = process
      relay = ErrorRelay(process.errors)
    }

    /// The next line from descriptor 3, or `nil` at its end.
    func line() -> String? {
      while true {
        if let newline = buffer.firstIndex(of: 0x0a) {
          let text = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
          buffer = Data(buffer[(newline + 1)...])
          return text
        }
        let chunk = process.messages.availableData
        if chunk.isEmpty { return nil }
        buffer.append(chunk)
      }
    }

    /// The next `count` bytes from descriptor 3, or `nil` if it ends first.
    func bytes(_ count: Int) -> Data? {
      while buffer.count < count {
        let chunk = process.messages.availableData
        if chunk.isEmpty { return nil }
        buffer.append(chunk)
      }
      let out = Data(buffer.prefix(count))
      buffer = Data(buffer.dropFirst(count))
      return out
    }
  }

  private let arguments: [String]
  private let lock = NSLock()
  private var idle: [Worker] = []
  /// Workers started, and replaced for their memory.
  private(set) var started = 0
  private(set) var recycled = 0
  /// Whether a worker's report came from another build than this process's (said once).
  private var saidOtherBuild = false

  /// A pool of `sweep PROFILE --worker` processes, each replaced past `memoryLimit` bytes.
  init(profilePath: String, memoryLimit: UInt64) {
    arguments = [ChildProcess.program, "sweep", profilePath, "--worker", String(memoryLimit)]
    // A worker that died leaves a pipe with no reader: writing to it is an error, not a signal.
    signal(SIGPIPE, SIG_IGN)
  }

  private func take() throws -> Worker {
    lock.lock()
    if let w = idle.popLast() {
      lock.unlock()
      return w
    }
    started += 1
    lock.unlock()
    return Worker(
      try ChildProcess(arguments: arguments, environment: CrashFollowing.childEnvironment(plan: []), writesInput: true))
  }

  private func giveBack(_ w: Worker) {
    lock.lock()
    idle.append(w)
    lock.unlock()
  }

  /// Runs `job` in a worker, following each crash of app code by running the seed again in a
  /// fresh worker with that crash in its plan.
  func run(_ job: SeedJob) -> SeedOutcome {
    var job = job
    while true {
      let worker: Worker
      do {
        worker = try take()
      } catch {
        return .lost("no worker process: \(error)")
      }
      let encoded = (try? JSONEncoder().encode(job)) ?? Data()
      worker.process.input?.write(encoded + Data([0x0a]))
      let header = worker.line()
      if let header, header.hasPrefix("report "), let count = Int(header.dropFirst(7)),
        let body = worker.bytes(count), let report = try? JSONDecoder().decode(RunReport.self, from: body)
      {
        let next = worker.line()
        if next == "next" {
          giveBack(worker)
        } else {
          end(worker)
          _ = worker.relay.finish()
          if next == "recycle" { lock.withLock { recycled += 1 } }
        }
        noteBuild(of: report)
        return .report(report, crashes: job.crashes)
      }
      // The worker ended without a report: a crash (or a hang), followed if it was app code's.
      var lines = header.map { [Substring($0)] } ?? []
      while let more = worker.line() { lines.append(Substring(more)) }
      let ending = end(worker)
      let stderr = worker.relay.finish()
      switch CrashFollowing.judge(lines, stderr: stderr, plan: job.crashes) {
      case .follow(let crash, _):
        job.crashes.append(crash)
        continue
      case .refuse(_, let why):
        return .lost(why)
      case .outside:
        break
      }
      let frame = CrashReport.firstAppFrame(stderr.crash).map { " in \($0)" } ?? ""
      switch ending {
      case .signalled(let sig):
        return .lost("the worker process crashed outside app code (\(CrashReport.name(of: sig))\(frame))")
      case .exited(let code):
        return .lost("the worker process ended with status \(code) and no report")
      }
    }
  }

  /// Warns once when a worker ran another build than this process: the executable was rebuilt
  /// while the sweep ran (workers start from the file on disk), and its seeds mix two builds.
  private func noteBuild(of report: RunReport) {
    guard let warning = WorkerPool.otherBuild(report.tool.build, mine: BuildIdentity.current) else { return }
    let first = lock.withLock {
      defer { saidOtherBuild = true }
      return !saidOtherBuild
    }
    if first { printError("\(AppRegistry.program): \(warning)") }
  }

  /// The warning for a worker's report made by build `theirs` in a process of build `mine`, if
  /// they differ (and both are known).
  static func otherBuild(_ theirs: String?, mine: String?) -> String? {
    guard let mine, let theirs, theirs != mine else { return nil }
    return "warning: a worker process ran another build (\(theirs.prefix(12))) than this one (\(mine.prefix(12))): "
      + "\(ChildProcess.program) was rebuilt during the run, and its results mix two builds; run it again once the "
      + "build is done"
  }

  @discardableResult
  private func end(_ w: Worker) -> ChildProcess.Ending {
    try? w.process.input?.close()
    return w.process.wait()
  }

  /// Ends every idle worker (their standard input closes; each ends after its current seed).
  func shutdown() {
    lock.lock()
    let all = idle
    idle = []
    lock.unlock()
    for w in all {
      end(w)
      _ = w.relay.finish()
    }
  }

  /// `--worker-memory`: "512m", "2g", or bytes.
  static func parseMemory(_ text: String) -> UInt64? {
    let lower = text.lowercased()
    let units: [(String, UInt64)] = [("k", 1 << 10), ("m", 1 << 20), ("g", 1 << 30)]
    for (suffix, scale) in units where lower.hasSuffix(suffix) {
      guard let n = Double(lower.dropLast()), n > 0 else { return nil }
      return UInt64(n * Double(scale))
    }
    return UInt64(lower).flatMap { $0 > 0 ? $0 : nil }
  }
}

/// The worker's side (`sweep PROFILE --worker BYTES`, started by ``WorkerPool``).
enum SweepWorker {
  static func main(profilePath: String, memoryLimit: UInt64) -> ExitCode {
    // An interrupt reaches the whole process group: the parent stops handing out seeds, and this
    // worker finishes the one it runs.
    signal(SIGINT, SIG_IGN)
    let out = FileHandle(fileDescriptor: 3, closeOnDealloc: false)
    var profiles: [[String]: (Profile, Data)] = [:]
    var baseline: UInt64?
    while let line = readLine(strippingNewline: true) {
      guard let job = try? JSONDecoder().decode(SeedJob.self, from: Data(line.utf8)) else {
        printError("\(AppRegistry.program): worker: cannot read the job '\(line.prefix(200))'")
        return .usage
      }
      do {
        let profile: Profile
        let data: Data
        if let text = job.profile {
          // A document of its own (a `shrink` candidate): each is run once.
          data = Data(text.utf8)
          profile = try Profile.parse(data)
        } else {
          if profiles[job.overrides] == nil {
            profiles[job.overrides] = try Profile.load(path: profilePath, sets: job.overrides)
          }
          (profile, data) = profiles[job.overrides]!
        }
        var run = SimulationRun(
          profile: profile, profilePath: profilePath, profileData: data, seed: job.seed,
          quirks: try RunCommand.quirks(job.quirks.joined(separator: ",")),
          mistakes: try RunCommand.mistakes(job.mistakes.joined(separator: ",")), overrides: job.overrides)
        run.program = AppRegistry.program
        run.app = try AppRegistry.app(job.app)
        run.appCrashes = job.crashes
        let report = run.report(run.execute(), startedAt: Date())
        let body = try JSONEncoder().encode(report)
        out.write(Data("report \(body.count)\n".utf8) + body)
      } catch let error as UsageError {
        printError("\(AppRegistry.program): worker: \(error.message)")
        return .usage
      } catch let error as ProfileError {
        printProfileError(error)
        return .usage
      } catch {
        printError("\(AppRegistry.program): worker: \(error)")
        return .usage
      }
      // The first seed warms the process up; growth past the limit after it ends this worker.
      if let now = Jemalloc.allocated {
        if baseline == nil { baseline = now }
        if now > baseline! && now - baseline! > memoryLimit {
          out.write(Data("recycle\n".utf8))
          return .pass
        }
      }
      out.write(Data("next\n".utf8))
    }
    return .pass
  }
}
