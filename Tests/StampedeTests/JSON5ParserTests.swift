import Foundation
import Testing
import ToolSupport

@testable import Profiles
@testable import Scenario

/// The profile reader's JSON5: the whole syntax, errors that say where, and keys given twice.
@Suite struct JSON5ParserTests {
  func parse(_ text: String) throws -> JSONValue { try JSONValue.parse(json5: Data(text.utf8)) }

  func syntaxError(_ text: String) -> JSON5SyntaxError? {
    do {
      _ = try parse(text)
      return nil
    } catch {
      return error as? JSON5SyntaxError
    }
  }

  @Test func readsEveryJSON5Form() throws {
    let text = """
      // a comment
      {
        unquoted: 1, 'single': 'it\\'s', "double": "a\\tb\\u00e9\\x41",
        /* block */ hex: 0xFF, negHex: -0x10, plus: +3, lead: .5, trail: 5., exp: 1e3, neg: -2.5E-1,
        inf: Infinity, ninf: -Infinity, list: [1, 'two', [], {},], nested: { a: null, b: true, c: false, },
        cont: "line \\
      two", $dollar_1: 'ok',
      }
      """
    guard case .object(let o) = try parse(text) else {
      Issue.record("not an object")
      return
    }
    #expect(o["unquoted"] == .integer(1))
    #expect(o["single"] == .string("it's"))
    #expect(o["double"] == .string("a\tbéA"))
    #expect(o["hex"] == .integer(255) && o["negHex"] == .integer(-16) && o["plus"] == .integer(3))
    #expect(o["lead"] == .number(0.5) && o["trail"] == .number(5) && o["exp"] == .number(1000))
    #expect(o["neg"] == .number(-0.25))
    #expect(o["inf"] == .number(.infinity) && o["ninf"] == .number(-.infinity))
    #expect(o["list"] == .array([.integer(1), .string("two"), .array([]), .object([:])]))
    #expect(o["nested"] == .object(["a": .null, "b": .bool(true), "c": .bool(false)]))
    #expect(o["cont"] == .string("line two"))
    #expect(o["$dollar_1"] == .string("ok"))
    guard case .number(let nan) = try parse("NaN") else {
      Issue.record("NaN is not a number")
      return
    }
    #expect(nan.isNaN)
    #expect(try parse("\"\\ud83d\\ude00\"") == .string("😀"))
  }

  /// Every shipped profile reads as Foundation's JSON5 decoder reads it.
  @Test func everyShippedProfileReadsAsFoundationsDecoderReadsIt() throws {
    let folder = repositoryRoot.appendingPathComponent("profiles")
    let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json5") }
    #expect(files.count >= 10)
    for file in files {
      let data = try Data(contentsOf: folder.appendingPathComponent(file))
      let decoder = JSONDecoder()
      decoder.allowsJSON5 = true
      #expect(try JSON5Parser.parse(data) == decoder.decode(JSONValue.self, from: data), "\(file)")
    }
  }

  @Test(
    arguments: [
      ("{\n  seats: { maxSeatCount: 2 ,, },\n}", 2, 29, "expected a key or '}', found ','"),
      ("{ name: \"x\" \n  duration: \"1m\" }", 2, 3, "expected ',' or '}' after the value of \"name\", found 'd'"),
      ("{ a: tru }", 1, 6, "expected a value (a string must be quoted), found 't'"),
      ("{ a: [1, 2 }", 1, 12, "expected ',' or ']' after an array item, found '}'"),
      ("{ a: 'open }", 1, 6, "a string is never closed"),
      ("{ a: 'open\n }", 1, 11, "a string runs past the end of its line"),
      ("{ a: 1 } x", 1, 10, "expected the end of the file"),
      ("{ a: 1 /* never closed }", 1, 8, "a /* comment is never closed"),
      ("{ a: 0x }", 1, 8, "expected hexadecimal digits after 0x"),
      ("{\n\n  a: 1,\n  b: { c: 2, c: 3 },\n}", 4, 14, "the key \"c\" is given twice in one object (first on line 4)"),
      ("", 1, 1, "expected a value, found the end of the file"),
    ] as [(String, Int, Int, String)])
  func aSyntaxErrorSaysWhereWithTheLineAndACaret(text: String, line: Int, column: Int, reason: String) {
    guard let e = syntaxError(text) else {
      Issue.record("no syntax error for \(text)")
      return
    }
    #expect(e.line == line && e.column == column, "\(e)")
    #expect(e.reason.hasPrefix(reason), "\(e.reason)")
    // The excerpt is the line, then a caret under the column.
    let lines = e.excerpt.split(separator: "\n", omittingEmptySubsequences: false)
    #expect(lines.count == 2)
    #expect(lines[1].hasSuffix("^") && lines[1].count == 2 + column)
  }

  @Test func aProfileWithASyntaxErrorNamesTheFileLineAndColumn() throws {
    let file = ProcessTool.temporaryPath("syntax", suffix: ".json5")
    try Data("{\n  name: \"x\",\n  duration: 1m,\n}\n".utf8).write(to: file)
    do {
      _ = try Profile.load(path: file.path)
      Issue.record("a broken profile loaded")
    } catch {
      #expect(error.description.hasPrefix("\(file.path):3:14: not valid JSON5: expected a number, found 'm'"))
      #expect(error.description.contains("    duration: 1m,\n" + String(repeating: " ", count: 15) + "^"))
    }
  }

  @Test func deepNestingIsRefusedNotACrash() {
    let text = String(repeating: "[", count: 5000) + String(repeating: "]", count: 5000)
    #expect(syntaxError(text)?.reason.hasPrefix("nested more than 200 levels deep") == true)
  }
}
