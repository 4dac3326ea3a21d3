import Foundation
import Runner

#if canImport(Glibc)
  import Glibc
#endif

/// Exit codes of the public contract.
enum ExitCode: Int32 {
  case pass = 0
  case invariantViolated = 1
  case usage = 2
  case thresholdFailed = 3
  case nondeterminism = 4
  case interrupted = 130
}

/// A usage error: printed with a hint, exit 2.
struct UsageError: Error {
  let message: String
  init(_ message: String) { self.message = message }
}

func printError(_ text: String) {
  FileHandle.standardError.write(Data((text + "\n").utf8))
}

let arguments = Array(CommandLine.arguments.dropFirst())
let code: ExitCode
do {
  code = try CLI.dispatch(arguments)
} catch let error as UsageError {
  printError("stampede: \(error.message)")
  printError("Run 'stampede help' for usage.")
  code = .usage
} catch {
  printError("stampede: \(error)")
  code = .usage
}
exit(code.rawValue)
