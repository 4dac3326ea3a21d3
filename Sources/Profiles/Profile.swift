import Chaos
import Clients
import Foundation
import LiveStack
import Metrics
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
  /// The server's services as queues (`server`): unlimited by default.
  public var server = ServerCapacity()
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
    /// How many phones of a larger population come before these (`calls.firstUser`), as for
    /// ``Population/firstRoom``.
    public var firstUser: Int = 0
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
    /// Chance of a Merge tapped when a phone shows two or more conversations.
    public var mergeActionProbability: Ratio = .zero
    /// Whether a callee who is offline (logged out) when called rings out until the call's
    /// timeout (`calls.offlineCallee: "ringsOut"`) rather than ending its part at once.
    public var offlineRingsOut = true
    /// Whether a callee busy in another call gets the invitation and its SDK declines it
    /// (`calls.busyCallee: "rejectedByCallee"`), rather than the server ending its part at once.
    public var busyRejectedByCallee = true
    /// Whether the SDK refuses `CallStore` calls made before its login finished at once, itself
    /// (`calls.beforeLogin: "refusedLocally"`), rather than sending them for the server to refuse.
    public var refusedLocallyBeforeLogin = false
  }

  /// The app lifecycle of phone users.
  public typealias AppLifecycle = Clients.AppLifecycle
  /// The offline-push path.
  public typealias Push = PushSettings

  /// Rooms and people.
  public struct Population: Sendable {
    /// Number of rooms; each has one owner (host).
    public var rooms: Int
    /// Viewers per room: a constant, or a distribution drawn once per room (popular and quiet
    /// rooms), rounded and clamped to 0…10,000,000.
    public var audiencePerRoom: Distribution
    /// Admins per room, who answer applications like the host.
    public var adminsPerRoom: Int
    /// How many rooms of a larger population come before these (`population.firstRoom`): the
    /// rooms keep the identities, and so the random draws, they had there. `shrink` writes it
    /// when it leaves out the first rooms.
    public var firstRoom: Int = 0
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

  /// When the `applyForSeat` completion fires: SDK versions differ, so both are modelled.
  public enum ApplyCompletion: String, Sendable, CaseIterable {
    /// When the server has filed the application.
    case sent
    /// At the application's final outcome: success if accepted, -1 otherwise.
    case outcome
  }

  /// Seat settings.
  public struct Seats: Sendable {
    /// Guest seats per room (the owner's seat excluded).
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
    /// Whether the owner takes seat 0 as its live starts and keeps it (`LiveInfo.keepOwnerOnSeat`):
    /// guests' seats then follow from index 1, and the SDK's `maxSeatCount` counts the owner's.
    public var keepOwnerOnSeat: Bool = true
    /// How long a host's or admin's lock may keep an empty guest seat locked before
    /// `seat.lock-released` reports it (`nil`: not judged).
    public var lockLimit: SimDuration? = nil
  }

  /// The phones' capture devices.
  public struct Devices: Sendable {
    /// Time for one device to open.
    public var openTime: Distribution
    /// How often opening fails.
    public var failures: DeviceFailureRates
    /// Whether opening the microphone while it is on fails as occupied (-1106): one microphone
    /// per phone, so a second user of it (a call and the live) finds it taken. The SDK's
    /// documentation does not say.
    public var microphoneReopenOccupied = true
    /// Whether opening the camera while it is on fails as occupied (-1102); by default it succeeds
    /// and nothing changes.
    public var cameraReopenOccupied = false
  }

  /// Network latency.
  /// The capacity of each server service (`server.seats`, `server.login`, `server.calls`,
  /// `server.push`).
  public struct ServerCapacity: Sendable {
    /// Rooms, seats and co-guest requests (joinLive, applications, seat operations).
    public var seats = ServiceSettings.unlimited
    /// Login, TUILogin, logout and the VoIP token upload.
    public var login = ServiceSettings.unlimited
    /// Calls.
    public var calls = ServiceSettings.unlimited
    /// The push backend (TIMPush): each VoIP push it sends.
    public var push = ServiceSettings.unlimited
    /// Room messaging: each broadcast of a room's seat list to everyone in the room (not among
    /// ``named``: it serves broadcasts, not SDK calls).
    public var messaging = ServiceSettings.unlimited

    /// Every service served at once, without limits.
    public init() {}

    /// The services in report order, with their names.
    public var named: [(name: String, settings: ServiceSettings)] {
      [("seats", seats), ("login", login), ("calls", calls), ("push", push)]
    }
  }

  public struct Network: Sendable {
    /// `network.ties`.
    public enum Ties: String, Sendable {
      case fifo, seeded, drawn
    }
    /// `network.pct: "drawn"`.
    public static let drawnDepth = -1

    /// One-way latency of a message between a client and the server.
    public var clientServer: Distribution
    /// How long the SDK waits for the answer to a request before it reports -1 (`failed`),
    /// whether or not the server carried it out. The SDKs' documentation gives no figure.
    public var requestTimeout = SDKTiming.requestTimeout
    /// Deliveries to different users due at one instant: in the order sent, in an order the seed
    /// picks (see `DeliveryOrder`), or either, as the seed draws; `nil` when the profile does not
    /// say (in the order sent, or drawn under `faults: "swarm"`).
    public var ties: Ties?
    /// PCT-style change points: how many (`nil` when the profile does not say: none, or drawn
    /// under `faults: "swarm"`; `-1`: drawn), how long each holds its user back, and by how much.
    public var pctDepth: Int?
    public var pctWindow = SimDuration.seconds(5)
    public var pctDelay = SimDuration.milliseconds(200)
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
