import CPlatformHooks

/// The Swift runtime's reports of app code's misuse of a checked continuation, taken before the
/// runtime's own reporting (see `CPlatformHooks`' `runtime_report.h`).
///
/// A `CheckedContinuation` dropped without being resumed leaves the task waiting on it suspended
/// forever. When the app's own code drops it, that is the app's bug (an `async` wrapper whose
/// completion path forgot to resume: the screen that awaits it hangs): a finding,
/// `app.platform-contract`. When Stampede lets go of a process that is gone (or of every process
/// at the run's end), the pending completions it releases drop their continuations too, but a
/// killed process runs nothing more on a phone: nothing to report. Either way the runtime's own
/// report (a line on standard error, appended to one process-wide string, so quadratic in their
/// number) is not made. Reports made outside every run go to the runtime as usual.
enum RuntimeReports {
  static func install() {
    stampede_set_runtime_report_hook { _, message in
      guard let message, let host = AppHost.current else { return 0 }
      let text = String(cString: message)
      guard text.hasPrefix("SWIFT TASK CONTINUATION MISUSE: "), let leaked = text.range(of: " leaked its continuation")
      else { return 0 }
      let function = text[text.index(text.startIndex, offsetBy: 32)..<leaked.lowerBound]
      host.continuationDropped(in: String(function))
      return 1
    }
  }
}
