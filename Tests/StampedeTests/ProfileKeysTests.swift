import Foundation
import Testing
import ToolSupport

@testable import Profiles
@testable import Runner
@testable import Scenario

/// The table of profile keys and what is written from it: every error at once, checks across
/// keys, defaults, `extends`, `profile show|schema|keys|init`, and the docs.
@Suite struct ProfileKeysTests {
  static let shipped: [String] = {
    let names =
      (try? FileManager.default.contentsOfDirectory(atPath: repositoryRoot.appendingPathComponent("profiles").path))
      ?? []
    return names.filter { $0.hasSuffix(".json5") }.sorted().map { "profiles/" + $0 }
  }()

  static func tree(_ text: String) throws -> JSONValue { try JSONValue.parse(json5: Data(text.utf8)) }

  /// The paths of every error a profile text has.
  static func errors(_ text: String) throws -> [String] {
    ProfileKeys.check(try tree(text)).map(\.path)
  }

  // MARK: The table

  @Test func everyKeyHasOnePathAndAParentThatIsASection() {
    var seen = Set<String>()
    for k in ProfileKeys.all {
      #expect(seen.insert(k.path).inserted, "\(k.path) twice")
      #expect(!k.meaning.isEmpty, "\(k.path) has no meaning")
      guard !k.parent.isEmpty else { continue }
      let parentPath = k.parent.hasSuffix("[]") ? String(k.parent.dropLast(2)) : k.parent
      guard let parent = ProfileKeys.byPath[parentPath] else {
        Issue.record("\(k.path): no key \(parentPath)")
        continue
      }
      switch parent.kind {
      case .section, .objects, .faults: break
      default: Issue.record("\(k.path): \(parentPath) is not an object")
      }
    }
  }

  @Test func everyDefaultValueIsValidForItsKey() {
    for k in ProfileKeys.all {
      guard case .value(let v) = k.fallback else { continue }
      var checker = TreeChecker(limit: 10)
      checker.value(ProfileNode(path: k.path, value: v), k.kind, table: k.path)
      #expect(checker.errors.isEmpty, "\(k.path): \(checker.errors.map(\.message))")
    }
  }

  @Test(arguments: shipped) func resolvingIsIdempotentAndKeepsTheProfile(path: String) throws {
    let tree = try ProfileSource.tree(path: repositoryRoot.appendingPathComponent(path).path)
    let resolved = ProfileKeys.resolve(tree)
    #expect(ProfileKeys.resolve(resolved) == resolved)
    #expect(ProfileKeys.check(resolved).isEmpty, "\(ProfileKeys.check(resolved).map(\.description))")
    // What the reader takes from the resolved tree is what it took from the file: the same run.
    let a = try Profile.read(ProfileNode(path: "", value: tree))
    let b = try Profile.read(ProfileNode(path: "", value: resolved))
    #expect(canonical(a) == canonical(b))
    // And the same run, where one is cheap enough for the fast suite (a world's construction
    // dominates the larger ones; `make test-long` runs them all).
    if longTestsEnabled || ["smoke", "mistakes", "nightly-chaos"].contains(where: { path.contains($0) }) {
      #expect(shortRunHash(a) == shortRunHash(b))
    }
  }

  /// Every stored value of `value`, recursively, with sets in sorted order: two profiles read the
  /// same when their canonical texts are equal.
  func canonical(_ value: Any) -> String {
    let mirror = Mirror(reflecting: value)
    switch mirror.displayStyle {
    case .set:
      return "set{" + mirror.children.map { canonical($0.value) }.sorted().joined(separator: ",") + "}"
    case .struct, .class, .tuple, .enum, .optional, .collection, .dictionary:
      if mirror.children.isEmpty { return "\(mirror.subjectType):\(value)" }
      let parts = mirror.children.map { ($0.label ?? "") + "=" + canonical($0.value) }
      return "\(mirror.subjectType)("
        + (mirror.displayStyle == .dictionary ? parts.sorted() : parts).joined(separator: ",") + ")"
    default:
      return "\(value)"
    }
  }

