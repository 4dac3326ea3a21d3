import Clients
import Foundation
import Profiles
import Reports
import Runner
import Scenario

/// Command dispatch and the help texts.
enum CLI {
  static let overview = """
    stampede \(StampedeVersion.current): deterministic load and chaos testing for live rooms, calls and VoIP push.

    Usage:
      stampede run PROFILE [--seed N] [--out DIR] [--duration D] [--check-determinism] [--json|--quiet]
                           [--trace FILE] [--perfetto FILE] [--only room:ID|user:ID] [--progress MODE]
      stampede replay REPORT.json [--only room:ID|user:ID] [--trace FILE] [--perfetto FILE] [--out DIR]
      stampede shrink PROFILE --seed N [--mistake ID] [--budget R] [--nearby K] [--jobs J] [--out FILE]
      stampede sweep PROFILE --seeds A..B [--jobs J] [--shard K/N|auto [--shards N]] [--explore] [--out DIR]
      stampede merge SUMMARY.json... [--out FILE] [--history FILE]
      stampede capacity PROFILE --vary KEY=V1,V2,... [--vary ...] [--grid] [--seeds A..B] [--jobs J] [--out DIR]
      stampede compare A B [--fail-on "METRIC > +10%"]... [--alpha P] [--out DIR] [--markdown]
      stampede history [--profile NAME] [--metric M] [--kind K] [--last N] [--html FILE] [--flaky] [--json]
      stampede mistakes [--seeds A..B] [--profile FILE] [--mistake ID,...] [--json]
      stampede validate PROFILE...
      stampede apps
      stampede app init DIR [--name NAME] [--stampede PATH]
      stampede bench [kernel|stack|sweep|faults|apps|seats|catch|all] [--json] [options]
      stampede profile show PROFILE [--set K=V]... [--json] [--as-written]
      stampede profile schema [--out FILE] | profile keys | profile init [--template T] [--out FILE]
      stampede completion bash|zsh|fish
      stampede help [COMMAND]
      stampede version

    Exit codes: 0 pass, 1 invariant violated (also when the run stopped early), 2 usage or profile
    error, 3 threshold failed, 4 nondeterminism detected, 5 incomplete (the event budget,
    limits.maxEvents, ended the run before its end: verdict "incomplete", liveness not judged),
    130 interrupted (an incomplete report is still written). A run that did not reach its end is
    never a pass.

    A run is decided by the profile and the seed alone: the same pair gives the same trace hash
    on any machine. Every run prints a repro line.

    run, sweep and capacity record each result in a history (reports/history.sqlite; --history
    FILE or STAMPEDE_HISTORY=FILE elsewhere, off to skip) that `stampede history` lists and charts
    and `stampede compare` reads.

    run, replay, shrink, sweep and capacity also take --app NAME: the registered app code that
    runs as the virtual users instead of the built-in clients (stampede apps lists them; an
    executable that calls StampedeCLI.main(apps:) registers its own, see docs/CLIENTS.md).
    """

