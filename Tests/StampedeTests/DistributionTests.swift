import Foundation
import Testing

@testable import SimKernel

@Suite struct DistributionTests {
  static let golden: [(Distribution, [Int64])] = [
    (.constant(5e9), [5_000_000_000, 5_000_000_000, 5_000_000_000, 5_000_000_000]),
    (.uniform(low: 1e9, high: 5e9), [3_802_305_929, 2_115_004_918, 4_358_509_848, 4_924_390_900]),
    (.exponential(mean: 2e9), [711_703_474, 2_554_871_091, 349_593_967, 38_166_413]),
    (.normal(mean: 100e6, sd: 20e6), [77_025_146, 119_959_112, 94_023_774, 98_840_846]),
    (.lognormal(median: 40e6, sigma: 0.6), [20_078_184, 72_795_403, 33_434_646, 38_632_923]),
    (.pareto(scale: 100e6, shape: 1.5), [126_773_836, 234_344_882, 112_359_270, 101_280_341]),
    (
      .empirical([
        .init(probability: 0.5, value: 10e6), .init(probability: 0.9, value: 40e6), .init(probability: 1, value: 200e6),
      ]),
      [25_043_236, 10_000_000, 35_472_060, 169_756_360]
    ),
  ]

  @Test func firstSamplesOfEachDistributionArePinned() {
    for (distribution, expected) in DistributionTests.golden {
      var rng = Xoshiro256(seed: 7)
      let got = (0..<4).map { _ in distribution.sampleDuration(&rng).nanoseconds }
      #expect(got == expected, "\(distribution)")
    }
  }

  @Test func theZigguratNormalHasTheRightShapeIncludingItsTails() {
    // One million deviates: moments, and the mass in the centre, the wedges and the tail beyond
    // the ziggurat's base (r = 3.4426) against the exact normal CDF.
    var rng = Xoshiro256(seed: 2024)
    let n = 1_000_000
    var sum = 0.0
    var sumSquares = 0.0
    var sumFourth = 0.0
    var within1 = 0
    var beyond2 = 0
    var beyondR = 0
    var positive = 0
    for _ in 0..<n {
      let z = Distribution.standardNormal(&rng)
      sum += z
      sumSquares += z * z
      sumFourth += z * z * z * z
      if abs(z) < 1 { within1 += 1 }
      if abs(z) > 2 { beyond2 += 1 }
      if abs(z) > Ziggurat.r { beyondR += 1 }
      if z > 0 { positive += 1 }
    }
    let mean = sum / Double(n)
    let variance = sumSquares / Double(n) - mean * mean
    #expect(abs(mean) < 0.004)
    #expect(abs(variance - 1) < 0.005)
    #expect(abs(sumFourth / Double(n) - 3) < 0.03)
    // P(|z| < 1) = 0.682689, P(|z| > 2) = 0.0455003, P(|z| > 3.4426) = 0.000576.
    #expect(abs(Double(within1) / Double(n) - 0.682689) < 0.0015)
    #expect(abs(Double(beyond2) / Double(n) - 0.0455003) < 0.0007)
    #expect(abs(Double(beyondR) / Double(n) - 0.000576) < 0.0001)
    #expect(abs(Double(positive) / Double(n) - 0.5) < 0.0015)
  }

  @Test func sampleMeansApproachTheAnalyticMeans() {
    for (distribution, _) in DistributionTests.golden {
      guard case .pareto = distribution else {
        var rng = Xoshiro256(seed: 99)
        let n = 200_000
        var sum = 0.0
        for _ in 0..<n { sum += distribution.sample(&rng) }
        let mean = sum / Double(n)
        #expect(abs(mean - distribution.mean) / distribution.mean < 0.02, "\(distribution)")
        continue
      }
    }
  }

  @Test func portableLogAndExpAgreeWithTheCorrectlyRoundedValues() {
    #expect(PortableMath.log(2).bitPattern == 0x3FE6_2E42_FEFA_39EF)
    // fdlibm's exp is within one ulp, not correctly rounded: e rounds to ...769, exp(1) gives ...76A.
    #expect(PortableMath.exp(1).bitPattern == 0x4005_BF0A_8B14_576A)
    var rng = Xoshiro256(seed: 4)
    for _ in 0..<20_000 {
      let x = rng.nextOpenUnit() * 1e6
      let l = PortableMath.log(x)
      #expect(abs(l - Foundation.log(x)) <= 2 * Foundation.log(x).ulp + 1e-300)
      let y = (rng.nextUnit() - 0.5) * 80
      #expect(abs(PortableMath.exp(y) - Foundation.exp(y)) <= 2 * Foundation.exp(y).ulp)
    }
    #expect(PortableMath.log(0) == -.infinity)
    #expect(PortableMath.log(-1).isNaN)
    #expect(PortableMath.exp(1000) == .infinity)
    #expect(PortableMath.exp(-1000) == 0)
  }

