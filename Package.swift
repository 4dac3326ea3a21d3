// swift-tools-version:6.0
import PackageDescription

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
    .target(name: "SimKernel"),
    .target(name: "LiveStack", dependencies: ["SimKernel"]),
    .target(name: "Clients", dependencies: ["SimKernel", "LiveStack"]),
    .target(name: "Chaos", dependencies: ["SimKernel", "LiveStack"]),
    .target(name: "Oracles", dependencies: ["SimKernel", "LiveStack", "Clients", "Chaos"]),
    .target(name: "Metrics", dependencies: ["SimKernel", "LiveStack", "Clients"]),
    .target(name: "Scenario", dependencies: ["SimKernel", "LiveStack", "Clients", "Chaos", "Oracles", "Metrics"]),
    .target(name: "Reports", dependencies: ["SimKernel", "Metrics", "Chaos", "Oracles", "Scenario"]),
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
