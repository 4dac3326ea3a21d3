import Clients
import LiveStack
import SimKernel

/// Requests: one terminal answer each, and applicant lists without duplicates.
extension Checker {
  /// A terminal answer to `request` (accepted, rejected, no response) reached its client.
  public mutating func observeTerminalAnswer(request: UInt32, user: UInt32, at now: SimInstant) {
    let i = Int(request)
    terminalAnswers.grow(toInclude: i, filling: 0)
    terminalAnswers[i] &+= 1
    if terminalAnswers[i] > 1 {
      log.record(
        .oneTerminal, at: now, entities: ["request:\(request)", "user:\(user)"],
        "request \(request) reached user \(user) with a second terminal answer")
    }
  }

  /// An event about `request` reached its client after its terminal answer.
  public mutating func observeEventAfterTerminal(request: UInt32, user: UInt32, at now: SimInstant) {
    let i = Int(request)
    guard i < terminalAnswers.count, terminalAnswers[i] > 0 else { return }
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
