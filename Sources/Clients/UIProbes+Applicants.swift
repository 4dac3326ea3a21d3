/// The applications list of a host's or admin's UI, as its probe reads it.
extension UIProbes {
  /// Records the users `user`'s applications list shows now (a row that names no user of the run
  /// as `UInt32.max`).
  public func setShownApplicants(_ user: UInt32, _ shown: [UInt32]) {
    bits[Int(user)] |= UIProbes.applicantsBit
    applicantRows[user] = UIProbes.distinctSorted(shown)
  }

  /// The users `user`'s applications list shows, sorted and without repeats, if a probe reads it.
  public func shownApplicants(of user: UInt32) -> [UInt32]? {
    bits[Int(user)] & UIProbes.applicantsBit == 0 ? nil : applicantRows[user]
  }

  /// How the applications list `user`'s UI shows differs from `listed`, what its SDK lists, as
  /// sets of users ("shows [3, 5] while its SDK lists [5]"); empty when they agree, or no probe
  /// reads the list.
  public func applicantsMismatch(of user: UInt32, listed: [UInt32]) -> String {
    guard let rows = shownApplicants(of: user) else { return "" }
    let sdk = UIProbes.distinctSorted(listed)
    guard rows != sdk else { return "" }
    func names(_ l: [UInt32]) -> String { "[" + l.map { $0 == .max ? "?" : String($0) }.joined(separator: ", ") + "]" }
    return "shows \(names(rows)) while its SDK lists \(names(sdk))"
  }

  /// `list` sorted, each user once.
  public static func distinctSorted(_ list: [UInt32]) -> [UInt32] {
    var sorted = list.sorted()
    var kept = 0
    for i in sorted.indices where i == 0 || sorted[i] != sorted[kept - 1] {
      sorted[kept] = sorted[i]
      kept += 1
    }
    sorted.removeLast(sorted.count - kept)
    return sorted
  }
}
