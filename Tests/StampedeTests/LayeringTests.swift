import Foundation
import Testing

/// The layering of docs/DESIGN.md, held: every import of the sources, and the picture of it.
@Suite struct LayeringTests {
  let design = repositoryRoot.appendingPathComponent("docs/DESIGN.md")
  let picture = repositoryRoot.appendingPathComponent("docs/layering.svg")

  @Test func everyImportOfTheSourcesIsOneTheTableAllows() throws {
    let layering = try Layering.parse(design: String(contentsOf: design, encoding: .utf8))
    let roots = ["Sources", "Examples"].map { repositoryRoot.appendingPathComponent($0) }
    let violations = try layering.violations(roots: roots, relativeTo: repositoryRoot)
    #expect(violations.isEmpty, "\(violations.joined(separator: "\n"))")
    let manifest = try String(contentsOf: repositoryRoot.appendingPathComponent("Package.swift"), encoding: .utf8)
    let dependencies = try layering.packageViolations(manifest: manifest)
    #expect(dependencies.isEmpty, "\(dependencies.joined(separator: "\n"))")
    #expect(manifest.contains(#"name: "Profiles", dependencies: ["#))
    // The table speaks of the targets there are, and the rules DESIGN states in words hold in it.
    #expect(layering.allowed("SimKernel")?.contains("Foundation") == false)
    for module in ["VirtualPlatform", "Combine", "AtomicXCore", "PushKit", "LiveCommunicationKit", "ImSDK_Plus"] {
      let allowed = try #require(layering.allowed(module))
      #expect(allowed.isDisjoint(with: ["Scenario", "Runner", "Profiles", "Oracles", "Reports"]), "\(module)")
    }
    #expect(layering.allowed("Oracles")?.contains("Scenario") == false)
    #expect(layering.allowed("ExampleApps")?.isDisjoint(with: ["Clients", "LiveStack", "SimKernel"]) == true)
  }

  @Test func aPlantedImportAgainstTheTableIsNamedWithItsFileAndLine() throws {
    let layering = try Layering.parse(design: String(contentsOf: design, encoding: .utf8))
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("layering-\(getpid())")
    defer { try? FileManager.default.removeItem(at: root) }
    let oracles = root.appendingPathComponent("Sources/Oracles")
    let vp = root.appendingPathComponent("Sources/VirtualPlatform")
    let stray = root.appendingPathComponent("Sources/Stray")
    for dir in [oracles, vp, stray] {
      try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }
    try "import LiveStack\n/* import Runner */\n// import Runner\n@testable import Scenario\n".write(
      to: oracles.appendingPathComponent("Bad.swift"), atomically: true, encoding: .utf8)
    try "import Clients\n\ninternal import struct Runner.Sweep\n".write(
      to: vp.appendingPathComponent("Sub.swift"), atomically: true, encoding: .utf8)
    try "import SimKernel\n".write(to: stray.appendingPathComponent("S.swift"), atomically: true, encoding: .utf8)
    let found = try layering.violations(roots: [root.appendingPathComponent("Sources")], relativeTo: root)
    let manifest = """
      .target(name: "Oracles", dependencies: ["SimKernel", "Scenario"]),
      .testTarget(name: "Anything", dependencies: ["Runner"]),
      """
    #expect(
      try layering.packageViolations(manifest: manifest) == [
        "Package.swift: Oracles depends on Scenario, which the layering table does not allow"
      ])
    #expect(
      found == [
        "Sources/Oracles/Bad.swift:4: Oracles imports Scenario, which the layering table does not allow",
        "Sources/Stray: module Stray has no row in the layering table",
        "Sources/VirtualPlatform/Sub.swift:3: VirtualPlatform imports Runner, which the layering table does not allow",
      ])
  }

  @Test func theImportParserReadsEveryFormOfImport() {
    let source = """
      import A
      @testable import B
      @_exported import C
      internal import D
      package import struct E.Thing
        public import F.Sub
      // import G
      /*
      import H
      */
      let importantValue = 1
      let template = \"\"\"
        import I
        \"\"\"
      """
    #expect(Layering.imports(in: source).map(\.module) == ["A", "B", "C", "D", "E", "F"])
    #expect(Layering.imports(in: source).map(\.line) == [1, 2, 3, 4, 5, 6])
  }

  /// The picture in DESIGN is drawn from the table; set `STAMPEDE_WRITE_PICTURES=1` to redraw it.
  @Test func thePictureOfTheLayeringIsDrawnFromTheTable() throws {
    let layering = try Layering.parse(design: String(contentsOf: design, encoding: .utf8))
    let drawn = layering.svg()
    if ProcessInfo.processInfo.environment["STAMPEDE_WRITE_PICTURES"] == "1" {
      try drawn.write(to: picture, atomically: true, encoding: .utf8)
    }
    let checkedIn = try String(contentsOf: picture, encoding: .utf8)
    #expect(
      checkedIn == drawn,
      "docs/layering.svg differs from the table: STAMPEDE_WRITE_PICTURES=1 swift test --filter LayeringTests")
    // Every module is in the picture, and an implied import is not drawn twice.
    for row in layering.rows { #expect(drawn.contains(">\(row.module)</text>")) }
    let edges = layering.drawnEdges()
    #expect(edges.contains { $0 == ("Scenario", "Profiles") })
    #expect(!edges.contains { $0 == ("Scenario", "SimKernel") })
    let layers = layering.layers()
    #expect(layers["CPrefetch"] == 0 && layers["SimKernel"] == 1 && layers["LiveStack"] == 2)
    for (from, to) in edges { #expect(layers[from]! > layers[to]!, "\(from) -> \(to)") }
  }
}

/// The sizes docs/DESIGN.md keeps the simulation core to, held: the world routes and the
/// components own their logic.
@Suite struct SizeTests {
  /// The Swift files under `folder`, with their line counts.
  func files(under folder: String) throws -> [(path: String, lines: Int)] {
    let root = repositoryRoot.appendingPathComponent(folder)
    let paths = FileManager.default.enumerator(atPath: root.path)?.compactMap { $0 as? String } ?? []
    return try paths.filter { $0.hasSuffix(".swift") }.sorted().map { path in
      let text = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
      return ("\(folder)/\(path)", text.split(separator: "\n", omittingEmptySubsequences: false).count - 1)
    }
  }

  @Test func theWorldAndTheScenarioStayWithinTheirSizes() throws {
    let scenario = try files(under: "Sources/Scenario")
    let world = scenario.filter { $0.path.hasPrefix("Sources/Scenario/LiveWorld") }
    #expect(world.count >= 3)
    let worldLines = world.map(\.lines).reduce(0, +)
    #expect(worldLines < 1_000, "the LiveWorld* files hold \(worldLines) lines")
    let scenarioLines = scenario.map(\.lines).reduce(0, +)
    #expect(scenarioLines < 2_500, "Sources/Scenario holds \(scenarioLines) lines")
    // The world's code is counted where it is: no extension of it in another file of its module.
    for file in scenario where !file.path.hasPrefix("Sources/Scenario/LiveWorld") {
      let text = try String(contentsOf: repositoryRoot.appendingPathComponent(file.path), encoding: .utf8)
      #expect(!text.contains("extension LiveWorld"), "\(file.path) extends LiveWorld")
    }
  }

  @Test func noSourceFileIsOverSixHundredLines() throws {
    for file in try files(under: "Sources") {
      #expect(file.lines <= 600, "\(file.path) has \(file.lines) lines")
    }
  }
}
