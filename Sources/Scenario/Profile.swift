import Chaos
import Clients
import Foundation
import LiveStack
import Oracles
import SimKernel

/// A validated simulation profile: everything a run depends on besides the seed.
///
/// Profiles are JSON5 files in `profiles/`. Every key is documented in `docs/PROFILES.md`; unknown
/// keys, wrong types and impossible values are rejected with the key path.
public struct Profile: Sendable {
  /// Short name, used in report paths: letters, digits, `-` and `_`.
  public var name: String
  /// One line saying what the profile models.
  public var description: String
  /// Simulated time to run.
  public var duration: SimDuration
  /// The seed used when none is given on the command line.
  public var defaultSeed: UInt64
  /// The most events one run may execute; a run that reaches it stops there.
  public var maxEvents: Int64
  /// How many rooms, and who is in each.
  public var population: Population
  /// When viewers arrive.
  public var arrival: Arrival
  /// Seat settings shared by every room.
  public var seats: Seats
  /// How viewers behave.
  public var audience: AudienceSettings
  /// How hosts behave.
  public var host: HostSettings
  /// How admins behave (by default like hosts, without ending the live).
  public var admin: HostSettings
  /// The phones' capture devices.
  public var devices: Devices
  /// Message latency between clients and the server.
  public var network: Network
  /// Scripted load on top of the behaviours: flash crowds and co-hosting.
  public var workload: Workload
  /// Sampling interval of the time series.
  public var sampleEvery: SimDuration
  /// Pass/fail criteria checked after the run.
  public var thresholds: [Threshold] = []
  /// SDK quirk modes switched on (none by default).
  public var quirks: Set<SDKQuirk> = []
  /// Invariants switched off (none by default).
  public var invariantsOff: Set<String> = []
  /// Slack allowed by the liveness invariants judged at the end of a run (answers in flight).
  public var livenessSlack: SimDuration = .seconds(5)
  /// Phone users who call each other, if any.
  public var calls: Calls?
  /// Client mistakes from the catalogue the built-in clients make (none by default).
  public var mistakes: Set<ClientMistake> = []
  /// Injected faults (none by default).
  public var faults = FaultPlan()

  /// Phone users outside the rooms, calling each other over the call service.
  public struct Calls: Sendable {
    /// How many.
    public var users: Int
    /// How they behave.
    public var phone: PhoneSettings
    /// How the app moves between foreground, background and killed.
    public var app: AppLifecycle
    /// The push backend, PushKit and the token.
    public var push: Push
    /// The conversation manager's configuration.
    public var conversations: ConversationLimits
    /// How long a conversation may outlive its call before `conversation.ended-with-call` fires.
    public var conversationGrace: SimDuration
    /// Probability that, after a conversation ends, the user taps the system UI to call back (a
    /// Start action the app must fulfill or fail).
    public var startActionProbability: Ratio = .zero
  }

  /// The app lifecycle of phone users.
  public struct AppLifecycle: Sendable {
    /// Time in the foreground before the user leaves the app; `nil`: apps stay in the foreground
    /// (until the system kills one).
    public var foreground: Distribution?
    /// Time away (background or killed) before the user opens the app again.
    public var away: Distribution
    /// Time a suspended background app survives before the system reclaims it.
    public var suspendedLifetime: Distribution
    /// Probability that leaving the app closes it (swipe away) rather than backgrounding it.
    public var closeProbability: Ratio
    /// Time from a launch to the app's code running (cold start).
    public var coldStart: Distribution
    /// Time between cellular calls of a phone's user (`nil`: none); each holds a conversation group.
    public var cellularCallEvery: Distribution? = nil
    /// How long a cellular call lasts.
    public var cellularCallDuration: Distribution = .lognormal(median: 180e9, sigma: 0.6)
  }

  /// The offline-push path.
  public struct Push: Sendable {
    /// The certificates uploaded in the console.
    public var certificates: [PushCertificate]
    /// The APNs environment the app was built for.
    public var appEnvironment: PushEnvironment
    /// Backend to phone delivery time of a push.
    public var latency: Distribution
    /// Call server to push backend time.
    public var backendLatency: Distribution = .lognormal(median: 30e6, sigma: 0.5)
    /// How long the app has to report a push.
    public var reportDeadline: SimDuration
    /// Missed reports after which the system stops delivering VoIP pushes to the app.
    public var suppressAfter: Int
    /// Time from creating the push registry to PushKit delivering the token.
    public var tokenDelay: Distribution
    /// How long a token lives before the system replaces it (`nil`: forever).
    public var tokenLifetime: Distribution?
    /// Probability that APNs delivers a push twice.
    public var duplicateRate: Ratio = .zero
  }

