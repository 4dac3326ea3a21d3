import Foundation
import Reports

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The failing-seed corpus: a JSON-lines file of (profile sha256, seed, what it ran with, failure)
/// rows that sweeps append to and, with `--corpus`, replay first, so that a failure found once
/// keeps being checked (the way Hypothesis keeps its example database).
///
/// Appends take an exclusive lock on the file (`flock`), so shards of one sweep that share a
/// corpus file can write at once.
public struct FailingSeedCorpus {
  /// One remembered failure.
  public struct Row: Codable, Sendable, Equatable {
    /// The profile's sha256 when it failed.
    public var profileSha256: String
    /// The profile's path then.
    public var profile: String
    /// The seed.
    public var seed: UInt64
    /// How it failed.
    public var failure: String
    /// The command that reproduces it.
    public var repro: String
    /// The catalogued client mistakes the run made (`--mistake`), if any.
    public var mistakes: [String]?
    /// The SDK quirks switched on (`--quirk`), if any.
    public var quirks: [String]?
    /// The registered app that ran (`--app`), if any.
    public var app: String?

    /// Creates a row.
    public init(
      profileSha256: String, profile: String, seed: UInt64, failure: String, repro: String, mistakes: [String]? = nil,
      quirks: [String]? = nil, app: String? = nil
    ) {
      self.profileSha256 = profileSha256
      self.profile = profile
      self.seed = seed
      self.failure = failure
      self.repro = repro
      self.mistakes = mistakes?.isEmpty == true ? nil : mistakes?.sorted()
      self.quirks = quirks?.isEmpty == true ? nil : quirks?.sorted()
      self.app = app
    }

    /// What makes two rows the same failure to remember: the profile, the seed and what ran.
    var key: String {
      "\(profileSha256) \(seed) \((mistakes ?? []).joined(separator: ",")) \((quirks ?? []).joined(separator: ",")) \(app ?? "")"
    }
  }

  /// The file.
  public let path: String

  /// The corpus at `path`.
  public init(path: String) { self.path = path }

  /// The default corpus of a sweep writing to `folder`: `folder/failing-seeds.jsonl`.
  public static func inFolder(_ folder: String) -> FailingSeedCorpus {
    FailingSeedCorpus(path: (folder as NSString).appendingPathComponent("failing-seeds.jsonl"))
  }

  /// Every row (lines that do not parse are skipped).
  public func rows() -> [Row] {
    guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
    return FailingSeedCorpus.parse(text)
  }

  static func parse(_ text: String) -> [Row] {
    let decoder = JSONDecoder()
    return text.split(separator: "\n").compactMap { try? decoder.decode(Row.self, from: Data($0.utf8)) }
  }

  /// Rows remembered for the profile with `sha256`, in the order they were added, without repeats.
  public func rows(forProfile sha256: String) -> [Row] {
    var seen = Set<String>()
    return rows().filter { $0.profileSha256 == sha256 && seen.insert($0.key).inserted }
  }

  /// Seeds remembered for the profile with `sha256`, in the order they were added, without repeats.
  public func seeds(forProfile sha256: String) -> [UInt64] {
    var seen = Set<UInt64>()
    return rows(forProfile: sha256).map(\.seed).filter { seen.insert($0).inserted }
  }

  /// Appends the rows not already present (same profile, seed and run settings), under an
  /// exclusive lock on the file. Returns how many were added.
  @discardableResult
  public func add(_ new: [Row]) throws -> Int {
    guard !new.isEmpty else { return 0 }
    let url = URL(fileURLWithPath: path)
    try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    let fd = open(path, O_RDWR | O_CREAT | O_APPEND, 0o644)
    guard fd >= 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path]) }
    let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
    defer { try? handle.close() }
    guard flock(fd, LOCK_EX) == 0 else { throw CocoaError(.fileLocking, userInfo: [NSFilePathErrorKey: path]) }
    defer { _ = flock(fd, LOCK_UN) }
    // Read under the lock: another writer may have added rows since.
    try handle.seek(toOffset: 0)
    let existingText = String(decoding: try handle.readToEnd() ?? Data(), as: UTF8.self)
    var existing = Set(FailingSeedCorpus.parse(existingText).map(\.key))
    let fresh = new.filter { existing.insert($0.key).inserted }
    guard !fresh.isEmpty else { return 0 }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    var data = Data()
    for row in fresh {
      data.append(try encoder.encode(row))
      data.append(0x0A)
    }
    try handle.write(contentsOf: data)  // O_APPEND: at the end, whatever the offset
    return fresh.count
  }
}
