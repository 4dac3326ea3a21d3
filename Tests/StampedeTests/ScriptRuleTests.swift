import Foundation
import Testing

/// The project's scripts touch only what is theirs: no process is stopped by name, nothing is
/// written outside the script's own work directory or an install PREFIX.
@Suite(.serialized) struct ScriptRuleTests {
  /// Every shell script the project ships or runs: scripts/, deploy/ and CI's.
  static func scripts() throws -> [(path: String, text: String)] {
    var files: [(String, String)] = []
    for folder in ["scripts", "deploy", ".ci"] {
      let url = repositoryRoot.appendingPathComponent(folder)
      for name in try FileManager.default.contentsOfDirectory(atPath: url.path).sorted() {
        let text = try String(contentsOf: url.appendingPathComponent(name), encoding: .utf8)
        files.append(("\(folder)/\(name)", text))
      }
    }
    return files
  }

  /// The lines of `text` that are code (comments dropped).
  static func code(_ text: String) -> [(number: Int, line: String)] {
    text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().compactMap { i, raw in
      let line = raw.trimmingCharacters(in: .whitespaces)
      return line.hasPrefix("#") ? nil : (i + 1, String(line))
    }
  }

  /// What a script may not do: stop processes by name, or write into the system's folders.
  static let forbidden: [(pattern: String, why: String)] = [
    (#"\b(pkill|killall)\b"#, "stops processes by name"),
    (
      #"(>|>>|\btee\b|\bmkdir\b|\bcp\b|\bmv\b|\bchown\b|\bchmod\b|\brm\b|\bln\b)[^|;&]*\s/(etc|var|run|usr|opt)/"#,
      "writes into a system folder"
    ),
  ]

  static func violations(in files: [(path: String, text: String)]) -> [String] {
    var found: [String] = []
    for (path, text) in files {
      for (number, line) in code(text) {
        for rule in forbidden where line.range(of: rule.pattern, options: .regularExpression) != nil {
          found.append("\(path):\(number): \(rule.why): \(line)")
        }
      }
    }
    return found
  }

  @Test func everyScriptStopsOnlyWhatItStartedAndWritesOnlyItsOwn() throws {
    let files = try ScriptRuleTests.scripts()
    #expect(files.contains { $0.path == "scripts/slurm-check" })
    #expect(ScriptRuleTests.violations(in: files) == [])
  }

  @Test func theRuleCatchesAPlantedKillByNameAndAWriteUnderEtc() {
    let planted = [
      (
        "scripts/bad",
        "#!/bin/sh\n# pkill -x in a comment is fine\npkill -x slurmctld\necho hi > /etc/slurm/slurm.conf\n"
      )
    ]
    #expect(
      ScriptRuleTests.violations(in: planted) == [
        "scripts/bad:3: stops processes by name: pkill -x slurmctld",
        "scripts/bad:4: writes into a system folder: echo hi > /etc/slurm/slurm.conf",
      ])
  }

  /// Runs scripts/slurm-check with `arguments`; returns its status and standard error.
  func slurmCheck(_ arguments: [String]) throws -> (status: Int32, stderr: String) {
    // Standard error goes to a file, not a pipe: a process started meanwhile (the stand-in
    // controller) could inherit a pipe's end and hold it open.
    let errURL = FileManager.default.temporaryDirectory.appendingPathComponent("slurm-check-\(getpid()).err")
    FileManager.default.createFile(atPath: errURL.path, contents: nil)
    defer { try? FileManager.default.removeItem(at: errURL) }
    let p = Process()
    p.executableURL = repositoryRoot.appendingPathComponent("scripts/slurm-check")
    p.arguments = arguments
    p.standardError = try FileHandle(forWritingTo: errURL)
    p.standardOutput = FileHandle.nullDevice
    try p.run()
    p.waitUntilExit()
    return (p.terminationStatus, try String(contentsOf: errURL, encoding: .utf8))
  }

  @Test func slurmCheckRefusesBesideAControllerItDidNotStart() throws {
    // A stand-in process named slurmctld (a copy of sleep), started and stopped here by its PID.
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("slurm-standin-\(getpid())")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let standIn = folder.appendingPathComponent("slurmctld")
    try FileManager.default.copyItem(at: URL(fileURLWithPath: "/bin/sleep"), to: standIn)
    let controller = Process()
    controller.executableURL = standIn
    controller.arguments = ["60"]
    try controller.run()
    defer {
      kill(controller.processIdentifier, SIGKILL)
      controller.waitUntilExit()
    }
    let r = try slurmCheck([])
    #expect(r.status == 2)
    #expect(r.stderr.contains("a slurmctld is already running here (pid"))
    #expect(r.stderr.contains("--force-private"))
    #expect(controller.isRunning, "the controller it did not start runs on")
  }

  @Test func slurmCheckNamesAnUnknownArgumentAndHasHelp() throws {
    let bad = try slurmCheck(["--frce-private"])
    #expect(bad.status == 2 && bad.stderr.contains("unknown argument '--frce-private'"))
    #expect(try slurmCheck(["--help"]).status == 0)
  }
}
