import Foundation
import LiveStack
import Profiles
import Reports
import Runner
import Scenario
import SimKernel

/// `stampede profile show|schema|keys|init`: the resolved profile, the JSON Schema, the key
/// tables and commented starters, all written from ``ProfileKeys``.
enum ProfileCommand {
  static func main(_ args: [String]) throws -> ExitCode {
    guard let sub = args.first else { throw UsageError("profile needs a subcommand: show, schema, keys or init") }
    let options = try Options(
      Array(args.dropFirst()), valued: ["--set", "--template", "--out"], flags: ["--json", "--as-written", "--force"])
    switch sub {
    case "show": return try show(options)
    case "schema":
      try noPositional(options, "schema")
      return try emit(JSON5Writer.json(ProfileKeys.schema()) + "\n", to: options.values["--out"], force: true)
    case "keys":
      try noPositional(options, "keys")
      print(ProfileKeys.markdown(), terminator: "")
      return .pass
    case "init": return try initProfile(options)
    default:
      var message = "profile: unknown subcommand '\(sub)' (show, schema, keys, init)"
      if let near = KeySuggestion.closest(to: sub, among: ["show", "schema", "keys", "init"]) {
        message += "; did you mean '\(near)'?"
      }
      throw UsageError(message)
    }
  }

  static func noPositional(_ options: Options, _ sub: String) throws {
    guard options.positional.isEmpty else {
      throw UsageError("profile \(sub) takes no file (got '\(options.positional[0])')")
    }
  }

  /// `profile show FILE`: the resolved profile, with a comment per key.
  static func show(_ options: Options) throws -> ExitCode {
    guard options.positional.count == 1, let path = options.positional.first else {
      throw UsageError("profile show takes one PROFILE file")
    }
    let sets = options.all["--set"] ?? []
    let tree: JSONValue
    do {
      if options.flags.contains("--as-written") {
        tree = try Profile.applying(sets, to: try ProfileSource.tree(path: path))
      } else {
        tree = try Profile.resolved(path: path, sets: sets)
      }
    } catch {
      var e = error
      if e.file == nil { e.setFile(path) }
      printProfileError(e)
      return .usage
    }
    if options.flags.contains("--json") {
      print(JSON5Writer.json(tree))
      return .pass
    }
    let sha = SHA256.hex(Array(ProfileKeys.canonicalText(tree).utf8))
    var text = "// \(path) resolved"
    if !sets.isEmpty { text += " with " + sets.map { "--set " + $0 }.joined(separator: " ") }
    if options.flags.contains("--as-written") {
      text += " (its bases merged, defaults left out)\n"
    } else {
      text += ": every default written in. sha256 \(sha)\n"
    }
    text += JSON5Writer.write(tree, indent: "", path: "", comment: ProfileKeys.comment(for:)) + "\n"
    print(text, terminator: "")
    return .pass
  }

  static func initProfile(_ options: Options) throws -> ExitCode {
    try noPositional(options, "init")
    let name = options.values["--template"] ?? "evening"
    guard let template = ProfileTemplates.all.first(where: { $0.name == name }) else {
      let names = ProfileTemplates.all.map(\.name)
      var message = "--template: unknown template '\(name)' (\(names.joined(separator: ", ")))"
      if let near = KeySuggestion.closest(to: name, among: names) { message += "; did you mean '\(near)'?" }
      throw UsageError(message)
    }
    return try emit(template.text, to: options.values["--out"], force: options.flags.contains("--force"))
  }

  /// Prints `text`, or writes it atomically to `path` (not over an existing file unless `force`).
  static func emit(_ text: String, to path: String?, force: Bool) throws -> ExitCode {
    guard let path else {
      print(text, terminator: "")
      return .pass
    }
    if !force && FileManager.default.fileExists(atPath: path) {
      printError("\(AppRegistry.program): \(path) exists; pass --force to replace it")
      return .usage
    }
    do {
      try AtomicFile.write(Data(text.utf8), to: path)
    } catch {
      printError("\(AppRegistry.program): cannot write \(path): \(error.localizedDescription)")
      return .usage
    }
    print("wrote \(path)")
    return .pass
  }
}

/// Commented starter profiles for `stampede profile init --template NAME`.
enum ProfileTemplates {
  struct Template {
    let name: String
    let summary: String
    let text: String
  }

  static let all: [Template] = [evening, flashCrowd, calls, chaos]

  static let evening = Template(
    name: "evening", summary: "a live evening: rooms of varied size, co-guest seats, hosts and admins",
    text: """
      // A live evening: 20 rooms of very different popularity for two hours. Viewers arrive over
      // the first half hour, some apply for a seat; a host and an admin per room answer, invite
      // and now and then kick. Every key is in docs/PROFILES.md; `stampede profile show FILE`
      // prints this profile with every default written in.
      {
        name: "evening",
        description: "20 rooms for two hours: co-guest applications answered by a host and an admin",
        duration: "2h",
        seed: 1,
        // Popular and quiet rooms: each room's size is drawn from a heavy-tailed distribution.
        population: { rooms: 20, audiencePerRoom: "lognormal(300, 0.8)", adminsPerRoom: 1 },
        arrival: { pattern: "poisson", over: "30m" },
        // Eight guest seats, of which the plan allows six connected (-2340 beyond).
        seats: { maxSeatCount: 8, packageLimit: 6, mode: "apply", applyTimeout: "30s" },
        audience: {
          stay: "lognormal(40m, 0.7)",
          applyProbability: "20%",
          applyAfter: "exponential(5m)",
          patience: "lognormal(25s, 0.5)",
          seatTime: "lognormal(4m, 0.6)",
          retry: { rejected: "exponential(2m)", seatLimit: "never" },
        },
        host: {
          thinkTime: "lognormal(3s, 0.6)",
          acceptProbability: "80%",
          inviteEvery: "exponential(5m)",
          kickEvery: "exponential(20m)",
        },
        network: { clientServer: "lognormal(40ms, 0.4)" },
        thresholds: [
          "invariants.violations == 0",
          "seat.apply_to_response.p99 < 10s",
          "seat.accept_to_connected.p95 < 1s",
          "counter.seat.rejected.seat_limit / counter.seat.applications < 50%",
        ],
      }

      """)

