import SimKernel

/// A crash of app code: which piece of a virtual user's code trapped or faulted, and how.
///
/// A phone's app process that crashes is gone, and so is a virtual user's here; but a trap cannot
/// be caught inside the process that runs the simulation. Stampede follows a crash from outside:
/// a supervising process sees where it happened (the host numbers the outermost entries into its
/// users' code, the same in every run of a seed), and runs the seed again with that user's app
/// process dying at that entry instead of running the code that trapped. Each crash found is one
/// more entry in the plan of the next run, until a run ends without one.
public struct AppCrash: Sendable, Equatable, Codable {
  /// The outermost entry into a user's code, counted from 1 in the run.
  public var entry: UInt64
  /// Whose code trapped.
  public var user: UInt32
  /// What the crash report said (the runtime's message, where it crashed), for the finding.
  public var detail: String

  /// A crash at `entry` of `user`'s code.
  public init(entry: UInt64, user: UInt32, detail: String) {
    self.entry = entry
    self.user = user
    self.detail = detail
  }

  /// The crashes of a plan as one line (`entry:user:detail` joined by newlines, the detail with
  /// its newlines and backslashes escaped), for an environment variable or a worker's command.
  public static func encode(_ crashes: [AppCrash]) -> String {
    crashes.map { c in
      let detail = c.detail.replacingAll("\\", with: "\\\\").replacingAll("\n", with: "\\n")
      return "\(c.entry):\(c.user):\(detail)"
    }.joined(separator: "\n")
  }

  /// The crashes of ``encode(_:)``'s text, or `nil` if it is not such a text.
  public static func decode(_ text: String) -> [AppCrash]? {
    if text.isEmpty { return [] }
    var out: [AppCrash] = []
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
      let parts = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
      guard parts.count == 3, let entry = UInt64(parts[0]), let user = UInt32(parts[1]) else { return nil }
      var detail = ""
      var escaped = false
      for ch in parts[2] {
        if escaped {
          detail.append(ch == "n" ? "\n" : ch)
          escaped = false
        } else if ch == "\\" {
          escaped = true
        } else {
          detail.append(ch)
        }
      }
      out.append(AppCrash(entry: entry, user: user, detail: detail))
    }
    return out
  }
}

extension String {
  fileprivate func replacingAll(_ target: Character, with replacement: String) -> String {
    var out = ""
    out.reserveCapacity(count)
    for ch in self { if ch == target { out += replacement } else { out.append(ch) } }
    return out
  }
}

/// The crashes of one run: those planned (found by earlier runs of the seed, each a process death
/// at its entry), and those that happened, as the world turns them into findings.
public final class AppCrashes {
  /// The plan, by entry.
  public private(set) var planned: [AppCrash] = []
  /// The next planned crash not yet reached.
  var next = 0
  /// Crashes carried out in this run, in order: when (simulated nanoseconds), and which.
  public var happened: [(timeNs: Int64, crash: AppCrash)] = []

  /// No crashes planned.
  public init() {}

  /// Plans `crashes` (in any order) for the run.
  public func plan(_ crashes: [AppCrash]) {
    planned = crashes.sorted { $0.entry < $1.entry }
    next = 0
  }

  /// Whether any crash is planned at all (a run without skips no entry).
  public var isEmpty: Bool { planned.isEmpty }

  /// The crash planned for `entry`, if any; taken (it happens once).
  @inline(__always)
  public func take(at entry: UInt64) -> AppCrash? {
    guard next < planned.count, planned[next].entry == entry else { return nil }
    next += 1
    return planned[next - 1]
  }
}
