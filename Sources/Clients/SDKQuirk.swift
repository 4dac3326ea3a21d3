/// Known misbehaviours of a public implementation of the co-guest SDK, as optional modes. Off by
/// default; a profile's `quirks` or `stampede run --quirk ID` turns them on, to show what a client
/// must survive when the SDK itself is wrong.
public enum SDKQuirk: String, Sendable, CaseIterable, Codable {
  /// An invitation is never cleared from the SDK's state once received (cancelled, answered, timed
  /// out or failed, it stays until another arrives).
  case staleInvitation = "stale-invitation"
  /// `acceptInvitation(inviterID:)` and `rejectInvitation(inviterID:)` answer whatever invitation
  /// the SDK holds, ignoring `inviterID`.
  case acceptIgnoresInviter = "accept-ignores-inviter"
  /// `cancelInvitation` completes with success even when the server refused it.
  case cancelInvitationFalseSuccess = "cancel-invitation-false-success"
  /// An owner (re)entering its room files the room's pending applications as invitations it sent.
  case reentryApplicationsAsInvitations = "reentry-applications-as-invitations"
  /// Entering a room appends the server's applicants to the host's list without removing
  /// duplicates.
  case duplicateApplicants = "duplicate-applicants"
  /// An audience member found on a seat when it (re)enters the room is taken off it.
  case autoDisconnectOnJoin = "auto-disconnect-on-join"
  /// The SDK keeps one handle per request kind: a second invitation overwrites the first (a cancel
  /// then cancels the latest invitation, whoever it is addressed to), and a second application
  /// overwrites the first even when the server refused it (a cancel then fails with -2 and the
  /// first stays pending).
  case secondRequestOverwrites = "second-request-overwrites"

  /// The quirk's bit in a set of quirks (a switch: this is on hot paths, where `allCases` would
  /// build an array on every call).
  public var bit: UInt32 {
    switch self {
    case .staleInvitation: return 1 << 0
    case .acceptIgnoresInviter: return 1 << 1
    case .cancelInvitationFalseSuccess: return 1 << 2
    case .reentryApplicationsAsInvitations: return 1 << 3
    case .duplicateApplicants: return 1 << 4
    case .autoDisconnectOnJoin: return 1 << 5
    case .secondRequestOverwrites: return 1 << 6
    }
  }

  /// The quirk's one-line description.
  public var summary: String {
    switch self {
    case .staleInvitation: return "an invitation is never cleared from the SDK's state"
    case .acceptIgnoresInviter: return "accepting or declining an invitation ignores inviterID"
    case .cancelInvitationFalseSuccess: return "cancelInvitation reports success even when it failed"
    case .reentryApplicationsAsInvitations: return "an owner re-entering files pending applications as invitations"
    case .duplicateApplicants: return "entering a room appends applicants without de-duplicating"
    case .autoDisconnectOnJoin: return "an audience member found on a seat at join is auto-disconnected"
    case .secondRequestOverwrites: return "a second apply or invitation overwrites the first request's handle"
    }
  }
}
