import Foundation

/// `stampede app init`: a package that runs an app team's view models as virtual users.
enum AppCommand {
  static func main(_ args: [String]) throws -> ExitCode {
    let options = try Options(args, valued: ["--name", "--stampede"], flags: ["--force"])
    guard options.positional.first == "init" else {
      throw UsageError("app takes a subcommand: init (stampede app init DIR [--name NAME] [--stampede PATH])")
    }
    guard options.positional.count == 2 else {
      throw UsageError("app init takes one folder: stampede app init DIR [--name NAME] [--stampede PATH]")
    }
    let folder = URL(fileURLWithPath: options.positional[1]).standardizedFileURL
    let name = options.values["--name"] ?? folder.lastPathComponent
    guard let first = name.unicodeScalars.first, CharacterSet.letters.contains(first),
      name.unicodeScalars.allSatisfy({ CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == "_" })
    else {
      throw UsageError(
        "--name: '\(name)' cannot name a Swift package and executable: start with a letter, then letters, digits, - or _"
      )
    }
    guard let stampede = try checkout(options.values["--stampede"]) else {
      throw UsageError(
        "app init needs the Stampede checkout the package builds against: pass --stampede PATH (the folder "
          + "holding Stampede's Package.swift); this binary is not inside one")
    }
    let fm = FileManager.default
    if let existing = try? fm.contentsOfDirectory(atPath: folder.path), !existing.isEmpty,
      !options.flags.contains("--force")
    {
      throw UsageError("\(folder.path) is not empty: choose a new folder (or --force to write over the files it names)")
    }
    let module = name.replacingOccurrences(of: "-", with: "_") + "App"
    let files = try AppTemplate.files(name: name, module: module, stampede: stampede)
    for (path, text) in files {
      let url = folder.appendingPathComponent(path)
      try fm.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
      try Data(text.utf8).write(to: url, options: .atomic)
    }
    print("wrote \(folder.path): \(files.map(\.path).joined(separator: ", "))")
    print(
      """
      next:
        cd \(folder.path)
        swift run \(name) run profiles/smoke.json5 --app \(name)
      """)
    return .pass
  }

  /// The Stampede checkout: `path` when given (it must hold Stampede's Package.swift), else the one
  /// this binary was built in, if any.
  static func checkout(_ path: String?) throws -> URL? {
    func isStampede(_ url: URL) -> Bool {
      guard let text = try? String(contentsOf: url.appendingPathComponent("Package.swift"), encoding: .utf8) else {
        return false
      }
      return text.contains("name: \"Stampede\"")
    }
    if let path {
      let url = URL(fileURLWithPath: path).standardizedFileURL
      guard isStampede(url) else { throw UsageError("--stampede: \(url.path) holds no Stampede Package.swift") }
      return url
    }
    var url = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
    while url.path != "/" {
      if isStampede(url) { return url }
      url = url.deletingLastPathComponent()
    }
    return nil
  }
}

/// The files of a new app package.
enum AppTemplate {
  /// Path and text of each file, for an app package `name` whose view models live in `module`,
  /// built against the Stampede checkout `stampede`.
  static func files(name: String, module: String, stampede: URL) throws -> [(path: String, text: String)] {
    // SwiftPM names a package dependency by the last part of its path.
    let identity = stampede.lastPathComponent
    func example(_ file: String) throws -> String {
      try String(contentsOf: stampede.appendingPathComponent("Examples/ExampleApps/\(file)"), encoding: .utf8)
    }
    return [
      ("Package.swift", packageManifest(name: name, module: module, stampede: stampede.path, identity: identity)),
      ("Sources/\(module)/AudienceCoGuestViewModel.swift", try example("AudienceCoGuestViewModel.swift")),
      ("Sources/\(module)/HostCoGuestViewModel.swift", try example("HostCoGuestViewModel.swift")),
      ("Sources/\(name)/main.swift", main(name: name, module: module)),
      ("profiles/smoke.json5", profile(stampede: stampede)),
      (".gitignore", ".build/\nreports/\n"),
    ]
  }

