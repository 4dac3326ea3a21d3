import Foundation
import PackagePlugin

/// Declares the simulated platform's types and `print` in the app target's own module, so that
/// they win over Foundation's and Dispatch's in every file of it, also in a file that imports
/// Foundation or Dispatch itself (declarations of a module shadow imported ones). Add it to an app
/// target: `plugins: [.plugin(name: "PlatformShadows", package: "Stampede")]`.
@main
struct PlatformShadows: BuildToolPlugin {
  func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
    let output = context.pluginWorkDirectoryURL.appendingPathComponent("PlatformShadows.swift")
    warnOfSingletons(in: target)
    return [
      .buildCommand(
        displayName: "Simulated platform shadows for \(target.name)",
        executable: try context.tool(named: "stampede-platform-shadows").url, arguments: [output.path],
        outputFiles: [output])
    ]
  }
}

/// Warns at each app singleton of `target` (see ``SingletonScan``).
func warnOfSingletons(in target: Target) {
  guard let module = target as? SourceModuleTarget else { return }
  let files = module.sourceFiles(withSuffix: "swift").compactMap { file in
    (try? String(contentsOf: file.url, encoding: .utf8)).map { (file.url, $0) }
  }
  let classes = files.reduce(into: Set<String>()) { $0.formUnion(SingletonScan.classNames(in: $1.1)) }
  for (url, text) in files {
    for found in SingletonScan.findings(in: text, classes: classes) {
      Diagnostics.warning(
        "\(url.lastPathComponent):\(found.line): \(found.type).\(found.property) is one object for every virtual user of a Stampede run (a phone has one "
          + "per app process): state it keeps is mixed up between users. Make one per user in the glue and pass "
          + "it in, or mark it `// stampede: shared` if it keeps nothing of a user's (\"The app's own singletons and globals\" in Stampede's docs/CLIENTS.md)",
        file: url.path, line: found.line)
    }
  }
}
