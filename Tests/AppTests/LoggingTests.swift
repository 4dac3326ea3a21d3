import OSLog
import Testing

@testable import Clients
@testable import VirtualPlatform

/// Apple's unified logging as app code writes it: each message goes into the user's trace, as
/// "[category] message", the way its `print` does.
@Suite(.serialized) struct LoggingTests {
  @Test func aLoggersMessagesGoIntoTheUsersTrace() {
    let bench = HostBench()
    bench.runtime.appLog.keeps = true
    let logger = Logger(subsystem: "com.example.calls", category: "Call")
    bench.run(as: 2) {
      let callID = "call_7"
      logger.info("ringing \(callID, privacy: .public) for \(12.5, format: .fixed(precision: 1))s")
      logger.error("hang-up failed: code \(-1), muted \(true)")
      Logger().debug("no category")
      Logger(OSLog.disabled).fault("never kept")
    }
    #expect(
      bench.runtime.appLog.take().map { "\($0.user): \($0.text)" } == [
        "2: [Call] ringing call_7 for 12.5s", "2: [Call] hang-up failed: code -1, muted true", "2: no category",
      ])
  }

  /// `os_log` takes a printf-style format whose privacy markers are dropped.
  @Test func osLogFormatsItsArguments() {
    let bench = HostBench()
    bench.runtime.appLog.keeps = true
    let log = OSLog(subsystem: "com.example.calls", category: "Push")
    bench.run(as: 1) {
      os_log("push for %{public}@ after %d ms", log: log, type: .error, "call_3", 250)
      os_log(.info, log: log, "plain %{private}s", "text")
      os_log("no arguments, 100%% sure")
    }
    #expect(
      bench.runtime.appLog.take().map(\.text) == [
        "[Push] push for call_3 after 250 ms", "[Push] plain text", "no arguments, 100% sure",
      ])
  }
}
