import Foundation

/// `junit.xml`: one test case per invariant and per threshold (and one for the run finishing), in
/// the JUnit XML that CI systems read (Jenkins, GitLab, GitHub test reporters).
public enum JUnitReport {
  /// Renders `report`.
  public static func render(_ r: RunReport) -> String {
    struct Case {
      var classname: String
      var name: String
      var failure: (message: String, detail: String)?
      var skipped: String?
    }
    var cases: [Case] = []
    cases.append(
      Case(
        classname: "run", name: "completes",
        failure: r.reachedEnd
          ? nil
          : (
            (r.complete ? "the event budget ended the run" : "the run was interrupted")
              + " at \(String(format: "%.1f", r.simulatedSeconds)) s simulated; not judged: "
              + (r.notJudged ?? []).joined(separator: ", "), r.repro
          )))
    for i in r.invariants {
      var failure: (String, String)?
      if i.violations > 0 {
        var detail = "\(i.description)\nviolations: \(i.violations)"
        if let f = i.first {
          detail +=
            "\nfirst at \(String(format: "%.3f", f.atMs)) ms, entities \(f.entities.joined(separator: " ")): \(f.message)"
          for line in f.excerpt { detail += "\n  " + line }
          if !f.excerpt.isEmpty, let command = r.traceCommand(for: f, invariant: i.id) {
            detail += "\nevery event of its users from the start: \(command)"
          }
        }
        detail += "\nreproduce: \(r.repro)"
        failure = ("\(i.violations) violation(s)" + (i.first.map { ": " + $0.message } ?? ""), detail)
      }
      let unjudged = r.notJudged?.contains(i.id) == true && i.violations == 0
      let skipped =
        i.off == true ? "switched off in the profile" : unjudged ? "not judged: the run stopped before its end" : nil
      cases.append(Case(classname: "invariants.\(i.kind)", name: i.id, failure: failure, skipped: skipped))
    }
    for t in r.thresholds {
      let value = Spell.thresholdValue(t)
      cases.append(
        Case(
          classname: "thresholds", name: t.expression,
          failure: t.failed
            ? ("measured \(value)", "\(t.expression) failed: measured \(value)\nreproduce: \(r.repro)") : nil,
          skipped: t.judged == false ? "not judged: a steered run (explore) stalls calls by design" : nil))
    }
    let failures = cases.filter { $0.failure != nil }.count
    let skipped = cases.filter { $0.skipped != nil }.count
    let suite = "stampede.\(r.profile.name).seed-\(r.seedHex)"
    var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    out += "<testsuites name=\"stampede\" tests=\"\(cases.count)\" failures=\"\(failures)\" errors=\"0\""
    out += " time=\"\(String(format: "%.3f", r.wallSeconds))\">\n"
    out += "  <testsuite name=\"\(attr(suite))\" tests=\"\(cases.count)\" failures=\"\(failures)\" errors=\"0\""
    out += " skipped=\"\(skipped)\" time=\"\(String(format: "%.3f", r.wallSeconds))\""
    out += " timestamp=\"\(attr(timestamp(r.meta.startedAt)))\" hostname=\"\(attr(hostname))\">\n"
    out += "    <properties>\n"
    for (k, v) in [
      ("profile", r.profile.name), ("profile.sha256", r.profile.sha256), ("seed", r.seedHex),
      ("traceHash", r.traceHash),
      ("repro", r.repro), ("verdict", r.verdict), ("version", r.tool.version),
    ] {
      out += "      <property name=\"\(attr(k))\" value=\"\(attr(v))\"/>\n"
    }
    out += "    </properties>\n"
    for c in cases {
      // The run is the one case that takes time; the checks run inside it.
      let time = c.classname == "run" ? String(format: "%.3f", r.wallSeconds) : "0.000"
      out += "    <testcase classname=\"\(attr(c.classname))\" name=\"\(attr(c.name))\" time=\"\(time)\""
      if let why = c.skipped {
        out += ">\n      <skipped message=\"\(attr(why))\"/>\n    </testcase>\n"
      } else if let f = c.failure {
        out += ">\n      <failure message=\"\(attr(f.message))\" type=\"failure\">\(text(f.detail))</failure>\n"
        out += "    </testcase>\n"
      } else {
        out += "/>\n"
      }
    }
    out += "  </testsuite>\n</testsuites>\n"
    return out
  }

  /// This machine's name, for the suites' `hostname`.
  static var hostname: String { ProcessInfo.processInfo.hostName }

  /// An ISO 8601 start time as JUnit's `timestamp` (a local date-time without a zone suffix,
  /// as the JUnit schema has it; the reports' times are UTC).
  static func timestamp(_ iso: String) -> String {
    var t = iso
    if t.hasSuffix("Z") { t.removeLast() }
    return t
  }

  /// Escapes `s` for an XML attribute value, dropping characters XML 1.0 cannot carry.
  static func attr(_ s: String) -> String { Markup.escape(s, quotes: true, encodeLineBreaks: true, xmlOnly: true) }

  /// Escapes `s` for XML character data.
  static func text(_ s: String) -> String { Markup.escape(s, quotes: false, encodeLineBreaks: false, xmlOnly: true) }

  static func isXMLChar(_ u: Unicode.Scalar) -> Bool {
    let v = u.value
    return v == 0x9 || v == 0xA || v == 0xD || (0x20...0xD7FF).contains(v) || (0xE000...0xFFFD).contains(v)
      || (0x10000...0x10FFFF).contains(v)
  }
}

/// Escaping for HTML and XML, in one place.
enum Markup {
  /// `s` with `&`, `<`, `>` (and, with `quotes`, both quote marks) replaced by entities. With
  /// `encodeLineBreaks`, line breaks and tabs become character references (attribute values keep
  /// them that way); with `xmlOnly`, characters XML 1.0 cannot carry are dropped.
  static func escape(_ s: String, quotes: Bool, encodeLineBreaks: Bool, xmlOnly: Bool) -> String {
    var out = ""
    out.reserveCapacity(s.utf8.count)
    for u in s.unicodeScalars {
      switch u {
      case "&": out += "&amp;"
      case "<": out += "&lt;"
      case ">": out += "&gt;"
      case "\"" where quotes: out += "&quot;"
      case "'" where quotes: out += "&#39;"
      case "\n" where encodeLineBreaks: out += "&#10;"
      case "\r" where encodeLineBreaks: out += "&#13;"
      case "\t" where encodeLineBreaks: out += "&#9;"
      default: if !xmlOnly || JUnitReport.isXMLChar(u) { out.unicodeScalars.append(u) }
      }
    }
    return out
  }
}
