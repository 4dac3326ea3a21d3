import Testing

@testable import SimKernel

@Suite struct RandomTests {
  @Test func splitMixMatchesTheReferenceOutput() {
    var m = SplitMix64(seed: 0)
    #expect(m.next() == 0xE220_A839_7B1D_CDAF)
    #expect(m.next() == 7_960_286_522_194_355_700)
  }

  @Test func xoshiroGoldenValues() {
    var r = Xoshiro256(seed: 42)
    #expect(
      [r.next(), r.next(), r.next()] == [
        1_546_998_764_402_558_742, 6_990_951_692_964_543_102, 12_544_586_762_248_559_009,
      ])
  }

  @Test func streamSeedsArePinnedAndIndependentOfOtherNames() {
    #expect(RandomStreams.streamSeed(root: 42, name: "audience") == 6_177_157_946_239_989_120)
    let streams = RandomStreams(rootSeed: 42)
    var a = streams.stream("audience")
    var b = streams.stream("hosts")
    #expect(a.next() != b.next())
    var again = streams.stream("audience")
    var first = streams.stream("audience")
    #expect(again.next() == first.next())
  }

  @Test func boundedDrawsStayInRangeAndCoverIt() {
    var r = Xoshiro256(seed: 5)
    var seen = [Bool](repeating: false, count: 7)
    for _ in 0..<1_000 {
      let v = r.next(below: 7)
      #expect(v < 7)
      seen[Int(v)] = true
    }
    #expect(seen.allSatisfy { $0 })
    for _ in 0..<1_000 { #expect((-3...3).contains(r.next(in: -3...3))) }
  }

  @Test func chanceHonoursExactRatios() {
    var r = Xoshiro256(seed: 9)
    #expect(!(0..<1_000).contains { _ in r.chance(.zero) })
    #expect((0..<1_000).allSatisfy { _ in r.chance(.one) })
    let quarter = Ratio(1, 4)!
    let hits = (0..<100_000).filter { _ in r.chance(quarter) }.count
    #expect(abs(hits - 25_000) < 600)  // about 4.4 standard deviations
  }

  @Test func unitDrawsAreInTheirIntervals() {
    var r = Xoshiro256(seed: 1)
    for _ in 0..<10_000 {
      let u = r.nextUnit()
      let o = r.nextOpenUnit()
      #expect(u >= 0 && u < 1)
      #expect(o > 0 && o <= 1)
    }
  }
}

@Suite struct RatioTests {
  @Test(
    arguments: [
      ("0.05", 1, 20), ("5%", 1, 20), ("1/20", 1, 20), ("0", 0, 1), ("1", 1, 1), ("0.333", 333, 1000),
      ("12.5%", 1, 8), (".5", 1, 2),
    ] as [(String, UInt64, UInt64)])
  func parsesExactly(text: String, numerator: UInt64, denominator: UInt64) {
    let r = Ratio.parse(text)
    #expect(r?.numerator == numerator && r?.denominator == denominator)
  }

  @Test(arguments: ["1.5", "-0.1", "2/1", "1/0", "abc", "", "5.%", "0.1234567890123456", "101%"])
  func rejectsImpossibleValues(text: String) {
    #expect(Ratio.parse(text) == nil)
  }
}
