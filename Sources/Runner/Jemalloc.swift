import CJemalloc
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// jemalloc, the process allocator: confirmation that it is really serving `malloc`, and the
/// statistics behind every memory figure Stampede reports.
public enum Jemalloc {
  /// jemalloc's version string, or `nil` if `mallctl` does not answer.
  public static var version: String? { readString("version") }

  /// The system's transparent-huge-page mode (`always`, `madvise` or `never`, from
  /// /sys/kernel/mm/transparent_hugepage/enabled), or `nil` where the kernel does not say. Large
  /// per-user tables ask for huge pages (`UnsafeMutablePointer.allocateTable`), which takes
  /// effect under `always` and `madvise`.
  public static var systemHugePages: String? {
    guard let text = readKernelFile("/sys/kernel/mm/transparent_hugepage/enabled"),
      let open = text.firstIndex(of: "["), let close = text[open...].firstIndex(of: "]")
    else { return nil }
    return String(text[text.index(after: open)..<close])
  }

  /// jemalloc's own huge-page setting (its `thp` option: `always` asks for huge pages on every
  /// mapping it makes, `default` leaves them to the system and to the tables that ask), or `nil`
  /// if `mallctl` does not answer. `MALLOC_CONF=thp:always` in the environment sets it.
  public static var hugePageOption: String? { readString("opt.thp") }

  /// What a report names as the allocator: jemalloc's version, the system's huge-page mode and
  /// jemalloc's (speed figures with and without huge pages differ), or `nil` if `mallctl` does not
  /// answer.
  public static var summary: String? {
    guard let version else { return nil }
    return "jemalloc \(version) (transparent huge pages: \(systemHugePages ?? "unknown"); "
      + "jemalloc thp: \(hugePageOption ?? "unknown"))"
  }

  /// The share of this process's anonymous resident memory on transparent huge pages
  /// (`AnonHugePages` over `Anonymous` in /proc/self/smaps_rollup), rounded to three decimals, or
  /// `nil` where the kernel does not say.
  public static var hugePageShare: Double? {
    readKernelFile("/proc/self/smaps_rollup").flatMap { hugePageShare(smapsRollup: $0) }
  }

  /// The text of a /proc or /sys file, read to the end (such files report no size), or `nil`.
  static func readKernelFile(_ path: String) -> String? {
    guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
    defer { try? handle.close() }
    return String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
  }

  /// ``hugePageShare`` from the text of an smaps_rollup file.
  static func hugePageShare(smapsRollup text: String) -> Double? {
    func kilobytes(_ field: String) -> Double? {
      guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }) else { return nil }
      return line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap { Double($0) }
    }
    guard let anonymous = kilobytes("Anonymous"), anonymous > 0, let huge = kilobytes("AnonHugePages") else {
      return nil
    }
    return (min(1, huge / anonymous) * 1000).rounded() / 1000
  }

  /// Whether jemalloc serves this process's allocations: 1 MiB allocated through the Swift runtime
  /// (which calls `malloc`) must show up in jemalloc's per-thread allocation counter.
  public static var isProcessAllocator: Bool {
    guard let before = threadAllocated else { return false }
    let block = UnsafeMutableRawPointer.allocate(byteCount: 1 << 20, alignment: 16)
    block.storeBytes(of: 1, as: UInt8.self)
    let after = threadAllocated
    block.deallocate()
    guard let after else { return false }
    return after &- before >= 1 << 20
  }

  /// Bytes allocated by the calling thread since it started.
  public static var threadAllocated: UInt64? { readUInt64("thread.allocated") }

  /// Bytes currently allocated by the application, process-wide (refreshed first).
  public static var allocated: UInt64? {
    refresh()
    return readSize("stats.allocated")
  }

  /// Bytes in physically resident pages mapped by the allocator (refreshed first).
  public static var resident: UInt64? {
    refresh()
    return readSize("stats.resident")
  }

  /// Starts a new peak measurement for the calling thread.
  public static func resetThreadPeak() { _ = mallctl("thread.peak.reset", nil, nil, nil, 0) }

  /// The largest net allocation of the calling thread since ``resetThreadPeak()``.
  public static var threadPeak: UInt64? { readUInt64("thread.peak.read") }

  static func refresh() {
    var current: UInt64 = 0
    var next: UInt64 = 1
    var size = MemoryLayout<UInt64>.size
    _ = mallctl("epoch", &current, &size, &next, MemoryLayout<UInt64>.size)
  }

  static func readString(_ name: String) -> String? {
    var pointer: UnsafePointer<CChar>? = nil
    var size = MemoryLayout<UnsafePointer<CChar>?>.size
    guard mallctl(name, &pointer, &size, nil, 0) == 0, let pointer else { return nil }
    return String(cString: pointer)
  }

  static func readUInt64(_ name: String) -> UInt64? {
    var value: UInt64 = 0
    var size = MemoryLayout<UInt64>.size
    return mallctl(name, &value, &size, nil, 0) == 0 ? value : nil
  }

  static func readSize(_ name: String) -> UInt64? {
    var value: Int = 0
    var size = MemoryLayout<Int>.size
    return mallctl(name, &value, &size, nil, 0) == 0 ? UInt64(value) : nil
  }
}

/// Peak heap use of one single-threaded run, from jemalloc: the process's allocation when the
/// measurement started plus the thread's peak net allocation since.
public struct PeakMemory: Sendable {
  let baseline: UInt64

  /// Starts measuring on the calling thread.
  public init() {
    baseline = Jemalloc.allocated ?? 0
    Jemalloc.resetThreadPeak()
  }

  /// Bytes at the peak so far.
  public var peakBytes: UInt64 { baseline &+ (Jemalloc.threadPeak ?? 0) }

  /// Bytes the run itself added at its peak.
  public var runPeakBytes: UInt64 { Jemalloc.threadPeak ?? 0 }
}