  static let commandHelp: [String: String] = [
    "apps": """
    stampede apps

    Lists the app code this executable registered (the names --app takes). The stampede
    executable itself registers none: an app team's executable calls StampedeCLI.main(apps:)
    with its own (see docs/CLIENTS.md); the repository's stampede-examples registers the
    example view models.
    """,
    "app": """
    stampede app init DIR [--name NAME] [--stampede PATH] [--force]

    Writes a Swift package in DIR that runs your view models as virtual users: a Package.swift
    that depends on the Stampede checkout at PATH (default: the one this binary was built in), a
    target NAMEApp for the view models (default main-actor isolation, the PlatformShadows plugin)
    holding the example audience and host view models to start from, an executable NAME that
    registers them with the harness (taps and UI probes) and carries the whole command line, and
    profiles/smoke.json5. Then:
      cd DIR && swift run NAME run profiles/smoke.json5 --app NAME

    Options:
      --name NAME       the package, executable and --app name (default: DIR's last component)
      --stampede PATH   the Stampede checkout to build against
      --force           write into a folder that is not empty
    """,
    "mistakes": """
    stampede mistakes [--seeds A..B] [--profile FILE] [--mistake ID,...] [--jobs J] [--json]

    Runs the client-mistake catalogue against the oracles: each mistake alone,
    as a variant of the built-in clients, seed after seed until an invariant catches it. Prints per
    mistake the invariants that caught it, the first failing seed, and the seeds and events it took.
    A mistake no invariant catches is a gap in the oracles: the exit code is then 1.

    Options:
      --seeds A..B      seeds to try, in order (default: 1..10)
      --profile FILE    the proving ground (default: profiles/mistakes.json5)
      --mistake ID,...  only these mistakes (default: all of them)
      --jobs J          mistakes checked in parallel (default: all cores)
      --json            print {"mistakes": [{"id", "summary", "caughtBy", "firstFailingSeed",
                        "seedsTried", "events", "repro"}]}

    Mistakes: \(ClientMistake.allCases.map(\.rawValue).joined(separator: ", ")).
    """,
    "run": """
    stampede run PROFILE [options]

    Runs one simulation and writes DIR/report.json atomically. It runs in a process of its own,
    which this one watches: when app code (--app) crashes, the crash is followed, and the run
    starts again with that user's app process dying where its code crashed (an app.crash-free
    finding; the output of the crashed attempt comes first). App code that runs for
    STAMPEDE_APP_HANG_SECONDS (default 5; 0: never) without returning is stopped and followed
    the same way, as hung.

    Options:
      --seed N          root seed, decimal or 0x-hex (default: the profile's "seed", else 1)
      --out DIR         report folder (default: reports/<profile-name>/seed-<N>)
      --history FILE    record the result in this history (default: reports/history.sqlite, or
                        STAMPEDE_HISTORY; off to skip)
      --duration D      simulated time, e.g. 90s, 30m, 1h (default: the profile's "duration")
      --set KEY=VALUE   override a profile key (repeatable), checked like the profile: a dotted
                        path, with [N] for an entry of a list (faults.plan[3].rate=90%, positions
                        from 0 as `stampede profile show` lists them); it appears in the repro line
      --progress MODE   auto (bar on a terminal, plain lines otherwise), bar, plain or none;
                        progress goes to stderr and never changes the run (default: auto)
      --trace FILE      write the events as JSON lines (index, time, kind, room, users, detail)
      --perfetto FILE   write a Chrome/Perfetto trace: a track per client, requests as spans,
                        violations as instant events (open in ui.perfetto.dev)
      --only SEL        keep only events touching room:ID or user:ID (comma-separated for several);
                        a selector given to --trace or --perfetto is refused (a slip for --only)
      --quirk Q[,Q]     switch on SDK quirk modes (see docs/PROFILES.md): stale-invitation,
                        accept-ignores-inviter, cancel-invitation-false-success,
                        reentry-applications-as-invitations, duplicate-applicants,
                        auto-disconnect-on-join, second-request-overwrites; they appear in the
                        repro line
      --mistake M[,M]   make the built-in clients commit catalogued mistakes (stampede help
                        mistakes lists them); they appear in the repro line
      --app NAME        run the registered app code NAME as the virtual users (stampede apps
                        lists them); it appears in the repro line
      --pct D           PCT-style ordering: D change points each hold one user's deliveries back
                        behind everyone else's for a while (the same as --set network.pct=D);
                        --pct drawn lets the seed pick D
      --threads N       split the rooms into room shards (at most 16, fixed by the profile) and
                        run them on N threads (1 to 64); the figures merge exactly, and the trace
                        hash is the same for every N (but not the one-world run's). Refused, with
                        the reason, where rooms meet: calls, server services with workers, a queue
                        limit or ratePerApp, room messaging workers, a drawn delivery order, --app;
                        and with --trace, --perfetto and --only (they follow one world's order)
      --check-determinism
                        run the seed a second time in this process and compare every event; on a
                        difference, name the first divergent event and exit 4 (with --threads,
                        compare the trace hashes of the two runs)
      --json            print report.json to stdout instead of the summary (messages go to stderr)
      --quiet           print only the verdict line
      --counters N      how many counters the summary lists, largest first, one a line (default:
                        12; "all" for every counter that is not zero)

    The report folder is checked before the run starts: a folder that cannot be made or written
    is a usage error (exit 2). `--` ends the options (for a PROFILE whose name starts with a dash).
    """,
    "completion": """
    stampede completion bash|zsh|fish

    Prints a shell completion script for the commands, their options and profile files:
      bash: source <(stampede completion bash)     (or save it in /etc/bash_completion.d/)
      zsh:  stampede completion zsh > "${fpath[1]}/_stampede"
      fish: stampede completion fish > ~/.config/fish/completions/stampede.fish
    """,
    "shrink": """
    stampede shrink PROFILE --seed N [options]

    Makes a failing profile smaller while it keeps failing the same way (the same earliest violated
    invariant, or else the same first failed threshold). A `faults: "swarm"` plan is first written
    out as the plan the seed drew. Then, keeping each change that still fails: whole populations
    halved (rooms, viewers, admins, phone users, the calls section), the duration halved with its
    heal, fault kinds dropped one at a time, features turned off (workloads, host and admin
    actions, group calls, live callees, app closes, device failures, patience), and single rooms,
    viewers and phones removed; then nearby seeds. It stops when nothing more shrinks or the
    budget of runs is spent, and writes the profile as JSON5 with its seed set to the failing one
    and a comment saying what it was shrunk from.

    Options:
      --seed N          the failing seed
      --set KEY=VALUE   the profile overrides it fails with, as for run (written into the shrunk
                        profile)
      --mistake M[,M]   the catalogued client mistakes that make it fail; they are written into
                        the shrunk profile ("mistakes"), which then reproduces on its own
      --quirk Q[,Q]     the SDK quirks it needs; written into the shrunk profile ("quirks")
      --app NAME        the registered app code the failure is in; named in the repro line. Its
                        runs go to worker processes (as a sweep's): a crash or hang of the app's
                        code is followed as `run` follows it (an app.crash-free failure can be
                        shrunk), and each run counts once against the budget however many
                        crashes it followed
      --in-process      run app code in this process instead (a crash ends the shrink)
      --invariant ID    keep this invariant violated instead of the earliest one (a bug behind
                        another that comes first in the run, such as a UI race behind a crash)
      --worker-memory S replace a worker once it has grown by S (default: 1g)
      --budget R        the most runs to spend (default: 200)
      --nearby K        seeds after N to try (default: 8)
      --jobs J          candidates run side by side (default: the number of cores); the first in
                        order that still fails is kept, so the result and its count of runs are
                        those of one at a time
      --out FILE        where to write (default: reports/<profile>/shrunk-seed-N.json5)
    """,
    "replay": """
    stampede replay REPORT.json [options]

    Re-runs the profile and seed a report records (from its repro line), refusing if the profile
    file's sha256 differs from the report's. It must reach the report's trace hash (otherwise exit
    4), and it exits with the original run's exit code. With --trace/--perfetto and --only it
    extracts the events of one room or user out of a large run.

    Options: --only, --trace, --perfetto, --check-determinism, --progress as for run;
      --out DIR         also write the replay's report files into DIR
    """,
    "sweep": """
    stampede sweep PROFILE --seeds A..B [options]

    Runs seeds A to B (inclusive) of one profile, several at a time; each seed is one
    single-threaded, deterministic run, exactly as `stampede run PROFILE --seed N` would make it.
    Prints a line per seed, and writes DIR/summary.json (merged counters and histogram buckets, a
    row per seed, failing seeds with repro lines) with summary.md, summary.html and junit.xml;
    failing seeds also get their full reports under DIR/seeds/seed-N/.

    Exit code: 130 if interrupted, else 4 if a --recheck found a difference, else 1 if any seed
    violated an invariant, else 5 if any stopped before its end (the event budget), else 3 if
    any failed a threshold, else 0.

    Options:
      --seeds A..B      the seed range (decimal or 0x-hex)
      --jobs J          seeds run at once (default: the number of cores)
      --shard K/N       run only slice K (from 1 to N) of N of the range: contiguous, disjoint
                        slices that together cover it; the same K/N always gives the same seeds
      --shard auto      take K and N from the job engine: Kubernetes Indexed Jobs
                        (JOB_COMPLETION_INDEX, with --shards N or STAMPEDE_SHARDS), Slurm arrays
                        (SLURM_ARRAY_TASK_ID/COUNT/MIN), GitLab (CI_NODE_INDEX/TOTAL), Buildkite
                        (BUILDKITE_PARALLEL_JOB/_COUNT); on GitHub Actions pass K/N from the matrix
      --out DIR         output folder (default: reports/<profile>/sweep-A-B[-explore][/shard-K-of-N])
      --set KEY=VALUE   override a profile key for every seed, as for run (repeatable)
      --history FILE    record the result in this history (default: reports/history.sqlite, or
                        STAMPEDE_HISTORY; off to skip)
      --progress MODE   auto (a bar of seeds done on a terminal, plain lines otherwise), bar,
                        plain or none, on stderr (default: auto)
      --progress-every D
                        with plain progress, a line at least this often, whether or not seeds
                        finish meanwhile (default: 30s)
      --quiet           no per-seed lines and no progress (unless --progress asks for it)
      --pct D           PCT-style ordering: in every seed, D change points each hold one user's
                        deliveries back behind everyone else's for a while (network.pct; written
                        into each seed's repro line as --set network.pct=D); --pct drawn lets
                        each seed pick its own D
      --explore         steered chaos: seeds run in rounds of 10, and each round steers SDK calls
                        toward the outcomes the seeds before it reached least (a request lost, an
                        answer lost after the server carried the call out, or one come late),
                        written into each seed's repro line as --set 'explore=[...]'; unless the
                        profile sets network.ties or network.pct, or has faults: "swarm", each
                        seed also draws the order of racing deliveries (--set network.ties=drawn
                        --set network.pct=drawn) (not with --shard)
      --mistake M[,M]   make the built-in clients commit catalogued mistakes in every seed
      --quirk Q[,Q]     switch on SDK quirk modes in every seed (as for run)
      --app NAME        run the registered app code NAME in every seed; its seeds run in worker
                        processes (one per job): a crash of the app's code is followed (the seed
                        runs again with that app process dying there, an app.crash-free finding),
                        and so is code that runs STAMPEDE_APP_HANG_SECONDS (default 5) without
                        returning, as hung
      --worker-memory S replace a worker process once the memory it holds has grown by S since
                        its first seed (app objects of dead processes that tasks keep alive),
                        such as 512m or 2g (default: 1g)
      --in-process      run app code's seeds in this process instead (a crash ends the sweep)
      --recheck P%      afterwards run a share of the seeds (every 100/P-th) a second time and
                        compare trace hashes; on a difference, name the first divergent event
                        and exit 4
      --corpus          first re-run the failing seeds remembered for this profile (same sha256)
                        in the corpus, each with the mistakes, quirks and app it failed under;
                        they count towards the exit code
      --corpus-file F   the corpus (default: DIR/failing-seeds.jsonl in the output folder); every
                        sweep appends its new failing seeds to it, under a file lock, so shards
                        may share one
    """,
    "compare": """
    stampede compare A B [--fail-on RULE]... [--alpha P] [--allow-verdict-changes] [--out DIR]
                     [--markdown] [--no-replay]

    Compares B with the baseline A, metric by metric. A and B are two run reports or two sweep
    summaries (files, or folders holding report.json or summary.json), or history entries
    (history:ID, as stampede history numbers them). Each difference gets a test suited to its data:
      latencies  chi-square over the two histograms' buckets; for two sweeps of the same seeds,
                 the Wilcoxon signed-rank test over the seeds' mean latencies (seeds are the
                 independent samples, so this test decides; exact up to 60 seeds). With too
                 few seeds to reach alpha at all (6 seeds give p >= 2/64; 0.01 needs 8), that
                 is said, with the seeds needed, and the pooled per-sample test decides
      counters   compared as rates per simulated second (Poisson z-test)
      seeds      seeds whose verdict changed, and seeds whose trace hashes differ; a seed that
                 passed in A and fails in B fails the comparison, one that went from fail to
                 pass is reported as fixed
    For two runs of the same seed and profile name, both are replayed with this build and the first
    event where they differ is named (skip with --no-replay).

    Prints the verdict and the significant differences; writes DIR/compare.md (fit for a pull-request
    comment; --markdown also prints it) and DIR/compare.html (tables and overlaid CDFs).
    Exit codes: 0 no regression, 3 a --fail-on rule found one or a seed went from pass to fail,
    2 bad input.

    Options:
      --fail-on RULE    METRIC OP CHANGE, repeatable: the change from A to B, relative (+10%, -5%) or
                        absolute in the metric's unit (+50ms, +3), e.g.
                        "seat.apply_to_response.p99 > +10%", "counter.seat.rejected/s > +5%",
                        "invariants.violations > +0". A rule finds a regression when the change
                        crosses it and the difference is significant (p < alpha); invariant
                        counts are exact and need no test.
      --alpha P         the significance level (default: 0.01)
      --allow-verdict-changes
                        a seed going from pass to fail is listed but does not fail the comparison
      --out DIR         where compare.md and compare.html go (default: reports/compare)
      --history FILE    the history history:ID refers to (default: reports/history.sqlite)
    """,
    "history": """
    stampede history [--profile NAME] [--kind run|sweep|capacity] [--metric M] [--last N]
                     [--html FILE] [--flaky] [--json] [--history FILE]

    Lists the recorded runs, sweeps and capacity studies, oldest first: when, the seeds, verdict,
    build (tool version and git commit) and events. run, sweep and capacity record into
    reports/history.sqlite unless given --history FILE (or STAMPEDE_HISTORY=FILE; off to skip).
    Each record is one SQLite transaction, so concurrent sweeps may share the file.

    With --metric, each entry's value and its change from the previous one: a latency statistic
    (seat.apply_to_response.p99), counter.NAME, counter.NAME/s, counter.A / counter.B,
    invariants.violations, or a capacity study's value (KEY=V.attainment, capacity.knee).

    Seeds recorded more than once with the same resolved profile and variant (mistakes, quirks,
    app, duration) whose verdicts or trace hashes disagree are listed: under the same tool version
    and commit that is a determinism bug, across versions or commits a behaviour change (and "build
    not recorded" when an outcome was recorded without its commit).

    Options:
      --profile NAME    only this profile's entries
      --kind K          only runs, sweeps or capacity studies
      --metric M        show M per entry and chart it in --html
      --last N          the last N entries (default: 50)
      --html FILE       write a self-contained page charting the metric across the entries
      --flaky           always print the disagreeing seeds; exit 4 if one is a determinism bug
      --json            print {"entries": [...], "flaky": [...]}
    """,
    "merge": """
    stampede merge SUMMARY.json... [--out FILE] [--history FILE]

    Combines shard summaries of one sweep (same profile, same --seeds) into the summary of the
    whole range, bit-identical whatever the order and equal to an unsharded sweep (outside its
    "meta" block). A seed present in two summaries is refused (exit 2) rather than counted twice;
    seeds of the range with no result are listed, the summary is marked incomplete and the exit
    code is 2. Writes FILE (default: summary.json) and summary.md, summary.html, junit.xml beside it.
    The shards' failing-seed corpora (failing-seeds.jsonl beside each summary) are combined, without
    repeats, into failing-seeds.jsonl beside FILE, so `sweep --corpus` replays every shard's failures.
    The shards' histories (history.sqlite beside each summary) are gathered, without repeats, into
    the history (--history FILE; default reports/history.sqlite, or STAMPEDE_HISTORY), and the
    merged sweep is recorded there.
    """,
    "capacity": """
    stampede capacity PROFILE --vary KEY=V1,V2,... [--vary KEY2=...] [--grid] [options]

    Sweeps profile settings, e.g. population.audiencePerRoom=1000,2000,5000 or
    population.adminsPerRoom=0,1,2,4 (use | between values that contain commas), running every value
    over the same seeds. With several --vary, the later keys follow the first value by value (every
    list as long: --vary seats.maxSeatCount=4,6,8 --vary seats.packageLimit=4,6,8), or with --grid
    every combination is run. For each value it reports SLO attainment (the share of seeds with no
    violation and every threshold met, with a 95% Wilson interval), the seat rejection rate, each
    latency's p99 (mean over seeds with a 95% interval) and each resource's utilisation (reviewers,
    seats, server services), naming the busiest. It finds the knee: for values rising in load, the
    largest value up to which every seed met every threshold; for values rising in capacity (they
    fail first), the smallest value from which they all do; and it names the bottleneck, the
    busiest resource on the failing side of the knee. Writes DIR/capacity.md, capacity.html (table,
    charts with the threshold and the knee marked) and capacity.json.

    The profile must have thresholds: they define the knee. Exit codes: 0 a knee was found, 3 no
    value met every threshold (the failed thresholds are named), 2 bad input.

    Options:
      --vary KEY=LIST   a dotted profile key and its values (each checked like the profile); repeatable
      --grid            run every combination of the --vary lists instead of zipping them
      --seeds A..B      seeds per value (default: 1..10)
      --jobs J          seeds run at once (default: the number of cores)
      --out DIR         output folder (default: reports/<profile>/capacity-<KEY>)
      --history FILE    record the result in this history (default: reports/history.sqlite, or
                        STAMPEDE_HISTORY; off to skip)
    """,
    "validate": """
    stampede validate PROFILE...

    Checks profiles without running them, and reports every error of each file (up to 50): unknown
    keys, required keys left out, wrong types or ranges anywhere in the tree (inside lists and
    fault entries too), thresholds naming unknown metrics, and checks across keys (fault targets
    within the population, windows within the duration, limits that contradict each other). Each
    error names the file, the key path and what was expected; syntax errors give the line and
    column. The exit code is 2 if any profile is invalid, 0 otherwise.
    """,
    "profile": """
    stampede profile show PROFILE [--set KEY=VALUE]... [--json] [--as-written]
    stampede profile schema [--out FILE]
    stampede profile keys
    stampede profile init [--template evening|flash-crowd|calls|chaos] [--out FILE] [--force]

    show    The resolved profile: the profiles it extends merged in, the --set overrides applied
            and every default written in, as JSON5 with a comment per key (its meaning, type and
            default) and the sha256 reports give it. Validating the output gives the same sha256.
              --json        plain JSON without comments
              --as-written  bases merged and overrides applied, defaults left out
    schema  A JSON Schema (draft 2020-12) of profiles, for editors and CI (the one checked in as
            profiles/schema.json). It checks each value on its own; validate checks the rest.
    keys    Every profile key with its type, default and meaning, as Markdown tables.
    init    A commented starter profile (default template: evening). --out writes it to a file
            (never over an existing one without --force).
    """,
    "bench": BenchCommand.help,
  ]

