import Foundation
import Testing
import ToolSupport

@testable import Clients
@testable import Profiles
@testable import Runner
@testable import Scenario
@testable import SimKernel
@testable import StampedeCLI

@Suite struct ReproTests {
  func smokeRun(minutes: Int64 = 3) throws -> SimulationRun {
    let (profile, data) = try Profile.load(path: repositoryRoot.appendingPathComponent("profiles/smoke.json5").path)
    return SimulationRun(
      profile: profile, profilePath: "profiles/smoke.json5", profileData: data, seed: 4, duration: .minutes(minutes))
  }

  @Test func tracingNeverChangesTheRun() throws {
    let run = try smokeRun()
    let plain = run.execute()
    let recorder = TraceRecorder(filter: TraceFilter(), jsonl: nil, keep: true)
    let traced = run.execute(observer: recorder)
    #expect(plain.traceHash == traced.traceHash)
    // Every event, in order; a delivery handled behind its batch's leader shares its index.
    let indices = recorder.records.map(\.index)
    #expect(indices == indices.sorted())
    #expect(Array(Set(indices)).sorted() == Array(0..<traced.events))
    #expect(recorder.records.count > Int(traced.events))
  }

  /// Each answer and event that reaches a client is a line of its own, whether it came as its own
  /// event or behind another delivered to the same user at the same instant: the trace lists the
  /// same deliveries with the batching on and off.
  @Test func everyDeliveryIsTracedWhetherBatchedOrNot() throws {
    func deliveries(coalescing: Bool) throws -> [String] {
      var run = try smokeRun()
      run.coalescesEvents = coalescing
      let recorder = TraceRecorder(filter: TraceFilter(), jsonl: nil, keep: true)
      _ = run.execute(observer: recorder)
      return recorder.records.filter { ["clientReply", "clientNotice"].contains($0.description.kind) }.map {
        "\($0.timeNs) \($0.description.kind) \($0.description.users) \($0.description.detail)"
      }.sorted()
    }
    let batched = try deliveries(coalescing: true)
    #expect(batched.count > 1000)
    #expect(batched == (try deliveries(coalescing: false)))
  }

  @Test func anOnlyTraceHoldsExactlyTheEventsTouchingTheSelection() throws {
    let run = try smokeRun()
    let all = TraceRecorder(filter: TraceFilter(), jsonl: nil, keep: true)
    let result = run.execute(observer: all)
    let user = UInt32(205)
    let room = UInt32(2)
    let only = TraceRecorder(filter: TraceFilter.parse(["user:\(user),room:\(room)"])!, jsonl: nil, keep: true)
    _ = run.execute(observer: only)
    let layout = result.world.layout
    let expected = all.records.filter { r in
      let d = r.description
      return d.room == room || d.users.contains(user) || d.users.contains { layout.homeRoom[Int($0)] == room }
    }
    #expect(only.records.map(\.index) == expected.map(\.index))
    #expect(!expected.isEmpty && expected.count < all.records.count)
    // A viewer arriving over time starts in its arrival's event, which names it.
    #expect(only.records.contains { $0.description.users.first == user && $0.description.kind == "arrival" })
    #expect(TraceFilter.parse(["call:3"]) == nil)
    #expect(TraceFilter.parse(["user:x"]) == nil)
  }

  @Test func theJSONLinesAndThePerfettoFileAreValidJSON() throws {
    let run = try smokeRun()
    let path = ProcessTool.temporaryPath("trace", suffix: ".jsonl")
    _ = FileManager.default.createFile(atPath: path.path, contents: nil)
    let handle = try FileHandle(forWritingTo: path)
    let filter = TraceFilter.parse(["room:1"])!
    let recorder = TraceRecorder(filter: filter, jsonl: handle, keep: true)
    let result = run.execute(observer: recorder)
    recorder.flush()
    try handle.close()
    let lines = try String(contentsOf: path, encoding: .utf8).split(separator: "\n")
    #expect(lines.count == recorder.matched)
    for line in lines.prefix(500) {
      let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
      #expect(object["i"] is Int && object["tMs"] is Double && object["kind"] is String && object["detail"] is String)
    }
    let perfetto = PerfettoTrace.render(records: recorder.records, world: result.world, filter: filter)
    let doc = try JSONSerialization.jsonObject(with: Data(perfetto.utf8)) as! [String: Any]
    let events = doc["traceEvents"] as! [[String: Any]]
    #expect(Set(events.map { $0["ph"] as! String }).isSubset(of: ["M", "i", "b", "e"]))
    #expect(events.filter { $0["ph"] as! String != "M" }.allSatisfy { $0["ts"] is Double || $0["ts"] is Int })
    let begins = events.filter { $0["ph"] as! String == "b" }.count
    #expect(begins > 0 && begins == events.filter { $0["ph"] as! String == "e" }.count)
    #expect(events.contains { ($0["name"] as? String) == "thread_name" })
  }

