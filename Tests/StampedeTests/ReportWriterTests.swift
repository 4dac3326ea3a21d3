import Foundation
import Testing
import ToolSupport

@testable import Metrics
@testable import Profiles
@testable import Reports
@testable import Scenario

#if canImport(FoundationXML)
  import FoundationXML
#endif

/// Counts test cases and failures of a JUnit document, and fails on malformed XML.
final class JUnitReader: NSObject, XMLParserDelegate {
  var cases = 0
  var failures = 0
  var names: [String] = []
  var suiteFailures: Int?

  func parser(
    _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
    attributes: [String: String] = [:]
  ) {
    if name == "testcase" {
      cases += 1
      names.append(attributes["name"] ?? "")
    }
    if name == "failure" { failures += 1 }
    if name == "testsuite" { suiteFailures = Int(attributes["failures"] ?? "") }
  }

  static func read(_ text: String) -> JUnitReader? {
    let reader = JUnitReader()
    let parser = XMLParser(data: Data(text.utf8))
    parser.delegate = reader
    return parser.parse() ? reader : nil
  }
}

@Suite struct ReportWriterTests {
  /// A report whose every free-text field is hostile.
  func hostileReport() throws -> RunReport {
    var r = sampleReport(
      name: "x\"><b>bold</b>", repro: "stampede run '/tmp/<script>alert(1)</script>.json5' --seed 0x1")
    r.invariants[2].violations = 3
    r.invariants[2].first = RunReport.FirstViolation(
      atMs: 1234.5, entities: ["room:<1>"], message: "seat <img src=x onerror=alert(2)> & \"quotes\" | pipe",
      excerpt: ["</pre><script>alert(3)</script>", "control \u{1}\u{8} chars"])
    r.counters["weird&<name>"] = 5
    var h = Histogram()
    for i in 1...1000 as ClosedRange<UInt64> { h.record(i * i * 1000) }
    r.latencies["seat.accept_to_connected"] = LatencySummary(h)
    r.timeSeries = RunReport.Series(
      intervalMs: 1000, timesMs: [0, 1000, 2000], columns: ["seats.occupied": [0, 3, 2]])
    r.evaluate([
      try Threshold.parse("seat.apply_to_response.p99 < 2s"), try Threshold.parse("counter.seat.connected > 0"),
    ])
    return r
  }

  @Test func theHTMLEscapesEveryStringAndLoadsNothingFromOutside() throws {
    let html = HTMLReport.render(try hostileReport())
    #expect(html.components(separatedBy: "<script").count == 2, "only the page's own script")
    #expect(!html.contains("<img"))
    #expect(!html.contains("<b>bold"))
    #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
    #expect(html.contains("seat &lt;img src=x onerror=alert(2)&gt; &amp; &quot;quotes&quot;"))
    #expect(html.contains("&lt;/pre&gt;&lt;script&gt;alert(3)"))
    #expect(html.contains("weird&amp;&lt;name&gt;"))
    for external in ["http://", "https://", "src=\"", "@import", "url("] {
      #expect(!html.contains(external), "\(external)")
    }
    // Links stay inside the page.
    #expect(html.components(separatedBy: "href=\"").dropFirst().allSatisfy { $0.hasPrefix("#") })
    #expect(html.contains("<svg"))
    #expect(html.contains("FAIL"))
  }

  @Test func theJUnitFileIsValidXMLWithACasePerInvariantAndThreshold() throws {
    let r = try hostileReport()
    let xml = JUnitReport.render(r)
    let reader = try #require(JUnitReader.read(xml))
    #expect(reader.cases == 1 + r.invariants.count + r.thresholds.count)
    #expect(reader.failures == 2)
    #expect(reader.suiteFailures == 2)
    #expect(reader.names.contains("seat.capacity"))
    #expect(reader.names.contains("seat.apply_to_response.p99 < 2s"))
    #expect(!xml.contains("\u{1}"))
  }