  @Test func theCanonicalTextOfAProfileSeesAChangedValueAndIgnoresSetOrder() throws {
    let base = try Profile.parse(Data(minimalProfile.utf8))
    var other = base
    #expect(canonical(base) == canonical(other))
    other.seats.applyTimeout = .seconds(31)
    #expect(canonical(base) != canonical(other))
    var a = base
    var b = base
    a.invariantsOff = ["x", "y", "z", "w"]
    b.invariantsOff = ["w", "z"]
    b.invariantsOff.formUnion(["y", "x"])
    #expect(canonical(a) == canonical(b))
    b.invariantsOff.remove("w")
    #expect(canonical(a) != canonical(b))
  }

  func shortRunHash(_ p: Profile) -> String {
    var run = SimulationRun(profile: p, profilePath: "p", profileData: Data(), seed: 3, duration: .seconds(20))
    run.program = "stampede"
    return run.report(run.execute(), startedAt: Date()).traceHash
  }

  @Test func theDefaultsAreTheTablesNotTheReadersOwn() throws {
    // A default changed in the table changes what is parsed: the reader reads the resolved tree.
    let base = TestProfile(minimalProfile)
    let parsed = try Profile.parse(Data(base.text.utf8))
    #expect(parsed.seats.applyTimeout == .seconds(30))
    let resolved = ProfileKeys.resolve(try Self.tree(base.text))
    #expect(resolved.value(at: "seats.applyTimeout") == .string("30s"))
    #expect(resolved.value(at: "seats.packageLimit") == resolved.value(at: "seats.maxSeatCount"))
    #expect(resolved.value(at: "admin.thinkTime") == resolved.value(at: "host.thinkTime"))
    #expect(resolved.value(at: "admin.endLiveAfter") == .null)
    #expect(resolved.value(at: "calls") == .null)
  }

  // MARK: Every error at once, in profile terms

