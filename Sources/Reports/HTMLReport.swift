import Foundation
import Metrics

/// `report.html`: one self-contained page (inline CSS, SVG and a few lines of script; nothing is
/// fetched) with the verdict, the repro command and a copy button, the invariants with their
/// first violations, thresholds, latency CDFs, time series, fault coverage and counters.
public enum HTMLReport {
  /// Renders `report`.
  public static func render(_ r: RunReport) -> String {
    var body = ""
    body += header(r)
    // Failures first: a failed threshold with no violation puts the thresholds above the invariants.
    if !r.failedThresholds.isEmpty && r.violationCount == 0 {
      body += section("Thresholds", thresholds(r), id: "thresholds")
      body += section("Invariants", invariants(r), id: "invariants")
    } else {
      body += section("Invariants", invariants(r), id: "invariants")
      if !r.thresholds.isEmpty { body += section("Thresholds", thresholds(r), id: "thresholds") }
    }
    if let resources = r.resources, !resources.isEmpty { body += section("Resources", Self.resources(resources)) }
    if let lost = r.capacityLostText { body += section("Capacity lost", "<p>\(html(lost))</p>\n") }
    body += section("Latencies", latencies(r))
    if let ts = r.timeSeries, !ts.timesMs.isEmpty { body += section("Time series", series(ts)) }
    body += section("Fault coverage", faults(r))
    if let c = r.coverage, !c.calls.isEmpty { body += section("Outcome coverage", coverage(c), id: "coverage") }
    if r.counters.keys.contains(where: { $0.hasPrefix("probe.") }) { body += section("Sometimes probes", probes(r)) }
    body += section("Counters", counters(r))
    body +=
      "<footer>stampede \(html(r.tool.version)) · report schema \(r.schemaVersion) · profile sha256 "
      + "<code>\(html(r.profile.sha256))</code></footer>\n"
    return page(title: "\(r.profile.name) seed \(r.seedHex): \(Spell.verdict(r))", body: body, script: true)
  }

  /// A complete document around `body` (already escaped), with the shared style sheet and, if
  /// asked, the copy-button script.
  static func page(title: String, body: String, script withScript: Bool) -> String {
    """
    <!DOCTYPE html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    \(ReportOwnership.htmlMark)
    <title>\(html(title))</title>
    <style>\(css)</style>
    </head>
    <body>
    \(body)\(withScript ? "<script>\(script)</script>\n" : "")</body>
    </html>

    """
  }

  // MARK: - Sections

  static func header(_ r: RunReport) -> String {
    let cls = r.verdict == "incomplete" ? "incomplete" : (r.verdict == "pass" ? "pass" : "fail")
    let failures = r.failures
    let facts: [(String, String)] = [
      ("seed", r.seedHex), ("events", Spell.int(r.events)),
      ("simulated", Spell.ms(r.simulatedSeconds * 1000)), ("wall", String(format: "%.2f s", r.wallSeconds)),
      ("users", Spell.int(r.population.total)), ("peak memory", Spell.bytes(r.peakMemoryBytes)),
      ("trace hash", r.traceHash), ("stop", r.stopReason),
    ]
    var s =
      "<header id=\"top\">\n<h1>\(html(r.profile.name)) <span class=\"badge \(cls)\">\(html(Spell.verdict(r)))</span></h1>\n"
    if !failures.isEmpty {
      s += "<ul class=\"why\">\n"
      for f in failures {
        let anchor = f.kind == "invariant" ? "#invariants" : f.kind == "threshold" ? "#thresholds" : "#top"
        let name = f.name.isEmpty ? "run" : "\(f.kind) <code>\(html(f.name))</code>"
        s += "<li><a href=\"\(anchor)\">\(name)</a>: \(html(f.detail))</li>\n"
      }
      s += "</ul>\n"
    }
    s += "<dl class=\"facts\">"
    for (k, v) in facts { s += "<div><dt>\(html(k))</dt><dd>\(html(v))</dd></div>" }
    s += "</dl>\n"
    s += "<div class=\"repro\"><code id=\"repro\">\(html(r.repro))</code>"
    s += "<button type=\"button\" id=\"copy\" onclick=\"copyRepro()\">Copy</button></div>\n</header>\n"
    return s
  }