  @Test func theHeaderNamesEveryFailureWithItsValueAndTheFailuresComeFirst() throws {
    let html = HTMLReport.render(try hostileReport())
    let header = html.components(separatedBy: "</header>")[0]
    #expect(
      header.contains("<a href=\"#invariants\">invariant <code>seat.capacity</code></a>: 3 violations; first at 1.23 s")
    )
    #expect(
      header.contains(
        "<a href=\"#thresholds\">threshold <code>seat.apply_to_response.p99 &lt; 2s</code></a>: measured 2.50 s"))
    let table = html.components(separatedBy: "id=\"invariants\"")[1]
    let firstRow = table.components(separatedBy: "<tr class=")[1]
    #expect(firstRow.hasPrefix("\"bad\"><td><code>seat.capacity</code>"))
    // A failed threshold without a violation puts the thresholds above the invariants.
    var r = sampleReport()
    r.evaluate([try Threshold.parse("counter.seat.connected > 100"), try Threshold.parse("counter.seat.connected > 0")])
    let page = HTMLReport.render(r)
    let thresholdsAt = try #require(page.range(of: "id=\"thresholds\""))
    let invariantsAt = try #require(page.range(of: "id=\"invariants\""))
    #expect(thresholdsAt.lowerBound < invariantsAt.lowerBound)
    #expect(
      r.failures == [RunReport.Failure(kind: "threshold", name: "counter.seat.connected > 100", detail: "measured 7")])
    #expect(r.thresholdsFailuresFirst.map(\.passed) == [false, true])
  }

  @Test func aSteeredRunMeasuresItsThresholdsButIsJudgedByItsInvariantsAlone() throws {
    var r = sampleReport()
    r.evaluate(
      [try Threshold.parse("counter.seat.connected > 100"), try Threshold.parse("counter.seat.connected > 0")],
      steered: true)
    #expect(r.verdict == "pass" && r.failures.isEmpty && r.failedThresholds.isEmpty)
    #expect(r.thresholds.map(\.passed) == [false, true] && r.thresholds.allSatisfy { $0.judged == false })
    #expect(MarkdownReport.render(r).contains("| 7 | not judged (steered run): would fail |"))
    // A threshold on invariant violations is judged all the same: the invariants judge the run.
    var withInvariants = sampleReport()
    withInvariants.evaluate([try Threshold.parse("invariants.violations == 0")], steered: true)
    #expect(withInvariants.thresholds[0].judged == nil)
    #expect(HTMLReport.render(r).contains("<td>not judged (steered run): would fail</td>"))
    let xml = JUnitReport.render(r)
    #expect(
      xml.contains("failures=\"0\"") && xml.contains("not judged: a steered run (explore) stalls calls by design"))
    let json = String(decoding: try JSONEncoder().encode(r.thresholds[0]), as: UTF8.self)
    #expect(json.contains("\"judged\":false"))
    // An invariant still fails it; unsteered, the threshold fails it and `judged` is left out.
    r.evaluate([try Threshold.parse("counter.seat.connected > 100")])
    #expect(r.verdict == "fail" && r.thresholds[0].judged == nil)
    #expect(!String(decoding: try JSONEncoder().encode(r.thresholds[0]), as: UTF8.self).contains("judged"))
  }

  @Test func everyAxisTickHasItsOwnLabel() {
    let decades = stride(from: -6.0, through: 7.0, by: 1).map { HTMLReport.axisTime(pow(10, $0)) }
    #expect(Set(decades).count == decades.count, "\(decades)")
    #expect(decades.prefix(4) == ["1 ns", "10 ns", "100 ns", "1 µs"])
    #expect(decades[6...9] == ["1 ms", "10 ms", "100 ms", "1 s"])
    for top in [1.0, 2, 3, 7, 1000] {
      let labels = HTMLReport.valueTicks(max: top).map(\.label)
      #expect(Set(labels).count == labels.count, "\(top): \(labels)")
      #expect(labels.first == "0" && labels.last == Spell.int(Int64(top)))
    }
    #expect(HTMLReport.valueTicks(max: 1).map(\.label) == ["0", "1"])
    for scale in [2_000.0, 9_000, 60_000, 7_200_000] {
      let labels = [0.0, 0.25, 0.5, 0.75, 1].map { HTMLReport.clockTime(scale * $0, scale: scale) }
      #expect(Set(labels).count == labels.count, "\(scale): \(labels)")
    }
    // A latency in microseconds: its chart's decade labels do not repeat.
    var h = Histogram()
    for v in [800, 2_000, 5_000, 40_000] as [UInt64] { h.record(v) }
    let svg = HTMLReport.cdf(LatencySummary(h))
    let ticks = svg.components(separatedBy: "class=\"tick\" text-anchor=\"").dropFirst().compactMap {
      $0.components(separatedBy: ">").dropFirst().first?.components(separatedBy: "<").first
    }.filter { !$0.hasSuffix("%") && !$0.hasPrefix("p") }
    #expect(ticks.count >= 2 && Set(ticks).count == ticks.count, "\(ticks)")
  }

  @Test func theJUnitSuiteHasATimestampAHostnameAndTheRunsTime() throws {
    let xml = JUnitReport.render(try hostileReport())
    #expect(xml.contains(" timestamp=\"2026-01-01T00:00:00\" hostname=\""))
    #expect(xml.contains("<testcase classname=\"run\" name=\"completes\" time=\"0.500\""))
    #expect(xml.contains("name=\"seat.capacity\" time=\"0.000\""))
  }

  @Test func anIncompleteRunFailsTheCompletesCase() throws {
    var r = sampleReport()
    r.complete = false
    r.evaluate([])
    #expect(r.verdict == "incomplete" && r.exitStatus == 130)
    let reader = try #require(JUnitReader.read(JUnitReport.render(r)))
    #expect(reader.failures == 1)
    #expect(MarkdownReport.render(r).contains("❌ sample seed 0x1: INCOMPLETE (interrupted)"))
    #expect(MarkdownReport.render(r).contains("interrupted before its end"))
  }

  @Test func theMarkdownShowsVerdictReproInvariantsThresholdsAndLatencies() throws {
    let md = MarkdownReport.render(try hostileReport())
    #expect(md.hasPrefix("## ❌ x\"&gt;&lt;b&gt;bold&lt;/b&gt; seed 0x1: FAIL"))
    #expect(
      md.contains(
        "**Why:**\n\n- invariant `seat.capacity`: 3 violations; first at 1.23 s: seat &lt;img src=x onerror=alert(2)&gt;"
      ))
    #expect(md.contains("- threshold `seat.apply_to_response.p99 < 2s`: measured 2.50 s\n"))
    // The violated invariant is the table's first row.
    let rows = md.components(separatedBy: "\n").filter { $0.hasPrefix("| `") }
    #expect(rows.first?.hasPrefix("| `seat.capacity` |") == true)
    #expect(md.contains("```sh\nstampede run '/tmp/<script>alert(1)</script>.json5' --seed 0x1\n```"))
    #expect(md.contains("| `seat.capacity` | safety | **3** | at 1.23 s: seat &lt;img"))
    #expect(md.contains("\\| pipe"))
    #expect(md.contains("| `seat.apply_to_response.p99 < 2s` | 2.50 s | **FAIL** |"))
    #expect(md.contains("| `seat.apply_to_response` | 100 | 120.0 ms | 900.0 ms | 2.50 s | 2.90 s | 3.00 s |"))
    #expect(md.contains("No faults were configured"))
  }

  @Test func probesAreListedAndOnesThatNeverHappenedStandOut() throws {
    var r = try hostileReport()
    r.counters["probe.cancel_lost_to_accept"] = 4
    r.counters["probe.answer_after_cancel"] = 0
    let md = MarkdownReport.render(r)
    #expect(md.contains("### Sometimes probes"))
    #expect(md.contains("| `answer_after_cancel` | 0 (never happened) |"))
    #expect(md.contains("| `cancel_lost_to_accept` | 4 |"))
    let html = HTMLReport.render(r)
    #expect(html.contains("<h2>Sometimes probes</h2>"))
    #expect(
      html.contains("<code>answer_after_cancel</code></td><td class=\"n\"><span class=\"never\">0: never happened"))
    // No probe counters, no section.
    #expect(!MarkdownReport.render(try hostileReport()).contains("Sometimes probes"))
  }

  @Test func allFourFilesAreWrittenIntoTheFolder() throws {
    let folder = ProcessTool.temporaryPath("files")
    let paths = try ReportFiles.write(sampleReport(), to: folder.path)
    #expect(
      paths.map { URL(fileURLWithPath: $0).lastPathComponent } == [
        "report.md", "report.html", "junit.xml", "report.json",
      ])
    for p in paths { #expect(FileManager.default.fileExists(atPath: p)) }
    let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix(".") }
    #expect(leftovers.isEmpty)
  }

  @Test func aWriteThatFailsLeavesTheOldFileIntact() throws {
    let folder = ProcessTool.temporaryPath("atomic")
    let target = folder.appendingPathComponent("report.json")
    try AtomicFile.write(Data("old".utf8), to: target.path)
    // Block the temporary file's name, so the write fails before the rename.
    let temp = folder.appendingPathComponent(".report.json.tmp-\(getpid())")
    try FileManager.default.createDirectory(at: temp, withIntermediateDirectories: true)
    #expect(throws: (any Error).self) { try AtomicFile.write(Data("new".utf8), to: target.path) }
    #expect(try String(contentsOf: target, encoding: .utf8) == "old")
    try FileManager.default.removeItem(at: temp)
    try AtomicFile.write(Data("new".utf8), to: target.path)
    #expect(try String(contentsOf: target, encoding: .utf8) == "new")
  }
}
