/// A probability distribution over non-negative quantities (durations in nanoseconds, or plain
/// numbers), sampled with the project's own math so that a seed gives the same values everywhere.
public enum Distribution: Hashable, Sendable {
  /// Always `value`.
  case constant(Double)
  /// Uniform on `[low, high]`.
  case uniform(low: Double, high: Double)
  /// Exponential with the given mean.
  case exponential(mean: Double)
  /// Normal with `mean` and standard deviation `sd`; samples below zero are clamped to zero.
  case normal(mean: Double, sd: Double)
  /// Log-normal with the given median (`e^μ`) and shape `sigma` (σ of the underlying normal).
  case lognormal(median: Double, sigma: Double)
  /// Pareto (type I) with minimum `scale` and tail index `shape`.
  case pareto(scale: Double, shape: Double)
  /// A piecewise-linear inverse CDF through `(probability, value)` points; the last probability is 1,
  /// and the segment before the first point runs from its value at probability 0.
  case empirical([EmpiricalPoint])

  /// One point of an empirical distribution: `value` is the quantile at `probability`.
  public struct EmpiricalPoint: Hashable, Sendable {
    /// The cumulative probability, in `(0, 1]`.
    public var probability: Double
    /// The quantile at that probability.
    public var value: Double
    /// Creates a point.
    public init(probability: Double, value: Double) {
      self.probability = probability
      self.value = value
    }
  }

  /// Draws one sample using `rng`.
  @inlinable
  public func sample<R: RandomSource>(_ rng: inout R) -> Double {
    switch self {
    case .constant(let v):
      return v
    case .uniform(let low, let high):
      return low + (high - low) * rng.nextUnit()
    case .exponential(let mean):
      return -mean * PortableMath.log(rng.nextOpenUnit())
    case .normal(let mean, let sd):
      return max(0, mean + sd * Distribution.standardNormal(&rng))
    case .lognormal(let median, let sigma):
      return median * PortableMath.exp(sigma * Distribution.standardNormal(&rng))
    case .pareto(let scale, let shape):
      return scale * PortableMath.exp(-PortableMath.log(rng.nextOpenUnit()) / shape)
    case .empirical(let points):
      return Distribution.sampleEmpirical(points, rng.nextUnit())
    }
  }

  /// Draws one duration (rounded to the nanosecond, never negative).
  @inlinable
  public func sampleDuration<R: RandomSource>(_ rng: inout R) -> SimDuration {
    let x = sample(&rng)
    if !(x > 0) { return .zero }
    if x >= 9.2e18 { return SimDuration(nanoseconds: Int64.max / 4) }
    // Round half away from zero without a libm call: x - trunc(x) is exact.
    let whole = Int64(x)
    return SimDuration(nanoseconds: x - Double(whole) >= 0.5 ? whole + 1 : whole)
  }

  /// A standard normal deviate by the ziggurat method of Marsaglia and Tsang (128 layers).
  ///
  /// About 98.8% of draws cost one 64-bit random number, a table lookup and a multiply; the rest
  /// fall back to `exp` (the wedges) or `log` (the tail), both our own, so the stream of deviates
  /// is identical on every platform. The layer index comes from the low 7 bits and the magnitude
  /// from the high 32 bits of the same draw, which keeps them independent.
  @inlinable
  public static func standardNormal<R: RandomSource>(_ rng: inout R) -> Double {
    let z = Ziggurat.tables
    while true {
      let bits = rng.next()
      let i = Int(bits & 127)
      let hz = Int32(truncatingIfNeeded: bits >> 32)
      let x = Double(hz) * z.w[i]
      if UInt32(hz.magnitude) < z.k[i] { return x }
      if i == 0 {
        // The tail beyond r: Marsaglia's exponential rejection.
        while true {
          let t = -PortableMath.log(rng.nextOpenUnit()) / Ziggurat.r
          let y = -PortableMath.log(rng.nextOpenUnit())
          if y + y >= t * t { return hz > 0 ? Ziggurat.r + t : -(Ziggurat.r + t) }
        }
      }
      // A wedge: accept under the density.
      if z.f[i] + rng.nextUnit() * (z.f[i - 1] - z.f[i]) < PortableMath.exp(-0.5 * x * x) { return x }
    }
  }

  @usableFromInline
  static func sampleEmpirical(_ points: [EmpiricalPoint], _ u: Double) -> Double {
    var previousP = 0.0
    var previousV = points[0].value
    for point in points {
      if u < point.probability {
        let span = point.probability - previousP
        let t = span > 0 ? (u - previousP) / span : 1
        return previousV + (point.value - previousV) * t
      }
      previousP = point.probability
      previousV = point.value
    }
    return points[points.count - 1].value
  }

