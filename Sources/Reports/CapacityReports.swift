import Foundation

extension CapacityStudy {
  /// Names of the written files (`capacity.json` last).
  public static let fileNames = ["capacity.md", "capacity.html", "capacity.json"]

  /// Writes `capacity.md`, `capacity.html` and `capacity.json` into `folder`, atomically.
  @discardableResult
  public func write(to folder: String) throws -> [String] {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    var json = try encoder.encode(self)
    json.append(0x0A)
    return try AtomicFile.write(
      Array(
        zip(CapacityStudy.fileNames, [Data(ReportOwnership.marked(markdown: markdown).utf8), Data(html.utf8), json])),
      into: folder)
  }

  /// Latency names present at any value, sorted.
  /// The latencies measured at some value (a latency with no sample anywhere gets no column).
  var latencyNames: [String] {
    Array(Set(points.flatMap { p in p.latencies.filter { $0.value.p99Ms != nil }.keys })).sorted()
  }

  static func percent(_ i: Interval) -> String {
    String(format: "%.0f%% [%.0f–%.0f]", i.value * 100, i.low * 100, i.high * 100)
  }

  static func rate(_ i: Interval) -> String {
    String(format: "%.1f%% ± %.1f", i.value * 100, (i.high - i.value) * 100)
  }

  /// The knee in words.
  public var kneeSentence: String {
    var s: String
    if let knee {
      s =
        "Knee: \(key) = \(knee) is the \(kneeIsSmallest ? "smallest" : "largest") value at which every seed met every threshold."
    } else {
      let failed = points.flatMap(\.failedThresholds).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
      s = "No value met every threshold on every seed"
      s += failed.isEmpty ? " (an invariant was violated)." : " (failed: \(failed.joined(separator: ", ")))."
    }
    if let bottleneck {
      s +=
        " Bottleneck: \(bottleneck)"
        + (knee == nil ? " (the busiest resource)." : ", the first resource to saturate beside the knee.")
    }
    if nonMonotone {
      s += " The pass/fail pattern changes more than once; check that the values rise in load or in capacity."
    }
    return s
  }

  /// A table for people and pull requests.
  public var markdown: String {
    var out = ["## Capacity: \(MarkdownReport.cell(profile.name)), \(key)\n"]
    out.append(
      "Seeds \(seeds.from)..\(seeds.to) per value; thresholds: "
        + (thresholds.isEmpty
          ? "none (only invariants)" : thresholds.map { MarkdownReport.code($0) }.joined(separator: ", ")) + ".\n")
    out.append("**\(kneeSentence)**\n")
    var header = "| \(key) | SLO attainment [95%] | seat rejection | busiest resource |"
    var rule = "|---:|---|---:|---|"
    for name in latencyNames {
      header += " \(name) p99 (mean of seeds ± 95%) |"
      rule += "---:|"
    }
    out.append(header)
    out.append(rule)
    for p in points {
      var row =
        "| \(p.meetsAll ? "" : "**")\(MarkdownReport.cell(p.value))\(p.meetsAll ? "" : "**") | \(CapacityStudy.percent(p.attainment)) | \(CapacityStudy.rate(p.seatRejection)) | \(MarkdownReport.cell(p.busiestText)) |"
      for name in latencyNames {
        if let s = p.latencies[name]?.seedP99Ms {
          row += " \(Spell.ms(s.value)) ± \(Spell.ms(s.high - s.value)) |"
        } else {
          row += " – |"
        }
      }
      out.append(row)
    }
    return out.joined(separator: "\n") + "\n"
  }

  /// A self-contained page with the table and charts of attainment and p99 per value.
  public var html: String {
    let h = HTMLReport.html
    var body = "<header>\n<h1>Capacity: \(h(profile.name)) · <code>\(h(key))</code></h1>\n"
    body += "<p>\(h(kneeSentence))</p>\n<p class=\"muted\">Seeds \(seeds.from)..\(seeds.to) per value. Thresholds: "
    body +=
      (thresholds.isEmpty
        ? "none (only invariants)" : thresholds.map { "<code>\(h($0))</code>" }.joined(separator: ", "))
    body += "</p>\n</header>\n"
    var table =
      "<table>\n<thead><tr><th class=\"n\">\(h(key))</th><th>SLO attainment [95%]</th><th class=\"n\">seat rejection</th><th>busiest resource</th>"
    for name in latencyNames { table += "<th class=\"n\">\(h(name)) p99</th>" }
    table += "</tr></thead>\n<tbody>\n"
    for p in points {
      table +=
        "<tr class=\"\(p.meetsAll ? "ok" : "bad")\"><td class=\"n\">\(h(p.value))</td><td>\(h(CapacityStudy.percent(p.attainment)))</td>"
      table += "<td class=\"n\">\(h(CapacityStudy.rate(p.seatRejection)))</td><td>\(h(p.busiestText))</td>"
      for name in latencyNames {
        let v = p.latencies[name]?.seedP99Ms
        table += "<td class=\"n\">\(h(v.map { "\(Spell.ms($0.value)) ± \(Spell.ms($0.high - $0.value))" } ?? "–"))</td>"
      }
      table += "</tr>\n"
    }
    body += HTMLReport.section("Results", "<div class=\"wide\">" + table + "</tbody>\n</table>\n</div>\n")
    var charts = "<div class=\"charts\">\n"
    charts +=
      "<figure>"
      + chart(
        points.map { ($0.attainment.value, $0.attainment.low, $0.attainment.high) }, unit: "%", scale: 100, limit: 1)
    charts += "<figcaption>SLO attainment per value (share of seeds passing, 95% interval)</figcaption></figure>\n"
    for name in latencyNames {
      let series = points.map { p -> (Double, Double, Double) in
        guard let s = p.latencies[name]?.seedP99Ms else { return (.nan, .nan, .nan) }
        return (s.value, s.low, s.high)
      }
      guard series.contains(where: { $0.0.isFinite }) else { continue }
      charts +=
        "<figure>" + chart(series, unit: "ms", scale: 1, limit: p99LimitsMs[name])
        + "<figcaption>\(h(name)) p99 per value (mean of seeds, 95% interval)</figcaption></figure>\n"
    }
    body += HTMLReport.section("Charts", charts + "</div>\n")
    return HTMLReport.page(title: "Capacity: \(profile.name), \(key)", body: body, script: false)
  }

