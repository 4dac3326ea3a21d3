import Chaos
import Clients
import Metrics

/// The vocabulary of a profile's `explore` entries: which SDK calls chaos can steer toward an
/// outcome, and which outcomes.
public enum SteeredCall {
  /// An outcome chaos can steer a call toward.
  public enum Outcome: String, Sendable, CaseIterable {
    /// The server carries the request out; its answer never arrives (the SDK reports -1).
    case noAnswerCarriedOut = "no-answer-carried-out"
    /// The server never hears the request (the SDK reports -1).
    case noAnswerNotCarriedOut = "no-answer-not-carried-out"
    /// The server carries the request out; its answer comes late, between half and 99% of the
    /// SDK's request timeout after the call (and everything behind it on the client's ordered
    /// channel waits for it): a success the app's own shorter timers race.
    case answerLate = "answer-late"

    /// What the network does to it.
    public var loss: Chaos.RequestLoss {
      switch self {
      case .noAnswerCarriedOut: .answer
      case .noAnswerNotCarriedOut: .request
      case .answerLate: .late
      }
    }

    /// The outcome coverage counts it as (for `answer-late`, when the server grants the call).
    public var coverage: OutcomeCoverage.Outcome {
      switch self {
      case .noAnswerCarriedOut: .noAnswerCarriedOut
      case .noAnswerNotCarriedOut: .noAnswerNotCarriedOut
      case .answerLate: .okLate
      }
    }
  }

  /// The calls that can go unanswered (those that reach the server), in catalogue order.
  public static let kinds: [OperationKind] = OperationKind.allCases.filter {
    OutcomeCoverage.possible($0).contains(.noAnswerCarriedOut)
  }

  /// Their names, as profiles and reports spell them (`applyForSeat`).
  public static let names: [String] = kinds.map { "\($0)" }

  /// The call named `name`, if it can be steered.
  public static func kind(named name: String) -> OperationKind? { kinds.first { "\($0)" == name } }
}
