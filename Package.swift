// swift-tools-version:6.0
import PackageDescription

/// The model is split into targets by concept; whole-program speed must not depend on that split, so
/// release builds let the optimizer inline and specialize across target boundaries. A run is one
/// thread over value types: release builds leave out the dynamic exclusivity checks (a runtime call
/// and a thread-local access set on every access to a class property), which debug builds, and so
/// every test, keep.
let optimize: [SwiftSetting] = [
  .unsafeFlags(["-cross-module-optimization", "-enforce-exclusivity=unchecked"], .when(configuration: .release))
]

/// The simulation's modules compile optimized in debug builds too, asserts kept
/// (`-assert-config Debug`) and exclusivity still checked: the test suite runs whole simulations,
/// about seven times faster so (`make test`: 146 s of tests became 21 s, for 14 s more of a clean
/// build). `STAMPEDE_DEBUG_ONONE=1 swift build` builds them unoptimized, for a debugger.
let simulate: [SwiftSetting] =
  optimize
  + (Context.environment["STAMPEDE_DEBUG_ONONE"] == "1"
    ? [] : [.unsafeFlags(["-O", "-assert-config", "Debug"], .when(configuration: .debug))])

/// The SDK-compatible modules compile as app code does (Swift 5 language mode), since they hand
/// app-owned closures and delegates around as the SDKs do.
let appFacing: [SwiftSetting] = [.swiftLanguageMode(.v5)] + optimize

