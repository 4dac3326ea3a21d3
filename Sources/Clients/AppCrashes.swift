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
  /// Which piece of the entry: 0 for the outermost entry's own code, k for the k-th piece since it
  /// began of another kind: an entry into a user's code nested in it (the SDK handing an event to
  /// another user's code at once), or a release of a user's objects (its `deinit`s), inside the
  /// entry or after it returned (a process the model killed in the meantime).
  public var piece: UInt32
  /// Whose code trapped.
  public var user: UInt32
  /// Whether the trap was in a `deinit` run while the objects of a process that had already died
  /// were let go of. A phone runs no code of a process that is gone, so this is not a finding: the
  /// run is made again with such objects kept from there on instead of let go of.
  public var atDeath: Bool
  /// What the crash report said (the runtime's message, where it crashed), for the finding.
  public var detail: String

  /// A crash at piece `piece` of `entry`, in `user`'s code (`atDeath`: in a `deinit` of a process
  /// that had died).
  public init(entry: UInt64, piece: UInt32 = 0, user: UInt32, atDeath: Bool = false, detail: String) {
    self.entry = entry
    self.piece = piece
    self.user = user
    self.atDeath = atDeath
    self.detail = detail
  }

  /// Whether this crash comes before `other` in a run: entries in order, and the pieces of one
  /// entry in order (its own code, piece 0, is skipped at its start).
  public func precedes(_ other: AppCrash) -> Bool { (entry, piece) < (other.entry, other.piece) }

  /// The crashes of a plan as one line (`entry:piece:user:death:detail` joined by newlines, the
  /// detail with its newlines and backslashes escaped), for an environment variable.
  public static func encode(_ crashes: [AppCrash]) -> String {
    crashes.map { c in
      let detail = c.detail.replacingAll("\\", with: "\\\\").replacingAll("\n", with: "\\n")
      return "\(c.entry):\(c.piece):\(c.user):\(c.atDeath ? 1 : 0):\(detail)"
    }.joined(separator: "\n")
  }

  /// The crashes of ``encode(_:)``'s text, or `nil` if it is not such a text.
  public static func decode(_ text: String) -> [AppCrash]? {
    if text.isEmpty { return [] }
    var out: [AppCrash] = []
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
      let parts = line.split(separator: ":", maxSplits: 4, omittingEmptySubsequences: false)
      guard parts.count == 5, let entry = UInt64(parts[0]), let piece = UInt32(parts[1]),
        let user = UInt32(parts[2]), let death = UInt8(parts[3]), death <= 1
      else { return nil }
      var detail = ""
      var escaped = false
      for ch in parts[4] {
        if escaped {
          detail.append(ch == "n" ? "\n" : ch)
          escaped = false
        } else if ch == "\\" {
          escaped = true
        } else {
          detail.append(ch)
        }
      }
      out.append(AppCrash(entry: entry, piece: piece, user: user, atDeath: death == 1, detail: detail))
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
  /// Releases of a dead process's objects that kept them instead (see ``AppCrash/atDeath``).
  public var keptAtDeath = 0

  /// No crashes planned.
  public init() {}

  /// Plans `crashes` (in any order) for the run.
  public func plan(_ crashes: [AppCrash]) {
    planned = crashes.sorted { $0.precedes($1) }
    next = 0
  }

  /// Whether any crash is planned at all (a run without skips no entry).
  public var isEmpty: Bool { planned.isEmpty }

  /// The crash planned for piece `piece` of `entry`, if any; taken (it happens once). Planned
  /// crashes before it that the run did not reach are passed over: a crash of an entry's own code
  /// found after one of its nested pieces is carried out at the entry's start, where the nested
  /// piece no longer runs.
  @inline(__always)
  public func take(at entry: UInt64, piece: UInt32 = 0) -> AppCrash? {
    while next < planned.count && (planned[next].entry, planned[next].piece) < (entry, piece) { next += 1 }
    guard next < planned.count, planned[next].entry == entry, planned[next].piece == piece else { return nil }
    next += 1
    return planned[next - 1]
  }
}
