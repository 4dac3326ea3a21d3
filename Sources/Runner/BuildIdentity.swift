import Foundation

/// The running executable's GNU build ID (its `.note.gnu.build-id`), as hex: the linker computes
/// it from the linked code, so it changes with any change to the code built in, an app's code and
/// its uncommitted edits included. Reports record it (`tool.build`), and history and `replay` key
/// "the same build" on it.
public enum BuildIdentity {
  /// This executable's build ID, or `nil` where the platform or the link gives none.
  public static let current: String? = FileHandle(forReadingAtPath: "/proc/self/exe").flatMap(read)

  /// The build ID in the ELF file `file` (64-bit, little-endian), from its note segments.
  public static func read(_ file: FileHandle) -> String? {
    defer { try? file.close() }
    func bytes(at offset: UInt64, count: Int) -> Data? {
      guard (try? file.seek(toOffset: offset)) != nil, let d = try? file.read(upToCount: count), d.count == count
      else { return nil }
      return d
    }
    func word<T: FixedWidthInteger>(_ d: Data, _ at: Int, _: T.Type) -> T {
      d.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: at, as: T.self) }
    }
    // ELF64, little-endian: "\x7fELF", class 2, data 1.
    guard let header = bytes(at: 0, count: 64), header.prefix(4) == Data([0x7F, 0x45, 0x4C, 0x46]),
      header[4] == 2, header[5] == 1
    else { return nil }
    let tableOffset = word(header, 0x20, UInt64.self)
    let entrySize = Int(word(header, 0x36, UInt16.self))
    let entries = Int(word(header, 0x38, UInt16.self))
    guard entrySize >= 56, entries < 256, let table = bytes(at: tableOffset, count: entrySize * entries) else {
      return nil
    }
    for i in 0..<entries where word(table, i * entrySize, UInt32.self) == 4 {  // PT_NOTE
      let offset = word(table, i * entrySize + 8, UInt64.self)
      let size = Int(word(table, i * entrySize + 32, UInt64.self))
      guard size < 1 << 20, let notes = bytes(at: offset, count: size) else { continue }
      var at = 0
      while at + 12 <= size {
        let nameSize = Int(word(notes, at, UInt32.self))
        let descSize = Int(word(notes, at + 4, UInt32.self))
        let type = word(notes, at + 8, UInt32.self)
        let desc = at + 12 + (nameSize + 3) & ~3
        guard desc + descSize <= size else { break }
        // NT_GNU_BUILD_ID, owner "GNU\0".
        if type == 3 && nameSize == 4
          && notes[notes.startIndex + at + 12..<notes.startIndex + at + 16] == Data("GNU\0".utf8)
        {
          let digits = Array("0123456789abcdef")
          return String(
            notes[notes.startIndex + desc..<notes.startIndex + desc + descSize].flatMap {
              [digits[Int($0 >> 4)], digits[Int($0 & 15)]]
            })
        }
        at = desc + (descSize + 3) & ~3
      }
    }
    return nil
  }
}