  /// The commands, as `help` and the completion scripts list them.
  static let commandNames = [
    "run", "replay", "shrink", "sweep", "merge", "capacity", "compare", "history", "mistakes", "validate", "profile",
    "apps", "app", "bench", "completion", "help", "version",
  ]

  /// A help text with the command lines, and the references to them, naming this executable: an
  /// app team's own executable (`my-stampede run …`) prints its name, not `stampede`.
  static func named(_ text: String) -> String {
    let program = AppRegistry.program
    guard program != "stampede" else { return text }
    // The command name where a command line starts or is quoted: at a line's start (after its
    // indentation), after a quote or a backquote, or after "(" as in "(stampede help run)".
    return text.replacingOccurrences(
      of: #"(^|[\s'`(])stampede(?=[ \n]|$)"#, with: "$1" + program, options: .regularExpression)
  }

  static func dispatch(_ args: [String]) throws -> ExitCode {
    guard let command = args.first else {
      print(named(overview))
      return .usage
    }
    let rest = Array(args.dropFirst())
    if rest.contains("--help") || rest.contains("-h") {
      print(named(commandHelp[command] ?? overview))
      return .pass
    }
    switch command {
    case "run": return try RunCommand.main(rest)
    case "validate": return ValidateCommand.main(rest)
    case "profile": return try ProfileCommand.main(rest)
    case "bench": return try BenchCommand.main(rest)
    case "sweep": return try SweepCommand.main(rest)
    case "merge": return try MergeCommand.main(rest)
    case "capacity": return try CapacityCommand.main(rest)
    case "replay": return try ReplayCommand.main(rest)
    case "history": return try HistoryCommand.main(rest)
    case "compare": return try CompareCommand.main(rest)
    case "shrink": return try ShrinkCommand.main(rest)
    case "mistakes": return try MistakesCommand.main(rest)
    case "apps": return try AppsCommand.main(rest)
    case "app": return try AppCommand.main(rest)
    case "help", "--help", "-h":
      guard let topic = rest.first else {
        print(named(overview))
        return .pass
      }
      guard let text = commandHelp[topic] else {
        throw UsageError("no help for '\(topic)': it is not a command (\(commandNames.joined(separator: ", ")))")
      }
      print(named(text))
      return .pass
    case "completion": return try CompletionCommand.main(rest)
    case "version", "--version":
      print("\(AppRegistry.program) \(StampedeVersion.current)")
      return .pass
    default:
      throw UsageError("unknown command '\(command)'")
    }
  }
}

/// Prints a profile's errors, one a line: the first and every other one found with it.
func printProfileError(_ error: ProfileError) {
  for e in error.all { printError(e.description) }
}

/// Loads the profile at `path`, or prints its error (file, key path, reason) and returns `nil`
/// for the caller to exit 2.
func loadProfile(_ path: String, sets: [String] = []) -> (profile: Profile, data: Data)? {
  do {
    return try Profile.load(path: path, sets: sets)
  } catch {
    printProfileError(error)
    return nil
  }
}

/// A tiny option parser: `--name value` pairs and positional words, with clear errors.
struct Options {
  /// `--jobs J`: how many seeds run at once, from `minimum` to 1024; by default one per core
  /// (and at least `minimum`).
  func jobs(minimum: Int = 1) throws -> Int {
    let cores = ProcessInfo.processInfo.activeProcessorCount
    guard let jobs = Int(values["--jobs"] ?? String(max(minimum, cores))), (minimum...1024).contains(jobs) else {
      throw UsageError("--jobs: expected a whole number from \(minimum) to 1024")
    }
    return jobs
  }

