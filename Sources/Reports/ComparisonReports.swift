import Foundation
import Metrics

/// `compare.md` and `compare.html`: two runs or sweeps side by side, regressions first.
public enum ComparisonReports {
  /// Markdown fit for a pull-request comment.
  public static func markdown(_ c: Comparison) -> String {
    let code = MarkdownReport.code
    let cell = MarkdownReport.cell
    var out: [String] = []
    out.append("## \(c.failed ? "❌" : "✅") stampede compare: \(cell(c.verdictLine))")
    out.append("")
    out.append("- **A** (baseline): \(cell(c.a.headline)), \(c.a.verdict), stampede \(c.a.toolVersion), `\(c.a.label)`")
    out.append("- **B**: \(cell(c.b.headline)), \(c.b.verdict), stampede \(c.b.toolVersion), `\(c.b.label)`")
    if c.a.profileSha256 != c.b.profileSha256 {
      out.append(
        "- The resolved profiles differ (sha256 `\(c.a.profileSha256.prefix(12))…` and `\(c.b.profileSha256.prefix(12))…`)."
      )
    }
    out.append(
      "- Differences count as significant at p < \(c.alpha); \(pairingSentence(c))")
    if let d = c.divergence { out.append("- First divergent event: \(cell(d))") }
    out.append("")
    if !c.rules.isEmpty {
      out.append("### Rules\n")
      out.append("| rule | A | B | change | p | result |")
      out.append("|---|---:|---:|---:|---:|---|")
      for r in c.rules.sorted(by: { $0.regressed && !$1.regressed }) {
        out.append(
          "| \(code(r.rule.expression)) | \(value(r.a, r.rule.subject)) | \(value(r.b, r.rule.subject)) | "
            + "\(Comparison.spellChange(r)) | \(Comparison.spellP(r.test)) | \(ruleVerdict(r)) |")
      }
      out.append("")
    }
    if !c.verdictChanges.isEmpty {
      out.append("### Seeds that changed verdict\n")
      for v in c.verdictChanges.prefix(50) { out.append("- seed \(v.seed): \(v.a) → **\(v.b)**") }
      if c.verdictChanges.count > 50 { out.append("- … and \(c.verdictChanges.count - 50) more") }
      out.append("")
    }
    out.append("### Latencies\n")
    out.append("| metric | A p50 | B p50 | A p99 | B p99 | p99 change | test | p |")
    out.append("|---|---:|---:|---:|---:|---:|---|---:|")
    for r in latencyOrder(c) {
      let mark = (r.deciding?.p ?? 1) < c.alpha ? "**" : ""
      out.append(
        "| \(code(r.name)) | \(Spell.ms(r.a?.p50Ms)) | \(Spell.ms(r.b?.p50Ms)) | \(Spell.ms(r.a?.p99Ms)) | "
          + "\(Spell.ms(r.b?.p99Ms)) | \(mark)\(Comparison.spellRelative(r.a?.p99Ms, r.b?.p99Ms))\(mark) | "
          + "\(r.deciding?.test ?? "–") | \(mark)\(Comparison.spellP(r.deciding))\(mark) |")
    }
    out.append("")
    let changed = c.significantCounters
    out.append("### Counters that changed rate (per simulated second)\n")
    if changed.isEmpty {
      out.append("None of \(c.counters.count) counters changed rate significantly.")
    } else {
      out.append("| counter | A | B | A /s | B /s | change | p |")
      out.append("|---|---:|---:|---:|---:|---:|---:|")
      for r in changed {
        out.append(
          "| \(code(r.name)) | \(Spell.int(r.a)) | \(Spell.int(r.b)) | \(rate(r.rateA)) | \(rate(r.rateB)) | "
            + "\(Comparison.spellRelative(r.rateA, r.rateB)) | \(Comparison.spellP(r.test)) |")
      }
    }
    out.append("")
    return out.joined(separator: "\n")
  }

