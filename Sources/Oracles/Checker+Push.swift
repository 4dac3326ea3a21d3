import Clients
import LiveStack
import SimKernel

/// Push: token uploads and reports of VoIP pushes.
extension Checker {
  /// `user` called `setVOIP`: it must be logged in to IM and TUILogin, with a non-zero certificate
  /// and a token.
  public mutating func observeTokenUpload(
    user: UInt32, imLoggedIn: Bool, tuiLoggedIn: Bool, certificateID: UInt32, token: UInt16, at now: SimInstant
  ) {
    var why: [String] = []
    if !imLoggedIn { why.append("before IM login") }
    if !tuiLoggedIn { why.append("before TUILogin") }
    if certificateID == 0 { why.append("with certificate ID 0") }
    if token == 0 { why.append("without a token") }
    guard !why.isEmpty else { return }
    log.record(
      .tokenUploadWhenLoggedIn, at: now, entities: ["user:\(user)"],
      "user \(user) uploaded its VoIP token " + why.joined(separator: ", "))
  }

  /// The app of `user` was handed a VoIP push for `call` at `handedAt` and had not reported it when
  /// the deadline passed, or (`returned`) when its push handler finished.
  public mutating func observeMissedReport(
    user: UInt32, call: UInt32, handedAt: SimInstant, noHandler: Bool = false, returned: Bool = false,
    at now: SimInstant
  ) {
    let why: String
    if noHandler {
      why =
        "the VoIP push for call \(call) reached user \(user)'s app at \(handedAt) before it created its push registry; the system killed the app"
    } else if returned {
      why =
        "user \(user)'s push handler finished without reporting the VoIP push for call \(call) handed to it at \(handedAt); the system killed the app"
    } else {
      why =
        "user \(user) did not report the VoIP push for call \(call) handed to it at \(handedAt); the system killed the app"
    }
    log.record(.pushReported, at: now, entities: ["user:\(user)", "call:\(call)"], why)
  }

  /// The report deadline of the push `user` reported passed: the call it announced (`pushed`,
  /// ID + 1) must be on screen as a conversation or declined, unless it stopped ringing.
  /// Exempt: a push handed, or a call placed, while faults acted, and a process that started then
  /// and has not logged in since (judged after the heal by `call.released-within-timeout`).
  public mutating func observeReportedPushAtDeadline(
    user: UInt32, pushed: UInt32, deadline: SimDuration, phones: PhoneSystem, calls: CallService,
    sdkLoggedIn: Bool, launchedAtNs: Int64, declined: UInt32, at now: SimInstant
  ) {
    let handedInChaos = now.nanoseconds - deadline.nanoseconds < healAtNs
    let recovering = launchedAtNs < healAtNs && !sdkLoggedIn
    guard !handedInChaos, !recovering, phones.appState(user) != .killed, pushed != 0,
      calls.calls[Int(pushed - 1)].createdAt.nanoseconds >= healAtNs,
      let call = calls.call(of: user), call == pushed - 1,
      calls.state(of: user) == .waiting, declined != pushed,
      phones.conversations(of: user, call: call).isEmpty
    else { return }
    log.record(
      .callShownOrDeclined, at: now, entities: ["user:\(user)", "call:\(call)"],
      "user \(user)'s app reported the push for call \(call) but neither shows nor declines it; the caller rings on")
  }
}
