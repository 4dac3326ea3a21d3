import Foundation
import LiveStack
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
  public var audience: Audience
  /// How hosts and admins behave.
  public var host: Host
  /// Message latency between clients and the server.
  public var network: Network

  /// Rooms and people.
  public struct Population: Sendable {
    /// Number of rooms; each has one owner (host).
    public var rooms: Int
    /// Viewers per room.
    public var audiencePerRoom: Int
    /// Admins per room, who answer applications like the host.
    public var adminsPerRoom: Int
  }

  /// When viewers arrive in their room.
  public enum Arrival: Sendable, Equatable {
    /// Everyone is in the room at the start.
    case closed
    /// A Poisson process per room that brings all of its viewers in, on average, over this time.
    case poisson(over: SimDuration)
  }

  /// Seat settings.
  public struct Seats: Sendable {
    /// Seats per room.
    public var maxSeatCount: Int
    /// Connected co-guests allowed by the plan.
    public var packageLimit: Int
    /// Free or apply mode.
    public var mode: SeatMode
    /// How long an application waits for an answer; zero means it never times out.
    public var applyTimeout: SimDuration
  }

  /// Viewer behaviour.
  public struct Audience: Sendable {
    /// Time from arriving to leaving the room.
    public var stay: Distribution
    /// Probability that a viewer applies for a seat at all.
    public var applyProbability: Ratio
    /// Time from arriving (or from the last attempt) to applying.
    public var applyAfter: Distribution
    /// Time from an acceptance to the microphone and camera being open.
    public var deviceOpen: Distribution
    /// Time a guest stays on the seat before leaving it.
    public var seatTime: Distribution
    /// Wait before applying again after a refusal, a rejection or a timeout.
    public var retryAfter: Distribution
    /// The most applications one viewer files.
    public var maxApplies: Int
  }

  /// Host and admin behaviour.
  public struct Host: Sendable {
    /// Time from seeing an application to answering it.
    public var thinkTime: Distribution
    /// Probability of accepting (otherwise rejecting) an application.
    public var acceptProbability: Ratio
  }

  /// Network latency.
  public struct Network: Sendable {
    /// One-way latency of a message between a client and the server.
    public var clientServer: Distribution
  }

  /// The total number of simulated users: per room, one host, the admins and the viewers.
  public var totalUsers: Int { population.rooms * (1 + population.adminsPerRoom + population.audiencePerRoom) }
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
    let audience = try readAudience(o.required("audience"))
    let host = try readHost(o.required("host"))
    let network = try o.get("network", default: Network(clientServer: .lognormal(median: 40e6, sigma: 0.4))) {
      n throws(ProfileError) in try readNetwork(n)
    }
    try o.finish()
    let profile = Profile(
      name: name, description: description, duration: duration, defaultSeed: seed, maxEvents: maxEvents,
      population: population, arrival: arrival, seats: seats, audience: audience, host: host, network: network)
    guard profile.totalUsers <= Int(UInt32.max / 2) else {
      throw ProfileError(path: "population", message: "more than 2^31 users in total (\(profile.totalUsers))")
    }
    return profile
  }

  static func readPopulation(_ node: ProfileNode) throws(ProfileError) -> Population {
    var o = try node.object()
    let rooms = try o.required("rooms").int(1...1_000_000)
    let audience = try o.required("audiencePerRoom").int()
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
    default:
      throw pattern.error("expected one of \"closed\", \"poisson\", got \(pattern.value.shortDescription)")
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
    try o.finish()
    return Seats(maxSeatCount: maxSeats, packageLimit: limit, mode: mode, applyTimeout: timeout)
  }

  static func readAudience(_ node: ProfileNode) throws(ProfileError) -> Audience {
    var o = try node.object()
    let a = Audience(
      stay: try o.required("stay").distribution(),
      applyProbability: try o.get("applyProbability", default: .zero) { n throws(ProfileError) in try n.ratio() },
      applyAfter: try o.get("applyAfter", default: .exponential(mean: 60e9)) { n throws(ProfileError) in
        try n.distribution()
      },
      deviceOpen: try o.get("deviceOpen", default: .lognormal(median: 150e6, sigma: 0.3)) { n throws(ProfileError) in
        try n.distribution()
      },
      seatTime: try o.get("seatTime", default: .lognormal(median: 120e9, sigma: 0.5)) { n throws(ProfileError) in
        try n.distribution()
      },
      retryAfter: try o.get("retryAfter", default: .exponential(mean: 30e9)) { n throws(ProfileError) in
        try n.distribution()
      },
      maxApplies: try o.get("maxApplies", default: 3) { n throws(ProfileError) in try n.int(0...1_000) })
    try o.finish()
    return a
  }

  static func readHost(_ node: ProfileNode) throws(ProfileError) -> Host {
    var o = try node.object()
    let h = Host(
      thinkTime: try o.required("thinkTime").distribution(),
      acceptProbability: try o.get("acceptProbability", default: .one) { n throws(ProfileError) in try n.ratio() })
    try o.finish()
    return h
  }

  static func readNetwork(_ node: ProfileNode) throws(ProfileError) -> Network {
    var o = try node.object()
    let n = Network(clientServer: try o.required("clientServer").distribution())
    try o.finish()
    return n
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
