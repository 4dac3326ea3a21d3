@_exported import VirtualPlatform

// Apple's unified logging, as app code writes it (`import os`, `Logger(subsystem:category:)`,
// `logger.info("… \(value, privacy: .public)")`, `os_log`): each message goes into the current
// virtual user's trace, as its `print` does, as "[category] message". Privacy is accepted and
// ignored (a trace is the developer's own), as are levels below the trace's (every level is kept).

/// How a value in a log message is shown (accepted; every value is shown in a trace).
public struct OSLogPrivacy: Sendable, Equatable {
  let kind: UInt8
  /// Shown.
  public static let `public` = OSLogPrivacy(kind: 0)
  /// Redacted on a device without a debugger.
  public static let `private` = OSLogPrivacy(kind: 1)
  /// Sensitive.
  public static let sensitive = OSLogPrivacy(kind: 2)
  /// The system's default.
  public static let auto = OSLogPrivacy(kind: 3)
  /// A mask for a redacted value.
  public struct Mask: Sendable, Equatable {
    /// A hash instead of the value.
    public static let hash = Mask()
    /// None.
    public static let none = Mask()
  }
  /// Private, with a mask.
  public static func `private`(mask: Mask) -> OSLogPrivacy { .private }
  /// Sensitive, with a mask.
  public static func sensitive(mask: Mask) -> OSLogPrivacy { .sensitive }
  /// The default, with a mask.
  public static func auto(mask: Mask) -> OSLogPrivacy { .auto }
}

/// How a number in a log message is formatted.
public enum OSLogIntegerFormatting: Sendable {
  /// Decimal.
  case decimal
  /// Hexadecimal.
  case hex
  /// Decimal (the explicit form).
  public static func decimal(explicitPositiveSign: Bool = false, minDigits: Int = 0) -> OSLogIntegerFormatting {
    .decimal
  }
  /// Hexadecimal (the explicit form).
  public static func hex(explicitPositiveSign: Bool = false, includePrefix: Bool = false, uppercase: Bool = false)
    -> OSLogIntegerFormatting
  { .hex }
}

/// How a floating-point number in a log message is formatted.
public enum OSLogFloatFormatting: Sendable {
  /// As Swift prints it.
  case `default`
  /// With `precision` digits after the point.
  case fixedPoint(Int)
  /// With `precision` digits after the point.
  public static func fixed(precision: Int, explicitPositiveSign: Bool = false, uppercase: Bool = false)
    -> OSLogFloatFormatting
  { .fixedPoint(precision) }
  /// Fixed, as Swift prints it.
  public static var fixed: OSLogFloatFormatting { .default }
}

/// Alignment of a value in a log message (accepted and ignored).
public struct OSLogStringAlignment: Sendable {
  /// None.
  public static let none = OSLogStringAlignment()
  /// Right-aligned in `columns`.
  public static func right(columns: Int) -> OSLogStringAlignment { OSLogStringAlignment() }
  /// Left-aligned in `columns`.
  public static func left(columns: Int) -> OSLogStringAlignment { OSLogStringAlignment() }
}

/// A log message with interpolated values (`"ringing \(callID, privacy: .public)"`).
public struct OSLogMessage: ExpressibleByStringInterpolation, ExpressibleByStringLiteral, Sendable {
  /// The text, values written in.
  public let text: String

  public init(stringLiteral value: String) { text = value }
  public init(stringInterpolation: StringInterpolation) { text = stringInterpolation.text }

  /// The interpolations `Logger` takes.
  public struct StringInterpolation: StringInterpolationProtocol, Sendable {
    var text = ""
    public init(literalCapacity: Int, interpolationCount: Int) { text.reserveCapacity(literalCapacity) }
    public mutating func appendLiteral(_ literal: String) { text += literal }

    /// A value, as `String(describing:)` writes it.
    public mutating func appendInterpolation<T>(
      _ value: @autoclosure () -> T, align: OSLogStringAlignment = .none, privacy: OSLogPrivacy = .auto
    ) {
      text += String(describing: value())
    }

    /// An integer, in decimal or hexadecimal.
    public mutating func appendInterpolation<T: BinaryInteger>(
      _ value: @autoclosure () -> T, format: OSLogIntegerFormatting, align: OSLogStringAlignment = .none,
      privacy: OSLogPrivacy = .auto
    ) {
      switch format {
      case .decimal: text += String(value())
      case .hex: text += String(value(), radix: 16)
      }
    }

    /// A floating-point number, optionally with a fixed number of digits.
    public mutating func appendInterpolation(
      _ value: @autoclosure () -> Double, format: OSLogFloatFormatting, align: OSLogStringAlignment = .none,
      privacy: OSLogPrivacy = .auto
    ) {
      switch format {
      case .default: text += String(value())
      case .fixedPoint(let digits): text += String(format: "%.\(max(0, digits))f", value())
      }
    }