  static func packageManifest(name: String, module: String, stampede: String, identity: String) -> String {
    """
    // swift-tools-version:6.0
    import PackageDescription

    // \(name): the app's view models, run by Stampede as thousands of virtual users.
    let stampede = "\(identity)"

    let package = Package(
      name: "\(name)",
      dependencies: [.package(path: "\(stampede)")],
      targets: [
        // The view models as the app builds them, against the SDK modules (here Stampede's
        // SDK-compatible ones): default main-actor isolation as new app targets have, and the
        // PlatformShadows plugin, so files that import Foundation get the simulated
        // DispatchQueue, NotificationCenter and print.
        .target(
          name: "\(module)",
          dependencies: [
            .product(name: "AtomicXCore", package: stampede), .product(name: "Combine", package: stampede),
            .product(name: "UIKit", package: stampede), .product(name: "os", package: stampede),
          ],
          swiftSettings: [.swiftLanguageMode(.v5), .unsafeFlags(["-default-isolation", "MainActor"])],
          plugins: [.plugin(name: "PlatformShadows", package: stampede)]),
        // The virtual users: the view models registered with the harness, and the whole command
        // line (run, sweep, replay, shrink, ...), whose repro lines run here.
        .executableTarget(
          name: "\(name)", dependencies: ["\(module)", .product(name: "StampedeCLI", package: stampede)],
          swiftSettings: [.swiftLanguageMode(.v5)]),
      ]
    )

    """
  }

  static func main(name: String, module: String) -> String {
    """
    import \(module)
    import StampedeCLI
    import StampedeHarness

    // What a viewer's screen does with the view model, as the harness taps it: apply, cancel,
    // leave the seat, answer an invitation, leave the room; and what the screen shows.
    var audience = AudienceApp { AudienceCoGuestViewModel(liveID: $0.liveID!, userID: $0.userID) }
    audience.apply = { $0.applyForSeat() }
    audience.cancel = { $0.cancelApplication() }
    audience.disconnect = { $0.disconnect() }
    audience.answerInvitation = { vm, inviter, accept in
      accept ? vm.acceptInvitation(inviterID: inviter) : vm.rejectInvitation(inviterID: inviter)
    }
    audience.leave = { $0.leaveRoom() }
    audience.status = { vm in
      switch vm.status {
      case .idle: return .idle
      case .applying: return .applying
      case .connected: return .connected
      }
    }

    // What a host's or admin's panel does, as the harness taps it, and what its applications list
    // shows. (Leave a role out of the suite to keep Stampede's built-in clients in it.)
    var host = HostApp { HostCoGuestViewModel(liveID: $0.liveID!) }
    host.accept = { vm in vm.firstApplicant.map { vm.acceptApplication(userID: $0.userID) } }
    host.reject = { vm in vm.firstApplicant.map { vm.rejectApplication(userID: $0.userID) } }
    host.invite = { vm, userID in vm.inviteToSeat(userID: userID) }
    host.kick = { vm, userID in vm.kick(userID: userID) }
    host.lock = { vm, seatIndex in vm.lockSeat(seatIndex) }
    host.unlock = { vm, seatIndex in vm.unlockSeat(seatIndex) }
    host.move = { vm, userID, seatIndex in vm.move(userID: userID, toSeat: seatIndex) }
    host.endLive = { vm in vm.endLive() }
    host.applicants = { vm in vm.pendingApplicants.map(\\.userID) }

    let app = AppSuite(name: "\(name)", summary: "our co-guest view models").with(audience: audience).with(host: host)

    // The whole Stampede command line, with the app registered.
    StampedeCLI.main(apps: [app], program: "\(name)")

    """
  }

  static func profile(stampede: URL) -> String {
    """
    // Stampede's smoke profile, with this app's viewers taking no calls (an audience app has no
    // call handling). Every key is in \(stampede.path)/docs/PROFILES.md.
    {
      extends: "\(stampede.appendingPathComponent("profiles/smoke.json5").path)",
      name: "smoke",
      calls: { liveCallees: 0 },
    }

    """
  }
}