let package = Package(
  name: "Stampede",
  products: [
    .executable(name: "stampede", targets: ["stampede"]),
    .library(name: "StampedeCLI", targets: ["StampedeCLI", "StampedeHarness"]),
    .library(name: "AtomicXCore", targets: ["AtomicXCore"]),
    .library(name: "Combine", targets: ["Combine"]),
    .library(name: "PushKit", targets: ["PushKit"]),
    .library(name: "LiveCommunicationKit", targets: ["LiveCommunicationKit"]),
    .library(name: "ImSDK_Plus", targets: ["ImSDK_Plus"]),
    .library(name: "TUICore", targets: ["TUICore"]),
    .library(name: "UIKit", targets: ["UIKit"]),
    .library(name: "os", targets: ["os"]),
    .library(name: "OSLog", targets: ["OSLog"]),
    .plugin(name: "PlatformShadows", targets: ["PlatformShadows"]),
    .library(
      name: "Stampede",
      targets: [
        "SimKernel", "LiveStack", "Clients", "Chaos", "Oracles", "Metrics", "Profiles", "Scenario", "Reports", "Runner",
        "History",
      ]),
  ],
  targets: [
    .systemLibrary(
      name: "CJemalloc",
      pkgConfig: "jemalloc",
      providers: [.apt(["libjemalloc-dev"])]
    ),
    .systemLibrary(
      name: "CSQLite",
      pkgConfig: "sqlite3",
      providers: [.apt(["libsqlite3-dev"])]
    ),
    // A header-only module: the processor's prefetch hint and the kernel's huge-page advice.
    .systemLibrary(name: "CPrefetch"),
    /// The app host current on each thread, as a C thread-local (see its header). DWARF 4 debug
    /// information, which valgrind's reader (callgrind, for `make instructions`) accepts.
    .target(name: "CThreadState", cSettings: [.unsafeFlags(["-gdwarf-4"])]),
    // Functions the executable defines in place of the shared libraries' for app code: the
    // simulated wall clock (`Date()`) and the Swift runtime's misuse reports (see the headers).
    .target(name: "CPlatformHooks", cSettings: [.unsafeFlags(["-gdwarf-4"])]),
    .target(name: "SimKernel", dependencies: ["CPrefetch"], swiftSettings: simulate),
    .target(name: "LiveStack", dependencies: ["SimKernel"], swiftSettings: simulate),
    .target(name: "Clients", dependencies: ["SimKernel", "LiveStack"], swiftSettings: simulate),
    .target(name: "Chaos", dependencies: ["SimKernel", "LiveStack"], swiftSettings: simulate),
    .target(name: "Oracles", dependencies: ["SimKernel", "LiveStack", "Clients", "Chaos"], swiftSettings: simulate),
    .target(name: "Metrics", dependencies: ["SimKernel", "LiveStack", "Clients"], swiftSettings: simulate),
    .target(
      name: "Profiles", dependencies: ["SimKernel", "LiveStack", "Clients", "Chaos", "Oracles", "Metrics"],
      swiftSettings: optimize),
    .target(
      name: "Scenario", dependencies: ["SimKernel", "LiveStack", "Clients", "Chaos", "Oracles", "Metrics", "Profiles"],
      swiftSettings: simulate),
    .target(
      name: "Reports", dependencies: ["SimKernel", "Metrics", "Chaos", "Oracles", "Profiles", "Scenario"],
      swiftSettings: optimize),
    .target(name: "History", dependencies: ["CSQLite", "Metrics", "Reports"], swiftSettings: optimize),
    .target(
      name: "Runner",
      dependencies: [
        "SimKernel", "LiveStack", "Clients", "Chaos", "Oracles", "Metrics", "Profiles", "Scenario", "Reports",
        "CJemalloc",
      ], swiftSettings: optimize),
    .target(
      name: "StampedeCLI",
      dependencies: [
        "Runner", "StampedeHarness", "Profiles", "Scenario", "Reports", "Clients", "SimKernel", "LiveStack", "Metrics",
        "Chaos",
        "Oracles", "CJemalloc", "CThreadState", "VirtualPlatform", "History",
      ]),
    .executableTarget(name: "stampede", dependencies: ["StampedeCLI"]),
    // The examples: view models written against the SDK-compatible modules only, and the
    // executable that registers them with the harness. They build as a new app target does today:
    // default main-actor isolation (Swift 6.2's `.defaultIsolation(MainActor.self)`), files that
    // import Foundation themselves (the PlatformShadows plugin).
    .target(
      name: "ExampleApps",
      dependencies: [
        "AtomicXCore", "Combine", "PushKit", "LiveCommunicationKit", "ImSDK_Plus", "TUICore", "UIKit", "os",
      ],
      path: "Examples/ExampleApps", swiftSettings: appFacing + [.unsafeFlags(["-default-isolation", "MainActor"])],
      plugins: ["PlatformShadows"]),
    // The seed documents' own code, as printed (see docs/CLIENTS.md for the edits a build forced),
    // with the glue that runs it as virtual users.
    .target(
      name: "SeedApps",
      dependencies: [
        "AtomicXCore", "Combine", "PushKit", "LiveCommunicationKit", "ImSDK_Plus", "TUICore", "UIKit",
        "StampedeHarness",
      ],
      path: "Examples/SeedApps", swiftSettings: appFacing),
    .target(
      name: "ExampleSuites", dependencies: ["ExampleApps", "SeedApps", "StampedeHarness"],
      path: "Examples/ExampleSuites"),
    .executableTarget(
      name: "stampede-examples", dependencies: ["ExampleSuites", "StampedeCLI"], path: "Examples/stampede-examples"),
    // Declares the simulated platform in an app target's own module (see the plugin).
    .plugin(name: "PlatformShadows", capability: .buildTool(), dependencies: ["stampede-platform-shadows"]),
    .executableTarget(name: "stampede-platform-shadows", path: "Plugins/PlatformShadowsTool"),
    .target(
      name: "VirtualPlatform",
      dependencies: ["CPrefetch", "CThreadState", "CPlatformHooks", "SimKernel", "LiveStack", "Clients"],
      swiftSettings: optimize
    ),
    .target(name: "Combine", dependencies: ["VirtualPlatform"], swiftSettings: simulate),
    .target(
      name: "AtomicXCore", dependencies: ["Combine", "VirtualPlatform", "Clients", "LiveStack", "SimKernel"],
      swiftSettings: simulate),
    .target(
      name: "PushKit", dependencies: ["VirtualPlatform", "Clients", "LiveStack", "SimKernel"], swiftSettings: appFacing),
    .target(
      name: "LiveCommunicationKit", dependencies: ["VirtualPlatform", "Clients", "LiveStack", "SimKernel"],
      swiftSettings: appFacing),
    .target(
      name: "ImSDK_Plus", dependencies: ["VirtualPlatform", "PushKit", "Clients", "LiveStack", "SimKernel"],
      swiftSettings: appFacing),
    .target(
      name: "StampedeHarness",
      dependencies: [
        "AtomicXCore", "PushKit", "LiveCommunicationKit", "VirtualPlatform", "Clients", "LiveStack", "SimKernel",
      ], swiftSettings: appFacing),
    .target(
      name: "TUICore", dependencies: ["VirtualPlatform", "Clients", "LiveStack", "SimKernel"], swiftSettings: appFacing),
    .target(name: "UIKit", dependencies: ["VirtualPlatform"], swiftSettings: appFacing),
    // Apple's unified logging (`import os`, `import OSLog`): into the user's trace.
    .target(name: "os", dependencies: ["VirtualPlatform"], swiftSettings: appFacing),
    .target(name: "OSLog", dependencies: ["os"], swiftSettings: appFacing),
    // Running the package's executables from tests.
    .target(name: "ToolSupport", path: "Tests/ToolSupport"),
    .testTarget(
      name: "StampedeTests",
      dependencies: [
        "SimKernel", "LiveStack", "Clients", "Chaos", "Oracles", "Metrics", "Profiles", "Scenario", "Reports", "Runner",
        "StampedeCLI", "stampede", "ToolSupport", "History",
      ]),
    // App code's view of the platform, tested as app code is written (Swift 5 language mode).
    .testTarget(
      name: "AppTests",
      dependencies: [
        "stampede-examples", "ExampleSuites", "ExampleApps", "StampedeCLI", "StampedeHarness", "VirtualPlatform",
        "UIKit", "os", "OSLog",
        "Combine", "AtomicXCore", "PushKit", "LiveCommunicationKit", "Clients", "LiveStack", "SimKernel", "Oracles",
        "Runner", "Profiles", "Scenario", "Reports", "ToolSupport",
      ], swiftSettings: appFacing),
  ]
)
