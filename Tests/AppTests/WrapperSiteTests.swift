import AtomicXCore
import Testing

@testable import Clients
@testable import VirtualPlatform

/// An app's async wrapper around an SDK call can pass its caller's file and line through, so that
/// findings name the view model's line (docs/CLIENTS.md, "Roles, taps and timing").
@Suite struct WrapperSiteTests {
  struct Wrapped {
    let store: AtomicXCore.CoGuestStore
    func accept(_ userID: String, file: StaticString = #fileID, line: UInt = #line) async throws {
      try await withCheckedThrowingContinuation { (k: CheckedContinuation<Void, Error>) in
        store.acceptApplication(userID: userID, completion: { k.resume(with: $0) }, file: file, line: line)
      }
    }
  }

  @Test func aWrapperPassesItsCallersLine() {
    let bench = HostBench()
    var sites: [String] = []
    bench.run(as: 0) {
      let wrapped = Wrapped(store: AtomicXCore.CoGuestStore.create(liveID: "live_0"))
      Task { try? await wrapped.accept("user_1") }  // the line a finding names
    }
    bench.run(as: 0) { sites = bench.runtime.callSites.names }
    #expect(sites.contains { $0.hasSuffix("WrapperSiteTests.swift:24") }, "\(sites)")
  }
}
