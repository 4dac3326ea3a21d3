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

    /// What the network loses for it.
    public var loss: Chaos.RequestLoss { self == .noAnswerCarriedOut ? .answer : .request }

    /// The outcome coverage counts it as.
    public var coverage: OutcomeCoverage.Outcome {
      self == .noAnswerCarriedOut ? .noAnswerCarriedOut : .noAnswerNotCarriedOut
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
