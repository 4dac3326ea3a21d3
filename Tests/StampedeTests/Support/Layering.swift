import Foundation

/// The module layering as docs/DESIGN.md states it: which module may import which.
///
/// The table sits between `<!-- layering:begin -->` and `<!-- layering:end -->` in DESIGN, one row
/// per module: `| `Module` | `A`, `B`, … |` (or `—` for none). `LayeringTests` holds every
/// `import` of `Sources/` and `Examples/` to it and keeps the picture `docs/layering.svg` equal to
/// what ``svg()`` draws from it.
struct Layering {
  /// Each module's allowed imports, in table order.
  var rows: [(module: String, allowed: [String])]

  /// Modules of the platform rather than of the project: allowed where the table says so, left out
  /// of the picture.
  static let platform: Set<String> = ["Foundation", "Dispatch", "Glibc", "Darwin"]

  /// Reads the table out of DESIGN's text.
  static func parse(design text: String) throws -> Layering {
    guard let begin = text.range(of: "<!-- layering:begin -->"),
      let end = text.range(of: "<!-- layering:end -->", range: begin.upperBound..<text.endIndex)
    else { throw LayeringError("docs/DESIGN.md has no <!-- layering:begin --> … <!-- layering:end --> table") }
    var rows: [(String, [String])] = []
    for line in text[begin.upperBound..<end.lowerBound].split(separator: "\n") {
      let cells = line.split(separator: "|", omittingEmptySubsequences: false).map {
        $0.trimmingCharacters(in: .whitespaces)
      }
      guard cells.count >= 4, cells[1].hasPrefix("`") else { continue }
      let module = cells[1].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
      let allowed =
        cells[2] == "—"
        ? []
        : cells[2].split(separator: ",").map {
          $0.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "`"))
        }
      rows.append((module, allowed))
    }
    guard !rows.isEmpty else { throw LayeringError("the layering table in docs/DESIGN.md has no rows") }
    return Layering(rows: rows)
  }

  /// The allowed imports of `module`, or nil when the table has no row for it.
  func allowed(_ module: String) -> Set<String>? {
    rows.first { $0.module == module }.map { Set($0.allowed) }
  }

  /// The modules each Swift file imports: `import X`, with any attribute or access level before it
  /// (`@testable`, `@_exported`, `internal`, `package`, `public`) and kind-qualified imports
  /// (`import struct X.Y`). Lines inside comments and string literals do not count.
  static func imports(in source: String) -> [(line: Int, module: String)] {
    var found: [(Int, String)] = []
    var inBlockComment = false
    var inMultilineString = false
    let kinds: Set<String> = ["struct", "class", "enum", "protocol", "func", "var", "let", "typealias"]
    for (n, raw) in source.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
      let line = raw.trimmingCharacters(in: .whitespaces)
      if inBlockComment {
        if line.contains("*/") { inBlockComment = false }
        continue
      }
      if line.hasPrefix("/*") {
        inBlockComment = !line.contains("*/")
        continue
      }
      // A multi-line string literal's lines are text, whatever they say.
      let delimiters = line.components(separatedBy: "\"\"\"").count - 1
      if delimiters % 2 == 1 {
        inMultilineString.toggle()
        continue
      }
      if inMultilineString { continue }
      var words = line.split(separator: " ").map(String.init)
      while let w = words.first,
        w.hasPrefix("@") || ["internal", "package", "public", "private", "fileprivate"].contains(w)
      {
        words.removeFirst()
      }
      guard words.first == "import", words.count >= 2 else { continue }
      var name = words[1]
      if kinds.contains(name), words.count >= 3 { name = words[2] }
      found.append((n + 1, String(name.split(separator: ".")[0])))
    }
    return found
  }

  /// Every import in the targets under `roots` (each subfolder a module, named as its folder) that
  /// the table does not allow, as `path:line: Module imports X, which the table does not allow`.
  /// A module with no row in the table is a violation of its own.
  func violations(roots: [URL], relativeTo base: URL) throws -> [String] {
    var found: [String] = []
    let fm = FileManager.default
    for root in roots {
      for module in try fm.contentsOfDirectory(atPath: root.path).sorted() {
        let folder = root.appendingPathComponent(module)
        var isDirectory: ObjCBool = false
        guard fm.fileExists(atPath: folder.path, isDirectory: &isDirectory), isDirectory.boolValue else { continue }
        let files = (fm.enumerator(atPath: folder.path)?.compactMap { $0 as? String } ?? [])
          .filter { $0.hasSuffix(".swift") }.sorted()
        guard let allowed = allowed(module) else {
          if !files.isEmpty || fm.fileExists(atPath: folder.appendingPathComponent("module.modulemap").path) {
            found.append("\(relative(folder, base)): module \(module) has no row in the layering table")
          }
          continue
        }
        for file in files {
          let url = folder.appendingPathComponent(file)
          let text = try String(contentsOf: url, encoding: .utf8)
          for (line, imported) in Layering.imports(in: text) where !allowed.contains(imported) {
            found.append(
              "\(relative(url, base)):\(line): \(module) imports \(imported), which the layering table does not allow")
          }
        }
      }
    }
    return found
  }

  /// Every dependency in the manifest's text that a target's row does not allow, as
  /// `Package.swift: Target depends on X, …`. Targets with no row (the test targets) are not held.
  func packageViolations(manifest: String) throws -> [String] {
    let target = try Regex(#"name:\s*"([^"]+)"\s*,\s*dependencies:\s*\[([^\]]*)\]"#)
    var found: [String] = []
    for match in manifest.matches(of: target) {
      guard let name = match.output[1].substring.map(String.init),
        let list = match.output[2].substring, let allowed = allowed(name)
      else { continue }
      for dependency in list.split(separator: ",") {
        let d = dependency.trimmingCharacters(in: .whitespacesAndNewlines).trimmingCharacters(
          in: CharacterSet(charactersIn: "\""))
        if !d.isEmpty && !allowed.contains(d) {
          found.append("Package.swift: \(name) depends on \(d), which the layering table does not allow")
        }
      }
    }
    return found
  }

  private func relative(_ url: URL, _ base: URL) -> String {
    let path = url.standardizedFileURL.path
    let prefix = base.standardizedFileURL.path + "/"
    return path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path
  }

  /// Each module's layer: 0 for one that imports no project module, else one above the highest
  /// layer it may import.
  func layers() -> [String: Int] {
    var layer: [String: Int] = [:]
    func visit(_ m: String, _ depth: Int) -> Int {
      if let l = layer[m] { return l }
      precondition(depth <= rows.count, "the layering table has a cycle through \(m)")
      let deps = (allowed(m) ?? []).filter { allowed($0) != nil }
      let l = deps.map { visit($0, depth + 1) + 1 }.max() ?? 0
      layer[m] = l
      return l
    }
    for row in rows { _ = visit(row.module, 0) }
    return layer
  }

  /// The edges drawn: each allowed import between project modules that no longer path implies
  /// (the transitive reduction), as (importer, imported).
  func drawnEdges() -> [(String, String)] {
    var reach: [String: Set<String>] = [:]
    func reachable(_ m: String) -> Set<String> {
      if let r = reach[m] { return r }
      var r: Set<String> = []
      for d in allowed(m) ?? [] where allowed(d) != nil {
        r.insert(d)
        r.formUnion(reachable(d))
      }
      reach[m] = r
      return r
    }
    var edges: [(String, String)] = []
    for row in rows {
      let direct = row.allowed.filter { allowed($0) != nil }
      for d in direct where !direct.contains(where: { $0 != d && reachable($0).contains(d) }) {
        edges.append((row.module, d))
      }
    }
    return edges
  }

  /// The table as a picture: one row of boxes per layer, the lowest at the bottom, and an arrow
  /// for each import the table allows that no longer chain of imports already implies. A
  /// deterministic function of the table (no dictionary order, fixed-point coordinates).
  func svg() -> String {
    let layer = layers()
    let top = layer.values.max() ?? 0
    let boxHeight = 28
    let rowGap = 56
    let margin = 16
    let charWidth = 8
    var byLayer: [[String]] = Array(repeating: [], count: top + 1)
    for row in rows { byLayer[layer[row.module]!].append(row.module) }
    func width(_ m: String) -> Int { m.count * charWidth + 20 }
    let rowWidths = byLayer.map { ms in ms.map(width).reduce(0, +) + max(0, ms.count - 1) * 14 }
    let total = (rowWidths.max() ?? 0) + 2 * margin
    var position: [String: (x: Int, y: Int, w: Int)] = [:]
    for (l, ms) in byLayer.enumerated() {
      var x = (total - rowWidths[l]) / 2
      let y = margin + (top - l) * (boxHeight + rowGap)
      for m in ms {
        position[m] = (x, y, width(m))
        x += width(m) + 14
      }
    }
    let height = margin * 2 + (top + 1) * boxHeight + top * rowGap + 20
    let sdk: Set<String> = [
      "VirtualPlatform", "Combine", "AtomicXCore", "PushKit", "LiveCommunicationKit", "ImSDK_Plus", "TUICore",
      "StampedeHarness", "ExampleApps", "ExampleSuites", "stampede-examples",
    ]
    var out = """
      <svg xmlns="http://www.w3.org/2000/svg" width="\(total)" height="\(height)" \
      viewBox="0 0 \(total) \(height)" font-family="monospace" font-size="13">
      <defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" \
      orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#555"/></marker></defs>
      <rect width="100%" height="100%" fill="#ffffff"/>

      """
    for (from, to) in drawnEdges() {
      let a = position[from]!
      let b = position[to]!
      out += """
        <line x1="\(a.x + a.w / 2)" y1="\(a.y + boxHeight)" x2="\(b.x + b.w / 2)" y2="\(b.y)" \
        stroke="#888" stroke-width="1" marker-end="url(#arrow)"/>

        """
    }
    for row in rows {
      let p = position[row.module]!
      let fill =
        row.module.hasPrefix("C") && row.module.dropFirst().first?.isUppercase == true
        ? "#eeeeee" : sdk.contains(row.module) ? "#e3f0ff" : "#fff4dc"
      out += """
        <rect x="\(p.x)" y="\(p.y)" width="\(p.w)" height="\(boxHeight)" rx="4" fill="\(fill)" stroke="#333"/>
        <text x="\(p.x + p.w / 2)" y="\(p.y + 19)" text-anchor="middle">\(row.module)</text>

        """
    }
    out += """
      <text x="\(margin)" y="\(height - 8)" font-size="11" fill="#555">An arrow: may import (implied imports \
      not drawn). Foundation, Dispatch, Glibc and Darwin as the table says. Generated from docs/DESIGN.md.</text>
      </svg>

      """
    return out
  }
}

struct LayeringError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}
