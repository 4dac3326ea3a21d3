import Foundation

/// Number and time spellings shared by the human-readable reports.
public enum Spell {
  /// `354 ms`, `1.97 s`, `2.5 min`, or `–` for no value.
  public static func ms(_ v: Double?) -> String {
    guard let v else { return "–" }
    if v < 1 { return String(format: "%.3f ms", v) }
    if v < 1000 { return String(format: v < 10 ? "%.2f ms" : "%.1f ms", v) }
    if v < 120_000 { return String(format: "%.2f s", v / 1000) }
    return String(format: "%.1f min", v / 60_000)
  }

  /// `12,345`.
  public static func int<T: BinaryInteger>(_ v: T) -> String {
    let digits = String(v.magnitude)
    var out = ""
    for (i, c) in digits.enumerated() {
      if i > 0 && (digits.count - i) % 3 == 0 { out.append(",") }
      out.append(c)
    }
    return (v < 0 ? "-" : "") + out
  }

  /// A threshold's measured value: a time for latency statistics, a number otherwise.
  static func thresholdValue(_ t: RunReport.ThresholdResult) -> String {
    guard let v = t.value else { return t.unit == "share" ? "no value (the denominator is 0)" : "no samples" }
    if t.unit == "ms" { return ms(v) }
    if t.unit == "share" { return String(format: "%.4g%%", v * 100) }
    if t.unit == "/s" { return String(format: "%.4g/s", v) }
    return v == v.rounded() && abs(v) < 1e15 ? int(Int64(v)) : String(v)
  }

  /// Bytes as `22.3 MiB`.
  static func bytes(_ b: UInt64) -> String {
    let d = Double(b)
    if d >= 1_073_741_824 { return String(format: "%.2f GiB", d / 1_073_741_824) }
    if d >= 1_048_576 { return String(format: "%.1f MiB", d / 1_048_576) }
    return String(format: "%.0f KiB", d / 1024)
  }

  /// The verdict as a word for people.
  static func verdict(_ r: RunReport) -> String {
    r.complete ? r.verdict.uppercased() : r.verdict.uppercased() + " (interrupted)"
  }
}