  @Test(arguments: [
    ("lognormal(40ms, 0.6)", Distribution.lognormal(median: 40e6, sigma: 0.6)),
    ("exponential(2s)", .exponential(mean: 2e9)),
    ("uniform(1s, 5s)", .uniform(low: 1e9, high: 5e9)),
    ("normal(100ms, 20ms)", .normal(mean: 100e6, sd: 20e6)),
    ("pareto(100ms, 1.5)", .pareto(scale: 100e6, shape: 1.5)),
    ("constant(5s)", .constant(5e9)),
    ("5s", .constant(5e9)),
    (" LogNormal( 1m , 0.2 ) ", .lognormal(median: 60e9, sigma: 0.2)),
    (
      "empirical(10ms@0.5, 40ms@1)",
      .empirical([.init(probability: 0.5, value: 10e6), .init(probability: 1, value: 40e6)])
    ),
  ])
  func parsesEverySpelling(text: String, expected: Distribution) throws {
    #expect(try Distribution.parse(text, quantity: .duration) == expected)
  }

  @Test(arguments: [
    ("lognormal(40ms)", "lognormal takes 2 arguments"),
    ("gamma(1s)", "unknown distribution \"gamma\""),
    ("uniform(5s, 1s)", "lower bound must not exceed"),
    ("exponential(0s)", "greater than zero"),
    ("lognormal(40, 0.6)", "median: expected a duration"),
    ("lognormal(40ms, x)", "sigma: expected a number"),
    ("empirical(10ms@0.5)", "last probability must be 1"),
    ("empirical(10ms@0.5, 5ms@1)", "non-decreasing"),
    ("normal(1s, 1s", "missing ')'"),
    ("ten", "expected a duration"),
  ])
  func reportsWhatWasExpected(text: String, fragment: String) {
    do {
      _ = try Distribution.parse(text, quantity: .duration)
      Issue.record("\(text) was accepted")
    } catch {
      #expect(error.message.contains(fragment), "\(error.message)")
    }
  }
}

@Suite struct DurationTests {
  @Test(arguments: [
    ("250ms", Int64(250_000_000)), ("1.5s", 1_500_000_000), ("30m", 1_800_000_000_000), ("2h", 7_200_000_000_000),
    ("1h30m", 5_400_000_000_000), ("0", 0), ("0s", 0), ("10us", 10_000), ("7ns", 7), ("0.001ms", 1_000),
  ])
  func parses(text: String, nanoseconds: Int64) {
    #expect(DurationFormat.parse(text)?.nanoseconds == nanoseconds)
  }

  @Test(arguments: ["", "ms", "1.5", "5 s", "1.s", "-1s", "1.0000000001s", "9999999999h", "3d", "ten"])
  func rejects(text: String) {
    #expect(DurationFormat.parse(text) == nil)
  }

  @Test(arguments: [
    (Int64(250_000_000), "250ms"), (1_500_000_000, "1.5s"), (1_800_000_000_000, "30m"), (0, "0s"),
    (7_200_000_000_000, "2h"), (1_234, "1.234us"), (-2_000_000_000, "-2s"), (5_400_000_000_000, "1.5h"),
  ])
  func formats(nanoseconds: Int64, text: String) {
    #expect(SimDuration(nanoseconds: nanoseconds).description == text)
  }

  @Test func roundingForDisplayGivesAReadableSpelling() {
    let d = SimDuration(nanoseconds: 1_340_570_243_654)
    #expect(d.rounded(to: .milliseconds(100)).description == "1340.5s")
    #expect(d.rounded(to: .seconds(60)).description == "22m")
  }

  @Test func formattingRoundTrips() {
    var rng = Xoshiro256(seed: 2)
    for _ in 0..<2_000 {
      let d = SimDuration(nanoseconds: Int64(rng.next(below: 1 << 50)))
      #expect(DurationFormat.parse(d.description) == d)
    }
  }
}
