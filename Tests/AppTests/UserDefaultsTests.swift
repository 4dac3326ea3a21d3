import Testing

@testable import Clients
@testable import SimKernel
@testable import VirtualPlatform

/// `UserDefaults` as app code uses it: each virtual user's phone has its own database, kept across
/// its app's launches and fresh in every run.
@Suite(.serialized) struct UserDefaultsTests {
  /// What one user stores, another never reads (Foundation's would be one file for the process).
  @Test func eachUserHasItsOwnDefaults() {
    let bench = HostBench()
    var seen: [String?] = []
    bench.run(as: 1) { UserDefaults.standard.set("token-of-1", forKey: "voipToken") }
    bench.run(as: 2) { seen.append(UserDefaults.standard.string(forKey: "voipToken")) }
    bench.run(as: 1) { seen.append(UserDefaults.standard.string(forKey: "voipToken")) }
    #expect(seen == [nil, "token-of-1"])
  }

  /// A process that dies (its singletons forgotten) leaves the database behind, as a phone keeps
  /// an app's defaults across launches; another run (another host) starts empty.
  @Test func theDefaultsOutliveTheProcessAndNotTheRun() {
    let bench = HostBench()
    var seen: [Int] = []
    bench.run(as: 3) {
      UserDefaults.standard.set(41, forKey: "lastCall")
      _ = NotificationCenter.default
    }
    bench.host.forgetSingletons(of: 3)
    bench.run(as: 3) { seen.append(UserDefaults.standard.integer(forKey: "lastCall")) }
    let next = HostBench()
    next.run(as: 3) { seen.append(UserDefaults.standard.integer(forKey: "lastCall")) }
    #expect(seen == [41, 0])
  }

  /// A suite is one database per user however many handles reach it; `nil` names the standard
  /// one, and the global domain is refused.
  @Test func handlesOnOneSuiteShareItsValues() {
    let bench = HostBench()
    var seen: [String] = []
    bench.run(as: 1) {
      UserDefaults(suiteName: "group.calls")?.set(true, forKey: "muted")
      seen.append("\(UserDefaults(suiteName: "group.calls")?.bool(forKey: "muted") ?? false)")
      seen.append("\(UserDefaults.standard.bool(forKey: "muted"))")
      UserDefaults(suiteName: nil)?.set("x", forKey: "k")
      seen.append(UserDefaults.standard.string(forKey: "k") ?? "nil")
      seen.append("\(UserDefaults(suiteName: "NSGlobalDomain") == nil)")
    }
    #expect(seen == ["true", "false", "x", "true"])
  }

  /// The typed getters convert as Foundation's do; registered defaults show until a value is
  /// stored, and again after it is removed.
  @Test func typedGettersAndRegisteredDefaults() {
    let bench = HostBench()
    bench.run(as: 2) {
      let d = UserDefaults.standard
      d.register(defaults: ["retries": 3, "ring": "classic"])
      #expect(d.integer(forKey: "retries") == 3 && d.string(forKey: "ring") == "classic")
      d.set(5, forKey: "retries")
      #expect(d.integer(forKey: "retries") == 5)
      d.removeObject(forKey: "retries")
      #expect(d.integer(forKey: "retries") == 3)
      d.set("7", forKey: "s")
      #expect(d.integer(forKey: "s") == 7 && d.double(forKey: "s") == 7 && d.bool(forKey: "s"))
      d.set(true, forKey: "b")
      #expect(d.integer(forKey: "b") == 1 && d.string(forKey: "b") == nil)
      d.set(2.9, forKey: "x")
      #expect(d.integer(forKey: "x") == 2 && d.float(forKey: "x") == Float(2.9))
      d.set(["a", "b"], forKey: "list")
      #expect(d.stringArray(forKey: "list") == ["a", "b"] && d.array(forKey: "list")?.count == 2)
      #expect(d.object(forKey: "missing") == nil && !d.bool(forKey: "missing") && d.synchronize())
      #expect(d.dictionaryRepresentation()["ring"] as? String == "classic")
      d.set(nil, forKey: "list")
      #expect(d.object(forKey: "list") == nil)
    }
  }

  /// Outside every user's code there is no phone: a database nothing else reads, and a finding.
  @Test func outsideEveryUserItIsAFinding() {
    let bench = HostBench()
    bench.host.run(as: .max) { UserDefaults.standard.set(1, forKey: "k") }
    #expect(bench.runtime.appOutsideUser.map(\.what) == ["UserDefaults.standard"])
    var seen = -1
    bench.run(as: 1) { seen = UserDefaults.standard.integer(forKey: "k") }
    #expect(seen == 0)
  }
}

/// The wall clock app code reads is simulated time from a fixed epoch; everything else reads the
/// machine's.
@Suite(.serialized) struct WallClockTests {
  @Test func dateInsideUserCodeIsTheSimulatedClock() {
    let bench = HostBench()
    var seen: [Double] = []
    var cSeconds = 0
    bench.run(as: 1) {
      seen.append(Date().timeIntervalSince1970)
      DispatchQueue.main.asyncAfter(deadline: .now() + 90.25) {
        seen.append(Date.now.timeIntervalSince1970)
        cSeconds = time(nil)
      }
    }
    bench.drain()
    let epoch = Double(WallClock.epoch)
    #expect(seen == [epoch, epoch + 90.25])
    #expect(cSeconds == Int(WallClock.epoch) + 90)
    // Outside every user's code, the machine's clock (this test runs long after 2026-01-01).
    let machine = Date().timeIntervalSince1970
    #expect(abs(machine - Double(WallClock.machineNanoseconds) / 1e9) < 60)
    #expect(machine > epoch + 86_400)
  }
}

/// The randomness app code draws comes from its user's own stream, seeded from the run's seed: the
/// same in every run of a seed, whatever other users draw.
@Suite(.serialized) struct AppRandomnessTests {
  func draws(_ host: AppHost, _ user: UInt32) -> [Int] {
    var out: [Int] = []
    host.run(as: user) {
      out = (0..<4).map { _ in Int.random(in: 0..<1_000_000) }
      out.append(contentsOf: [1, 2, 3, 4, 5, 6].shuffled())
      out.append(Int(Double.random(in: 0..<1) * 1e6))
    }
    return out
  }

  @Test func eachUsersDrawsFollowTheRunsSeedAndNotTheOthers() {
    let first = HostBench()
    let one = draws(first.host, 1)
    let two = draws(first.host, 2)
    // Another run of the same seed, the other user drawing first.
    let again = HostBench()
    let twoAgain = draws(again.host, 2)
    let oneAgain = draws(again.host, 1)
    #expect(one == oneAgain && two == twoAgain)
    #expect(one != two)
    // Another seed, another stream.
    let other = AppHost(runtime: HostBench().runtime, randomSeed: 7)
    #expect(draws(other, 1) != one)
    // Foundation's UUIDs too (read from /dev/urandom), so a dictionary keyed by them iterates alike.
    func uuids(_ host: AppHost, _ user: UInt32) -> [UUID] {
      var out: [UUID] = []
      host.run(as: user) { out = [UUID(), UUID()] }
      return out
    }
    let a = uuids(HostBench().host, 1)
    #expect(a == uuids(HostBench().host, 1) && a[0] != a[1] && a != uuids(HostBench().host, 2))
    #expect(UUID() != UUID())
    // Outside every user's code, the system's randomness: not the user's stream.
    let outside = (0..<4).map { _ in Int.random(in: 0..<1_000_000) }
    #expect(outside != Array(one.prefix(4)))
  }
}
