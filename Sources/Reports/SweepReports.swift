import Foundation

/// `summary.md`, `summary.html` and `junit.xml` of a sweep.
public enum SweepReports {
  /// File names, in writing order (`summary.json` last).
  public static let names = ["summary.md", "summary.html", "junit.xml", "summary.json"]

  /// Writes the four files into `folder`, each atomically.
  @discardableResult
  public static func write(_ s: SweepSummary, to folder: String) throws -> [String] {
    // Failing seeds whose reports the sweep wrote next to the summary get a link.
    let links = Dictionary(
      uniqueKeysWithValues: s.failing.map(\.seed).compactMap { seed -> (UInt64, String)? in
        let relative = "seeds/seed-\(seed)/report.html"
        let path = (folder as NSString).appendingPathComponent(relative)
        return FileManager.default.fileExists(atPath: path) ? (seed, relative) : nil
      })
    let contents: [Data] = [
      Data(ReportOwnership.marked(markdown: markdown(s)).utf8), Data(html(s, reportLinks: links).utf8),
      Data(junit(s).utf8), try s.jsonData(),
    ]
    return try AtomicFile.write(Array(zip(names, contents)), into: folder)
  }

  static func title(_ s: SweepSummary) -> String {
    var t = "\(s.profile.name) seeds \(s.seeds.from)..\(s.seeds.to)"
    if let shard = s.shard { t += " shard \(shard.index)/\(shard.count)" }
    return t
  }

  static func tally(_ s: SweepSummary) -> String {
    let failed = s.failing.count
    var t =
      "\(Spell.int(s.runs.count)) seeds run, \(Spell.int(s.runs.count - failed)) passed, \(Spell.int(failed)) failed"
    if !s.missingSeeds.isEmpty { t += "; \(Spell.int(s.missingSeeds.count)) missing" }
    return t + "; \(Spell.int(s.events)) events"
  }

  /// A summary for a pull-request comment.
  public static func markdown(_ s: SweepSummary) -> String {
    var out: [String] = []
    out.append("## \(s.verdict == "pass" ? "✅" : "❌") \(MarkdownReport.cell(title(s))): \(s.verdict.uppercased())\n")
    out.append(tally(s) + ".\n")
    if !s.missingSeeds.isEmpty {
      out.append(
        "**Missing seeds:** " + s.missingSeeds.prefix(20).map(String.init).joined(separator: ", ")
          + (s.missingSeeds.count > 20 ? ", …" : "") + "\n")
    }
    if !s.failing.isEmpty {
      out.append("### Failing seeds\n")
      out.append("| seed | why | reproduce |")
      out.append("|---:|---|---|")
      for f in s.failingWorstFirst.prefix(50) {
        out.append("| \(f.seed) | \(MarkdownReport.cell(f.reason)) | \(MarkdownReport.code(f.repro)) |")
      }
      if s.failing.count > 50 { out.append("\n…and \(s.failing.count - 50) more in summary.json.") }
      out.append("")
    }
    out.append("### Invariants\n")
    out.append("| invariant | kind | violations | seeds |")
    out.append("|---|---|---:|---:|")
    for i in s.invariants { out.append("| `\(i.id)` | \(i.kind) | \(Spell.int(i.violations)) | \(i.seeds.count) |") }
    out.append("\n### Latencies over all seeds\n")
    out += MarkdownReport.latencyTable(s.latencies)
    out.append("")
    return out.joined(separator: "\n") + "\n"
  }

