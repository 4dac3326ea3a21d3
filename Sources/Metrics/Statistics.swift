import Foundation

/// The significance tests `stampede compare` uses, each returning a two-sided p-value: the chance
/// of a difference at least this large if both sides came from the same distribution.
public enum Statistics {
  /// The chance that a standard normal variable is at least `|z|` away from 0.
  public static func twoSidedNormalP(_ z: Double) -> Double {
    guard z.isFinite else { return 0 }
    return erfc(abs(z) / 2.0.squareRoot())
  }

  /// The chance that a chi-square variable with `degrees` degrees of freedom exceeds `x`.
  public static func chiSquareUpperTail(_ x: Double, degrees: Int) -> Double {
    guard degrees > 0 else { return 1 }
    guard x > 0 else { return 1 }
    return regularizedUpperGamma(Double(degrees) / 2, x / 2)
  }

  /// Q(a, x) = Γ(a, x) / Γ(a): the series below a + 1, the continued fraction (Lentz) above.
  public static func regularizedUpperGamma(_ a: Double, _ x: Double) -> Double {
    precondition(a > 0)
    if x <= 0 { return 1 }
    let logPrefix = -x + a * log(x) - lgamma(a)
    if x < a + 1 {
      var term = 1 / a
      var sum = term
      var n = a
      for _ in 0..<10_000 {
        n += 1
        term *= x / n
        sum += term
        if abs(term) < abs(sum) * 1e-15 { break }
      }
      return max(0, min(1, 1 - sum * exp(logPrefix)))
    }
    let tiny = 1e-300
    var b = x + 1 - a
    var c = 1 / tiny
    var d = 1 / b
    var h = d
    for i in 1..<10_000 {
      let an = -Double(i) * (Double(i) - a)
      b += 2
      d = an * d + b
      if abs(d) < tiny { d = tiny }
      c = b + an / c
      if abs(c) < tiny { c = tiny }
      d = 1 / d
      let delta = d * c
      h *= delta
      if abs(delta - 1) < 1e-15 { break }
    }
    return max(0, min(1, exp(logPrefix) * h))
  }

  /// The outcome of a test.
  public struct TestResult: Sendable, Equatable {
    /// The test's name, as reports print it.
    public var test: String
    /// The statistic (chi-square, z).
    public var statistic: Double
    /// Two-sided p-value.
    public var p: Double
    /// Samples or pairs the test used.
    public var n: Int
  }

  /// Chi-square test of homogeneity between two histograms given as counts per bucket index
  /// (any buckets, either side may lack some). Neighbouring buckets are pooled, in index order,
  /// until each pooled cell expects at least five samples on both sides, as the test requires.
  /// `nil` when either side is empty.
  public static func bucketTest(_ a: [Int: UInt64], _ b: [Int: UInt64]) -> TestResult? {
    let na = Double(a.values.reduce(0, +))
    let nb = Double(b.values.reduce(0, +))
    guard na > 0, nb > 0 else { return nil }
    let total = na + nb
    var cells: [(a: Double, b: Double)] = []
    var pending = (a: 0.0, b: 0.0)
    for index in Set(a.keys).union(b.keys).sorted() {
      pending.a += Double(a[index] ?? 0)
      pending.b += Double(b[index] ?? 0)
      let pooled = pending.a + pending.b
      if pooled * na / total >= 5 && pooled * nb / total >= 5 {
        cells.append(pending)
        pending = (0, 0)
      }
    }
    if pending.a + pending.b > 0 {
      if cells.isEmpty {
        cells.append(pending)
      } else {
        cells[cells.count - 1].a += pending.a
        cells[cells.count - 1].b += pending.b
      }
    }
    guard cells.count > 1 else {
      return TestResult(test: "chi-square over buckets", statistic: 0, p: 1, n: Int(total))
    }
    var x2 = 0.0
    for cell in cells {
      let pooled = cell.a + cell.b
      let ea = pooled * na / total
      let eb = pooled * nb / total
      x2 += (cell.a - ea) * (cell.a - ea) / ea + (cell.b - eb) * (cell.b - eb) / eb
    }
    return TestResult(
      test: "chi-square over buckets", statistic: x2, p: chiSquareUpperTail(x2, degrees: cells.count - 1),
      n: Int(total))
  }

  /// Whether two Poisson counts, `countA` over `exposureA` and `countB` over `exposureB` (simulated
  /// seconds), have the same rate: a z-test with the pooled rate under the null hypothesis.
  /// `nil` when an exposure is not positive.
  public static func rateTest(countA: UInt64, exposureA: Double, countB: UInt64, exposureB: Double) -> TestResult? {
    guard exposureA > 0, exposureB > 0 else { return nil }
    let ra = Double(countA) / exposureA
    let rb = Double(countB) / exposureB
    let pooled = Double(countA + countB) / (exposureA + exposureB)
    let variance = pooled / exposureA + pooled / exposureB
    let n = Int(countA + countB)
    guard variance > 0 else { return TestResult(test: "Poisson rate z-test", statistic: 0, p: 1, n: n) }
    let z = (rb - ra) / variance.squareRoot()
    return TestResult(test: "Poisson rate z-test", statistic: z, p: twoSidedNormalP(z), n: n)
  }

