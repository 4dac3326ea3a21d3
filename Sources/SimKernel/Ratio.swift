/// An exact probability `numerator / denominator`, never a floating-point number.
///
/// Written in profiles as a decimal (`0.05`), a percentage (`"5%"`) or a fraction (`"1/20"`). The
/// decimal spelling is read digit by digit, so `0.05` is exactly 5/100 on every platform.
@frozen
public struct Ratio: Hashable, Sendable, CustomStringConvertible {
  /// The numerator, at most `denominator`.
  public let numerator: UInt64
  /// The denominator, greater than zero.
  public let denominator: UInt64

  /// Never.
  public static let zero = Ratio(checkedNumerator: 0, denominator: 1)
  /// Always.
  public static let one = Ratio(checkedNumerator: 1, denominator: 1)

  /// Creates `numerator / denominator`, or `nil` unless `0 ≤ numerator ≤ denominator` and
  /// `denominator > 0`.
  public init?(_ numerator: UInt64, _ denominator: UInt64) {
    guard denominator > 0, numerator <= denominator else { return nil }
    self.init(checkedNumerator: numerator, denominator: denominator)
  }

  init(checkedNumerator: UInt64, denominator: UInt64) {
    var g = Ratio.gcd(checkedNumerator, denominator)
    if g == 0 { g = 1 }
    self.numerator = checkedNumerator / g
    self.denominator = denominator / g
  }

  static func gcd(_ a: UInt64, _ b: UInt64) -> UInt64 {
    var (x, y) = (a, b)
    while y != 0 { (x, y) = (y, x % y) }
    return x
  }

  /// The probability as a `Double`, for reports only.
  public var doubleValue: Double { Double(numerator) / Double(denominator) }

  /// Parses `0.05`, `5%`, `1/20`, `0` or `1`. Returns `nil` for anything outside `[0, 1]` or
  /// with more than 15 decimal places.
  public static func parse(_ text: String) -> Ratio? {
    let t = text.trimmingSpaces
    if let slash = t.firstIndex(of: "/") {
      guard let n = UInt64(t[..<slash].trimmingSpaces), let d = UInt64(t[t.index(after: slash)...].trimmingSpaces)
      else { return nil }
      return Ratio(n, d)
    }
    if t.hasSuffix("%") {
      guard let (n, d) = parseDecimal(String(t.dropLast())) else { return nil }
      return Ratio(n, d * 100)
    }
    guard let (n, d) = parseDecimal(t) else { return nil }
    return Ratio(n, d)
  }

  /// A non-negative decimal of at most 100 with at most 15 decimals, as an unreduced fraction.
  static func parseDecimal(_ text: String) -> (UInt64, UInt64)? {
    let parts = text.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count <= 2, let wholeText = parts.first, !wholeText.isEmpty || parts.count == 2 else { return nil }
    let fraction = parts.count == 2 ? parts[1] : ""
    guard fraction.count <= 15, wholeText.allSatisfy(\.isASCIIDigit), fraction.allSatisfy(\.isASCIIDigit)
    else { return nil }
    if parts.count == 2 && fraction.isEmpty { return nil }
    var denominator: UInt64 = 1
    for _ in 0..<fraction.count { denominator *= 10 }
    guard let whole = UInt64(wholeText.isEmpty ? "0" : String(wholeText)), whole <= 100 else { return nil }
    let fractionValue = fraction.isEmpty ? 0 : UInt64(fraction)!
    return (whole * denominator + fractionValue, denominator)
  }

  /// `n/d` in lowest terms, e.g. `1/20`.
  public var description: String { "\(numerator)/\(denominator)" }
}

extension Character {
  @usableFromInline var isASCIIDigit: Bool { isASCII && isNumber }
}

extension StringProtocol {
  /// The string without leading and trailing spaces and tabs.
  public var trimmingSpaces: String {
    var s = Substring(self)
    while let f = s.first, f == " " || f == "\t" || f == "\n" { s.removeFirst() }
    while let l = s.last, l == " " || l == "\t" || l == "\n" { s.removeLast() }
    return String(s)
  }
}
