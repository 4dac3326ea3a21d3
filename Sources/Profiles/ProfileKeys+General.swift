import Chaos
import Clients
import Oracles

extension ProfileKeys {
  /// Keys documented in prose rather than in a key table: lists, checks, faults and `extends`.
  public static let general: [ProfileKey] = [
    key(
      "extends", .profilePath, .derived("none"),
      "a base profile, relative to this file, that this one is deep-merged onto: objects merge key by key, anything else replaces"
    ),
    key(
      "thresholds", .list(.threshold), .value([]),
      "pass/fail criteria such as `\"seat.apply_to_response.p99 < 3s\"` (see Thresholds)"),
    key("invariants", .section(filled: true), .value([:]), "which invariants are checked, and their slack"),
    key("invariants.off", .list(.invariantID), .value([]), "invariant IDs not to check"),
    key(
      "invariants.livenessSlack", .duration(), .value("5s"),
      "slack the liveness invariants judged at the end allow for answers still in flight"),
    key(
      "quirks", .list(.choice(SDKQuirk.allCases.map(\.rawValue))), .value([]),
      "known SDK quirks to switch on (see SDK quirks)"),
    key(
      "mistakes", .list(.choice(ClientMistake.allCases.map(\.rawValue))), .value([]),
      "client mistakes the built-in clients commit (see Client mistakes)"),
    key("faults", .faults, .off, "faults to inject: a list of entries, `\"swarm\"`, or `{heal, plan}` (see Faults)"),
    key(
      "explore", .objects, .off,
      "outcomes chaos steers SDK calls toward, until the faults heal (`sweep --explore` writes them into each seed's `--set`; see Steered chaos)"
    ),
    key("explore[].call", .choice(SteeredCall.names), .required, "the SDK call (`applyForSeat`)"),
    key(
      "explore[].outcome", .choice(SteeredCall.Outcome.allCases.map(\.rawValue)), .required,
      "`no-answer-carried-out`: the server carries the call out and its answer is lost; `no-answer-not-carried-out`: the request is lost; `answer-late`: the server carries it out and its answer comes between half and 99% of the SDK's timeout after the call, holding up what follows it to the client"
    ),
    key("explore[].rate", .probability, .required, "the probability per call"),
    key(
      "faults.heal", .duration(), .derived("two minutes, or a fifth of a shorter run"),
      "time before the end of the run when faults stop acting"),
    key("faults.plan", .faultList, .required, "the fault entries, or `\"swarm\"`"),
    key("faults[].kind", .choice(FaultKind.allCases.map(\.rawValue)), .required, "the fault (see the table of kinds)"),
    key(
      "faults[].rate", .faultRate, .derived("required for kinds without a window; windowed kinds act on everything"),
      "a probability per opportunity, or `\"swarm\"` (the seed draws it)"),
    key(
      "faults[].target", .faultTarget, .value("all"),
      "who it acts on: `all`, `user:N`, `users[A..B]`, `room:N`, `rooms[A..B]`, `role:audience|owner|admin|phone`, `fraction:P`"
    ),
    key("faults[].at", .duration(), .derived("the start of the run"), "when its window opens"),
    key(
      "faults[].for", .duration(minimum: .nanoseconds(1)), .derived("until the faults heal"),
      "how long its window lasts"
    ),
    key(
      "faults[].extra", .duration(minimum: .milliseconds(1)), .value("2s"),
      "added latency (`network.delay`, `server.slowdown`), or the most a message is held back (`network.reorder`)"),
    key(
      "faults[].direction", .choice(FaultDirection.allCases.map(\.rawValue)), .value("both"),
      "which way a `network.partition` cuts"),
    key(
      "faults[].service", .choice(FaultService.allCases.map(\.rawValue)), .value("all"),
      "the service of `server.outage` and `server.slowdown`"),
    key(
      "faults[].mode", .choice(OutageMode.allCases.map(\.rawValue)), .value("fail"),
      "how a `server.outage` refuses: at once with -1, or by never hearing the request"),
    key(
      "faults[].channel", .choice(FaultChannel.allCases.map(\.rawValue)), .value("all"),
      "the channels `network.reorder` holds messages back on"),
  ]
}