    /// A boolean, as `true` or `false`.
    public mutating func appendInterpolation(
      _ value: @autoclosure () -> Bool, format: OSLogBoolFormat = .truth, privacy: OSLogPrivacy = .auto
    ) {
      switch format {
      case .truth: text += value() ? "true" : "false"
      case .answer: text += value() ? "YES" : "NO"
      }
    }
  }
}

/// How a boolean in a log message is written.
public enum OSLogBoolFormat: Sendable {
  /// `true` or `false`.
  case truth
  /// `YES` or `NO`.
  case answer
}

/// A message's level.
public struct OSLogType: Sendable, Equatable, RawRepresentable {
  public let rawValue: UInt8
  public init(rawValue: UInt8) { self.rawValue = rawValue }
  /// The default level.
  public static let `default` = OSLogType(rawValue: 0)
  /// Informative.
  public static let info = OSLogType(rawValue: 1)
  /// Debugging.
  public static let debug = OSLogType(rawValue: 2)
  /// An error.
  public static let error = OSLogType(rawValue: 16)
  /// A fault.
  public static let fault = OSLogType(rawValue: 17)
}

/// A log object (`OSLog(subsystem:category:)`), for `os_log` and `Logger(_:)`.
public final class OSLog: @unchecked Sendable {
  /// Its subsystem.
  public let subsystem: String
  /// Its category.
  public let category: String
  let enabled: Bool

  /// A log of `subsystem`, in `category`.
  public init(subsystem: String, category: String) {
    self.subsystem = subsystem
    self.category = category
    enabled = true
  }

  init(disabled: Void) {
    subsystem = ""
    category = ""
    enabled = false
  }

  /// The default log.
  public static let `default` = OSLog(subsystem: "", category: "")
  /// A log that keeps nothing.
  public static let disabled = OSLog(disabled: ())

  func write(_ type: OSLogType, _ text: String) {
    guard enabled else { return }
    printItems([category.isEmpty ? text : "[\(category)] \(text)"])
  }
}

/// A logger (`Logger(subsystem: "com.example.app", category: "call")`): its messages go into the
/// current virtual user's trace as "[call] message".
public struct Logger: @unchecked Sendable {
  let log: OSLog

  /// A logger of `subsystem`, in `category`.
  public init(subsystem: String, category: String) { log = OSLog(subsystem: subsystem, category: category) }
  /// The default logger.
  public init() { log = .default }
  /// A logger writing to `log`.
  public init(_ log: OSLog) { self.log = log }

  /// Logs `message` at `level`.
  public func log(level: OSLogType, _ message: OSLogMessage) { log.write(level, message.text) }
  /// Logs `message` at the default level.
  public func log(_ message: OSLogMessage) { log.write(.default, message.text) }
  /// Logs `message` at the default level.
  public func notice(_ message: OSLogMessage) { log.write(.default, message.text) }
  /// Logs `message` for debugging.
  public func debug(_ message: OSLogMessage) { log.write(.debug, message.text) }
  /// Logs `message` for debugging.
  public func trace(_ message: OSLogMessage) { log.write(.debug, message.text) }
  /// Logs `message` as information.
  public func info(_ message: OSLogMessage) { log.write(.info, message.text) }
  /// Logs `message` as an error.
  public func error(_ message: OSLogMessage) { log.write(.error, message.text) }
  /// Logs `message` as a warning (an error).
  public func warning(_ message: OSLogMessage) { log.write(.error, message.text) }
  /// Logs `message` as a fault.
  public func fault(_ message: OSLogMessage) { log.write(.fault, message.text) }
  /// Logs `message` as a fault.
  public func critical(_ message: OSLogMessage) { log.write(.fault, message.text) }
}

/// `os_log("format %{public}@ %d", log: log, type: .error, args…)`: the printf-style message
/// (privacy markers dropped), into the current virtual user's trace.
// swift-format-ignore: AlwaysUseLowerCamelCase
public func os_log(_ message: StaticString, log: OSLog = .default, type: OSLogType = .default, _ args: CVarArg...) {
  log.write(type, OSLogFormat.format("\(message)", args))
}

/// `os_log(.error, log: log, "format", args…)`, the level first.
// swift-format-ignore: AlwaysUseLowerCamelCase
public func os_log(_ type: OSLogType, log: OSLog = .default, _ message: StaticString, _ args: CVarArg...) {
  log.write(type, OSLogFormat.format("\(message)", args))
}

enum OSLogFormat {
  /// `format` with its privacy markers (`%{public}@`, `%{private}d`) dropped, then filled in (a
  /// `%s` takes a Swift string, as `%@`).
  static func format(_ format: String, _ args: [CVarArg]) -> String {
    var plain = ""
    var rest = Substring(format)
    while let open = rest.range(of: "%{") {
      plain += rest[..<open.lowerBound] + "%"
      rest = rest[open.upperBound...]
      if let close = rest.firstIndex(of: "}") { rest = rest[rest.index(after: close)...] }
    }
    plain += rest
    return String(format: plain.replacingOccurrences(of: "%s", with: "%@"), arguments: args)
  }
}
