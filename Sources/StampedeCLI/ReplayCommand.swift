import Clients
import Foundation
import Profiles
import Reports
import Runner
import Scenario
import SimKernel

#if canImport(Glibc)
  import Glibc
#endif

/// `stampede replay`.
enum ReplayCommand {
  static func main(_ args: [String]) throws -> ExitCode {
    if args.prefix(while: { $0 != "--" }).contains("--history") {
      throw UsageError("--history: replay records nothing in the history (run, sweep and capacity do)")
    }
    let options = try Options(
      args,
      valued: RunCommand.valued.subtracting(["--seed", "--duration", "--set", "--history", "--pct", "--threads"]),
      flags: RunCommand.flags)
    guard options.positional.count == 1, let reportPath = options.positional.first else {
      throw UsageError("replay takes exactly one REPORT.json")
    }
    let original: RunReport
    do {
      original = try JSONDecoder().decode(RunReport.self, from: Data(contentsOf: URL(fileURLWithPath: reportPath)))
    } catch {
      printError("\(AppRegistry.program): \(reportPath): not a run report (\(error.localizedDescription))")
      return .usage
    }
    guard original.complete else {
      printError(
        "\(AppRegistry.program): \(reportPath) is incomplete (the run was interrupted), so no replay can reach its trace hash"
      )
      return .usage
    }
    let run: SimulationRun
    do {
      run = try simulationRun(for: original, reportPath: reportPath)
    } catch let e as ReplayError {
      printError(e.message)
      return .usage
    }
    if original.tool.version != StampedeVersion.current {
      printError(
        "\(AppRegistry.program): note: the report was made by stampede \(original.tool.version), this is \(StampedeVersion.current)"
      )
    }
    let (report, code) = try RunCommand.perform(run, options: options, out: options.values["--out"])
    guard report.traceHash == original.traceHash else {
      if let then = original.tool.build, let now = BuildIdentity.current, then != now {
        // Another build ran it: the app's code or the tool's changed, which a replay cannot tell
        // from nondeterminism, and is far likelier.
        printError(
          "\(AppRegistry.program): replay reached trace hash \(report.traceHash), the report has \(original.traceHash); "
            + "the report was made by another build of this program (build \(then.prefix(12))…, this one "
            + "\(now.prefix(12))…), so the difference is a change of code (the app's or the tool's), not "
            + "nondeterminism: replay with the report's build to check determinism"
        )
        return code
      }
      printError(
        "\(AppRegistry.program): NONDETERMINISM: replay reached trace hash \(report.traceHash), the report has \(original.traceHash)"
          + (original.tool.build == nil
            ? " (the report does not record the build that made it: if this program's code changed since, that explains it)"
            : ", with the same build")
      )
      return .nondeterminism
    }
    printError("\(AppRegistry.program): replay reached the report's trace hash \(original.traceHash)")
    return code
  }

  /// Why a report cannot be replayed here; the message is printed as it is.
  struct ReplayError: Error {
    let message: String
  }

  /// The run that reproduces `original`: its repro line read, its profile loaded (and checked to
  /// be the one the report was made with), its app found in this executable.
  static func simulationRun(for original: RunReport, reportPath: String) throws -> SimulationRun {
    if let program = original.repro.split(separator: " ").first, program != "stampede",
      program != AppRegistry.program
    {
      throw ReplayError(
        message:
          "\(AppRegistry.program): \(reportPath) was made by \(program) (its repro line: \(original.repro)); replay it with that executable, which registers the app the run used"
      )
    }
    guard let repro = Repro.parse(original.repro) else {
      throw ReplayError(message: "\(AppRegistry.program): \(reportPath): cannot read its repro line: \(original.repro)")
    }
    guard FileManager.default.fileExists(atPath: repro.profilePath) else {
      throw ReplayError(
        message:
          "\(AppRegistry.program): cannot read \(repro.profilePath) (from the report's repro line); run where the report was made"
      )
    }
    let profile: Profile
    let data: Data
    do {
      (profile, data) = try Profile.load(path: repro.profilePath, sets: repro.sets)
    } catch {
      throw ReplayError(message: error.all.map(\.description).joined(separator: "\n"))
    }
    let sha = SHA256.profile(data, sets: repro.sets)
    // Reports made before profiles were resolved fingerprint the file's bytes.
    let fileBytes = (try? Data(contentsOf: URL(fileURLWithPath: repro.profilePath))) ?? Data()
    guard sha == original.profile.sha256 || SHA256.legacyProfile(fileBytes, sets: repro.sets) == original.profile.sha256
    else {
      throw ReplayError(
        message:
          "\(AppRegistry.program): \(repro.profilePath) has changed since the report was made (sha256 \(original.profile.sha256.prefix(12))… then, \(sha.prefix(12))… now); check out the version the report was made with"
      )
    }
    var run = SimulationRun(
      profile: profile, profilePath: repro.profilePath, profileData: data, seed: repro.seed, duration: repro.duration,
      quirks: repro.quirks, mistakes: repro.mistakes, overrides: repro.sets)
    run.program = AppRegistry.program
    run.app = try AppRegistry.app(repro.app)
    run.appCrashes = CrashFollowing.planned
    run.threads = repro.threads
    return run
  }
}
