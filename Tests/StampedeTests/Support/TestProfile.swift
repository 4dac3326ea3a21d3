import Foundation
import Runner
import Testing

@testable import Profiles
@testable import Scenario

/// A profile for a test: a JSON5 base with typed overrides at dotted key paths. An override always
/// takes effect whatever the base holds (a path through something that is not an object fails the
/// test), so a changed base can never silently turn a test into a no-op.
struct TestProfile {
  /// The document.
  private(set) var tree: JSONValue

  /// The profile written as `json5`.
  init(_ json5: String) {
    do {
      tree = try JSONValue.parse(json5: Data(json5.utf8))
    } catch {
      Issue.record("a test profile's base is not JSON5: \(error)")
      tree = .object([:])
    }
  }

  /// This profile with `value` at `path` (`seats.packageLimit`), objects created as needed.
  func with(_ path: String, _ value: JSONValue) -> TestProfile {
    var copy = self
    do {
      copy.tree = try tree.setting(path, to: value)
    } catch {
      Issue.record("cannot set \(path) in a test profile: \(error)")
    }
    return copy
  }

  /// This profile with the value written as JSON5 `json5` at `path`.
  func with(_ path: String, json5: String) -> TestProfile {
    do {
      return with(path, try JSONValue.parse(json5: Data(json5.utf8)))
    } catch {
      Issue.record("not JSON5 for \(path): \(json5)")
      return self
    }
  }

  /// This profile without the key at `path`.
  func without(_ path: String) -> TestProfile {
    var copy = self
    do {
      copy.tree = try tree.removing(path)
    } catch {
      Issue.record("cannot remove \(path) from a test profile: \(error)")
    }
    return copy
  }

  /// The profile as JSON5 text.
  var text: String { JSON5Writer.write(tree) }

  /// The profile as file contents.
  var data: Data { Data(text.utf8) }

  /// The validated profile, checked and read as a file's would be.
  func profile() throws(ProfileError) -> Profile { try Profile.parse(tree: tree, overrides: []) }

  /// Why the profile is invalid (nil: it is valid).
  var error: ProfileError? {
    do {
      _ = try profile()
      return nil
    } catch {
      return error
    }
  }
}