  /// The distribution's mean (for documentation and capacity estimates, never for decisions).
  public var mean: Double {
    switch self {
    case .constant(let v): return v
    case .uniform(let low, let high): return (low + high) / 2
    case .exponential(let mean): return mean
    case .normal(let mean, _): return mean
    case .lognormal(let median, let sigma): return median * PortableMath.exp(sigma * sigma / 2)
    case .pareto(let scale, let shape): return shape > 1 ? shape * scale / (shape - 1) : .infinity
    case .empirical(let points):
      var total = 0.0
      var previousP = 0.0
      var previousV = points[0].value
      for p in points {
        total += (p.probability - previousP) * (previousV + p.value) / 2
        previousP = p.probability
        previousV = p.value
      }
      return total
    }
  }

  /// Checks the parameters; returns a reason when they are impossible.
  public func validationError() -> String? {
    func bad(_ x: Double) -> Bool { !x.isFinite || x < 0 }
    switch self {
    case .constant(let v):
      return bad(v) ? "the value must be finite and not negative" : nil
    case .uniform(let low, let high):
      if bad(low) || bad(high) { return "bounds must be finite and not negative" }
      return low > high ? "the lower bound must not exceed the upper bound" : nil
    case .exponential(let mean):
      return bad(mean) || mean == 0 ? "the mean must be finite and greater than zero" : nil
    case .normal(let mean, let sd):
      return bad(mean) || bad(sd) ? "mean and standard deviation must be finite and not negative" : nil
    case .lognormal(let median, let sigma):
      if bad(median) || median == 0 { return "the median must be finite and greater than zero" }
      return bad(sigma) || sigma > 10 ? "sigma must be between 0 and 10" : nil
    case .pareto(let scale, let shape):
      if bad(scale) || scale == 0 { return "the scale must be finite and greater than zero" }
      return bad(shape) || shape == 0 ? "the shape must be finite and greater than zero" : nil
    case .empirical(let points):
      if points.isEmpty { return "an empirical distribution needs at least one point" }
      var lastP = 0.0
      var lastV = -Double.infinity
      for p in points {
        if !(p.probability > lastP) || p.probability > 1 { return "probabilities must increase within (0, 1]" }
        if bad(p.value) || p.value < lastV { return "values must be finite, not negative and non-decreasing" }
        lastP = p.probability
        lastV = p.value
      }
      return lastP == 1 ? nil : "the last probability must be 1"
    }
  }
}

extension Distribution {
  /// What the numbers of a distribution measure, which decides how its parameters are spelled.
  public enum Quantity: Sendable {
    /// Durations: location parameters carry a unit (`40ms`), sampled in nanoseconds.
    case duration
    /// Plain numbers without a unit.
    case number
  }

