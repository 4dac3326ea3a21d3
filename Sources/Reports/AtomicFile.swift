import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Writes files so that readers see either the old content or the new, never a torn file:
/// the bytes go to a temporary file in the same folder, are flushed, then renamed over the target.
public enum AtomicFile {
  /// Writes `data` to `path` atomically, creating parent folders as needed.
  public static func write(_ data: Data, to path: String) throws {
    let url = URL(fileURLWithPath: path)
    let folder = url.deletingLastPathComponent()
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let temp = folder.appendingPathComponent(".\(url.lastPathComponent).tmp-\(getpid())")
    guard FileManager.default.createFile(atPath: temp.path, contents: nil) else {
      throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: temp.path])
    }
    do {
      let handle = try FileHandle(forWritingTo: temp)
      try handle.write(contentsOf: data)
      try handle.synchronize()
      try handle.close()
      guard rename(temp.path, url.path) == 0 else {
        throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
      }
    } catch {
      try? FileManager.default.removeItem(at: temp)
      throw error
    }
  }

  /// Writes each `(name, data)` into `folder`, each atomically, in order. Returns the paths.
  @discardableResult
  public static func write(_ files: [(name: String, data: Data)], into folder: String) throws -> [String] {
    var paths: [String] = []
    for (name, data) in files {
      let path = (folder as NSString).appendingPathComponent(name)
      try write(data, to: path)
      paths.append(path)
    }
    return paths
  }
}