  /// A self-contained page: the verdict, the rules, overlaid CDFs, and every table.
  public static func html(_ c: Comparison) -> String {
    let e = HTMLReport.html
    var body = ""
    let cls = c.failed ? "fail" : "pass"
    let badge = c.regressed ? "REGRESSION" : (c.failed ? "NEW FAILURES" : "NO REGRESSION")
    body += "<header><h1>compare \(e(c.b.profileName)) <span class=\"badge \(cls)\">\(badge)</span></h1>\n"
    body += "<p>\(e(c.verdictLine))</p>\n<dl class=\"facts\">"
    body += "<div><dt class=\"key-a\">A (baseline, dashed)</dt><dd>\(e(c.a.headline)), \(e(c.a.verdict)), "
    body += "stampede \(e(c.a.toolVersion)), <code>\(e(c.a.label))</code></dd></div>"
    body += "<div><dt class=\"key-b\">B (solid)</dt><dd>\(e(c.b.headline)), \(e(c.b.verdict)), "
    body += "stampede \(e(c.b.toolVersion)), <code>\(e(c.b.label))</code></dd></div></dl>\n"
    body += "<p class=\"muted\">Significant at p &lt; \(c.alpha); \(e(pairingSentence(c)))</p>\n"
    if let d = c.divergence { body += "<p><strong>First divergent event:</strong> \(e(d))</p>\n" }
    body += "</header>\n"
    if !c.rules.isEmpty {
      var t = "<table>\n<thead><tr><th>rule</th><th class=\"n\">A</th><th class=\"n\">B</th>"
      t += "<th class=\"n\">change</th><th class=\"n\">p</th><th>result</th></tr></thead>\n<tbody>\n"
      for r in c.rules.sorted(by: { $0.regressed && !$1.regressed }) {
        t += "<tr\(r.regressed ? " class=\"bad\"" : "")><td><code>\(e(r.rule.expression))</code></td>"
        t +=
          "<td class=\"n\">\(e(value(r.a, r.rule.subject)))</td><td class=\"n\">\(e(value(r.b, r.rule.subject)))</td>"
        t += "<td class=\"n\">\(e(Comparison.spellChange(r)))</td><td class=\"n\">\(e(Comparison.spellP(r.test)))</td>"
        t += "<td>\(e(ruleVerdict(r).replacingOccurrences(of: "**", with: "")))</td></tr>\n"
      }
      body += HTMLReport.section("Rules", t + "</tbody>\n</table>\n")
    }
    if !c.verdictChanges.isEmpty {
      var t =
        "<table class=\"compact\">\n<thead><tr><th class=\"n\">seed</th><th>A</th><th>B</th></tr></thead>\n<tbody>\n"
      for v in c.verdictChanges.prefix(200) {
        t += "<tr class=\"bad\"><td class=\"n\">\(v.seed)</td><td>\(e(v.a))</td><td>\(e(v.b))</td></tr>\n"
      }
      body += HTMLReport.section("Seeds that changed verdict", t + "</tbody>\n</table>\n")
    }
    var t = "<table>\n<thead><tr><th>metric</th><th class=\"n\">A p50</th><th class=\"n\">B p50</th>"
    t += "<th class=\"n\">A p99</th><th class=\"n\">B p99</th><th class=\"n\">p99 change</th><th>test</th>"
    t += "<th class=\"n\">p</th></tr></thead>\n<tbody>\n"
    let rows = latencyOrder(c)
    for r in rows {
      let significant = (r.deciding?.p ?? 1) < c.alpha
      t += "<tr\(significant ? " class=\"bad\"" : "")><td><code>\(e(r.name))</code></td>"
      for v in [r.a?.p50Ms, r.b?.p50Ms, r.a?.p99Ms, r.b?.p99Ms] { t += "<td class=\"n\">\(e(Spell.ms(v)))</td>" }
      t += "<td class=\"n\">\(e(Comparison.spellRelative(r.a?.p99Ms, r.b?.p99Ms)))</td>"
      t += "<td>\(e(r.deciding?.test ?? "–"))</td><td class=\"n\">\(e(Comparison.spellP(r.deciding)))</td></tr>\n"
    }
    t += "</tbody>\n</table>\n<div class=\"charts\">\n"
    for r in rows {
      var curves: [(summary: LatencySummary, cls: String)] = []
      if let a = r.a, a.count > 0 { curves.append((a, "curve-a")) }
      if let b = r.b, b.count > 0 { curves.append((b, "curve")) }
      guard !curves.isEmpty else { continue }
      t += "<figure>" + HTMLReport.cdf(curves, tail: false, markers: false)
      t += "<figcaption>\(e(r.name)): A dashed, B solid</figcaption>"
      t += "<details><summary>tail, logarithmic</summary>\(HTMLReport.cdf(curves, tail: true, markers: false))"
      t += "</details></figure>\n"
    }
    body += HTMLReport.section("Latencies", t + "</div>\n")
    var ct = "<table>\n<thead><tr><th>counter</th><th class=\"n\">A</th><th class=\"n\">B</th><th class=\"n\">A /s</th>"
    ct += "<th class=\"n\">B /s</th><th class=\"n\">change</th><th class=\"n\">p</th></tr></thead>\n<tbody>\n"
    let significantNames = Set(c.significantCounters.map(\.name))
    for r in c.significantCounters + c.counters.filter({ !significantNames.contains($0.name) }) {
      let significant = significantNames.contains(r.name)
      ct += "<tr\(significant ? " class=\"bad\"" : "")><td><code>\(e(r.name))</code></td>"
      ct += "<td class=\"n\">\(Spell.int(r.a))</td><td class=\"n\">\(Spell.int(r.b))</td>"
      ct += "<td class=\"n\">\(rate(r.rateA))</td><td class=\"n\">\(rate(r.rateB))</td>"
      ct += "<td class=\"n\">\(e(Comparison.spellRelative(r.rateA, r.rateB)))</td>"
      ct += "<td class=\"n\">\(e(Comparison.spellP(r.test)))</td></tr>\n"
    }
    body += HTMLReport.section("Counters, as rates per simulated second", ct + "</tbody>\n</table>\n")
    return HTMLReport.page(title: "compare \(c.b.profileName): \(c.verdictLine)", body: body, script: false)
  }

  /// Significant latencies first, then the rest by name.
  static func latencyOrder(_ c: Comparison) -> [Comparison.LatencyRow] {
    let significant = c.significantLatencies
    let names = Set(significant.map(\.name))
    return significant + c.latencies.filter { !names.contains($0.name) }
  }

  static func pairingSentence(_ c: Comparison) -> String {
    if c.a.kind == "sweep" && c.b.kind == "sweep" {
      if let u = c.underpoweredLine { return u + "." }
      if c.pairedSeeds == c.a.seeds.count && c.pairedSeeds == c.b.seeds.count {
        return "both sweeps ran the same \(Spell.int(c.pairedSeeds)) seeds, so latencies are tested seed by seed "
          + "(\(Spell.int(c.divergentSeeds.count)) seed(s) executed different events)."
      }
      return
        "the sweeps share \(Spell.int(c.pairedSeeds)) seed(s), not all, so latencies are tested over their buckets."
    }
    return "latencies are tested over their histogram buckets, counters as Poisson rates."
  }

  static func ruleVerdict(_ r: Comparison.RuleResult) -> String {
    if r.regressed { return "**regression**" }
    if r.crossed { return "crossed, not significant" }
    return "ok"
  }

  static func value(_ v: Double?, _ subject: Threshold.Subject) -> String {
    guard let v else { return "–" }
    switch subject {
    case .latency(_, let s) where s.isTime: return Spell.ms(v)
    case .ratio: return String(format: "%.4g%%", v * 100)
    case .rate: return String(format: "%.4g/s", v)
    default: return v == v.rounded() && abs(v) < 1e15 ? Spell.int(Int64(v)) : String(format: "%.4g", v)
    }
  }

  static func rate(_ v: Double?) -> String { v.map { String(format: "%.4g", $0) } ?? "–" }

  /// Writes `compare.md` and `compare.html` into `folder`, each atomically.
  public static func write(_ c: Comparison, to folder: String) throws {
    try AtomicFile.write(
      [("compare.md", Data(ReportOwnership.marked(markdown: markdown(c)).utf8)), ("compare.html", Data(html(c).utf8))],
      into: folder)
  }
}
