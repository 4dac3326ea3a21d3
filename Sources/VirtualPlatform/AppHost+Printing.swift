import Clients

/// What app code prints, as it goes into the user's trace.
extension AppHost {
  /// Records a line the current user printed, with every UUID in it replaced by its number of
  /// first sight (so that a printed UUID never makes two runs differ).
  package func printed(_ text: String) {
    runtime.appLog.record(user: user, timeNs: now.nanoseconds, normalizingUUIDs(text))
  }

  /// `text` with each UUID written as `UUID#n`.
  package func normalizingUUIDs(_ text: String) -> String {
    let chars = Array(text.utf8)
    guard chars.count >= 36 else { return text }
    var out: [UInt8] = []
    out.reserveCapacity(chars.count)
    var i = 0
    while i < chars.count {
      if i + 36 <= chars.count && AppHost.isUUID(chars[i..<(i + 36)]) {
        let key = String(decoding: chars[i..<(i + 36)], as: UTF8.self).uppercased()
        let n: Int
        if let known = uuidNumbers[key] {
          n = known
        } else {
          n = uuidNumbers.count + 1
          uuidNumbers[key] = n
        }
        out.append(contentsOf: Array("UUID#\(n)".utf8))
        i += 36
      } else {
        out.append(chars[i])
        i += 1
      }
    }
    return String(decoding: out, as: UTF8.self)
  }

  static func isUUID(_ s: ArraySlice<UInt8>) -> Bool {
    var k = 0
    for c in s {
      if k == 8 || k == 13 || k == 18 || k == 23 {
        if c != UInt8(ascii: "-") { return false }
      } else if !((c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102)) {
        return false
      }
      k += 1
    }
    return true
  }
}