  /// Rooms and people.
  public struct Population: Sendable {
    /// Number of rooms; each has one owner (host).
    public var rooms: Int
    /// Viewers per room: a constant, or a distribution drawn once per room (popular and quiet
    /// rooms), rounded and clamped to 0…10,000,000.
    public var audiencePerRoom: Distribution
    /// Admins per room, who answer applications like the host.
    public var adminsPerRoom: Int
  }

  /// When viewers arrive in their room.
  public enum Arrival: Sendable, Equatable {
    /// Everyone is in the room at the start.
    case closed
    /// Arrivals spread evenly at random over this time (a Poisson process given the count).
    case poisson(over: SimDuration)
    /// Arrivals whose rate grows linearly from zero over this time.
    case ramp(over: SimDuration)
  }

  /// When the `applyForSeat` completion fires; STACK.md documents both.
  public enum ApplyCompletion: String, Sendable, CaseIterable {
    /// When the server has filed the application.
    case sent
    /// At the application's final outcome: success if accepted, -1 otherwise.
    case outcome
  }

  /// Seat settings.
  public struct Seats: Sendable {
    /// Seats per room.
    public var maxSeatCount: Int
    /// Connected co-guests allowed by the plan.
    public var packageLimit: Int
    /// Free or apply mode.
    public var mode: SeatMode
    /// The timeout clients pass to `applyForSeat`; zero means it never times out.
    public var applyTimeout: SimDuration
    /// When the `applyForSeat` completion fires.
    public var applyCompletion: ApplyCompletion
    /// Seats that stay usable while a room co-hosts.
    public var coHostSeatLimit: Int
  }

  /// The phones' capture devices.
  public struct Devices: Sendable {
    /// Time for one device to open.
    public var openTime: Distribution
    /// How often opening fails.
    public var failures: DeviceFailureRates
  }

  /// Network latency.
  public struct Network: Sendable {
    /// One-way latency of a message between a client and the server.
    public var clientServer: Distribution
  }

  /// Scripted load.
  public struct Workload: Sendable {
    /// A flash crowd, if any.
    public var flashCrowd: FlashCrowd?
    /// Co-hosting sessions, if any.
    public var coHosting: CoHosting?
  }

  /// "The host opens seats and 30% of the viewers apply within 2 s."
  public struct FlashCrowd: Sendable {
    /// When the seats open.
    public var at: SimDuration
    /// Share of the viewers in the room at that moment who tap "apply".
    public var fraction: Ratio
    /// Window over which they tap, uniformly.
    public var within: SimDuration
    /// Whether every seat is locked from the start until `at`.
    public var lockSeatsUntilOpen: Bool
  }

  /// Pairs of rooms (0 with 1, 2 with 3, …) that connect for a while.
  public struct CoHosting: Sendable {
    /// Share of room pairs that co-host.
    public var fraction: Ratio
    /// Time from the start to connecting.
    public var after: Distribution
    /// How long a session lasts.
    public var duration: Distribution
  }
}

extension Profile {
  /// Reads and validates a profile file. Throws ``ProfileError`` naming the file and key path.
  public static func load(path: String) throws(ProfileError) -> (profile: Profile, data: Data) {
    let data: Data
    do {
      data = try Data(contentsOf: URL(fileURLWithPath: path))
    } catch {
      throw ProfileError(path: "", message: "cannot read the file (\(error.localizedDescription))", file: path)
    }
    do {
      return (try parse(data), data)
    } catch var e {
      e.file = path
      throw e
    }
  }

  /// Parses and validates profile text.
  public static func parse(_ data: Data) throws(ProfileError) -> Profile {
    let root: JSONValue
    do {
      root = try JSONValue.parse(json5: data)
    } catch {
      throw ProfileError(path: "", message: "not valid JSON5: \(JSONErrorText.describe(error))")
    }
    return try read(ProfileNode(path: "", value: root))
  }