  /// Points with interval bars over the values, in the order given; the knee's column is marked.
  func chart(_ ys: [(value: Double, low: Double, high: Double)], unit: String, scale: Double, limit: Double? = nil)
    -> String
  {
    let w = HTMLReport.chartWidth
    let hgt = HTMLReport.chartHeight
    var pad = HTMLReport.pad
    pad.left = 64
    let finite = (ys.flatMap { [$0.high, $0.value] } + [limit ?? .nan]).filter(\.isFinite)
    let top = max((finite.max() ?? 1) * scale, unit == "%" ? 100 : 1e-9)
    let n = max(ys.count, 1)
    func x(_ i: Int) -> Double { pad.left + (Double(i) + 0.5) / Double(n) * (w - pad.left - pad.right) }
    func y(_ v: Double) -> Double { pad.top + (1 - v * scale / top) * (hgt - pad.top - pad.bottom) }
    var svg = HTMLReport.svgOpen("capacity chart")
    for f in [0.0, 0.5, 1.0] {
      let v = top * f / scale
      svg +=
        "<line x1=\"\(HTMLReport.fmt(pad.left))\" y1=\"\(HTMLReport.fmt(y(v)))\" x2=\"\(HTMLReport.fmt(w - pad.right))\" y2=\"\(HTMLReport.fmt(y(v)))\" class=\"grid\"/>"
      let label = f == 0 ? "0" : (unit == "%" ? String(format: "%.0f%%", top * f) : Spell.ms(top * f))
      svg +=
        "<text x=\"\(HTMLReport.fmt(pad.left - 4))\" y=\"\(HTMLReport.fmt(y(v) + 4))\" class=\"tick\" text-anchor=\"end\">\(HTMLReport.html(label))</text>"
    }
    var path = ""
    for (i, p) in ys.enumerated() where p.value.isFinite {
      svg +=
        "<line x1=\"\(HTMLReport.fmt(x(i)))\" y1=\"\(HTMLReport.fmt(y(max(p.low, 0))))\" x2=\"\(HTMLReport.fmt(x(i)))\" y2=\"\(HTMLReport.fmt(y(p.high)))\" class=\"marker\"/>"
      svg += "<circle cx=\"\(HTMLReport.fmt(x(i)))\" cy=\"\(HTMLReport.fmt(y(p.value)))\" r=\"3\" class=\"hit\"/>"
      path += (path.isEmpty ? "M" : " L") + "\(HTMLReport.fmt(x(i))),\(HTMLReport.fmt(y(p.value)))"
      svg +=
        "<text x=\"\(HTMLReport.fmt(x(i)))\" y=\"\(HTMLReport.fmt(hgt - 12))\" class=\"tick\" text-anchor=\"middle\">\(HTMLReport.html(points[i].value))</text>"
    }
    // The threshold as a dashed line, the knee as a dashed column marker.
    if let limit, limit.isFinite {
      svg +=
        "<line x1=\"\(HTMLReport.fmt(pad.left))\" y1=\"\(HTMLReport.fmt(y(limit)))\" x2=\"\(HTMLReport.fmt(w - pad.right))\" y2=\"\(HTMLReport.fmt(y(limit)))\" stroke=\"#c0392b\" stroke-dasharray=\"5 3\"><title>threshold</title></line>"
    }
    if let knee, let i = points.firstIndex(where: { $0.value == knee }) {
      svg +=
        "<line x1=\"\(HTMLReport.fmt(x(i)))\" y1=\"\(HTMLReport.fmt(pad.top))\" x2=\"\(HTMLReport.fmt(x(i)))\" y2=\"\(HTMLReport.fmt(hgt - pad.bottom))\" stroke=\"#2e7d32\" stroke-dasharray=\"2 3\"><title>knee</title></line>"
      svg +=
        "<text x=\"\(HTMLReport.fmt(x(i) + 4))\" y=\"\(HTMLReport.fmt(pad.top + 10))\" class=\"tick\">knee</text>"
    }
    return svg + "<path d=\"\(path)\" class=\"curve\"/></svg>"
  }
}
