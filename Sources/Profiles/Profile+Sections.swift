import Chaos
import Clients
import Foundation
import LiveStack
import Metrics
import Oracles
import SimKernel

extension Profile {

  static func readPopulation(_ node: ProfileNode) throws(ProfileError) -> Population {
    var o = try node.object()
    let rooms = try o.required("rooms").int(1...1_000_000)
    let audience = try o.required("audiencePerRoom").countDistribution()
    let admins = try o.get("adminsPerRoom", default: 0) { n throws(ProfileError) in try n.int(0...100) }
    let firstRoom = try o.get("firstRoom", default: 0) { n throws(ProfileError) in try n.int(0...1_000_000) }
    try o.finish()
    return Population(rooms: rooms, audiencePerRoom: audience, adminsPerRoom: admins, firstRoom: firstRoom)
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
    let ownerSeat = try o.get("keepOwnerOnSeat", default: true) { n throws(ProfileError) in try n.bool() }
    let lockLimit = try o.optional("lockLimit")?.duration(minimum: .seconds(1))
    try o.finish()
    return Seats(
      maxSeatCount: maxSeats, packageLimit: limit, mode: mode, applyTimeout: timeout, applyCompletion: completion,
      coHostSeatLimit: coHost, keepOwnerOnSeat: ownerSeat, lockLimit: lockLimit)
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
    var backgroundEvery: Distribution?
    var backgroundFor = Distribution.exponential(mean: 30e9)
    if var b = try o.optional("background")?.object() {
      backgroundEvery = try b.required("every").distribution()
      backgroundFor = try b.get("for", default: backgroundFor) { n throws(ProfileError) in try n.distribution() }
      try b.finish()
    }
    try o.finish()
    var settings = AudienceSettings(
      stay: stay, applyProbability: applyProbability, applyAfter: applyAfter, applyTimeout: seats.applyTimeout,
      patience: patience, seatTime: seatTime, maxApplies: maxApplies, retry: retry, invitationThink: think,
      acceptInvitation: acceptInvitation, freeMode: seats.mode == .free)
    settings.backgroundEvery = backgroundEvery
    settings.backgroundFor = backgroundFor
    return settings
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
    var h = HostSettings(
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
    let atOnceDefault: Int? = base == nil ? 1 : base?.reviewAtOnce
    h.reviewAtOnce = try o.get("reviewAtOnce", default: atOnceDefault) { n throws(ProfileError) -> Int? in
      try n.wholeOrUnlimited(1...1000)
    }
    h.reviewOrder = try o.get("reviewOrder", default: base?.reviewOrder ?? .oldest) { n throws(ProfileError) in
      try n.oneOf(ReviewOrder.self)
    }
    h.reviewClaims = try o.get("reviewClaims", default: base?.reviewClaims ?? false) { n throws(ProfileError) in
      try n.bool()
    }
    try o.finish()
    return h
  }

  static func readServer(_ node: ProfileNode) throws(ProfileError) -> ServerCapacity {
    var o = try node.object()
    var server = ServerCapacity()
    server.seats = try o.get("seats", default: .unlimited) { n throws(ProfileError) in try readService(n) }
    server.login = try o.get("login", default: .unlimited) { n throws(ProfileError) in try readService(n) }
    server.calls = try o.get("calls", default: .unlimited) { n throws(ProfileError) in try readService(n) }
    server.push = try o.get("push", default: .unlimited) { n throws(ProfileError) in try readService(n) }
    server.messaging = try o.get("messaging", default: .unlimited) { n throws(ProfileError) in
      try readService(n, messaging: true)
    }
    try o.finish()
    return server
  }

  /// One service's capacity. Room messaging (`messaging`) serves broadcasts rather than SDK calls:
  /// it has a time per recipient, and its room rate limit merges broadcasts instead of refusing
  /// them; a queue limit and per-user or per-application limits mean nothing for it.
  static func readService(_ node: ProfileNode, messaging: Bool = false) throws(ProfileError) -> ServiceSettings {
    var o = try node.object()
    if messaging {
      for key in ["queueLimit", "ratePerUser", "ratePerApp"] {
        if let n = o.present(key) {
          throw n.error(
            "not a setting of room messaging: a room's waiting broadcast takes in later changes (the newest list"
              + " wins), so at most one per room waits; the limits it has are workers, serviceTime, perRecipient"
              + " and ratePerRoom")
        }
      }
    }
    func count(_ key: String, _ range: ClosedRange<Int64>, unlimited: Bool, _ o: inout ProfileObject)
      throws(ProfileError) -> Int?
    {
      try o.get(key, default: nil) { n throws(ProfileError) -> Int? in
        unlimited ? try n.wholeOrUnlimited(range) : try n.int(range)
      }
    }
    let s = ServiceSettings(
      workers: try count("workers", 1...1_000_000, unlimited: true, &o),
      serviceTime: try o.get("serviceTime", default: .constant(0)) { n throws(ProfileError) in try n.distribution() },
      queueLimit: try count("queueLimit", 0...100_000_000, unlimited: true, &o),
      perUser: try count("ratePerUser", 1...1_000_000, unlimited: false, &o),
      perRoom: try count("ratePerRoom", 1...100_000_000, unlimited: false, &o),
      perApp: try count("ratePerApp", 1...1_000_000_000, unlimited: false, &o))
    var settings = s
    if messaging {
      settings.perRecipient = try o.get("perRecipient", default: .zero) { n throws(ProfileError) in
        try n.duration()
      }
    }
    try o.finish()
    return settings
  }

  static func readCalls(_ node: ProfileNode) throws(ProfileError) -> Calls {
    var o = try node.object()
    let users = try o.required("users").int(2...10_000_000)
    let firstUser = try o.get("firstUser", default: 0) { n throws(ProfileError) in try n.int(0...10_000_000) }
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
    phone.inviteProbability = try o.get("inviteProbability", default: .zero) { n throws(ProfileError) in try n.ratio() }
    let offlineRingsOut = try o.get("offlineCallee", default: true) { n throws(ProfileError) in
      guard case .string(let text) = n.value, text == "ringsOut" || text == "endsAtOnce" else {
        throw n.expected("\"ringsOut\" or \"endsAtOnce\"")
      }
      return text == "ringsOut"
    }
    let refusedLocally = try o.get("beforeLogin", default: false) { n throws(ProfileError) in
      guard case .string(let text) = n.value, text == "refusedByServer" || text == "refusedLocally" else {
        throw n.expected("\"refusedByServer\" or \"refusedLocally\"")
      }
      return text == "refusedLocally"
    }
    let busyRejectedByCallee = try o.get("busyCallee", default: true) { n throws(ProfileError) in
      guard case .string(let text) = n.value, text == "rejectedByCallee" || text == "rejectedByServer" else {
        throw n.expected("\"rejectedByCallee\" or \"rejectedByServer\"")
      }
      return text == "rejectedByCallee"
    }
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
      push.malformedRate = try p.get("malformedRate", default: .zero) { n throws(ProfileError) in try n.ratio() }
      push.reportBeforeReturn = try p.get("reportBeforeReturn", default: true) { n throws(ProfileError) in
        try n.bool()
      }
      try p.finish()
    }
    var limits = ConversationLimits.standard
    var grace = SimDuration.seconds(10)
    var startActions = Ratio.zero
    var mergeActions = Ratio.zero
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
      mergeActions = try c.get("mergeActionProbability", default: .zero) { n throws(ProfileError) in try n.ratio() }
      try c.finish()
    }
    try o.finish()
    var calls = Calls(
      users: users, firstUser: firstUser, phone: phone, app: app, push: push, conversations: limits,
      conversationGrace: grace)
    calls.startActionProbability = startActions
    calls.mergeActionProbability = mergeActions
    calls.offlineRingsOut = offlineRingsOut
    calls.busyRejectedByCallee = busyRejectedByCallee
    calls.refusedLocallyBeforeLogin = refusedLocally
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
    if let x = try applicable("extra", [.networkDelay, .serverSlowdown, .networkReorder]) {
      e.extra = try x.duration(minimum: .milliseconds(1))
    }
    if let d = try applicable("direction", [.networkPartition]) { e.direction = try d.oneOf(FaultDirection.self) }
    if let sv = try applicable("service", [.serverOutage, .serverSlowdown]) {
      e.service = try sv.oneOf(FaultService.self)
    }
    if let m = try applicable("mode", [.serverOutage]) { e.vanish = try m.oneOf(OutageMode.self) == .vanish }
    if let c = try applicable("channel", [.networkReorder]) { e.channel = try c.oneOf(FaultChannel.self) }
    try o.finish()
    return e
  }

  /// An `explore` entry: `{call, outcome, rate}`.
  static func readSteered(_ node: ProfileNode) throws(ProfileError) -> SteeredOutcome {
    var o = try node.object()
    let callNode = try o.required("call")
    guard case .string(let name) = callNode.value, let call = SteeredCall.kind(named: name) else {
      throw callNode.expected("one of \(SteeredCall.names.map { "\"\($0)\"" }.joined(separator: ", "))")
    }
    let outcome = try o.required("outcome").oneOf(SteeredCall.Outcome.self)
    let rate = try o.required("rate").ratio()
    try o.finish()
    return SteeredOutcome(call: call.rawValue, loss: outcome.loss, rate: rate)
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
    var devices = Devices(openTime: open, failures: failures)
    func reopen(_ key: String, default value: String, _ o: inout ProfileObject) throws(ProfileError) -> Bool {
      try o.get(key, default: value == "occupied") { n throws(ProfileError) in
        guard case .string(let text) = n.value, text == "occupied" || text == "succeeds" else {
          throw n.expected("\"occupied\" or \"succeeds\"")
        }
        return text == "occupied"
      }
    }
    devices.microphoneReopenOccupied = try reopen("microphoneReopen", default: "occupied", &o)
    devices.cameraReopenOccupied = try reopen("cameraReopen", default: "succeeds", &o)
    try o.finish()
    return devices
  }

  static func readNetwork(_ node: ProfileNode) throws(ProfileError) -> Network {
    var o = try node.object()
    var n = Network(clientServer: try o.required("clientServer").distribution())
    n.requestTimeout = try o.get("requestTimeout", default: n.requestTimeout) { v throws(ProfileError) in
      try v.duration(minimum: .milliseconds(1))
    }
    n.ties = try o.get("ties", default: nil) { v throws(ProfileError) -> Network.Ties? in
      guard case .string(let s) = v.value, let ties = Network.Ties(rawValue: s) else {
        throw v.expected("\"fifo\", \"seeded\" or \"drawn\"")
      }
      return ties
    }
    n.pctDepth = try o.get("pct", default: nil) { v throws(ProfileError) -> Int? in
      try v.wholeOrDrawn(0...64) ?? Network.drawnDepth
    }
    n.pctWindow = try o.get("pctWindow", default: n.pctWindow) { v throws(ProfileError) in
      try v.duration(minimum: .milliseconds(1))
    }
    n.pctDelay = try o.get("pctDelay", default: n.pctDelay) { v throws(ProfileError) in
      try v.duration(minimum: .nanoseconds(1))
    }
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
