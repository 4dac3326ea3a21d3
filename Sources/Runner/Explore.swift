import Chaos
import Profiles
import Reports
import SimKernel

/// Steered chaos (`sweep --explore`): later seeds of a sweep raise the chance of the outcomes the
/// earlier seeds reached least, as FoundationDB's BUGGIFY and Antithesis's `sometimes`
/// assertions drive runs into rarely taken paths.
///
/// The seeds run in rounds of ``round``. Before each round, the outcome coverage of every seed
/// finished so far gives the *frontier*: each outcome a call can be steered toward (its request
/// lost, or its answer lost after the server carried it out), for every call the clients made,
/// never-seen ones first, then the least seen. The frontier is dealt out over the round's seeds,
/// each outcome to every ``spread``th seed, so that every one is steered by some seed of the
/// round and no seed loses everything. A seed's steering is an `explore` override in its repro
/// line: `run` and `replay` need nothing of the sweep. Explored seeds also vary the order of racing
/// deliveries (`network.ties` and `network.pct` drawn by the seed, unless the profile sets either
/// or `faults: "swarm"` draws them already), likewise written into the repro line.
public enum Explore {
  /// Seeds per round.
  public static let round = 10
  /// Each frontier outcome goes to one seed in this many.
  public static let spread = 4
  /// The probability a steered call loses its request or answer.
  public static let rate = "1/4"

  /// Requests and the answers that end them, lost together: the request filed but its answer
  /// lost (the client reports -1 while its request stands), and the other side's answer to it
  /// never reaching the server (so the request still stands when the -1 comes). Each steered
  /// round gives one pair, in turn, to its last seed, beside its share of the frontier: the
  /// frontier soon holds only the rarest outcomes, and a bug that needs two common ones at once
  /// (an app that reads that -1 as a refusal) would never be reached.
  public static let pairs: [(request: String, answer: String)] = [
    ("applyForSeat", "acceptApplication"), ("applyForSeat", "rejectApplication"),
    ("inviteToSeat", "acceptInvitation"), ("placeCall", "acceptCall"),
  ]

  /// One outcome on the frontier.
  public struct Target: Sendable, Equatable {
    /// The call's name (`applyForSeat`).
    public var call: String
    /// The outcome.
    public var outcome: SteeredCall.Outcome
    /// How often the sweep has seen it so far.
    public var seen: UInt64
  }

  /// What one seed is steered toward: the entries, and the `--set` that says so.
  public struct Steering: Sendable {
    /// The profile's `explore` entries.
    public var entries: [SteeredOutcome]
    /// `explore=[…]`, for the repro line (`nil` without entries).
    public var set: String?
    /// Whether the seed draws its delivery order (`network.ties` and `network.pct` `"drawn"`).
    public var drawsOrdering = false

    /// `profile` and its overrides as this seed runs them.
    public func apply(to profile: inout Profile, overrides: inout [String]) {
      if let set {
        profile.faults.steered = entries
        overrides.append(set)
      }
      if drawsOrdering {
        profile.network.ties = .drawn
        profile.network.pctDepth = Profile.Network.drawnDepth
        overrides += ["network.ties=drawn", "network.pct=drawn"]
      }
    }
  }

  /// Whether an explore sweep of `profile` draws each seed's delivery order: unless the profile
  /// sets either ordering key, or its swarm plan draws them already.
  public static func drawsOrdering(_ profile: Profile) -> Bool {
    profile.network.ties == nil && profile.network.pctDepth == nil && !profile.faults.swarm
  }

  /// The frontier after the seeds whose merged coverage is `coverage`: the steerable outcomes of
  /// every call made, those never seen first, then the least seen quarter (at least one) once none
  /// is left unseen; ties in call and outcome order. Empty before any seed finished.
  public static func frontier(_ coverage: CoverageReport?) -> [Target] {
    guard let coverage else { return [] }
    var all: [Target] = []
    for call in coverage.calls.sorted(by: { $0.call < $1.call }) where SteeredCall.kind(named: call.call) != nil {
      for outcome in SteeredCall.Outcome.allCases {
        all.append(Target(call: call.call, outcome: outcome, seen: call.outcomes[outcome.coverage.name] ?? 0))
      }
    }
    all.sort { ($0.seen, $0.call, $0.outcome.rawValue) < ($1.seen, $1.call, $1.outcome.rawValue) }
    let unseen = all.prefix { $0.seen == 0 }
    if !unseen.isEmpty { return Array(unseen) }
    return Array(all.prefix(max(1, all.count / 4)))
  }

  /// The steering of the seed in place `seat` of its round (from 0): every ``spread``th outcome
  /// of `frontier`, starting at `seat`'s (none if the frontier is empty), and the drawn delivery
  /// order if `drawsOrdering`; `nil` if neither.
  ///
  /// The last seat of a round (`seat == round - 1`) also gets the pair of ``pairs`` in place
  /// `turn` (the steered round, from 0), when the frontier is not empty.
  public static func steering(_ frontier: [Target], seat: Int, turn: Int? = nil, drawsOrdering: Bool = false)
    -> Steering?
  {
    var mine = frontier.indices.filter { $0 % spread == seat % spread }.map { frontier[$0] }
    if let turn, seat == round - 1, !frontier.isEmpty {
      let pair = pairs[turn % pairs.count]
      for (call, outcome) in [
        (pair.request, SteeredCall.Outcome.noAnswerCarriedOut), (pair.answer, .noAnswerNotCarriedOut),
      ] where !mine.contains(where: { $0.call == call && $0.outcome == outcome }) {
        mine.append(Target(call: call, outcome: outcome, seen: 0))
      }
    }
    guard !mine.isEmpty else { return drawsOrdering ? Steering(entries: [], set: nil, drawsOrdering: true) : nil }
    let ratio = Ratio.parse(rate)!
    let entries = mine.map {
      SteeredOutcome(call: SteeredCall.kind(named: $0.call)!.rawValue, loss: $0.outcome.loss, rate: ratio)
    }
    let items = mine.map { "{call:\"\($0.call)\",outcome:\"\($0.outcome.rawValue)\",rate:\"\(rate)\"}" }
    return Steering(
      entries: entries, set: "explore=[\(items.joined(separator: ","))]", drawsOrdering: drawsOrdering)
  }
}
