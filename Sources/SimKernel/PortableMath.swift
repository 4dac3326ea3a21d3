/// `log` and `exp` written with IEEE-754 basic operations only (after fdlibm's `e_log.c` and
/// `e_exp.c`), so that every platform, libm and build mode computes the same bits. The platform's
/// libm is never used for anything that decides a simulation.
public enum PortableMath {
  @usableFromInline static let ln2Hi = 6.93147180369123816490e-01
  @usableFromInline static let ln2Lo = 1.90821492927058770002e-10
  @usableFromInline static let two54 = 1.80143985094819840000e+16
  @usableFromInline static let lg1 = 6.666666666666735130e-01
  @usableFromInline static let lg2 = 3.999999999940941908e-01
  @usableFromInline static let lg3 = 2.857142874366239149e-01
  @usableFromInline static let lg4 = 2.222219843214978396e-01
  @usableFromInline static let lg5 = 1.818357216161805012e-01
  @usableFromInline static let lg6 = 1.531383769920937332e-01
  @usableFromInline static let lg7 = 1.479819860511658591e-01

  @inlinable @inline(__always)
  static func high(_ x: Double) -> Int32 { Int32(truncatingIfNeeded: Int64(bitPattern: x.bitPattern) >> 32) }
  @inlinable @inline(__always)
  static func low(_ x: Double) -> UInt32 { UInt32(truncatingIfNeeded: x.bitPattern) }
  @inlinable @inline(__always)
  static func withHigh(_ x: Double, _ hi: Int32) -> Double {
    Double(bitPattern: (UInt64(UInt32(bitPattern: hi)) << 32) | UInt64(low(x)))
  }

  /// The natural logarithm of `x`; `-inf` for 0 and NaN for negative numbers.
  @inlinable
  public static func log(_ value: Double) -> Double {
    var x = value
    var hx = high(x)
    let lx = low(x)
    var k: Int32 = 0
    if hx < 0x0010_0000 {
      if (hx & 0x7fff_ffff) == 0 && lx == 0 { return -Double.infinity }
      if hx < 0 { return Double.nan }
      k -= 54
      x *= two54
      hx = high(x)
    }
    if hx >= 0x7ff0_0000 { return x + x }
    k += (hx >> 20) - 1023
    hx &= 0x000f_ffff
    let i0 = (hx &+ 0x95f64) & 0x0010_0000
    x = withHigh(x, hx | (i0 ^ 0x3ff0_0000))
    k += i0 >> 20
    let f = x - 1.0
    let dk = Double(k)
    if (0x000f_ffff & (2 &+ hx)) < 3 {
      if f == 0 { return k == 0 ? 0 : dk * ln2Hi + dk * ln2Lo }
      let r = f * f * (0.5 - 0.33333333333333333 * f)
      return k == 0 ? f - r : dk * ln2Hi - ((r - dk * ln2Lo) - f)
    }
    let s = f / (2.0 + f)
    let z = s * s
    var i = hx &- 0x6147a
    let w = z * z
    let j = 0x6b851 &- hx
    let t1 = w * (lg2 + w * (lg4 + w * lg6))
    let t2 = z * (lg1 + w * (lg3 + w * (lg5 + w * lg7)))
    i |= j
    let r = t2 + t1
    if i > 0 {
      let hfsq = 0.5 * f * f
      return k == 0 ? f - (hfsq - s * (hfsq + r)) : dk * ln2Hi - ((hfsq - (s * (hfsq + r) + dk * ln2Lo)) - f)
    }
    return k == 0 ? f - s * (f - r) : dk * ln2Hi - ((s * (f - r) - dk * ln2Lo) - f)
  }

  @usableFromInline static let invLn2 = 1.44269504088896338700e+00
  @usableFromInline static let p1 = 1.66666666666666019037e-01
  @usableFromInline static let p2 = -2.77777777770155933842e-03
  @usableFromInline static let p3 = 6.61375632143793436117e-05
  @usableFromInline static let p4 = -1.65339022054652515390e-06
  @usableFromInline static let p5 = 4.13813679705723846039e-08
  @usableFromInline static let overflowThreshold = 7.09782712893383973096e+02
  @usableFromInline static let underflowThreshold = -7.45133219101941108420e+02
  @usableFromInline static let twoM1000 = 9.33263618503218878990e-302

  /// `e` raised to `x`.
  @inlinable
  public static func exp(_ value: Double) -> Double {
    var x = value
    var hx = high(x)
    let negative = hx < 0
    hx &= 0x7fff_ffff
    if hx >= 0x4086_2E42 {
      if hx >= 0x7ff0_0000 {
        if x.isNaN { return x + x }
        return negative ? 0 : x
      }
      if x > overflowThreshold { return Double.infinity }
      if x < underflowThreshold { return 0 }
    }
    var hi = 0.0
    var lo = 0.0
    var k: Int32 = 0
    if hx > 0x3fd6_2e42 {
      if hx < 0x3FF0_A2B2 {
        hi = negative ? x + ln2Hi : x - ln2Hi
        lo = negative ? -ln2Lo : ln2Lo
        k = negative ? -1 : 1
      } else {
        k = Int32(invLn2 * x + (negative ? -0.5 : 0.5))
        let t = Double(k)
        hi = x - t * ln2Hi
        lo = t * ln2Lo
      }
      x = hi - lo
    } else if hx < 0x3e30_0000 {
      return 1.0 + x
    }
    let t = x * x
    let c = x - t * (p1 + t * (p2 + t * (p3 + t * (p4 + t * p5))))
    if k == 0 { return 1.0 - ((x * c) / (c - 2.0) - x) }
    let y = 1.0 - ((lo - (x * c) / (2.0 - c)) - hi)
    if k >= -1021 {
      return Double(bitPattern: UInt64(bitPattern: Int64(bitPattern: y.bitPattern) &+ (Int64(k) << 52)))
    }
    let scaled = Double(bitPattern: UInt64(bitPattern: Int64(bitPattern: y.bitPattern) &+ (Int64(k + 1000) << 52)))
    return scaled * twoM1000
  }

  /// `base` raised to `exponent` for `base > 0`, as `exp(exponent · log(base))`.
  @inlinable
  public static func pow(_ base: Double, _ exponent: Double) -> Double { exp(exponent * log(base)) }
}
