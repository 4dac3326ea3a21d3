import Foundation

/// `history.html`: one metric charted across recorded runs, with the runs listed below it and
/// the seeds whose outcomes disagree.
public enum TrendPage {
  /// One recorded run.
  public struct Point: Sendable {
    /// Its history ID.
    public var id: Int64
    /// When it was recorded.
    public var recordedAt: String
    /// `run`, `sweep` or `capacity`.
    public var kind: String
    /// Its seed or seed range.
    public var seeds: String
    /// Tool version and commit.
    public var build: String
    /// Its verdict.
    public var verdict: String
    /// The metric's value, if it has one.
    public var value: Double?
    /// Where its report is.
    public var reportPath: String?
    /// Creates a point.
    public init(
      id: Int64, recordedAt: String, kind: String, seeds: String, build: String, verdict: String, value: Double?,
      reportPath: String?
    ) {
      self.id = id
      self.recordedAt = recordedAt
      self.kind = kind
      self.seeds = seeds
      self.build = build
      self.verdict = verdict
      self.value = value
      self.reportPath = reportPath
    }
  }

  /// Renders the page. `timeValued` spells values as times (milliseconds); `flaky` lines are
  /// listed as they are.
  public static func render(title: String, metric: String?, timeValued: Bool, points: [Point], flaky: [String])
    -> String
  {
    let e = HTMLReport.html
    func spell(_ v: Double?) -> String {
      guard let v else { return "–" }
      return timeValued
        ? Spell.ms(v) : (v == v.rounded() && abs(v) < 1e15 ? Spell.int(Int64(v)) : String(format: "%.4g", v))
    }
    var body = "<header><h1>\(e(title))</h1>\n"
    let failed = points.filter { $0.verdict != "pass" }.count
    body += "<p>\(points.count) recorded run(s), \(failed) not passing"
    body += flaky.isEmpty ? "." : ", <strong>\(flaky.count) seed(s) with disagreeing outcomes</strong>."
    body += "</p></header>\n"
    if !flaky.isEmpty {
      body += HTMLReport.section(
        "Disagreeing seeds", "<ul class=\"why\">" + flaky.map { "<li>\(e($0))</li>" }.joined() + "</ul>\n")
    }
    if let metric {
      body += HTMLReport.section(
        "\(metric) across runs",
        "<div class=\"trend\"><figure>\(chart(points, timeValued: timeValued))<figcaption>\(e(metric)) by history "
          + "entry, oldest left; red marks a run that did not pass</figcaption></figure></div>\n")
    }
    var t = "<table>\n<thead><tr><th class=\"n\">#</th><th>recorded</th><th>kind</th><th>seeds</th><th>build</th>"
    t +=
      "<th>verdict</th>\(metric == nil ? "" : "<th class=\"n\">\(e(metric!))</th>")<th>report</th></tr></thead>\n<tbody>\n"
    for p in points.reversed() {
      t += "<tr\(p.verdict == "pass" ? "" : " class=\"bad\"")><td class=\"n\">\(p.id)</td><td>\(e(p.recordedAt))</td>"
      t += "<td>\(e(p.kind))</td><td>\(e(p.seeds))</td><td><code>\(e(p.build))</code></td><td>\(e(p.verdict))</td>"
      if metric != nil { t += "<td class=\"n\">\(e(spell(p.value)))</td>" }
      let link = p.reportPath.map { "<a href=\"\(e($0))\">\(e($0))</a>" } ?? ""
      t += "<td>\(link)</td></tr>\n"
    }
    body += HTMLReport.section("Runs, newest first", t + "</tbody>\n</table>\n")
    return HTMLReport.page(title: title, body: body, script: false)
  }

  /// Values by entry, as dots joined by a line, on a scale from 0.
  static func chart(_ points: [Point], timeValued: Bool) -> String {
    let w = HTMLReport.chartWidth * 2
    let h = HTMLReport.chartHeight
    let pad = HTMLReport.pad
    let plotW = w - pad.left - pad.right
    let plotH = h - pad.top - pad.bottom
    let values = points.compactMap(\.value)
    let vMax = max(values.max() ?? 1, 1e-9)
    let n = max(points.count - 1, 1)
    func x(_ i: Int) -> Double { pad.left + (points.count == 1 ? plotW / 2 : Double(i) / Double(n) * plotW) }
    func y(_ v: Double) -> Double { pad.top + (1 - v / vMax) * plotH }
    let fmt = HTMLReport.fmt
    var svg = "<svg viewBox=\"0 0 \(fmt(w)) \(fmt(h))\" role=\"img\" aria-label=\"trend\">"
    for f in [0.0, 0.5, 1.0] {
      let v = vMax * f
      let label = v == 0 ? "0" : (timeValued ? Spell.ms(v) : String(format: "%.4g", v))
      svg += "<line x1=\"\(fmt(pad.left))\" y1=\"\(fmt(y(v)))\" x2=\"\(fmt(pad.left + plotW))\" y2=\"\(fmt(y(v)))\" "
      svg += "class=\"grid\"/><text x=\"\(fmt(pad.left - 4))\" y=\"\(fmt(y(v) + 4))\" class=\"tick\" "
      svg += "text-anchor=\"end\">\(HTMLReport.html(label))</text>"
    }
    // Entry IDs under the axis, thinned so labels never touch.
    let every = max(1, points.count / 12)
    for (i, p) in points.enumerated() where i % every == 0 || i == points.count - 1 {
      svg += "<text x=\"\(fmt(x(i)))\" y=\"\(fmt(h - 12))\" class=\"tick\" text-anchor=\"middle\">#\(p.id)</text>"
    }
    var path = ""
    for (i, p) in points.enumerated() {
      guard let v = p.value else { continue }
      path += (path.isEmpty ? "M" : " L") + "\(fmt(x(i))),\(fmt(y(v)))"
    }
    if !path.isEmpty { svg += "<path d=\"\(path)\" class=\"curve\"/>" }
    for (i, p) in points.enumerated() {
      guard let v = p.value else { continue }
      svg +=
        "<circle cx=\"\(fmt(x(i)))\" cy=\"\(fmt(y(v)))\" r=\"3.5\" class=\"\(p.verdict == "pass" ? "hit" : "miss")\">"
      svg += "<title>#\(p.id) \(HTMLReport.html(p.build)): \(HTMLReport.html(timeValued ? Spell.ms(v) : String(v)))"
      svg += "</title></circle>"
    }
    return svg + "</svg>"
  }
}
