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
    return [
      .buildCommand(
        displayName: "Simulated platform shadows for \(target.name)",
        executable: try context.tool(named: "stampede-platform-shadows").url, arguments: [output.path],
        outputFiles: [output])
    ]
  }
}