  static let flashCrowd = Template(
    name: "flash-crowd", summary: "one big room; the host opens the seats and thousands apply at once",
    text: """
      // A flash crowd: one room of 10,000 viewers. At one minute the host opens the seats and 30%
      // of the viewers tap "apply" within two seconds. The server must refuse almost all of them
      // cleanly, and no two hosts may accept one application.
      {
        name: "flash-crowd",
        description: "One room of 10,000 viewers; seats open at 1m and 30% apply within 2s",
        duration: "5m",
        population: { rooms: 1, audiencePerRoom: 10000, adminsPerRoom: 2 },
        arrival: { pattern: "poisson", over: "50s" },
        seats: { maxSeatCount: 8, packageLimit: 6 },
        audience: {
          stay: "lognormal(30m, 0.5)",
          seatTime: "lognormal(3m, 0.5)",
          maxApplies: 2,
          // Waiting does not lift a plan limit; a full room may free up.
          retry: { seatLimit: "never", allSeatsTaken: "exponential(20s)", rejected: "never" },
        },
        // People review one application at a time; the rest wait in the applicants list.
        host: { thinkTime: "lognormal(2s, 0.5)", reviewAtOnce: 1 },
        network: { clientServer: "lognormal(60ms, 0.6)" },
        workload: { flashCrowd: { at: "1m", fraction: "30%", within: "2s" } },
        timeSeries: { interval: "1s" },
        thresholds: [
          "invariants.violations == 0",
          "seat.wait_for_review.p90 < 30s",
        ],
      }

      """)

  static let calls = Template(
    name: "calls", summary: "phone users calling each other, reached by VoIP push when the app is away",
    text: """
      // Calls: 2,000 phone users calling each other for an hour. Apps leave the foreground and are
      // killed, so many calls reach their callees as VoIP pushes that must be reported to the
      // system call UI in time. The live rooms are left empty.
      {
        name: "calls",
        description: "2,000 phones calling each other for an hour, often reached by VoIP push",
        duration: "1h",
        population: { rooms: 1, audiencePerRoom: 0 },
        seats: { maxSeatCount: 8 },
        audience: { stay: "1h" },
        host: { thinkTime: "3s" },
        calls: {
          users: 2000,
          dialEvery: "exponential(6m)",
          groupProbability: "8%",
          timeout: "30s",
          answerProbability: "75%",
          patience: "lognormal(25s, 0.4)",
          app: { foreground: "exponential(4m)", away: "exponential(20m)", suspendedLifetime: "exponential(8m)" },
          // The app uploads its token with certificate 1234, which the console must hold.
          push: { certificateID: 1234, certificates: [{ id: 1234 }], latency: "lognormal(400ms, 0.7)" },
        },
        thresholds: [
          "invariants.violations == 0",
          "counter.push.app_killed == 0",
          "call.dial_to_ring.p99 < 10s",
        ],
      }

      """)

  static let chaos = Template(
    name: "chaos", summary: "a small world under faults the seed draws, for nightly sweeps of many seeds",
    text: """
      // Nightly chaos: a small world of rooms and phones under faults the seed draws ("swarm"), for
      // `stampede sweep FILE --seeds 1..1000`. Every seed must pass: the invariants judge the
      // clients and the SDK model, whatever the faults.
      {
        name: "chaos",
        description: "Six rooms and 300 phones for 30 minutes under seed-drawn faults",
        duration: "30m",
        population: { rooms: 6, audiencePerRoom: 120, adminsPerRoom: 1 },
        arrival: { pattern: "poisson", over: "5m" },
        seats: { maxSeatCount: 6, packageLimit: 4 },
        audience: {
          stay: "lognormal(15m, 0.6)",
          applyProbability: "40%",
          applyAfter: "exponential(2m)",
          patience: "lognormal(20s, 0.5)",
          seatTime: "lognormal(90s, 0.5)",
        },
        host: { thinkTime: "lognormal(3s, 0.6)", inviteEvery: "exponential(3m)", kickEvery: "exponential(6m)" },
        calls: {
          users: 300,
          dialEvery: "exponential(4m)",
          app: { foreground: "exponential(3m)", away: "exponential(5m)" },
          push: { certificateID: 1234, certificates: [{ id: 1234 }] },
        },
        // The seed chooses which kinds act and how often; faults heal 5 minutes before the end.
        faults: { heal: "5m", plan: "swarm" },
        thresholds: ["invariants.violations == 0"],
      }

      """)
}
