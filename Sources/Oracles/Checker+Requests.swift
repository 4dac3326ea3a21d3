import Clients
import LiveStack
import SimKernel

/// Requests: one terminal answer each, and applicant lists without duplicates.
extension Checker {
  /// A terminal answer to `request` (accepted, rejected, no response) reached its client.
  public mutating func observeTerminalAnswer(request: UInt32, user: UInt32, at now: SimInstant) {
    let i = Int(request)
    terminalAnswers.grow(toInclude: i, filling: 0)
    // Within the copy window of the user's previous terminal answer the app cannot tell this one
    // from a retransmitted copy of that one (the SDK's event names no request): marked unclear.
    let u = Int(user)
    lastTerminalAt.grow(toInclude: u, filling: 0)
    if terminalAnswers[i] == 0 && lastTerminalAt[u] != 0
      && now.nanoseconds + 1 - lastTerminalAt[u] < Checker.terminalCopyWindow.nanoseconds
    {
      terminalAnswers[i] = Checker.unclearTerminal
    }
    lastTerminalAt[u] = now.nanoseconds + 1
    terminalAnswers[i] &+= 1
    if terminalAnswers[i] & ~Checker.unclearTerminal > 1 {
      log.record(
        .oneTerminal, at: now, entities: ["request:\(request)", "user:\(user)"],
        "request \(request) reached user \(user) with a second terminal answer")
    }
  }

  /// How soon after a user's terminal answer another one may be taken for its copy: a
  /// retransmission can trail its original by this much on a slow channel (docs/CLIENTS.md).
  public static let terminalCopyWindow = SimDuration.seconds(3)
  /// The flag on a terminal answer that came within ``terminalCopyWindow`` of the user's previous.
  static let unclearTerminal: UInt8 = 0x80

  /// Whether the terminal answer of `request` (accepted, rejected, timed out) reached its user's
  /// SDK in a way its app could tell apart: not within ``terminalCopyWindow`` of the user's
  /// previous terminal answer, which an app rightly takes for a copy of that one.
  public func terminalAnswerReached(request: UInt32) -> Bool {
    guard Int(request) < terminalAnswers.count else { return false }
    let seen = terminalAnswers[Int(request)]
    return seen > 0 && seen & Checker.unclearTerminal == 0
  }

  /// An event about `request` reached its client after its terminal answer.
  public mutating func observeEventAfterTerminal(request: UInt32, user: UInt32, at now: SimInstant) {
    let i = Int(request)
    guard i < terminalAnswers.count, terminalAnswers[i] & ~Checker.unclearTerminal > 0 else { return }
    log.record(
      .oneTerminal, at: now, entities: ["request:\(request)", "user:\(user)"],
      "an event for request \(request) reached user \(user) after its terminal answer")
  }

  /// A host's applicants list changed: check it holds no duplicate and no guest its seat list
  /// shows seated (`seatView`: per seat, the user ID + 1, or 0 when empty).
  public mutating func observeApplicants(host: UInt32, applicants: [UInt32], seatView: [UInt32], at now: SimInstant) {
    guard let last = applicants.last else { return }
    if applicants.dropLast().contains(last) {
      log.record(
        .noDuplicateApplicants, at: now, entities: ["user:\(host)", "user:\(last)"],
        "host \(host) lists applicant \(last) twice")
    } else if seatView.contains(last + 1) {
      log.record(
        .noDuplicateApplicants, at: now, entities: ["user:\(host)", "user:\(last)"],
        "host \(host) lists applicant \(last), who is already connected")
    }
  }
}