  var positional: [String] = []
  /// The last value of each valued option.
  var values: [String: String] = [:]
  /// Every value of each valued option, in order (for options that may repeat).
  var all: [String: [String]] = [:]
  var flags: Set<String> = []

  init(_ args: [String], valued: Set<String>, flags allowedFlags: Set<String>) throws {
    var i = 0
    while i < args.count {
      let a = args[i]
      if a == "--" {
        // Everything after `--` is a positional word, even if it starts with a dash.
        positional.append(contentsOf: args[(i + 1)...])
        break
      }
      if a.hasPrefix("--") {
        var name = a
        var inline: String?
        if let eq = a.firstIndex(of: "=") {
          name = String(a[..<eq])
          inline = String(a[a.index(after: eq)...])
        }
        if valued.contains(name) {
          if let inline {
            values[name] = inline
          } else {
            guard i + 1 < args.count else { throw UsageError("\(name) needs a value") }
            values[name] = args[i + 1]
            i += 1
          }
          all[name, default: []].append(values[name]!)
        } else if allowedFlags.contains(name) && inline == nil {
          flags.insert(name)
        } else {
          throw UsageError("unknown option '\(name)'")
        }
      } else {
        positional.append(a)
      }
      i += 1
    }
  }
}

/// A report folder, checked before a run or sweep starts, so that a bad `--out` costs nothing.
enum ReportFolder {
  /// Makes `path` (and its parents) if missing and proves it writable with a file made and
  /// removed; otherwise a usage error that names the folder and the reason in plain words. A file
  /// of `writes` already there that is not a Stampede report is refused too: writing would
  /// overwrite it.
  static func check(_ path: String, option: String = "--out", writes: [String]) throws {
    let fm = FileManager.default
    var isFolder: ObjCBool = false
    if fm.fileExists(atPath: path, isDirectory: &isFolder) {
      guard isFolder.boolValue else { throw UsageError("\(option): \(path) is a file, not a folder") }
    } else {
      do {
        try fm.createDirectory(atPath: path, withIntermediateDirectories: true)
      } catch {
        throw UsageError("\(option): cannot make the folder \(path) (\(reason(error, path: path)))")
      }
    }
    let probe = (path as NSString).appendingPathComponent(".stampede-write-check-\(getpid())")
    guard fm.createFile(atPath: probe, contents: Data()) else {
      throw UsageError("\(option): cannot write into the folder \(path) (permission denied or read-only)")
    }
    try? fm.removeItem(atPath: probe)
    if let foreign = ReportOwnership.foreign(writes, in: path) {
      throw UsageError(
        "\(option): \(foreign) is not a Stampede report, and writing the report there would overwrite it "
          + "(choose another folder, or move the file)")
    }
  }

  /// Why `path` could not be made, from its nearest existing ancestor: a file in the way, a
  /// folder this user may not write in, or a path nothing can be made under.
  static func reason(_ error: Error, path: String) -> String {
    let fm = FileManager.default
    var ancestor = (path as NSString).deletingLastPathComponent
    while !ancestor.isEmpty && ancestor != "/" && !fm.fileExists(atPath: ancestor) {
      ancestor = (ancestor as NSString).deletingLastPathComponent
    }
    if ancestor.isEmpty { ancestor = "." }
    var isFolder: ObjCBool = false
    if fm.fileExists(atPath: ancestor, isDirectory: &isFolder) && !isFolder.boolValue {
      return "\(ancestor) is a file"
    }
    if !fm.isWritableFile(atPath: ancestor) { return "\(ancestor) is not writable" }
    return "nothing can be made under \(ancestor)"
  }

}
