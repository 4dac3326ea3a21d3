import Foundation
import Testing

@testable import Metrics
@testable import Reports
@testable import SimKernel

@Suite struct HistogramTests {
  @Test func bucketBoundsRoundTripAndTileTheLine() {
    for index in 0..<(Histogram.bucketCount - 1) {
      let low = Histogram.bucketLowerBound(index)
      #expect(Histogram.bucketIndex(low) == index)
      #expect(Histogram.bucketLowerBound(index + 1) == low + Histogram.bucketWidth(index))
    }
    #expect(Histogram.bucketIndex(.max) == Histogram.bucketCount - 1)
  }

  @Test func quantilesAreWithinOnePercentOfExactOnes() {
    var rng = Xoshiro256(seed: 21)
    for distribution in [
      Distribution.lognormal(median: 40e6, sigma: 1.2), .exponential(mean: 3e9), .uniform(low: 0, high: 500),
    ] {
      var h = Histogram()
      var values: [UInt64] = []
      for _ in 0..<50_000 {
        let v = UInt64(distribution.sampleDuration(&rng).nanoseconds)
        values.append(v)
        h.record(v)
      }
      values.sort()
      for q in [0.5, 0.9, 0.99, 0.999] {
        let exact = Double(values[Int((q * Double(values.count)).rounded(.up)) - 1])
        let estimate = Double(h.quantile(q)!)
        #expect(abs(estimate - exact) <= 0.01 * exact + 1, "q=\(q) exact=\(exact) estimate=\(estimate)")
      }
      #expect(h.quantile(1) == values.last)
      #expect(h.min == values.first)
      #expect(h.count == 50_000)
    }
  }

  @Test func mergingIsExactAndOrderIndependent() {
    var rng = Xoshiro256(seed: 8)
    var parts = [Histogram](repeating: Histogram(), count: 4)
    var whole = Histogram()
    for i in 0..<40_000 {
      let v = rng.next(below: 1 << 40)
      parts[i % 4].record(v)
      whole.record(v)
    }
    var forward = Histogram()
    for p in parts { forward.merge(p) }
    var backward = Histogram()
    for p in parts.reversed() { backward.merge(p) }
    #expect(forward == whole)
    #expect(backward == whole)
  }

  @Test func aReportedSummaryRebuildsTheExactHistogram() throws {
    var rng = Xoshiro256(seed: 31)
    var h = Histogram()
    for _ in 0..<5_000 { h.record(rng.next(below: 1 << 36)) }
    let summary = LatencySummary(h)
    #expect(summary.histogram == h)
    let decoded = try JSONDecoder().decode(LatencySummary.self, from: JSONEncoder().encode(summary))
    #expect(decoded.histogram == h)
    #expect(LatencySummary(Histogram()).histogram == Histogram())
  }

  @Test func anEmptyHistogramHasNoQuantiles() {
    #expect(Histogram().quantile(0.5) == nil)
    #expect(Histogram().mean == nil)
  }
}

@Suite struct CounterTests {
  @Test func countersAreExactAndListedByName() {
    var c = Counters()
    let b = c.register("b")
    let a = c.register("a")
    #expect(c.register("b") == b)
    c.add(b, 3)
    c.add(a)
    #expect(c.value("b") == 3)
    #expect(c.value("missing") == nil)
    #expect(c.sorted.map(\.name) == ["a", "b"])
  }
}