  /// Parses profile text with `overrides` (dotted key path, value) applied first; an override
  /// that makes the profile invalid fails like any profile error.
  public static func parse(_ data: Data, overrides: [(path: String, value: JSONValue)]) throws(ProfileError) -> Profile
  {
    var root: JSONValue
    do {
      root = try JSONValue.parse(json5: data)
    } catch {
      throw ProfileError(path: "", message: "not valid JSON5: \(JSONErrorText.describe(error))")
    }
    for o in overrides { root = try root.setting(o.path, to: o.value) }
    return try read(ProfileNode(path: "", value: root))
  }

  /// Validates a parsed document.
  public static func read(_ node: ProfileNode) throws(ProfileError) -> Profile {
    var o = try node.object()
    let nameNode = try o.required("name")
    let name = try nameNode.string()
    guard !name.isEmpty, name.count <= 64,
      name.unicodeScalars.allSatisfy({
        $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == "_")
      })
    else {
      throw nameNode.error("expected 1 to 64 letters, digits, '-' or '_', got \(nameNode.value.shortDescription)")
    }
    let description = try o.get("description", default: "") { n throws(ProfileError) in try n.string() }
    let duration = try o.required("duration").duration(minimum: .nanoseconds(1))
    let seed = try o.get("seed", default: 1) { n throws(ProfileError) in try n.seed() }
    var maxEvents: Int64 = 2_000_000_000
    if var limits = try o.optional("limits")?.object() {
      maxEvents = Int64(
        try limits.get("maxEvents", default: Int(maxEvents)) { n throws(ProfileError) in try n.int(1...Int64.max) })
      try limits.finish()
    }
    let population = try readPopulation(o.required("population"))
    let arrival = try o.get("arrival", default: Arrival.closed) { n throws(ProfileError) in try readArrival(n) }
    let seats = try readSeats(o.required("seats"))
    let audience = try readAudience(o.required("audience"), seats: seats)
    let host = try readHost(o.required("host"), base: nil)
    var adminBase = host
    adminBase.endLiveAfter = nil
    let admin = try o.get("admin", default: adminBase) { n throws(ProfileError) in try readHost(n, base: adminBase) }
    let devices = try o.get(
      "devices", default: Devices(openTime: .lognormal(median: 150e6, sigma: 0.3), failures: .none)
    ) {
      n throws(ProfileError) in try readDevices(n)
    }
    let network = try o.get("network", default: Network(clientServer: .lognormal(median: 40e6, sigma: 0.4))) {
      n throws(ProfileError) in try readNetwork(n)
    }
    let workload = try o.get("workload", default: Workload(flashCrowd: nil, coHosting: nil)) {
      n throws(ProfileError) in try readWorkload(n)
    }
    var sampleEvery = SimDuration.seconds(10)
    if var ts = try o.optional("timeSeries")?.object() {
      sampleEvery = try ts.get("interval", default: sampleEvery) { n throws(ProfileError) in
        try n.duration(minimum: .milliseconds(1))
      }
      try ts.finish()
    }
    var thresholds: [Threshold] = []
    if let list = try o.optional("thresholds")?.array() {
      for item in list {
        guard case .string(let text) = item.value else {
          throw item.expected("a threshold such as \"seat.apply_to_response.p99 < 3s\"")
        }
        do {
          thresholds.append(try Threshold.parse(text))
        } catch {
          throw item.error("\(error.message) in \"\(text)\"")
        }
      }
    }
    let calls = try o.optional("calls").map { n throws(ProfileError) in try readCalls(n) }
    var invariantsOff = Set<String>()
    var livenessSlack = SimDuration.seconds(5)
    if var inv = try o.optional("invariants")?.object() {
      livenessSlack = try inv.get("livenessSlack", default: livenessSlack) { n throws(ProfileError) in
        try n.duration()
      }
      if let list = try inv.optional("off")?.array() {
        let known = Checker.catalogue.map(\.id)
        for item in list {
          guard case .string(let id) = item.value, known.contains(id) else {
            throw item.error(
              "expected an invariant ID (\(known.joined(separator: ", "))), got \(item.value.shortDescription)")
          }
          invariantsOff.insert(id)
        }
      }
      try inv.finish()
    }
    var quirks = Set<SDKQuirk>()
    if let list = try o.optional("quirks")?.array() {
      for item in list { quirks.insert(try item.oneOf(SDKQuirk.self)) }
    }
    let faults = try o.optional("faults").map { n throws(ProfileError) in try readFaults(n) } ?? FaultPlan()
    var mistakes = Set<ClientMistake>()
    if let list = try o.optional("mistakes")?.array() {
      for item in list { mistakes.insert(try item.oneOf(ClientMistake.self)) }
    }
    try o.finish()
    var profile = Profile(
      name: name, description: description, duration: duration, defaultSeed: seed, maxEvents: maxEvents,
      population: population, arrival: arrival, seats: seats, audience: audience, host: host, admin: admin,
      devices: devices, network: network, workload: workload, sampleEvery: sampleEvery)
    profile.thresholds = thresholds
    profile.quirks = quirks
    profile.mistakes = mistakes
    profile.faults = faults
    if !faults.healGiven { profile.faults.heal = min(.minutes(2), SimDuration(nanoseconds: duration.nanoseconds / 5)) }
    if faults.healGiven && faults.heal >= duration {
      throw ProfileError(path: "faults.heal", message: "must be shorter than the duration (\(duration))")
    }
    profile.invariantsOff = invariantsOff
    profile.livenessSlack = livenessSlack
    profile.calls = calls
    let expected = Double(population.rooms) * (1 + Double(population.adminsPerRoom) + population.audiencePerRoom.mean)
    guard expected <= Double(Int32.max) else {
      throw ProfileError(path: "population", message: "more than 2^31 users expected in total (\(expected))")
    }
    return profile
  }

  static func readPopulation(_ node: ProfileNode) throws(ProfileError) -> Population {
    var o = try node.object()
    let rooms = try o.required("rooms").int(1...1_000_000)
    let audienceNode = try o.required("audiencePerRoom")
    let audience: Distribution
    let what = "a whole number from 0 to 10000000 or a distribution such as \"lognormal(200, 1)\""
    switch audienceNode.value {
    case .integer(let n):
      guard (0...10_000_000).contains(n) else { throw audienceNode.expected(what) }
      audience = .constant(Double(n))
    case .string, .object:
      do {
        audience = try audienceNode.distribution(.number)
      } catch {
        throw audienceNode.error("expected \(what), got \(audienceNode.value.shortDescription) (\(error.message))")
      }
    default:
      throw audienceNode.expected(what)
    }
    let admins = try o.get("adminsPerRoom", default: 0) { n throws(ProfileError) in try n.int(0...100) }
    try o.finish()
    return Population(rooms: rooms, audiencePerRoom: audience, adminsPerRoom: admins)
  }

  static func readArrival(_ node: ProfileNode) throws(ProfileError) -> Arrival {
    var o = try node.object()
    let pattern = try o.required("pattern")
    let arrival: Arrival
    switch try pattern.string() {
    case "closed":
      arrival = .closed
    case "poisson":
      arrival = .poisson(over: try o.required("over").duration(minimum: .nanoseconds(1)))
    case "ramp":
      arrival = .ramp(over: try o.required("over").duration(minimum: .nanoseconds(1)))
    default:
      throw pattern.error(
        "expected one of \"closed\", \"poisson\", \"ramp\", got \(pattern.value.shortDescription)")
    }
    try o.finish()
    return arrival
  }

  static func readSeats(_ node: ProfileNode) throws(ProfileError) -> Seats {
    var o = try node.object()
    let maxSeats = try o.required("maxSeatCount").int(0...Int64(Int16.max))
    let limitNode = o.optional("packageLimit")
    let limit = try limitNode?.int(0...Int64(Int16.max)) ?? maxSeats
    if let limitNode, limit > maxSeats {
      throw limitNode.error("must not exceed maxSeatCount (\(maxSeats)), got \(limit)")
    }
    let mode = try o.get("mode", default: SeatMode.apply) { n throws(ProfileError) in try n.oneOf(SeatMode.self) }
    let timeout = try o.get("applyTimeout", default: SimDuration.seconds(30)) { n throws(ProfileError) in
      try n.duration()
    }
    let completion = try o.get("applyCompletion", default: ApplyCompletion.sent) { n throws(ProfileError) in
      try n.oneOf(ApplyCompletion.self)
    }
    let coHost = try o.get("coHostSeatLimit", default: 6) { n throws(ProfileError) in try n.int(0...Int64(Int16.max)) }
    try o.finish()
    return Seats(
      maxSeatCount: maxSeats, packageLimit: limit, mode: mode, applyTimeout: timeout, applyCompletion: completion,
      coHostSeatLimit: coHost)
  }

  static func readAudience(_ node: ProfileNode, seats: Seats) throws(ProfileError) -> AudienceSettings {
    var o = try node.object()
    let stay = try o.required("stay").distribution()
    let applyProbability = try o.get("applyProbability", default: .zero) { n throws(ProfileError) in try n.ratio() }
    let applyAfter = try o.get("applyAfter", default: .exponential(mean: 60e9)) { n throws(ProfileError) in
      try n.distribution()
    }
    let patience = try o.present("patience")?.optionalDistribution()
    let seatTime = try o.get("seatTime", default: .lognormal(median: 120e9, sigma: 0.5)) { n throws(ProfileError) in
      try n.distribution()
    }
    let maxApplies = try o.get("maxApplies", default: 3) { n throws(ProfileError) in try n.int(0...255) }
    let retry = try o.get("retry", default: defaultRetry) { n throws(ProfileError) in try readRetry(n) }
    let think = try o.get("invitationThink", default: .lognormal(median: 2e9, sigma: 0.5)) { n throws(ProfileError) in
      try n.distribution()
    }
    let acceptInvitation = try o.get("acceptInvitation", default: Ratio(1, 2)!) { n throws(ProfileError) in
      try n.ratio()
    }
    try o.finish()
    return AudienceSettings(
      stay: stay, applyProbability: applyProbability, applyAfter: applyAfter, applyTimeout: seats.applyTimeout,
      patience: patience, seatTime: seatTime, maxApplies: maxApplies, retry: retry, invitationThink: think,
      acceptInvitation: acceptInvitation, freeMode: seats.mode == .free)
  }

  static let defaultRetry = RetryPolicy(
    rejected: .exponential(mean: 30e9), timedOut: .exponential(mean: 30e9), seatLimit: nil,
    allSeatsTaken: .exponential(mean: 30e9), kicked: nil, other: .exponential(mean: 30e9))

  static func readRetry(_ node: ProfileNode) throws(ProfileError) -> RetryPolicy {
    var o = try node.object()
    var r = defaultRetry
    func read(_ key: String, _ fallback: Distribution?, _ o: inout ProfileObject) throws(ProfileError) -> Distribution?
    {
      guard let n = o.present(key) else { return fallback }
      return try n.optionalDistribution()
    }
    r.rejected = try read("rejected", r.rejected, &o)
    r.timedOut = try read("timedOut", r.timedOut, &o)
    r.seatLimit = try read("seatLimit", r.seatLimit, &o)
    r.allSeatsTaken = try read("allSeatsTaken", r.allSeatsTaken, &o)
    r.kicked = try read("kicked", r.kicked, &o)
    r.other = try read("other", r.other, &o)
    try o.finish()
    return r
  }

  static func readHost(_ node: ProfileNode, base: HostSettings?) throws(ProfileError) -> HostSettings {
    var o = try node.object()
    func dist(_ key: String, _ fallback: Distribution?, _ o: inout ProfileObject) throws(ProfileError) -> Distribution?
    {
      guard let n = o.present(key) else { return fallback }
      return try n.optionalDistribution()
    }
    let think: Distribution
    if let base {
      think = try o.get("thinkTime", default: base.thinkTime) { n throws(ProfileError) in try n.distribution() }
    } else {
      think = try o.required("thinkTime").distribution()
    }
    let policiesNode = o.optional("movePolicies")
    var policies = base?.movePolicies ?? MovePolicy.allCases
    if let policiesNode {
      let items = try policiesNode.array()
      guard !items.isEmpty else { throw policiesNode.error("expected at least one move policy") }
      policies = []
      for item in items {
        let names = MovePolicy.allCases.map { "\"\($0.name)\"" }.joined(separator: ", ")
        guard case .string(let s) = item.value, let p = MovePolicy.allCases.first(where: { $0.name == s }) else {
          throw item.error("expected one of \(names), got \(item.value.shortDescription)")
        }
        policies.append(p)
      }
    }
    let h = HostSettings(
      thinkTime: think,
      acceptProbability: try o.get("acceptProbability", default: base?.acceptProbability ?? .one) {
        n throws(ProfileError) in try n.ratio()
      },
      rejectWhenFull: try o.get("rejectWhenFull", default: base?.rejectWhenFull ?? true) { n throws(ProfileError) in
        try n.bool()
      },
      inviteEvery: try dist("inviteEvery", base?.inviteEvery, &o),
      inviteTimeout: try o.get("inviteTimeout", default: base?.inviteTimeout ?? .seconds(30)) {
        n throws(ProfileError) in try n.duration()
      },
      kickEvery: try dist("kickEvery", base?.kickEvery, &o),
      lockEvery: try dist("lockEvery", base?.lockEvery, &o),
      lockFor: try o.get("lockFor", default: base?.lockFor ?? .exponential(mean: 60e9)) { n throws(ProfileError) in
        try n.distribution()
      },
      moveEvery: try dist("moveEvery", base?.moveEvery, &o),
      movePolicies: policies,
      endLiveAfter: try dist("endLiveAfter", base == nil ? nil : base?.endLiveAfter, &o))
    try o.finish()
    return h
  }

  static func readCalls(_ node: ProfileNode) throws(ProfileError) -> Calls {
    var o = try node.object()
    let users = try o.required("users").int(2...10_000_000)
    let maxGroup = try o.get("maxGroupCallees", default: 4) { n throws(ProfileError) in try n.int(2...8) }
    var phone = PhoneSettings(
      dialEvery: try o.get("dialEvery", default: .exponential(mean: 600e9)) { n throws(ProfileError) in
        try n.distribution()
      },
      groupProbability: try o.get("groupProbability", default: .zero) { n throws(ProfileError) in try n.ratio() },
      maxGroupCallees: maxGroup,
      videoProbability: try o.get("videoProbability", default: Ratio(1, 2)!) { n throws(ProfileError) in try n.ratio()
      },
      timeout: try o.get("timeout", default: .zero) { n throws(ProfileError) in try n.duration() },
      answerProbability: try o.get("answerProbability", default: Ratio(4, 5)!) { n throws(ProfileError) in try n.ratio()
      },
      answerAfter: try o.get("answerAfter", default: .lognormal(median: 4e9, sigma: 0.5)) { n throws(ProfileError) in
        try n.distribution()
      },
      talkTime: try o.get("talkTime", default: .lognormal(median: 120e9, sigma: 0.7)) { n throws(ProfileError) in
        try n.distribution()
      },
      patience: try o.present("patience")?.optionalDistribution())
    phone.liveCallees = try o.get("liveCallees", default: .zero) { n throws(ProfileError) in try n.ratio() }
    var app = AppLifecycle(
      foreground: nil, away: .exponential(mean: 600e9), suspendedLifetime: .exponential(mean: 600e9),
      closeProbability: .zero, coldStart: .uniform(low: 500e6, high: 2e9))
    if var a = try o.optional("app")?.object() {
      app.foreground = try a.present("foreground")?.optionalDistribution()
      app.away = try a.get("away", default: app.away) { n throws(ProfileError) in try n.distribution() }
      app.suspendedLifetime = try a.get("suspendedLifetime", default: app.suspendedLifetime) {
        n throws(ProfileError) in try n.distribution()
      }
      app.closeProbability = try a.get("closeProbability", default: .zero) { n throws(ProfileError) in try n.ratio() }
      app.coldStart = try a.get("coldStart", default: app.coldStart) { n throws(ProfileError) in try n.distribution() }
      app.cellularCallEvery = try a.present("cellularCallEvery")?.optionalDistribution()
      app.cellularCallDuration = try a.get("cellularCallDuration", default: app.cellularCallDuration) {
        n throws(ProfileError) in try n.distribution()
      }
      try a.finish()
    }
    var push = Push(
      certificates: [PushCertificate(id: 1, environment: .production, type: .voip)], appEnvironment: .production,
      latency: .lognormal(median: 300e6, sigma: 0.6), reportDeadline: .seconds(5), suppressAfter: 3,
      tokenDelay: .lognormal(median: 300e6, sigma: 0.5), tokenLifetime: nil)
    if var p = try o.optional("push")?.object() {
      phone.certificateID = UInt32(
        try p.get("certificateID", default: 1) { n throws(ProfileError) in try n.int(0...Int64(UInt32.max)) })
      if let list = try p.optional("certificates")?.array() {
        push.certificates = []
        for item in list {
          var c = try item.object()
          let id = UInt32(try c.required("id").int(1...Int64(UInt32.max)))
          let env = try c.get("environment", default: PushEnvironment.production) { n throws(ProfileError) in
            try n.oneOf(PushEnvironment.self)
          }
          let type = try c.get("type", default: PushCertificateType.voip) { n throws(ProfileError) in
            try n.oneOf(PushCertificateType.self)
          }
          try c.finish()
          push.certificates.append(PushCertificate(id: id, environment: env, type: type))
        }
      }
      push.appEnvironment = try p.get("appEnvironment", default: .production) { n throws(ProfileError) in
        try n.oneOf(PushEnvironment.self)
      }
      push.latency = try p.get("latency", default: push.latency) { n throws(ProfileError) in try n.distribution() }
      push.backendLatency = try p.get("backendLatency", default: push.backendLatency) { n throws(ProfileError) in
        try n.distribution()
      }
      push.reportDeadline = try p.get("reportDeadline", default: push.reportDeadline) { n throws(ProfileError) in
        try n.duration(minimum: .milliseconds(1))
      }
      push.suppressAfter = try p.get("suppressAfter", default: 3) { n throws(ProfileError) in try n.int(1...1000) }
      push.tokenDelay = try p.get("tokenDelay", default: push.tokenDelay) { n throws(ProfileError) in
        try n.distribution()
      }
      push.tokenLifetime = try p.present("tokenLifetime")?.optionalDistribution()
      push.duplicateRate = try p.get("duplicateRate", default: .zero) { n throws(ProfileError) in try n.ratio() }
      try p.finish()
    }
    var limits = ConversationLimits.standard
    var grace = SimDuration.seconds(10)
    var startActions = Ratio.zero
    if var c = try o.optional("conversations")?.object() {
      limits.maximumConversationGroups = try c.get("maximumConversationGroups", default: 2) {
        n throws(ProfileError) in try n.int(1...100)
      }
      limits.maximumConversationsPerConversationGroup = try c.get(
        "maximumConversationsPerConversationGroup", default: 1
      ) {
        n throws(ProfileError) in try n.int(1...100)
      }
      limits.supportsVideo = try c.get("supportsVideo", default: true) { n throws(ProfileError) in try n.bool() }
      limits.actionTimeout = try c.get("actionTimeout", default: .seconds(30)) { n throws(ProfileError) in
        try n.duration(minimum: .milliseconds(1))
      }
      grace = try c.get("endGrace", default: grace) { n throws(ProfileError) in try n.duration() }
      startActions = try c.get("startActionProbability", default: .zero) { n throws(ProfileError) in try n.ratio() }
      try c.finish()
    }
    try o.finish()
    var calls = Calls(users: users, phone: phone, app: app, push: push, conversations: limits, conversationGrace: grace)
    calls.startActionProbability = startActions
    return calls
  }

  /// `faults`: a list of entries (nested lists stack), `"swarm"`, or `{heal, plan}` with either.
  static func readFaults(_ node: ProfileNode) throws(ProfileError) -> FaultPlan {
    var plan = FaultPlan()
    func entries(_ n: ProfileNode) throws(ProfileError) {
      if case .string(let s) = n.value {
        guard s == "swarm" else { throw n.expected("\"swarm\" or a list of faults") }
        plan.swarm = true
        return
      }
      for item in try n.array() {
        if case .array = item.value {
          try entries(item)
        } else {
          plan.entries.append(try readFault(item))
        }
      }
    }
    if case .object = node.value {
      var o = try node.object()
      if let h = o.present("heal") {
        plan.heal = try h.duration()
        plan.healGiven = true
      }
      try entries(try o.required("plan"))
      try o.finish()
    } else {
      try entries(node)
    }
    return plan
  }

  static func readFault(_ node: ProfileNode) throws(ProfileError) -> FaultEntry {
    var o = try node.object()
    let kind = try o.required("kind").oneOf(FaultKind.self)
    var e = FaultEntry(kind: kind, rate: kind.isWindowed ? Ratio(1, 1)! : .zero)
    if let r = o.present("rate") {
      if case .string("swarm") = r.value {
        e.swarm = true
      } else {
        e.rate = try r.ratio()
      }
    } else if !kind.isWindowed {
      throw node.error("\(kind.rawValue) needs a rate (a probability per opportunity, or \"swarm\")")
    }
    if let t = o.present("target") {
      guard case .string(let text) = t.value, let target = FaultTarget.parse(text) else {
        throw t.expected(
          "a target: all, user:N, users[A..B], room:N, rooms[A..B], role:audience|owner|admin|phone or fraction:P")
      }
      e.target = target
    }
    e.at = try o.present("at")?.duration()
    e.duration = try o.present("for")?.duration(minimum: .nanoseconds(1))
    // A parameter that the kind does not use is an error, not silently ignored.
    func applicable(_ key: String, _ kinds: [FaultKind]) throws(ProfileError) -> ProfileNode? {
      guard let n = o.present(key) else { return nil }
      guard kinds.contains(kind) else {
        throw n.error(
          "\(key) applies only to \(kinds.map(\.rawValue).joined(separator: " and ")), not \(kind.rawValue)")
      }
      return n
    }
    if let x = try applicable("extra", [.networkDelay, .serverSlowdown]) { e.extra = try x.duration() }
    if let d = try applicable("direction", [.networkPartition]) { e.direction = try d.oneOf(FaultDirection.self) }
    if let sv = try applicable("service", [.serverOutage, .serverSlowdown]) {
      e.service = try sv.oneOf(FaultService.self)
    }
    if let m = try applicable("mode", [.serverOutage]) { e.vanish = try m.oneOf(OutageMode.self) == .vanish }
    try o.finish()
    return e
  }

  static func readDevices(_ node: ProfileNode) throws(ProfileError) -> Devices {
    var o = try node.object()
    let open = try o.get("openTime", default: .lognormal(median: 150e6, sigma: 0.3)) { n throws(ProfileError) in
      try n.distribution()
    }
    func rate(_ key: String, _ o: inout ProfileObject) throws(ProfileError) -> Ratio {
      try o.get(key, default: .zero) { n throws(ProfileError) in try n.ratio() }
    }
    let failures = DeviceFailureRates(
      microphoneDenied: try rate("microphoneDenied", &o), microphoneOccupied: try rate("microphoneOccupied", &o),
      cameraDenied: try rate("cameraDenied", &o), cameraOccupied: try rate("cameraOccupied", &o))
    try o.finish()
    return Devices(openTime: open, failures: failures)
  }

  static func readNetwork(_ node: ProfileNode) throws(ProfileError) -> Network {
    var o = try node.object()
    let n = Network(clientServer: try o.required("clientServer").distribution())
    try o.finish()
    return n
  }

  static func readWorkload(_ node: ProfileNode) throws(ProfileError) -> Workload {
    var o = try node.object()
    var w = Workload(flashCrowd: nil, coHosting: nil)
    if var f = try o.optional("flashCrowd")?.object() {
      w.flashCrowd = FlashCrowd(
        at: try f.required("at").duration(),
        fraction: try f.required("fraction").ratio(),
        within: try f.get("within", default: .seconds(2)) { n throws(ProfileError) in try n.duration() },
        lockSeatsUntilOpen: try f.get("lockSeatsUntilOpen", default: true) { n throws(ProfileError) in try n.bool() })
      try f.finish()
    }
    if var c = try o.optional("coHosting")?.object() {
      w.coHosting = CoHosting(
        fraction: try c.required("fraction").ratio(),
        after: try c.required("after").distribution(),
        duration: try c.required("duration").distribution())
      try c.finish()
    }
    try o.finish()
    return w
  }
}

/// Turns a decoding error into one readable line.
enum JSONErrorText {
  static func describe(_ error: Error) -> String {
    if let e = error as? DecodingError {
      switch e {
      case .dataCorrupted(let c):
        let underlying = (c.underlyingError as NSError?)?.userInfo[NSDebugDescriptionErrorKey] as? String
        return underlying ?? c.debugDescription
      default:
        return String(describing: e)
      }
    }
    return String(describing: error)
  }
}