  static func section(_ title: String, _ content: String, id: String? = nil) -> String {
    "<section\(id.map { " id=\"\($0)\"" } ?? "")>\n<h2>\(html(title))</h2>\n\(content)</section>\n"
  }

  static func invariants(_ r: RunReport) -> String {
    var s =
      "<table>\n<thead><tr><th>invariant</th><th>kind</th><th class=\"n\">violations</th><th>first violation</th></tr></thead>\n<tbody>\n"
    for i in r.invariantsFailuresFirst {
      let bad = i.violations > 0
      s +=
        "<tr class=\"\(bad ? "bad" : "ok")\"><td><code>\(html(i.id))</code><div class=\"desc\">\(html(i.description))</div></td>"
      s +=
        "<td>\(html(i.kind))</td><td class=\"n\">\(i.off == true ? "off" : r.unjudged(i) ? "not judged" : Spell.int(i.violations))</td><td>"
      if let f = i.first {
        s += "at \(html(Spell.ms(f.atMs))) · \(f.entities.map { "<code>\(html($0))</code>" }.joined(separator: " "))"
        s += "<div>\(html(f.message))</div>"
        if !f.excerpt.isEmpty {
          s += "<details><summary>causal excerpt (\(f.excerpt.count) events)</summary><pre>"
          s += f.excerpt.map(html).joined(separator: "\n") + "</pre>"
          if let command = r.traceCommand(for: f, invariant: i.id) {
            s += "<div>every event of its users from the start: <code>\(html(command))</code></div>"
          }
          s += "</details>"
        }
      }
      s += "</td></tr>\n"
    }
    return s + "</tbody>\n</table>\n"
  }

  static func thresholds(_ r: RunReport) -> String {
    var s = "<table>\n<thead><tr><th>threshold</th><th class=\"n\">value</th><th>result</th></tr></thead>\n<tbody>\n"
    for t in r.thresholdsFailuresFirst {
      s += "<tr class=\"\(t.failed ? "bad" : "ok")\"><td><code>\(html(t.expression))</code></td>"
      s += "<td class=\"n\">\(html(Spell.thresholdValue(t)))</td><td>\(html(t.resultText))</td></tr>\n"
    }
    return s + "</tbody>\n</table>\n"
  }

  /// Each resource's load: utilisation, queue and refusals, the busiest first.
  static func resources(_ list: [ResourceUsage]) -> String {
    var s = "<table>\n<thead><tr><th>resource</th><th>capacity</th><th class=\"n\">utilisation</th>"
    s += "<th class=\"n\">queue mean</th><th class=\"n\">queue p99</th><th>refused</th></tr></thead>\n<tbody>\n"
    for u in list.sorted(by: { ($1.utilisation, $0.name) < ($0.utilisation, $1.name) }) {
      let refused = u.refused.keys.sorted().map { "\($0) \(Spell.int(Int(u.refused[$0]!)))" }.joined(separator: ", ")
      s += "<tr><td><code>\(html(u.name))</code></td><td>\(html(u.capacity))</td>"
      s += "<td class=\"n\">\(String(format: "%.1f%%", u.utilisation * 100))</td>"
      s += "<td class=\"n\">\(String(format: "%.2f", u.queueMean))</td><td class=\"n\">\(Spell.int(u.queueP99))</td>"
      s += "<td>\(html(refused.isEmpty ? "–" : refused))</td></tr>\n"
    }
    return s + "</tbody>\n</table>\n"
  }

  static func latencies(_ r: RunReport) -> String {
    var s =
      "<table>\n<thead><tr><th>metric</th><th class=\"n\">count</th><th class=\"n\">p50</th><th class=\"n\">p90</th>"
    s += "<th class=\"n\">p99</th><th class=\"n\">p99.9</th><th class=\"n\">max</th></tr></thead>\n<tbody>\n"
    for name in r.latencies.keys.sorted() {
      let l = r.latencies[name]!
      s += "<tr><td><code>\(html(name))</code></td><td class=\"n\">\(Spell.int(l.count))</td>"
      for v in [l.p50Ms, l.p90Ms, l.p99Ms, l.p999Ms, l.maxMs] { s += "<td class=\"n\">\(html(Spell.ms(v)))</td>" }
      s += "</tr>\n"
    }
    s += "</tbody>\n</table>\n<div class=\"charts\">\n"
    for name in r.latencies.keys.sorted() where r.latencies[name]!.count > 0 {
      s +=
        "<figure>" + cdf(r.latencies[name]!)
        + "<figcaption>\(html(name)): cumulative share of samples</figcaption>"
        + "<details><summary>tail, logarithmic</summary>\(cdf(r.latencies[name]!, tail: true))</details></figure>\n"
    }
    return s + "</div>\n"
  }

  static func series(_ ts: RunReport.Series) -> String {
    var s = "<div class=\"charts\">\n"
    // Latencies over time: each interval's p50 and p99, for the intervals that had samples.
    for (name, l) in (ts.latencies ?? [:]).sorted(by: { $0.key < $1.key }) where l.p99Ms.contains(where: { $0 != nil })
    {
      s += "<figure>" + lines(times: ts.timesMs, [(l.p50Ms, "curve-a"), (l.p99Ms, "curve")], time: true)
      s +=
        "<figcaption>\(html(name)) per \(html(Spell.ms(ts.intervalMs))): p99 solid, p50 dashed</figcaption></figure>\n"
    }
    for (name, r) in (ts.rates ?? [:]).sorted(by: { $0.key < $1.key }) where r.contains(where: { $0 > 0 }) {
      s += "<figure>" + lines(times: ts.timesMs, [(r.map { Optional($0) }, "curve")], time: false)
      s +=
        "<figcaption>\(html(name)) per simulated second (peak \(String(format: "%.4g", r.max() ?? 0))/s)</figcaption></figure>\n"
    }
    for name in ts.columns.keys.sorted() {
      let values = ts.columns[name]!
      s += "<figure>" + line(times: ts.timesMs, values: values)
      s +=
        "<figcaption>\(html(name)) (max \(Spell.int(values.max() ?? 0)), last \(Spell.int(values.last ?? 0)))</figcaption></figure>\n"
    }
    return s + "</div>\n"
  }

  static func faults(_ r: RunReport) -> String {
    guard !r.faults.isEmpty else { return "<p class=\"muted\">No faults were configured in this profile.</p>\n" }
    let most = max(1, r.faults.map(\.injected).max() ?? 1)
    let rowHeight = 22
    let width = 640
    var svg =
      "<svg class=\"bars\" viewBox=\"0 0 \(width) \(r.faults.count * rowHeight + 4)\" role=\"img\" aria-label=\"faults injected\">"
    for (i, f) in r.faults.enumerated() {
      let y = i * rowHeight + 2
      let w = Double(width - 260) * Double(f.injected) / Double(most)
      svg += "<text x=\"0\" y=\"\(y + 15)\" class=\"label\">\(html(f.kind))</text>"
      svg +=
        "<rect x=\"200\" y=\"\(y + 3)\" width=\"\(fmt(max(w, f.injected > 0 ? 2 : 0)))\" height=\"14\" class=\"\(f.injected > 0 ? "hit" : "miss")\"/>"
      let count = f.injected > 0 ? Spell.int(f.injected) : "0: never injected, so this run did not exercise it"
      svg +=
        "<text x=\"\(fmt(206 + w))\" y=\"\(y + 15)\" class=\"label\(f.injected > 0 ? "" : " never")\">\(count)</text>"
    }
    return svg + "</svg>\n"
  }

  /// What the clients' code was tested against: per SDK call, the outcomes never seen (the gaps,
  /// calls with the most first) and those seen; then the events each role heard.
  static func coverage(_ c: CoverageReport) -> String {
    let made = c.calls.count
    var s =
      "<p>\(Spell.int(c.gaps)) outcome(s) over \(Spell.int(made)) SDK call(s) made were never seen: "
      + "the code was never tested against them.</p>\n"
    s += "<table>\n<thead><tr><th>call</th><th>never seen</th><th>seen</th></tr></thead>\n<tbody>\n"
    for call in c.calls {
      let seen = call.outcomes.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
        .map { "\($0.key) \(Spell.int(Int($0.value)))" }.joined(separator: ", ")
      let never = call.neverSeen.isEmpty ? "–" : call.neverSeen.joined(separator: ", ")
      s += "<tr><td><code>\(html(call.call))</code></td>"
      s += "<td\(call.neverSeen.isEmpty ? "" : " class=\"never\"")>\(html(never))</td><td>\(html(seen))</td></tr>\n"
    }
    s += "</tbody>\n</table>\n"
    guard !c.events.isEmpty else { return s }
    s += "<table>\n<thead><tr><th>role</th><th>events its handlers heard</th></tr></thead>\n<tbody>\n"
    for role in ["audience", "owner", "admin", "phone"] {
      guard let heard = c.events[role] else { continue }
      let list = heard.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
        .map { "\($0.key) \(Spell.int(Int($0.value)))" }.joined(separator: ", ")
      s += "<tr><td>\(html(role))</td><td>\(html(list))</td></tr>\n"
    }
    return s + "</tbody>\n</table>\n"
  }

  /// Rare interleavings: each probe with how often the run hit it; a zero stands out.
  static func probes(_ r: RunReport) -> String {
    let probes = r.counters.filter { $0.key.hasPrefix("probe.") }.sorted { $0.key < $1.key }
    var s = "<table class=\"compact\">\n<tbody>\n"
    for (k, v) in probes {
      let count = v > 0 ? Spell.int(v) : "<span class=\"never\">0: never happened in this run</span>"
      s += "<tr><td><code>\(html(String(k.dropFirst(6))))</code></td><td class=\"n\">\(count)</td></tr>\n"
    }
    return s + "</tbody>\n</table>\n"
  }

  static func counters(_ r: RunReport) -> String {
    let moved = r.counters.filter { $0.value > 0 }.sorted { $0.key < $1.key }
    guard !moved.isEmpty else { return "<p class=\"muted\">No counter moved.</p>\n" }
    var s = "<table class=\"compact\">\n<tbody>\n"
    for (k, v) in moved { s += "<tr><td><code>\(html(k))</code></td><td class=\"n\">\(Spell.int(v))</td></tr>\n" }
    let zero = r.counters.filter { $0.value == 0 }.keys.sorted()
    s += "</tbody>\n</table>\n"
    if !zero.isEmpty { s += "<p class=\"muted\">Zero: \(zero.map(html).joined(separator: ", "))</p>\n" }
    return s
  }

  // MARK: - Charts

  static let chartWidth = 420.0
  static let chartHeight = 200.0
  static let pad = (left: 44.0, right: 12.0, top: 10.0, bottom: 30.0)

  /// The cumulative distribution of a latency from its buckets, on a logarithmic time axis; with
  /// `tail`, the share axis is logarithmic in what remains (90%, 99%, 99.9%…) so the tail shows.
  static func cdf(_ l: LatencySummary, tail: Bool = false) -> String {
    cdf([(l, "curve")], tail: tail, markers: true)
  }

  /// A CDF's steps: bucket upper edges in ms with the share of samples at or below each.
  static func cdfPoints(_ l: LatencySummary) -> [(ms: Double, share: Double)] {
    let pairs = l.buckets.compactMap { b -> (index: Int, count: UInt64)? in
      b.count == 2 ? (Int(b[0]), b[1]) : nil
    }
    guard l.count > 0, !pairs.isEmpty else { return [] }
    var points: [(ms: Double, share: Double)] = []
    var seen: UInt64 = 0
    let firstLower = Double(Histogram.bucketLowerBound(pairs[0].index)) / 1e6
    points.append((max(firstLower, 1e-6), 0))
    for (index, count) in pairs {
      seen += count
      let upper = Double(Histogram.bucketLowerBound(index) + Histogram.bucketWidth(index)) / 1e6
      points.append((upper, Double(seen) / Double(l.count)))
    }
    return points
  }

  /// Several CDFs on shared axes, each drawn with its CSS class; the first one's p50 and p99
  /// marked when `markers` is set.
  static func cdf(_ curves: [(summary: LatencySummary, cls: String)], tail: Bool, markers: Bool) -> String {
    let all = curves.map { cdfPoints($0.summary) }
    let drawn = all.filter { !$0.isEmpty }
    guard !drawn.isEmpty else { return "" }
    let lo = log10(max(drawn.map { $0.first!.ms }.min()!, 1e-6))
    var hi = log10(max(drawn.map { $0.last!.ms }.max()!, drawn.map { $0.first!.ms }.min()! * 1.01))
    if hi - lo < 0.3 { hi = lo + 0.3 }
    let x0 = floor(lo)
    let x1 = ceil(hi)
    let w = chartWidth - pad.left - pad.right
    let h = chartHeight - pad.top - pad.bottom
    // The tail view reaches as many nines as the largest sample count resolves (2 to 5).
    let samples = Double(curves.map(\.summary.count).max() ?? 1)
    let nines = min(5.0, max(2.0, ceil(log10(max(samples, 1)))))
    func x(_ ms: Double) -> Double { pad.left + (log10(max(ms, 1e-6)) - x0) / (x1 - x0) * w }
    func y(_ share: Double) -> Double {
      guard tail else { return pad.top + (1 - share) * h }
      let depth = min(nines, -log10(max(1 - share, pow(10, -nines))))
      return pad.top + (1 - depth / nines) * h
    }
    var svg = svgOpen(tail ? "latency tail, logarithmic" : "latency distribution")
    // Grid: decades on x, quarters on y.
    // Every decade gets a grid line; past six decades, every other one a label, so labels never touch.
    let labelEvery = x1 - x0 > 6 ? 2.0 : 1.0
    for d in stride(from: x0, through: x1, by: 1) {
      let px = pad.left + (d - x0) / (x1 - x0) * w
      let anchor = d == x0 ? "start" : (d == x1 ? "end" : "middle")
      svg +=
        "<line x1=\"\(fmt(px))\" y1=\"\(fmt(pad.top))\" x2=\"\(fmt(px))\" y2=\"\(fmt(pad.top + h))\" class=\"grid\"/>"
      guard (d - x0).truncatingRemainder(dividingBy: labelEvery) == 0 else { continue }
      svg +=
        "<text x=\"\(fmt(px))\" y=\"\(fmt(chartHeight - 12))\" class=\"tick\" text-anchor=\"\(anchor)\">\(html(axisTime(pow(10, d))))</text>"
    }
    let nineLabels = ["0%", "90%", "99%", "99.9%", "99.99%", "99.999%"]
    var shares: [(Double, String)] = [(0.0, "0%"), (0.5, "50%"), (0.9, "90%"), (1.0, "100%")]
    if tail {
      shares = (0...Int(nines)).map { k in (1 - pow(10, -Double(k)), nineLabels[k]) }
    }
    for (q, label) in shares {
      svg +=
        "<line x1=\"\(fmt(pad.left))\" y1=\"\(fmt(y(q)))\" x2=\"\(fmt(pad.left + w))\" y2=\"\(fmt(y(q)))\" class=\"grid\"/>"
      svg +=
        "<text x=\"\(fmt(pad.left - 4))\" y=\"\(fmt(y(q) + 4))\" class=\"tick\" text-anchor=\"end\">\(label)</text>"
    }
    for (points, curve) in zip(all, curves) where !points.isEmpty {
      var path = "M\(fmt(x(points[0].ms))),\(fmt(y(0)))"
      var previous = points[0]
      for p in points.dropFirst() {
        path += " L\(fmt(x(p.ms))),\(fmt(y(previous.share))) L\(fmt(x(p.ms))),\(fmt(y(p.share)))"
        previous = p
      }
      svg += "<path d=\"\(path)\" class=\"\(curve.cls)\"/>"
    }
    guard markers, let l = curves.first?.summary else { return svg + "</svg>" }
    // Markers, labelled on their own rows, right of the line unless that would leave the chart.
    for (row, (label, v)) in [("p50", l.p50Ms), ("p99", l.p99Ms)].enumerated() {
      guard let v else { continue }
      let px = x(v)
      let text = "\(label) \(Spell.ms(v))"
      let leftward = px > pad.left + w - 80
      svg +=
        "<line x1=\"\(fmt(px))\" y1=\"\(fmt(pad.top))\" x2=\"\(fmt(px))\" y2=\"\(fmt(pad.top + h))\" class=\"marker\"/>"
      svg +=
        "<text x=\"\(fmt(leftward ? px - 3 : px + 3))\" y=\"\(fmt(pad.top + 14 + Double(row) * 16))\" class=\"tick\""
      svg += " text-anchor=\"\(leftward ? "end" : "start")\">\(html(text))</text>"
    }
    return svg + "</svg>"
  }

  /// A line chart of one sampled gauge over simulated time.
  static func line(times: [Double], values: [Int64]) -> String {
    lines(
      times: times, [(values.map { Double($0) }, "curve")], label: "time series", top: 1, ticks: valueTicks(max:))
  }

  /// Lines over simulated time of latencies (`time`, in ms) or rates.
  static func lines(times: [Double], _ series: [(values: [Double?], cls: String)], time: Bool) -> String {
    lines(
      times: times, series, label: time ? "latency over time" : "rate over time", top: 1e-9,
      ticks: { vMax in
        var ticks: [(value: Double, label: String)] = []
        for f in [0.0, 0.5, 1.0] {
          let v = vMax * f
          let label = v == 0 ? "0" : (time ? Spell.ms(v) : String(format: "%.3g", v))
          if ticks.last?.label != label { ticks.append((v, label)) }
        }
        return ticks
      })
  }

  /// Lines over simulated time on one scale from 0 to the largest value (at least `top`), with the
  /// value ticks `ticks` gives for that scale. A `nil` value (an interval without samples) breaks
  /// its line.
  static func lines(
    times: [Double], _ series: [(values: [Double?], cls: String)], label: String, top: Double,
    ticks: (Double) -> [(value: Double, label: String)]
  ) -> String {
    let n = min(times.count, series.map(\.values.count).min() ?? 0)
    guard n > 0 else { return "" }
    let tMax = max(times[n - 1], 1)
    let vMax = max(series.flatMap { $0.values.prefix(n).compactMap { $0 } }.max() ?? top, top)
    let w = chartWidth - pad.left - pad.right
    let h = chartHeight - pad.top - pad.bottom
    func x(_ t: Double) -> Double { pad.left + t / tMax * w }
    func y(_ v: Double) -> Double { pad.top + (1 - v / vMax) * h }
    var svg = svgOpen(label)
    for (v, label) in ticks(vMax) {
      svg +=
        "<line x1=\"\(fmt(pad.left))\" y1=\"\(fmt(y(v)))\" x2=\"\(fmt(pad.left + w))\" y2=\"\(fmt(y(v)))\" class=\"grid\"/>"
      svg +=
        "<text x=\"\(fmt(pad.left - 4))\" y=\"\(fmt(y(v) + 4))\" class=\"tick\" text-anchor=\"end\">\(html(label))</text>"
    }
    for f in [0.0, 0.25, 0.5, 0.75, 1.0] {
      let anchor = f == 0 ? "start" : (f == 1 ? "end" : "middle")
      svg += "<text x=\"\(fmt(x(tMax * f)))\" y=\"\(fmt(chartHeight - 12))\" class=\"tick\" text-anchor=\"\(anchor)\">"
      svg += "\(html(clockTime(tMax * f, scale: tMax)))</text>"
    }
    for (values, cls) in series {
      var path = ""
      var open = false
      for i in 0..<n {
        guard let v = values[i] else {
          open = false
          continue
        }
        path += (open ? " L" : (path.isEmpty ? "M" : " M")) + "\(fmt(x(times[i]))),\(fmt(y(v)))"
        open = true
      }
      if !path.isEmpty { svg += "<path d=\"\(path)\" class=\"\(cls)\"/>" }
    }
    return svg + "</svg>"
  }

  /// A decade tick of the latency axis, each decade its own label: `1 ns` … `100 µs`, `1 ms`,
  /// `10 ms`, `100 ms`, `1 s`, `10 s`, `100 s`, `1000 s`.
  static func axisTime(_ ms: Double) -> String {
    let decade = Int((log10(ms)).rounded())
    let units: [(exponent: Int, unit: String)] = [(-6, "ns"), (-3, "µs"), (0, "ms"), (3, "s")]
    let unit = units.last { decade >= $0.exponent } ?? units[0]
    let within = max(0, decade - unit.exponent)
    return "1" + String(repeating: "0", count: within) + " " + unit.unit
  }

  /// A simulated-time tick: minutes when the axis spans two minutes or more, seconds with a
  /// decimal when it spans less than ten seconds, else whole seconds.
  static func clockTime(_ ms: Double, scale: Double) -> String {
    if ms == 0 { return "0" }
    if scale >= 120_000 {
      return String(format: ms.truncatingRemainder(dividingBy: 60_000) == 0 ? "%.0f min" : "%.1f min", ms / 60_000)
    }
    return String(format: scale < 10_000 ? "%.1f s" : "%.0f s", ms / 1000)
  }

  /// The value ticks of a gauge chart from 0 to `max`: 0, the middle and the top, leaving out
  /// one whose label would repeat its neighbour's (a gauge that only reached 1 gets `0` and `1`).
  static func valueTicks(max vMax: Double) -> [(value: Double, label: String)] {
    var ticks: [(Double, String)] = []
    for f in [0.0, 0.5, 1.0] {
      let v = (vMax * f).rounded()
      let label = Spell.int(Int64(v))
      if ticks.last?.1 == label { continue }
      ticks.append((v, label))
    }
    return ticks
  }

  static func svgOpen(_ label: String) -> String {
    "<svg viewBox=\"0 0 \(fmt(chartWidth)) \(fmt(chartHeight))\" role=\"img\" aria-label=\"\(html(label))\">"
  }

  static func fmt(_ v: Double) -> String { String(format: "%.1f", v.isFinite ? v : 0) }

  // MARK: - Escaping

  /// Escapes `s` for HTML text and attribute values.
  public static func html(_ s: String) -> String {
    Markup.escape(s, quotes: true, encodeLineBreaks: false, xmlOnly: false)
  }

  static let css = """
    :root{--fg:#1b1f24;--muted:#5b6470;--line:#d8dde3;--ok:#1a7f37;--bad:#cf222e;--warn:#9a6700;--accent:#0969da}
    *{box-sizing:border-box}body{margin:0;padding:24px 32px;font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--fg);max-width:1400px}
    h1{font-size:22px;margin:0 0 8px}h2{font-size:17px;margin:28px 0 10px;border-bottom:1px solid var(--line);padding-bottom:4px}
    .badge{display:inline-block;padding:2px 10px;border-radius:12px;font-size:14px;color:#fff;vertical-align:middle}
    .badge.pass{background:var(--ok)}.badge.fail{background:var(--bad)}.badge.incomplete{background:var(--warn)}
    .why{color:var(--bad);margin:4px 0 10px;padding-left:20px}.why li{margin:2px 0}.why a{color:inherit}.facts{display:flex;flex-wrap:wrap;gap:6px 22px;margin:8px 0 12px}
    .facts div{display:flex;gap:6px}.facts dt{color:var(--muted)}.facts dd{margin:0;font-variant-numeric:tabular-nums}
    .repro{display:flex;gap:8px;align-items:center;background:#f6f8fa;border:1px solid var(--line);border-radius:6px;padding:8px 10px}
    .repro code{flex:1;overflow-x:auto;white-space:pre}button{font:inherit;padding:3px 12px;border:1px solid var(--line);border-radius:6px;background:#fff;cursor:pointer}
    table{border-collapse:collapse;width:100%;margin:6px 0}th,td{text-align:left;padding:5px 8px;border-bottom:1px solid var(--line);vertical-align:top}
    th{color:var(--muted);font-weight:600}.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
    tr.bad td{background:#fff1f0}tr.bad td:first-child{border-left:3px solid var(--bad)}.desc{color:var(--muted);font-size:12px}
    table.compact{width:auto;min-width:420px}code{font:12.5px ui-monospace,SFMono-Regular,Menlo,monospace}
    .charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(380px,1fr));gap:14px}figure{margin:0;border:1px solid var(--line);border-radius:6px;padding:6px}
    figcaption{color:var(--muted);font-size:12px;text-align:center}svg{width:100%;height:auto;display:block}
    .grid{stroke:#e6e9ed;stroke-width:1}.tick,.label{font-size:10px;fill:var(--muted)}.label{font-size:12px;fill:var(--fg)}
    .curve{fill:none;stroke:var(--accent);stroke-width:1.6}.curve-a{fill:none;stroke:#8c959f;stroke-width:1.6;stroke-dasharray:5 3}
    .key-a{color:#6e7781}.key-b{color:var(--accent)}details summary{cursor:pointer;color:var(--muted);font-size:12px}.marker{stroke:var(--warn);stroke-dasharray:3 3}
    .bars{max-width:680px}.hit{fill:var(--accent)}.miss{fill:var(--bad)}.never{fill:var(--bad)}span.never,td.never{color:var(--bad)}.muted{color:var(--muted)}
    .wide{overflow-x:auto}details pre{background:#f6f8fa;padding:6px;overflow-x:auto;font-size:12px}footer{margin-top:32px;color:var(--muted);font-size:12px}
    """

  static let script = """
    function copyRepro(){var t=document.getElementById('repro').textContent;var b=document.getElementById('copy');
    function done(){b.textContent='Copied';setTimeout(function(){b.textContent='Copy'},1500)}
    if(navigator.clipboard&&window.isSecureContext){navigator.clipboard.writeText(t).then(done,fallback)}else{fallback()}
    function fallback(){var r=document.createRange();r.selectNodeContents(document.getElementById('repro'));
    var s=window.getSelection();s.removeAllRanges();s.addRange(r);try{document.execCommand('copy');done()}catch(e){}}}
    """
}
