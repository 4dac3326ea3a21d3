import Foundation

/// Whether the files in an output folder are Stampede's own reports, so that writing a report
/// never overwrites anything else: `--out .` in a folder that holds a `report.md` of its own, or
/// `merge --out notes.json`, is refused before any work is done.
public enum ReportOwnership {
  /// The line every Markdown report ends with (an HTML comment: hidden where it is rendered).
  public static let markdownMark = "<!-- written by stampede -->"
  /// The line every HTML report carries in its head.
  public static let htmlMark = "<meta name=\"generator\" content=\"stampede\">"

  /// The first of `names` in `folder` that exists and is not a Stampede report, or `nil`. A
  /// folder whose JSON report is Stampede's counts as a report folder as a whole (its other
  /// files may predate the marks).
  public static func foreign(_ names: [String], in folder: String) -> String? {
    let paths = names.map { (folder as NSString).appendingPathComponent($0) }
    let existing = paths.filter { FileManager.default.fileExists(atPath: $0) }
    if existing.contains(where: { $0.hasSuffix(".json") && isOurs($0) }) { return nil }
    return existing.first { !isOurs($0) }
  }

  /// Whether the file at `path` is a report Stampede wrote: a run report, sweep summary or
  /// capacity study (JSON), a JUnit file of Stampede's, or a Markdown or HTML report with its mark.
  /// An unreadable file or a folder is not.
  public static func isOurs(_ path: String) -> Bool {
    var isFolder: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), !isFolder.boolValue,
      let data = FileManager.default.contents(atPath: path)
    else { return false }
    let text = String(decoding: data, as: UTF8.self)
    switch (path as NSString).pathExtension {
    case "json":
      guard let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else { return false }
      if let tool = object["tool"] as? [String: Any], tool["name"] as? String == "stampede" { return true }
      // A capacity study: its profile and its points.
      return (object["profile"] as? [String: Any])?["sha256"] != nil && object["points"] != nil
    case "xml":
      return text.prefix(400).contains("<testsuites name=\"stampede\"")
    case "html":
      return text.prefix(4_000).contains(htmlMark)
    case "md":
      return text.hasSuffix(markdownMark + "\n")
    default:
      return false
    }
  }

  /// `markdown` with the mark as its last line.
  public static func marked(markdown: String) -> String {
    (markdown.hasSuffix("\n") ? markdown : markdown + "\n") + "\n" + markdownMark + "\n"
  }
}