/// `report.md`: a summary fit for a pull-request comment.
public enum MarkdownReport {
  /// Renders `report`.
  public static func render(_ r: RunReport) -> String {
    var out: [String] = []
    let mark = r.verdict == "pass" ? "✅" : "❌"
    out.append("## \(mark) \(cell(r.profile.name)) seed \(r.seedHex): \(Spell.verdict(r))")
    out.append("")
    let failures = r.failures
    if !failures.isEmpty {
      out.append("**Why:**\n")
      for f in failures {
        let name = f.name.isEmpty ? "the run" : "\(f.kind) \(code(f.name))"
        out.append("- \(name): \(cell(f.detail))")
      }
      out.append("")
    }
    out.append("Reproduce:\n")
    out.append("```sh\n\(r.repro)\n```\n")
    out.append(
      "\(Spell.int(r.events)) events, \(String(format: "%.1f", r.simulatedSeconds)) s simulated in "
        + "\(String(format: "%.2f", r.wallSeconds)) s; \(Spell.int(r.population.total)) users; trace hash "
        + "`\(r.traceHash)`; profile sha256 `\(r.profile.sha256.prefix(16))…`; stampede \(r.tool.version).\n")

    out.append("### Invariants\n")
    out.append("| invariant | kind | violations | first |")
    out.append("|---|---|---:|---|")
    for i in r.invariantsFailuresFirst {
      let first = i.first.map { "at \(Spell.ms($0.atMs)): \(cell($0.message))" } ?? ""
      let count =
        i.off == true
        ? "off" : r.unjudged(i) ? "not judged" : (i.violations == 0 ? "0" : "**\(Spell.int(i.violations))**")
      out.append("| `\(i.id)` | \(i.kind) | \(count) | \(first) |")
    }
    out.append("")
    // Each first violation's causal excerpt: its user's events before it, with what its code printed.
    for i in r.invariantsFailuresFirst {
      guard let f = i.first, !f.excerpt.isEmpty else { continue }
      out.append(
        "Causal excerpt of `\(i.id)` (the last \(f.excerpt.count) lines of its events; a run of alike events is one line):\n"
      )
      out.append("```\n" + f.excerpt.joined(separator: "\n") + "\n```\n")
      if let command = r.traceCommand(for: f, invariant: i.id) {
        out.append("Every event of its users from the start of the run:\n")
        out.append("```sh\n\(command)\n```\n")
      }
    }

    if !r.thresholds.isEmpty {
      out.append("### Thresholds\n")
      out.append("| threshold | value | result |")
      out.append("|---|---:|---|")
      for t in r.thresholdsFailuresFirst {
        out.append(
          "| \(code(t.expression)) | \(Spell.thresholdValue(t)) | \(t.failed ? "**FAIL**" : t.resultText) |")
      }
      out.append("")
    }

    if let resources = r.resources, !resources.isEmpty {
      out.append("### Resources\n")
      out.append("| resource | capacity | utilisation | queue mean | queue p99 | refused |")
      out.append("|---|---|---:|---:|---:|---|")
      for u in resources.sorted(by: { ($1.utilisation, $0.name) < ($0.utilisation, $1.name) }) {
        let refused = u.refused.keys.sorted().map { "\($0) \(Spell.int(Int(u.refused[$0]!)))" }.joined(separator: ", ")
        out.append(
          "| \(code(u.name)) | \(cell(u.capacity)) | \(String(format: "%.1f%%", u.utilisation * 100)) | "
            + "\(String(format: "%.2f", u.queueMean)) | \(u.queueP99) | \(refused.isEmpty ? "–" : refused) |")
      }
      out.append("")
    }

    if let lost = r.capacityLostText {
      out.append("### Capacity lost\n")
      out.append(cell(lost))
      out.append("")
    }

    out.append("### Latencies\n")
    out += latencyTable(r.latencies)
    out.append("")

    out.append("### Fault coverage\n")
    if r.faults.isEmpty {
      out.append("No faults were configured in this profile.\n")
    } else {
      out.append("| fault | injected |")
      out.append("|---|---:|")
      for f in r.faults {
        out.append("| `\(f.kind)` | \(f.injected > 0 ? Spell.int(f.injected) : "0 (configured, never fired)") |")
      }
      out.append("")
    }

    let probes = r.counters.filter { $0.key.hasPrefix("probe.") }.sorted { $0.key < $1.key }
    if !probes.isEmpty {
      out.append("### Sometimes probes\n")
      out.append("Rare interleavings; a zero means this run never exercised one.\n")
      out.append("| probe | times |")
      out.append("|---|---:|")
      for (k, v) in probes { out.append("| `\(k.dropFirst(6))` | \(v > 0 ? Spell.int(v) : "0 (never happened)") |") }
      out.append("")
    }

    out.append("### Top counters\n")
    let top = r.counters.filter { $0.value > 0 }.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.prefix(15)
    if top.isEmpty {
      out.append("No counter moved.\n")
    } else {
      out.append("| counter | value |")
      out.append("|---|---:|")
      for (k, v) in top { out.append("| `\(k)` | \(Spell.int(v)) |") }
      out.append("")
    }
    return out.joined(separator: "\n") + "\n"
  }

  /// A table of latency percentiles, one row per metric in name order.
  static func latencyTable(_ latencies: [String: LatencySummary]) -> [String] {
    var out = ["| metric | count | p50 | p90 | p99 | p99.9 | max |", "|---|---:|---:|---:|---:|---:|---:|"]
    for name in latencies.keys.sorted() {
      let l = latencies[name]!
      out.append(
        "| `\(name)` | \(Spell.int(l.count)) | \(Spell.ms(l.p50Ms)) | \(Spell.ms(l.p90Ms)) | \(Spell.ms(l.p99Ms)) | "
          + "\(Spell.ms(l.p999Ms)) | \(Spell.ms(l.maxMs)) |")
    }
    return out
  }

  /// `s` as an inline code span safe inside a table cell (code spans show their text literally,
  /// so only pipes, line breaks and backticks need care).
  static func code(_ s: String) -> String {
    let flat = s.replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(of: "\n", with: " ")
    return flat.contains("`") ? "`` " + flat + " ``" : "`" + flat + "`"
  }

  /// Text safe inside a Markdown table cell: no pipes, no line breaks, no HTML.
  static func cell(_ s: String) -> String {
    var out = ""
    for ch in s {
      switch ch {
      case "|": out += "\\|"
      case "\n", "\r": out += " "
      case "<": out += "&lt;"
      case ">": out += "&gt;"
      case "&": out += "&amp;"
      case "`": out += "'"
      default: out.append(ch)
      }
    }
    return out
  }
}