  /// Parses `lognormal(40ms, 0.6)`, `exponential(2s)`, `uniform(1s, 5s)`, `normal(100ms, 20ms)`,
  /// `pareto(100ms, 1.5)`, `constant(5s)`, `empirical(10ms@0.5, 40ms@0.9, 200ms@1)`, or a bare value
  /// such as `5s` (a constant).
  ///
  /// Throws a ``DistributionParseError`` that says what was expected.
  public static func parse(_ text: String, quantity: Quantity) throws(DistributionParseError) -> Distribution {
    let t = text.trimmingSpaces
    guard let open = t.firstIndex(of: "(") else {
      let v = try parseValue(t, quantity: quantity, role: "value")
      return try validated(.constant(v))
    }
    guard t.hasSuffix(")") else { throw DistributionParseError("missing ')' in \"\(text)\"") }
    let name = t[..<open].trimmingSpaces.lowercased()
    let inner = t[t.index(after: open)..<t.index(before: t.endIndex)]
    let args = inner.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingSpaces }
    func expect(_ n: Int, _ spelling: String) throws(DistributionParseError) {
      guard args.count == n, !args.contains(where: \.isEmpty) else {
        throw DistributionParseError("\(name) takes \(n) argument\(n == 1 ? "" : "s"): \(spelling)")
      }
    }
    let unit = quantity == .duration ? "duration" : "number"
    switch name {
    case "constant":
      try expect(1, "constant(\(unit))")
      return try validated(.constant(parseValue(args[0], quantity: quantity, role: "value")))
    case "uniform":
      try expect(2, "uniform(low \(unit), high \(unit))")
      return try validated(
        .uniform(
          low: parseValue(args[0], quantity: quantity, role: "low"),
          high: parseValue(args[1], quantity: quantity, role: "high")))
    case "exponential", "exp":
      try expect(1, "exponential(mean \(unit))")
      return try validated(.exponential(mean: parseValue(args[0], quantity: quantity, role: "mean")))
    case "normal":
      try expect(2, "normal(mean \(unit), sd \(unit))")
      return try validated(
        .normal(
          mean: parseValue(args[0], quantity: quantity, role: "mean"),
          sd: parseValue(args[1], quantity: quantity, role: "sd")))
    case "lognormal":
      try expect(2, "lognormal(median \(unit), sigma number)")
      return try validated(
        .lognormal(
          median: parseValue(args[0], quantity: quantity, role: "median"),
          sigma: parseValue(args[1], quantity: .number, role: "sigma")))
    case "pareto":
      try expect(2, "pareto(scale \(unit), shape number)")
      return try validated(
        .pareto(
          scale: parseValue(args[0], quantity: quantity, role: "scale"),
          shape: parseValue(args[1], quantity: .number, role: "shape")))
    case "empirical":
      guard !args.isEmpty, !args.contains(where: \.isEmpty) else {
        throw DistributionParseError("empirical takes value@probability points, e.g. empirical(10ms@0.5, 40ms@1)")
      }
      var points: [EmpiricalPoint] = []
      for arg in args {
        let pieces = arg.split(separator: "@")
        guard pieces.count == 2 else {
          throw DistributionParseError("empirical point \"\(arg)\" is not value@probability")
        }
        let v = try parseValue(String(pieces[0]), quantity: quantity, role: "value")
        let p = try parseValue(String(pieces[1]), quantity: .number, role: "probability")
        points.append(EmpiricalPoint(probability: p, value: v))
      }
      return try validated(.empirical(points))
    default:
      throw DistributionParseError(
        "unknown distribution \"\(name)\"; expected constant, uniform, exponential, normal, lognormal, pareto or empirical"
      )
    }
  }

  static func validated(_ d: Distribution) throws(DistributionParseError) -> Distribution {
    if let reason = d.validationError() { throw DistributionParseError(reason) }
    return d
  }

  /// Parses one parameter: a duration with a unit for `.duration`, a plain number for `.number`.
  public static func parseValue(_ text: String, quantity: Quantity, role: String) throws(DistributionParseError)
    -> Double
  {
    switch quantity {
    case .duration:
      guard let d = DurationFormat.parse(text.trimmingSpaces) else {
        throw DistributionParseError("\(role): expected a duration such as 250ms, 1.5s or 30m, got \"\(text)\"")
      }
      return Double(d.nanoseconds)
    case .number:
      guard let v = Double(text.trimmingSpaces), v.isFinite else {
        throw DistributionParseError("\(role): expected a number, got \"\(text)\"")
      }
      return v
    }
  }
}

/// Why a distribution's text could not be read.
public struct DistributionParseError: Error, Equatable, Sendable, CustomStringConvertible {
  /// What was wrong and what was expected.
  public let message: String
  /// Creates an error with `message`.
  public init(_ message: String) { self.message = message }
  /// The message.
  public var description: String { message }
}

/// The ziggurat tables for ``Distribution/standardNormal(_:)``, computed once from our own `exp`
/// and `log` (and IEEE `sqrt`), so they are bit-identical everywhere. They live in one allocation
/// that is never freed, read through plain pointers (no reference counting per draw).
@usableFromInline
struct Ziggurat: @unchecked Sendable {  // immutable after init
  /// Where the tail starts.
  @usableFromInline static let r = 3.442619855899
  /// Area of each layer.
  static let v = 9.91256303526217e-3
  /// Per layer: the magnitude threshold (in units of 2^-31 of the layer's width) under which a
  /// draw is inside the rectangle.
  @usableFromInline let k: UnsafePointer<UInt32>
  /// Per layer: width divided by 2^31.
  @usableFromInline let w: UnsafePointer<Double>
  /// Per layer: the density at the layer's edge.
  @usableFromInline let f: UnsafePointer<Double>

  @usableFromInline static let tables = Ziggurat()

  init() {
    let m = 2147483648.0
    let k = UnsafeMutablePointer<UInt32>.allocate(capacity: 128)
    let w = UnsafeMutablePointer<Double>.allocate(capacity: 128)
    let f = UnsafeMutablePointer<Double>.allocate(capacity: 128)
    k.initialize(repeating: 0, count: 128)
    w.initialize(repeating: 0, count: 128)
    f.initialize(repeating: 0, count: 128)
    var d = Ziggurat.r
    var t = d
    let q = Ziggurat.v / PortableMath.exp(-0.5 * d * d)
    k[0] = UInt32((d / q) * m)
    k[1] = 0
    w[0] = q / m
    w[127] = d / m
    f[0] = 1
    f[127] = PortableMath.exp(-0.5 * d * d)
    for i in stride(from: 126, through: 1, by: -1) {
      d = (-2 * PortableMath.log(Ziggurat.v / d + PortableMath.exp(-0.5 * d * d))).squareRoot()
      k[i + 1] = UInt32((d / t) * m)
      t = d
      f[i] = PortableMath.exp(-0.5 * d * d)
      w[i] = d / m
    }
    self.k = UnsafePointer(k)
    self.w = UnsafePointer(w)
    self.f = UnsafePointer(f)
  }
}
