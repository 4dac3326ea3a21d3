// swift-tools-version:6.0
import PackageDescription

/// The model is split into targets by concept; whole-program speed must not depend on that split, so
/// release builds let the optimizer inline and specialize across target boundaries.
let optimize: [SwiftSetting] = [.unsafeFlags(["-cross-module-optimization"], .when(configuration: .release))]

let package = Package(
  name: "Stampede",
  products: [
    .executable(name: "stampede", targets: ["stampede"]),
    .library(
      name: "Stampede",
      targets: [
        "SimKernel", "LiveStack", "Clients", "Chaos", "Oracles", "Metrics", "Scenario", "Reports", "Runner",
      ]),
  ],
  targets: [
    .systemLibrary(
      name: "CJemalloc",
      pkgConfig: "jemalloc",
      providers: [.apt(["libjemalloc-dev"])]
    ),
    .target(name: "SimKernel", swiftSettings: optimize),
    .target(name: "LiveStack", dependencies: ["SimKernel"], swiftSettings: optimize),
    .target(name: "Clients", dependencies: ["SimKernel", "LiveStack"], swiftSettings: optimize),
    .target(name: "Chaos", dependencies: ["SimKernel", "LiveStack"], swiftSettings: optimize),
    .target(name: "Oracles", dependencies: ["SimKernel", "LiveStack", "Clients", "Chaos"], swiftSettings: optimize),
    .target(name: "Metrics", dependencies: ["SimKernel", "LiveStack", "Clients"], swiftSettings: optimize),
    .target(
      name: "Scenario", dependencies: ["SimKernel", "LiveStack", "Clients", "Chaos", "Oracles", "Metrics"],
      swiftSettings: optimize),
    .target(
      name: "Reports", dependencies: ["SimKernel", "Metrics", "Chaos", "Oracles", "Scenario"], swiftSettings: optimize),
    .target(
      name: "Runner",
      dependencies: [
        "SimKernel", "LiveStack", "Clients", "Chaos", "Oracles", "Metrics", "Scenario", "Reports", "CJemalloc",
      ]),
    .executableTarget(name: "stampede", dependencies: ["Runner", "CJemalloc"]),
    .testTarget(
      name: "StampedeTests",
      dependencies: [
        "SimKernel", "LiveStack", "Clients", "Chaos", "Oracles", "Metrics", "Scenario", "Reports", "Runner",
        "stampede",
      ]),
  ]
)
