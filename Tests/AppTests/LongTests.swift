import Testing
import ToolSupport

extension Trait where Self == ConditionTrait {
  /// A long test: `make test-long` runs it (`STAMPEDE_LONG_TESTS=1`), `make test` skips it.
  static var long: Self { .enabled(if: longTestsEnabled, "a long test: make test-long runs it") }
}
