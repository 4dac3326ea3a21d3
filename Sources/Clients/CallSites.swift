/// Where app code made its SDK calls: the facades record `#fileID` and `#line` of each call, so
/// that a violation the call causes names the app's line (`HostCoGuestViewModel.swift:69
/// acceptApplication`).
public struct CallSites: Sendable {
  struct Key: Hashable {
    let file: UInt
    let line: UInt
  }
  /// Each site as `File.swift:69`; index 0 is "no site".
  public private(set) var names: [String] = [""]
  var index: [Key: UInt32] = [:]

  /// The site's index, interned.
  public mutating func site(file: StaticString, line: UInt) -> UInt32 {
    let key = Key(file: UInt(bitPattern: file.utf8Start), line: line)
    if let i = index[key] { return i }
    let path = file.description
    let name = path.split(separator: "/").last.map(String.init) ?? path
    names.append("\(name):\(line)")
    let i = UInt32(names.count - 1)
    index[key] = i
    return i
  }
}

extension ClientRuntime {
  /// Interns the call site `file`:`line` (see ``CallSites``).
  public func site(file: StaticString, line: UInt) -> UInt32 { callSites.site(file: file, line: line) }

  /// ` (File.swift:69 acceptApplication)` for an operation app code made at a known site, else
  /// empty: what a violation's message appends.
  public func siteNote(_ op: PendingOperation) -> String {
    guard op.site != 0, Int(op.site) < callSites.names.count else { return "" }
    return " (\(callSites.names[Int(op.site)]) \(op.kind.sdkName))"
  }
}

extension OperationKind {
  /// The SDK method's name, as app code calls it.
  public var sdkName: String {
    switch self {
    case .placeCall: return "calls"
    case .acceptCall: return "accept"
    case .rejectCall: return "reject"
    case .hangupCall: return "hangup"
    case .joinCall: return "join"
    case .inviteToCall: return "invite"
    default: return "\(self)"
    }
  }
}
