import Foundation

/// Runs a built executable of this package in a separate process, from the repository root, the
/// way the determinism and command-line tests need it.
public struct ProcessTool: Sendable {
  /// The executable's product name (`stampede`, `stampede-examples`).
  public let name: String
  /// The repository's root folder.
  public let root: URL

  /// A tool for the product `name`; `root` is the repository (where profiles are found).
  public init(_ name: String, root: URL) {
    self.name = name
    self.root = root
  }

  /// The built binary, next to the test bundle (else the debug build folder).
  public var binary: URL {
    var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    for _ in 0..<4 {
      let candidate = dir.appendingPathComponent(name)
      if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
      dir = dir.deletingLastPathComponent()
    }
    return root.appendingPathComponent(".build/debug/\(name)")
  }

  /// Runs the binary with `arguments`; returns its exit status and what it printed.
  public func run(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
    try Self.launch(binary, arguments, in: root)
  }

  /// Runs the binary with `arguments` and the run history on (at its defaults), as a user would.
  public func runRecording(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
    try Self.launch(binary, arguments, in: root, history: true)
  }

  /// Runs another program found on the `PATH` (`python3`) from the repository root.
  public func runExternal(_ program: String, _ arguments: [String]) throws -> (
    status: Int32, stdout: String, stderr: String
  ) {
    try Self.runExternal(program, arguments, in: root)
  }

  /// Runs a program found on the `PATH` in `folder`; returns its exit status and what it printed.
  public static func runExternal(_ program: String, _ arguments: [String], in folder: URL? = nil) throws -> (
    status: Int32, stdout: String, stderr: String
  ) {
    try launch(URL(fileURLWithPath: "/usr/bin/env"), [program] + arguments, in: folder)
  }

  static func launch(_ executable: URL, _ arguments: [String], in folder: URL?, history: Bool = false) throws -> (
    status: Int32, stdout: String, stderr: String
  ) {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    // Test runs stay out of the developer's run history unless a test names a history file.
    var environment = ProcessInfo.processInfo.environment
    if history {
      environment["STAMPEDE_HISTORY"] = nil
    } else if environment["STAMPEDE_HISTORY"] == nil {
      environment["STAMPEDE_HISTORY"] = "off"
    }
    process.environment = environment
    if let folder { process.currentDirectoryURL = folder }
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let o = out.fileHandleForReading.readDataToEndOfFile()
    let e = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: o, as: UTF8.self), String(decoding: e, as: UTF8.self))
  }

  /// A fresh temporary folder, inside this test process's own scratch folder (which is removed
  /// when the process exits).
  public static func temporaryFolder() -> URL {
    let url = temporaryPath("run")
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
  }

  /// A fresh path (not created) inside this test process's scratch folder, its last component
  /// `prefix`, a unique number and `suffix`.
  public static func temporaryPath(_ prefix: String, suffix: String = "") -> URL {
    scratch.url.appendingPathComponent("\(prefix)-\(UUID().uuidString)\(suffix)")
  }

  /// The test process's scratch folder under the system's temporary folder; created on first use,
  /// removed (with everything the tests left in it) when the process exits.
  private static let scratch: ScratchFolder = ScratchFolder()

  /// The `report.json` in `folder`, parsed.
  public static func report(at folder: URL) throws -> [String: Any] {
    let data = try Data(contentsOf: folder.appendingPathComponent("report.json"))
    return try JSONSerialization.jsonObject(with: data) as! [String: Any]
  }
}

/// One folder per test process for everything the tests write, so that test runs leave nothing
/// behind in the temporary folder.
private final class ScratchFolder: Sendable {
  let url: URL

  init() {
    url = FileManager.default.temporaryDirectory.appendingPathComponent("stampede-tests-\(getpid())")
    try? FileManager.default.removeItem(at: url)
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    scratchFolderPath = url.path
    atexit {
      if let path = scratchFolderPath { try? FileManager.default.removeItem(atPath: path) }
    }
  }
}

/// The scratch folder's path, for the exit handler (which cannot capture).
nonisolated(unsafe) private var scratchFolderPath: String?

/// Whether the long tests run: scale runs, whole seed ranges, shrinking and sweeps through the
/// command line. `make test-long` sets `STAMPEDE_LONG_TESTS=1` and runs every test; `make test`
/// leaves them out, so that the suite a contributor runs stays within minutes.
public let longTestsEnabled = ProcessInfo.processInfo.environment["STAMPEDE_LONG_TESTS"] == "1"