  @Test func fivePlantedErrorsAreAllReportedWithTheirKeyPaths() throws {
    let text = """
      {
        name: "five", duration: "10m",
        population: { rooms: 3, audiencePerRoom: "ten" },
        seats: { maxSeatCount: 4, mode: "sometimes" },
        audience: { stay: "5m", applyProbabilty: 0.2 },
        host: { thinkTime: "2s", movePolicies: ["swapPosition", 7] },
        thresholds: [5],
      }
      """
    let paths = try Self.errors(text)
    #expect(
      paths == [
        "population.audiencePerRoom", "seats.mode", "audience.applyProbabilty", "host.movePolicies[1]", "thresholds[0]",
      ])
  }

  @Test func typeErrorsInsideListsAndFaultEntriesNameTheirPathInProfileTerms() throws {
    let text = """
      {
        name: "lists", duration: "10m",
        population: { rooms: 3, audiencePerRoom: 10 },
        seats: { maxSeatCount: 4 }, audience: { stay: "5m" }, host: { thinkTime: "2s" },
        calls: { users: 10, push: { certificates: [{ id: "one" }] } },
        invariants: { off: ["seat.nothing"] },
        faults: { plan: [{ kind: "push.drop", rate: 5 }, [{ kind: "network.delya" }], { kind: "network.delay", extra: 9 }] },
      }
      """
    let errors = ProfileKeys.check(try Self.tree(text))
    #expect(
      errors.map(\.path) == [
        "calls.push.certificates[0].id", "invariants.off[0]", "faults.plan[0].rate", "faults.plan[1][0].kind",
        "faults.plan[2].extra",
      ])
    for e in errors { #expect(!e.message.contains("DecodingError") && !e.message.contains("Dictionary<")) }
    #expect(errors[3].message.contains("\"network.delay\""))
  }

  @Test func theErrorsStopAtTheCap() throws {
    let keys = (0..<80).map { "x\($0): 1" }.joined(separator: ", ")
    let errors = ProfileKeys.check(try Self.tree("{ \(keys) }"))
    #expect(errors.count == ProfileKeys.errorLimit)
  }

  @Test func parsingThrowsTheFirstErrorWithTheOthersAttached() throws {
    let text = TestProfile(minimalProfile).with("seats.mode", json5: "\"x\"").with("host.lockFor", json5: "3").text
    do {
      _ = try Profile.parse(Data(text.utf8))
      Issue.record("parsed")
    } catch {
      #expect(error.all.map(\.path) == ["seats.mode", "host.lockFor"])
    }
  }

  // MARK: Checks across keys

  @Test(arguments: [
    (
      "faults", #"[{ kind: "network.partition", target: "room:7", at: "1m", for: "1m" }]"#, "faults[0].target",
      "names room 7, beyond the 3 rooms (0 to 2)"
    ),
    ("faults", #"[{ kind: "network.loss", rate: "1%", target: "rooms[1..3]" }]"#, "faults[0].target", "names room 3"),
    (
      "faults", #"[{ kind: "network.loss", rate: "1%", target: "user:40" }]"#, "faults[0].target",
      "names user 40, beyond the 33 users"
    ),
    (
      "faults", #"[{ kind: "network.loss", rate: "1%", target: "role:admin" }]"#, "faults[0].target",
      "population.adminsPerRoom is 0"
    ),
    (
      "faults", #"[{ kind: "network.loss", rate: "1%", target: "role:phone" }]"#, "faults[0].target", "no calls section"
    ),
    (
      "faults", #"{ plan: [{ kind: "server.outage", at: "2h", for: "1m" }] }"#, "faults.plan[0].at",
      "the window opens at 2h, when faults have healed"
    ),
    ("faults", #"[{ kind: "server.outage", at: "89m", for: "20s" }]"#, "faults[0].at", "when faults have healed"),
    (
      "faults", #"[{ kind: "server.outage", at: "10m", for: "2h" }]"#, "faults[0].for",
      "the window ends at 130m, after the run's end (1.5h)"
    ),
    ("faults", #"{ heal: "2h", plan: "swarm" }"#, "faults.heal", "must be shorter than the duration"),
    (
      "workload", #"{ flashCrowd: { at: "90m", fraction: 0.1 } }"#, "workload.flashCrowd.at", "not before the run's end"
    ),
    (
      "workload", #"{ coHosting: { fraction: 1, after: "1m", duration: "5m" } }"#, "workload.coHosting.fraction",
      "there is 1 room"
    ),
    ("seats", #"{ maxSeatCount: 4, packageLimit: 6 }"#, "seats.packageLimit", "must not exceed maxSeatCount (4)"),
    ("calls", #"{ users: 3, maxGroupCallees: 4 }"#, "calls.maxGroupCallees", "at most 2 callees among 3"),
    (
      "audience", #"{ stay: "5m", applyProbability: 0.5, maxApplies: 0 }"#, "audience.maxApplies",
      "no viewer could apply"
    ),
    ("arrival", #"{ pattern: "ramp" }"#, "arrival.over", "required key is missing (for the ramp pattern)"),
  ])
  func aContradictionIsReportedAtItsKey(key: String, json5: String, path: String, fragment: String) throws {
    var p = TestProfile(minimalProfile).with("duration", json5: "\"90m\"").with("population.rooms", json5: "3")
      .with("population.audiencePerRoom", json5: "10")
    if key == "workload" && json5.contains("coHosting") { p = p.with("population.rooms", json5: "1") }
    let errors = ProfileKeys.check(try Self.tree(p.with(key, json5: json5).text))
    let hit = errors.first { $0.path == path }
    #expect(hit?.message.contains(fragment) == true, "\(errors.map(\.description))")
  }

  @Test func theShippedProfilesAndWindowsWithinTheRunPassEveryCheck() throws {
    for path in Self.shipped {
      let tree = try ProfileSource.tree(path: repositoryRoot.appendingPathComponent(path).path)
      #expect(ProfileKeys.check(tree).isEmpty, "\(path): \(ProfileKeys.check(tree).map(\.description))")
    }
    let inside = TestProfile(minimalProfile).with("duration", json5: "\"90m\"")
      .with("faults", json5: #"[{ kind: "server.outage", at: "80m", for: "8m" }, { kind: "push.drop", rate: "1%" }]"#)
    #expect(ProfileKeys.check(try Self.tree(inside.text)).isEmpty)
  }

  @Test func aShorterRunDropsTheWindowsItHasNoRoomFor() throws {
    let text = TestProfile(minimalProfile).with("duration", json5: "\"10m\"")
      .with("workload", json5: #"{ flashCrowd: { at: "20m", fraction: 0.1 } }"#)
      .with(
        "faults",
        json5:
          #"{ heal: "1m", plan: [{ kind: "server.outage", at: "9m30s", for: "1m" }, [{ kind: "network.delay", at: "5m", for: "20m" }]] }"#
      ).text
    let tree = try Self.tree(text)
    #expect(!ProfileKeys.check(tree).isEmpty)
    let fitted = ProfileKeys.fittingWindows(tree)
    #expect(ProfileKeys.check(fitted).isEmpty, "\(ProfileKeys.check(fitted).map(\.description))")
    #expect(fitted.value(at: "workload.flashCrowd") == .null)
    #expect(
      fitted.value(at: "faults.plan")
        == .array([.array([.object(["kind": "network.delay", "at": "5m", "for": "5m"])])]))
  }

  // MARK: extends

  @Test func extendsDeepMergesObjectsAndReplacesLists() throws {
    let folder = Tool.temporaryFolder()
    let base = folder.appendingPathComponent("base.json5")
    try TestProfile(minimalProfile).with("thresholds", json5: #"["invariants.violations == 0"]"#).text
      .write(to: base, atomically: true, encoding: .utf8)
    try FileManager.default.createDirectory(at: folder.appendingPathComponent("sub"), withIntermediateDirectories: true)
    let child = folder.appendingPathComponent("sub/child.json5")
    try
      #"{ extends: "../base.json5", name: "child", seats: { packageLimit: 1 }, thresholds: ["counter.seat.connected >= 0"] }"#
      .write(to: child, atomically: true, encoding: .utf8)
    let merged = try ProfileSource.tree(path: child.path)
    let baseTree = try ProfileSource.tree(path: base.path)
    #expect(merged.value(at: "name") == "child")
    #expect(merged.value(at: "seats.packageLimit") == 1)
    #expect(merged.value(at: "seats.maxSeatCount") == baseTree.value(at: "seats.maxSeatCount"))
    #expect(merged.value(at: "thresholds") == .array(["counter.seat.connected >= 0"]))
    #expect(merged.value(at: "extends") == nil)
    // The sha256 covers the resolved profile: the child and its merged text agree.
    let loaded = try Profile.load(path: child.path)
    let flat = folder.appendingPathComponent("flat.json5")
    try JSON5Writer.write(merged).write(to: flat, atomically: true, encoding: .utf8)
    let flatLoaded = try Profile.load(path: flat.path)
    #expect(SHA256.profile(loaded.data, sets: []) == SHA256.profile(flatLoaded.data, sets: []))
    #expect(SHA256.profile(loaded.data, sets: []) != SHA256.profile(Data(JSON5Writer.write(baseTree).utf8), sets: []))
  }

  @Test func aCycleOrAMissingBaseIsAnErrorAtExtends() throws {
    let folder = Tool.temporaryFolder()
    let a = folder.appendingPathComponent("a.json5")
    let b = folder.appendingPathComponent("b.json5")
    try #"{ extends: "b.json5", name: "a" }"#.write(to: a, atomically: true, encoding: .utf8)
    try #"{ extends: "./a.json5" }"#.write(to: b, atomically: true, encoding: .utf8)
    do {
      _ = try ProfileSource.tree(path: a.path)
      Issue.record("a cycle was read")
    } catch {
      #expect(error.path == "extends")
      #expect(error.message.contains("cycle: a.json5 → b.json5 → a.json5"), "\(error.message)")
    }
    try #"{ extends: "nowhere.json5" }"#.write(to: a, atomically: true, encoding: .utf8)
    do {
      _ = try ProfileSource.tree(path: a.path)
      Issue.record("a missing base was read")
    } catch {
      #expect(error.path == "extends" && error.message.contains("no base profile at"))
      #expect(error.file == a.path)
    }
    try #"{ extends: 3 }"#.write(to: a, atomically: true, encoding: .utf8)
    #expect(throws: ProfileError.self) { try ProfileSource.tree(path: a.path) }
  }

  // MARK: Written from the table

  @Test func theCheckedInSchemaIsTheGeneratedOne() throws {
    let checkedIn = try String(
      contentsOf: repositoryRoot.appendingPathComponent("profiles/schema.json"), encoding: .utf8)
    #expect(
      checkedIn == JSON5Writer.json(ProfileKeys.schema()) + "\n",
      "run: stampede profile schema --out profiles/schema.json")
  }

  @Test func theDocsKeyTablesAreTheKeyTable() throws {
    let doc = try String(contentsOf: repositoryRoot.appendingPathComponent("docs/PROFILES.md"), encoding: .utf8)
    for (heading, _) in ProfileKeys.documented {
      let table = ProfileKeys.markdownTable(heading: heading)!
      #expect(doc.contains("### \(heading)"), "no heading \(heading)")
      #expect(
        doc.contains(table), "docs/PROFILES.md's table under \(heading) is not the key table (stampede profile keys)")
    }
    let general = ProfileKeys.markdown().components(separatedBy: "### Lists, checks, faults and bases\n\n")[1]
    #expect(doc.contains(general))
  }
}

/// `stampede profile` and `validate` through the built binary.
@Suite(.serialized) struct ProfileCommandTests {
  @Test func everyShippedProfileValidatesAgainstTheSchemaWithPythonsJsonschema() throws {
    let folder = Tool.temporaryFolder()
    var files: [String] = []
    for path in ProfileKeysTests.shipped {
      let r = try Tool.run(["profile", "show", path, "--as-written", "--json"])
      #expect(r.status == 0, "\(r.stderr)")
      let file = folder.appendingPathComponent((path as NSString).lastPathComponent + ".json")
      try r.stdout.write(to: file, atomically: true, encoding: .utf8)
      files.append(file.path)
    }
    // A profile the schema must refuse: proof that it checks something.
    let bad = folder.appendingPathComponent("bad.json")
    try
      #"{"name": "bad", "duration": "10 minutes", "population": {"rooms": 0, "audiencePerRoom": 1}, "seats": {"maxSeatCount": 1}, "audience": {"stay": "1m"}, "host": {"thinkTime": "1s"}, "colour": "red"}"#
      .write(to: bad, atomically: true, encoding: .utf8)
    let script = """
      import json, sys, jsonschema
      schema = json.load(open(sys.argv[1]))
      jsonschema.Draft202012Validator.check_schema(schema)
      v = jsonschema.Draft202012Validator(schema)
      for f in sys.argv[2:]:
          errors = sorted(".".join(map(str, e.absolute_path)) or "(top)" for e in v.iter_errors(json.load(open(f))))
          print(f.rsplit("/", 1)[-1], "ok" if not errors else " ".join(errors))
      """
    let p = try ProcessTool.runExternal(
      "python3",
      ["-c", script, repositoryRoot.appendingPathComponent("profiles/schema.json").path] + files + [bad.path])
    #expect(p.status == 0, "python3 with jsonschema is needed (scripts/bootstrap installs it): \(p.stderr)")
    let lines = p.stdout.split(separator: "\n").map(String.init)
    #expect(lines.count == files.count + 1)
    for line in lines.dropLast() { #expect(line.hasSuffix(" ok"), "\(line)") }
    #expect(lines.last == "bad.json (top) duration population.rooms", "\(lines.last ?? "")")
  }

  @Test func profileShowRevalidatesToTheSameSha256AsTheRunsReport() throws {
    let folder = Tool.temporaryFolder()
    let show = try Tool.run(["profile", "show", "profiles/smoke.json5", "--set", "seats.packageLimit=5"])
    #expect(show.status == 0, "\(show.stderr)")
    let firstLine = show.stdout.split(separator: "\n").first.map(String.init) ?? ""
    let sha = firstLine.components(separatedBy: "sha256 ").last ?? ""
    #expect(sha.count == 64)
    #expect(show.stdout.contains("// connected co-guests allowed by the plan"))
    let shown = folder.appendingPathComponent("shown.json5")
    try show.stdout.write(to: shown, atomically: true, encoding: .utf8)
    let again = try Tool.run(["profile", "show", shown.path])
    #expect(again.stdout.split(separator: "\n").first.map(String.init)?.hasSuffix("sha256 " + sha) == true)
    let out = folder.appendingPathComponent("r")
    let run = try Tool.run([
      "run", "profiles/smoke.json5", "--set", "seats.packageLimit=5", "--duration", "30s", "--out", out.path, "--quiet",
    ])
    #expect(run.status == 0, "\(run.stderr)")
    let report = try Tool.report(at: out)
    #expect((report["profile"] as? [String: Any])?["sha256"] as? String == sha)
    let runShown = try Tool.run(["run", shown.path, "--duration", "30s", "--out", out.path, "--quiet"])
    #expect(runShown.status == 0, "\(runShown.stderr)")
    #expect((try Tool.report(at: out)["traceHash"] as? String) == report["traceHash"] as? String)
  }

  @Test func validateReportsEveryErrorWithACount() throws {
    let folder = Tool.temporaryFolder()
    let file = folder.appendingPathComponent("five.json5")
    try """
    {
      name: "five", duration: "90m",
      population: { rooms: 3, audiencePerRoom: 10 },
      seats: { maxSeatCount: 4, packageLimit: 6 },
      audience: { stay: "5m", seatTim: "1m" },
      host: { thinkTime: 2 },
      thresholds: ["seat.apply_to_response.p95 < 3s", "seat.apply_to_respons.p99 < 3s"],
      faults: [{ kind: "network.partition", target: "room:7", at: "2h", for: "1m" }],
    }
    """.write(to: file, atomically: true, encoding: .utf8)
    let r = try Tool.run(["validate", file.path])
    #expect(r.status == 2)
    let lines = r.stderr.split(separator: "\n").map(String.init)
    #expect(
      lines.map { $0.components(separatedBy: ": ").dropFirst().first ?? "" } == [
        "audience.seatTim", "host.thinkTime", "thresholds[1]", "seats.packageLimit", "faults[0].at", "faults[0].target",
        "6 errors",
      ], "\(r.stderr)")
  }

  @Test(arguments: ["evening", "flash-crowd", "calls", "chaos"])
  func everyStarterValidatesAsItIs(template: String) throws {
    let file = Tool.temporaryFolder().appendingPathComponent("\(template).json5")
    let r = try Tool.run(["profile", "init", "--template", template, "--out", file.path])
    #expect(r.status == 0, "\(r.stderr)")
    let text = try String(contentsOf: file, encoding: .utf8)
    #expect(text.hasPrefix("// "))
    let v = try Tool.run(["validate", file.path])
    #expect(v.status == 0, "\(v.stderr)")
    let again = try Tool.run(["profile", "init", "--template", template, "--out", file.path])
    #expect(again.status == 2 && again.stderr.contains("exists; pass --force"))
  }

  @Test func profileSubcommandsRefuseWhatTheyDoNotKnow() throws {
    let unknown = try Tool.run(["profile", "shwo", "profiles/smoke.json5"])
    #expect(unknown.status == 2 && unknown.stderr.contains("did you mean 'show'?"))
    let template = try Tool.run(["profile", "init", "--template", "evenign"])
    #expect(template.status == 2 && template.stderr.contains("did you mean 'evening'?"))
    let none = try Tool.run(["profile"])
    #expect(none.status == 2)
    let keys = try Tool.run(["profile", "keys"])
    #expect(keys.status == 0)
    for k in ProfileKeys.all
    where !k.path.hasPrefix("admin.") && !k.path.hasPrefix("server.seats")
      && !k.path.hasPrefix("server.login") && !k.path.hasPrefix("server.calls") && !k.path.hasPrefix("server.push")
    {
      if case .section = k.kind { continue }
      #expect(keys.stdout.contains("`\(k.path)`"), "\(k.path) missing from profile keys")
    }
    let schema = try Tool.run(["profile", "schema"])
    #expect(schema.status == 0)
    #expect((try? JSONSerialization.jsonObject(with: Data(schema.stdout.utf8))) != nil)
  }

  @Test func aProfileExtendingAnotherRunsFromAnyDirectory() throws {
    let folder = Tool.temporaryFolder()
    let child = folder.appendingPathComponent("child.json5")
    let smoke = repositoryRoot.appendingPathComponent("profiles/smoke.json5").path
    try "{ extends: \"\(smoke)\", name: \"child\", calls: null }".write(to: child, atomically: true, encoding: .utf8)
    let r = try Tool.run([
      "run", child.path, "--duration", "30s", "--quiet", "--out", folder.appendingPathComponent("r").path,
    ])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stdout == "child seed 0x1: PASS\n")
    let cycle = folder.appendingPathComponent("cycle.json5")
    try "{ extends: \"cycle.json5\" }".write(to: cycle, atomically: true, encoding: .utf8)
    let c = try Tool.run(["validate", cycle.path])
    #expect(c.status == 2 && c.stderr.contains("extends: profiles extend each other in a cycle"))
  }
}