  /// Wilcoxon signed-rank test on paired differences `b[i] - a[i]` (zeros dropped, tied ranks
  /// averaged). Up to ``signedRankExactLimit`` non-zero differences the p-value is exact: the
  /// share of the 2^n equally likely sign assignments whose rank sum lies at least as far from its
  /// mean as the one seen (ties included, by their averaged ranks). Beyond it, the normal
  /// approximation with the variance corrected for ties. With every difference zero, p is 1;
  /// with no differences at all, `nil`. The smallest p a test of `n` pairs can give is
  /// ``signedRankMinimumP(pairs:)``: below it, no data reaches a significance level.
  public static func signedRankTest(_ differences: [Double]) -> TestResult? {
    let nonZero = differences.filter { $0 != 0 && $0.isFinite }
    let n = nonZero.count
    if n == 0 && !differences.isEmpty {
      return TestResult(test: "Wilcoxon signed-rank over seeds", statistic: 0, p: 1, n: differences.count)
    }
    guard n >= 1 else { return nil }
    let sorted = nonZero.sorted { abs($0) < abs($1) }
    var ranks = [Double](repeating: 0, count: n)
    var tieCorrection = 0.0
    var i = 0
    while i < n {
      var j = i
      while j + 1 < n && abs(sorted[j + 1]) == abs(sorted[i]) { j += 1 }
      let rank = Double(i + j + 2) / 2
      for k in i...j { ranks[k] = rank }
      let t = Double(j - i + 1)
      tieCorrection += t * t * t - t
      i = j + 1
    }
    var wPlus = 0.0
    for k in 0..<n where sorted[k] > 0 { wPlus += ranks[k] }
    let nn = Double(n)
    let mean = nn * (nn + 1) / 4
    let variance = nn * (nn + 1) * (2 * nn + 1) / 24 - tieCorrection / 48
    guard variance > 0 else { return TestResult(test: "Wilcoxon signed-rank over seeds", statistic: 0, p: 1, n: n) }
    let z = (wPlus - mean) / variance.squareRoot()
    guard n <= signedRankExactLimit else {
      return TestResult(test: "Wilcoxon signed-rank over seeds", statistic: z, p: twoSidedNormalP(z), n: n)
    }
    // Exact: the distribution of the rank sum over all sign assignments, in doubled ranks (whole
    // numbers, since averaged ranks end in .5 at most).
    let doubled = ranks.map { Int($0 * 2) }
    let total = doubled.reduce(0, +)
    var ways = [Double](repeating: 0, count: total + 1)
    ways[0] = 1
    var reach = 0
    for r in doubled {
      for s in stride(from: reach, through: 0, by: -1) where ways[s] != 0 { ways[s + r] += ways[s] }
      reach += r
    }
    let seen = abs(Int(wPlus * 2) * 2 - total)  // |2·W − total| in doubled ranks, doubled again
    var tail = 0.0
    for s in 0...total where abs(s * 2 - total) >= seen { tail += ways[s] }
    let p = min(1, tail / pow(2, nn))
    return TestResult(test: "Wilcoxon signed-rank over seeds", statistic: z, p: p, n: n)
  }

  /// Up to how many non-zero differences ``signedRankTest(_:)`` gives the exact p-value.
  public static let signedRankExactLimit = 60

  /// The smallest two-sided p-value the signed-rank test of `pairs` non-zero differences can
  /// give (every difference of one sign): 2 / 2^pairs.
  public static func signedRankMinimumP(pairs: Int) -> Double { min(1, pow(2, Double(1 - pairs))) }

  /// How many non-zero paired differences the signed-rank test needs before its smallest p-value
  /// is at most `alpha`.
  public static func signedRankPairsNeeded(alpha: Double) -> Int {
    var n = 1
    while signedRankMinimumP(pairs: n) > alpha && n < 1_000 { n += 1 }
    return n
  }
}

extension Statistics {
  /// Whether two shares, `hitsA` of `trialsA` and `hitsB` of `trialsB`, are the same: a
  /// two-proportion z-test with the pooled share. `nil` when a side has no trials or more hits
  /// than trials.
  public static func proportionTest(hitsA: UInt64, trialsA: UInt64, hitsB: UInt64, trialsB: UInt64) -> TestResult? {
    guard trialsA > 0, trialsB > 0, hitsA <= trialsA, hitsB <= trialsB else { return nil }
    let pa = Double(hitsA) / Double(trialsA)
    let pb = Double(hitsB) / Double(trialsB)
    let pooled = Double(hitsA + hitsB) / Double(trialsA + trialsB)
    let variance = pooled * (1 - pooled) * (1 / Double(trialsA) + 1 / Double(trialsB))
    let n = Int(trialsA + trialsB)
    guard variance > 0 else { return TestResult(test: "two-proportion z-test", statistic: 0, p: 1, n: n) }
    let z = (pb - pa) / variance.squareRoot()
    return TestResult(test: "two-proportion z-test", statistic: z, p: twoSidedNormalP(z), n: n)
  }
}