  @Test func theDeterminismCheckPassesCleanRunsAndNamesAPlantedDivergence() throws {
    let run = try smokeRun(minutes: 10)
    #expect(DeterminismCheck.check(run).divergence == nil)
    let planted = DeterminismCheck.check(run, plant: true)
    let d = try #require(planted.divergence)
    #expect(d.description.contains("first divergent event #\(d.index)"))
    // The planted Set decides when samples are scheduled: the first difference is a sample.
    #expect(d.first?.kind == LiveEvent.sample.rawValue || d.second?.kind == LiveEvent.sample.rawValue)
    #expect(d.description.contains("sample"))
  }

  @Test func reproLinesSplitLikeAShell() {
    #expect(
      ShellWords.split("stampede run 'a b.json5' --seed 0x1") == ["stampede", "run", "a b.json5", "--seed", "0x1"])
    #expect(ShellWords.split("stampede run 'it'\\''s.json5' --seed 0x1")?[2] == "it's.json5")
    #expect(ShellWords.split("stampede run 'open") == nil)
    let path = "/tmp/o'dd <x>.json5"
    let line = "stampede run \(ShellQuote.quote(path)) --seed 0x2a --duration 1.5m"
    let r = Repro.parse(line)
    #expect(r?.profilePath == path && r?.seed == 42 && r?.duration == .seconds(90))
    let quirky = Repro.parse("stampede run p.json5 --seed 0x1 --quirk stale-invitation,duplicate-applicants")
    #expect(quirky?.quirks == [.staleInvitation, .duplicateApplicants])
    #expect(Repro.parse("stampede run p.json5 --seed 0x1 --quirk nope") == nil)
    let run = SimulationRun(
      profile: try! Profile.parse(Data(minimalProfile.utf8)), profilePath: "p.json5", profileData: Data(), seed: 1,
      quirks: [.duplicateApplicants, .staleInvitation])
    #expect(run.repro == "stampede run p.json5 --seed 0x1 --quirk duplicate-applicants,stale-invitation")
    #expect(run.profile.quirks == [.duplicateApplicants, .staleInvitation])
    #expect(Repro.parse("stampede run p.json5") == nil)
    #expect(Repro.parse("stampede run p.json5 --seed 1 --mistake x") == nil)
  }
}

/// A sweep of app code says once, past ten seeds, when memory held by app code grows by more
/// than 8 MB a seed, and what the range would need.
/// The executable's build ID keys "the same build" in history: it is read from the ELF file's
/// notes, is the same every time, and a file that is not ELF has none.
@Suite struct BuildIdentityTests {
  @Test func theBuildIDIsReadFromTheExecutable() throws {
    let id = try #require(BuildIdentity.current)
    #expect(id.count == 40 && id.allSatisfy(\.isHexDigit), "\(id)")
    #expect(BuildIdentity.read(FileHandle(forReadingAtPath: "/proc/self/exe")!) == id)
    let text = ProcessTool.temporaryFolder().appendingPathComponent("not-elf")
    try Data("#!/bin/sh\necho hello\n".utf8).write(to: text)
    #expect(BuildIdentity.read(try FileHandle(forReadingFrom: text)) == nil)
    // The tool's own binary has one, and it differs from the test runner's.
    let tool = repositoryRoot.appendingPathComponent(".build/debug/stampede").path
    if let handle = FileHandle(forReadingAtPath: tool), let other = BuildIdentity.read(handle) {
      #expect(other != id && other.count == 40)
    }
  }
}

@Suite struct LeakWatchTests {
  final class Memory: @unchecked Sendable { var bytes: UInt64 = 100 << 20 }

  @Test func growthPastTheThresholdIsSaidOnceWithWhatTheRangeNeeds() {
    let memory = Memory()
    let watch = LeakWatch(total: 1000, program: "call-app", allocated: { memory.bytes })
    var said: [String] = []
    for _ in 1...30 {
      if let w = watch.seedFinished() { said.append(w) }
      memory.bytes += 50 << 20
    }
    #expect(said.count == 1)
    #expect(said.first?.hasPrefix("call-app: warning: memory held by app code grows by about 50 MB a seed") == true)
    #expect(said.first?.contains("about 48.8 GB for 1000 seeds") == true, "\(said)")
  }

  @Test func steadyMemoryIsNotSaid() {
    let memory = Memory()
    let watch = LeakWatch(total: 1000, program: "call-app", allocated: { memory.bytes })
    var said = 0
    for k in 1...40 {
      if watch.seedFinished() != nil { said += 1 }
      // A seed's world comes and goes: up and down, no trend (and a small one under 8 MB).
      memory.bytes = (100 << 20) + UInt64(k % 3) * (30 << 20) + UInt64(k) * (1 << 20)
    }
    #expect(said == 0)
  }
}
