import Foundation
import Reports

/// The failing-seed corpus: a JSON-lines file of (profile sha256, seed, failure) rows that sweeps
/// append to and, with `--corpus`, replay first, so that a failure found once keeps being checked
/// (the way Hypothesis keeps its example database).
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

    /// Creates a row.
    public init(profileSha256: String, profile: String, seed: UInt64, failure: String, repro: String) {
      self.profileSha256 = profileSha256
      self.profile = profile
      self.seed = seed
      self.failure = failure
      self.repro = repro
    }
  }

  /// The file.
  public let path: String

  /// The corpus at `path` (default `reports/failing-seeds.jsonl`).
  public init(path: String = "reports/failing-seeds.jsonl") { self.path = path }

  /// Every row (lines that do not parse are skipped).
  public func rows() -> [Row] {
    guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
    let decoder = JSONDecoder()
    return text.split(separator: "\n").compactMap { try? decoder.decode(Row.self, from: Data($0.utf8)) }
  }

  /// Seeds remembered for the profile with `sha256`, in the order they were added, without repeats.
  public func seeds(forProfile sha256: String) -> [UInt64] {
    var seen = Set<UInt64>()
    return rows().filter { $0.profileSha256 == sha256 }.map(\.seed).filter { seen.insert($0).inserted }
  }

  /// Appends the rows not already present (same profile and seed). Returns how many were added.
  @discardableResult
  public func add(_ new: [Row]) throws -> Int {
    let existing = Set(rows().map { "\($0.profileSha256) \($0.seed)" })
    let fresh = new.filter { !existing.contains("\($0.profileSha256) \($0.seed)") }
    guard !fresh.isEmpty else { return 0 }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    var data = Data()
    for row in fresh {
      data.append(try encoder.encode(row))
      data.append(0x0A)
    }
    let url = URL(fileURLWithPath: path)
    try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    if !FileManager.default.fileExists(atPath: path) { _ = FileManager.default.createFile(atPath: path, contents: nil) }
    let handle = try FileHandle(forWritingTo: url)
    defer { try? handle.close() }
    try handle.seekToEnd()
    try handle.write(contentsOf: data)
    return fresh.count
  }
}