  /// A self-contained page.
  /// `reportLinks` gives, by seed, the relative path of a failing seed's own report.
  public static func html(_ s: SweepSummary, reportLinks: [UInt64: String] = [:]) -> String {
    let h = HTMLReport.html
    let cls = s.verdict == "pass" ? "pass" : "fail"
    var body = "<header>\n<h1>\(h(title(s))) <span class=\"badge \(cls)\">\(h(s.verdict.uppercased()))</span></h1>\n"
    body += "<p>\(h(tally(s))).</p>\n</header>\n"
    if !s.missingSeeds.isEmpty {
      body +=
        "<p class=\"why\">Missing seeds: \(h(s.missingSeeds.prefix(50).map(String.init).joined(separator: ", ")))</p>\n"
    }
    if !s.failing.isEmpty {
      var t = "<table>\n<thead><tr><th class=\"n\">seed</th><th>why</th><th>reproduce</th></tr></thead>\n<tbody>\n"
      for f in s.failingWorstFirst.prefix(200) {
        t +=
          "<tr class=\"bad\"><td class=\"n\">\(seedCell(f.seed, reportLinks))</td><td>\(h(f.reason))</td>"
          + "<td><code>\(h(f.repro))</code></td></tr>\n"
      }
      body += HTMLReport.section("Failing seeds", t + "</tbody>\n</table>\n")
    }
    var inv =
      "<table>\n<thead><tr><th>invariant</th><th>kind</th><th class=\"n\">violations</th><th class=\"n\">seeds</th></tr></thead>\n<tbody>\n"
    // Violated invariants first (most violations first), the rest in catalogue order.
    let violated = s.invariants.filter { $0.violations > 0 }.sorted { ($1.violations, $0.id) < ($0.violations, $1.id) }
    for i in violated + s.invariants.filter({ $0.violations == 0 }) {
      inv += "<tr class=\"\(i.violations > 0 ? "bad" : "ok")\"><td><code>\(h(i.id))</code></td><td>\(h(i.kind))</td>"
      inv += "<td class=\"n\">\(Spell.int(i.violations))</td><td class=\"n\">\(i.seeds.count)</td></tr>\n"
    }
    body += HTMLReport.section("Invariants", inv + "</tbody>\n</table>\n")
    var lat = "<div class=\"charts\">\n"
    for name in s.latencies.keys.sorted() where s.latencies[name]!.count > 0 {
      lat +=
        "<figure>" + HTMLReport.cdf(s.latencies[name]!)
        + "<figcaption>\(h(name)) over all seeds</figcaption></figure>\n"
    }
    body += HTMLReport.section("Latencies", lat + "</div>\n")
    if let c = s.coverage, !c.calls.isEmpty {
      body += HTMLReport.section("Outcome coverage over all seeds", HTMLReport.coverage(c), id: "coverage")
    }
    var rows =
      "<table class=\"compact\">\n<thead><tr><th class=\"n\">seed</th><th>verdict</th><th class=\"n\">events</th><th>trace hash</th></tr></thead>\n<tbody>\n"
    for r in s.runs.prefix(1000) {
      rows +=
        "<tr class=\"\(r.verdict == "pass" ? "ok" : "bad")\"><td class=\"n\">\(seedCell(r.seed, reportLinks))</td>"
        + "<td>\(h(r.verdict))</td>"
      rows += "<td class=\"n\">\(Spell.int(r.events))</td><td><code>\(h(r.traceHash))</code></td></tr>\n"
    }
    body += HTMLReport.section("Seeds", rows + "</tbody>\n</table>\n")
    let footer =
      "<footer>stampede \(h(s.tool.version)) · profile sha256 <code>\(h(s.profile.sha256))</code></footer>\n"
    return HTMLReport.page(title: "\(title(s)): \(s.verdict.uppercased())", body: body + footer, script: false)
  }

  /// A seed, linked to its report when there is one.
  static func seedCell(_ seed: UInt64, _ links: [UInt64: String]) -> String {
    guard let link = links[seed] else { return String(seed) }
    return "<a href=\"\(HTMLReport.html(link))\">\(seed)</a>"
  }

  /// One test case per seed, failures carrying the reason and the repro line.
  public static func junit(_ s: SweepSummary) -> String {
    let a = JUnitReport.attr
    let failures = s.failing.count + s.missingSeeds.count
    let tests = s.runs.count + s.missingSeeds.count
    var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    let time = String(format: "%.3f", s.meta.wallSeconds)
    out += "<testsuites name=\"stampede\" tests=\"\(tests)\" failures=\"\(failures)\" errors=\"0\" time=\"\(time)\">\n"
    out +=
      "  <testsuite name=\"\(a("stampede.\(title(s))"))\" tests=\"\(tests)\" failures=\"\(failures)\" errors=\"0\" skipped=\"0\""
      + " time=\"\(time)\" hostname=\"\(a(JUnitReport.hostname))\">\n"
    for r in s.runs {
      out += "    <testcase classname=\"seeds\" name=\"seed \(r.seed)\" time=\"0\""
      if r.verdict == "pass" {
        out += "/>\n"
      } else {
        let why =
          r.firstViolation ?? (SweepSummary.FailingSeed.thresholdsOnly + r.failedThresholds.joined(separator: ", "))
        out +=
          ">\n      <failure message=\"\(a(why))\" type=\"failure\">\(JUnitReport.text(why + "\nreproduce: " + r.repro))</failure>\n"
        out += "    </testcase>\n"
      }
    }
    for m in s.missingSeeds {
      out += "    <testcase classname=\"seeds\" name=\"seed \(m)\" time=\"0\">\n"
      out +=
        "      <failure message=\"no result for this seed\" type=\"missing\">no shard summary covered seed \(m)</failure>\n"
      out += "    </testcase>\n"
    }
    return out + "  </testsuite>\n</testsuites>\n"
  }
}

extension SweepSummary {
  /// The failing seeds, worst first, for lists cut short: invariants violated (and seeds that gave
  /// no report), then runs stopped before their end, then thresholds failed alone; by seed within
  /// each. A bug the oracles caught is not hidden behind seeds that only ran slow.
  public var failingWorstFirst: [FailingSeed] {
    failing.enumerated().sorted { ($0.element.severityRank, $0.offset) < ($1.element.severityRank, $1.offset) }
      .map(\.element)
  }
}
