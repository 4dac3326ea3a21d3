import CSQLite
import Foundation

/// An error SQLite reported, with its message.
public struct SQLiteError: Error, CustomStringConvertible, Sendable {
  /// SQLite's result code.
  public let code: Int32
  /// What went wrong, with the file it concerns.
  public let description: String
}

/// A value bound into a statement.
enum SQLValue {
  case int(Int64)
  case double(Double)
  case text(String)
  case null
}

/// One connection to an SQLite database file. Not shared between threads.
final class SQLiteDatabase {
  let handle: OpaquePointer
  let path: String

  /// Opens (creating if asked) the database at `path`. Writers wait up to `busyMilliseconds` for
  /// another process's transaction instead of failing.
  init(path: String, create: Bool, busyMilliseconds: Int32 = 60_000) throws(SQLiteError) {
    var db: OpaquePointer?
    let flags =
      (create ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READWRITE) | SQLITE_OPEN_NOMUTEX
    let rc = sqlite3_open_v2(path, &db, flags, nil)
    guard rc == SQLITE_OK, let db else {
      let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
      if let db { sqlite3_close_v2(db) }
      throw SQLiteError(code: rc, description: "\(path): \(message)")
    }
    handle = db
    self.path = path
    sqlite3_busy_timeout(db, busyMilliseconds)
  }

  deinit { sqlite3_close_v2(handle) }

  func error(_ rc: Int32) -> SQLiteError {
    SQLiteError(code: rc, description: "\(path): \(String(cString: sqlite3_errmsg(handle)))")
  }

  /// Runs one or more statements that return no rows.
  func execute(_ sql: String) throws(SQLiteError) {
    let rc = sqlite3_exec(handle, sql, nil, nil, nil)
    guard rc == SQLITE_OK else { throw error(rc) }
  }

  /// Prepares `sql` with `values` bound to its `?` parameters in order.
  func statement(_ sql: String, _ values: [SQLValue] = []) throws(SQLiteError) -> SQLiteStatement {
    var raw: OpaquePointer?
    let rc = sqlite3_prepare_v2(handle, sql, -1, &raw, nil)
    guard rc == SQLITE_OK, let raw else { throw error(rc) }
    let s = SQLiteStatement(raw, database: self)
    try s.bind(values)
    return s
  }

  /// Runs `sql` (an insert or update) with `values`.
  func run(_ sql: String, _ values: [SQLValue] = []) throws(SQLiteError) {
    let s = try statement(sql, values)
    while try s.step() {}
  }

  /// The rows `sql` returns, each read by `row`.
  func rows<T>(_ sql: String, _ values: [SQLValue] = [], _ row: (SQLiteStatement) -> T) throws(SQLiteError) -> [T] {
    let s = try statement(sql, values)
    var out: [T] = []
    while try s.step() { out.append(row(s)) }
    return out
  }

  /// The column names of `table` in the database `schema` (`main`, or an attached one's name).
  func columns(of table: String, in schema: String = "main") throws(SQLiteError) -> Set<String> {
    Set(try rows("PRAGMA \(schema).table_info(\(table))") { $0.text(1) })
  }

  /// The row ID of the last insert on this connection.
  var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

  /// Runs `body` in one write transaction (taken at the start, so concurrent writers queue up
  /// instead of deadlocking), rolled back if it throws.
  func writeTransaction<T>(_ body: () throws -> T) throws -> T {
    try execute("BEGIN IMMEDIATE")
    do {
      let value = try body()
      try execute("COMMIT")
      return value
    } catch {
      try? execute("ROLLBACK")
      throw error
    }
  }
}

/// A prepared statement.
final class SQLiteStatement {
  let raw: OpaquePointer
  unowned let database: SQLiteDatabase

  init(_ raw: OpaquePointer, database: SQLiteDatabase) {
    self.raw = raw
    self.database = database
  }

  deinit { sqlite3_finalize(raw) }

  /// SQLite copies bound text at once (its "transient" destructor).
  private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

  func bind(_ values: [SQLValue]) throws(SQLiteError) {
    for (i, v) in values.enumerated() {
      let index = Int32(i + 1)
      let rc: Int32
      switch v {
      case .int(let n): rc = sqlite3_bind_int64(raw, index, n)
      case .double(let d): rc = sqlite3_bind_double(raw, index, d)
      case .text(let s): rc = sqlite3_bind_text(raw, index, s, -1, Self.transient)
      case .null: rc = sqlite3_bind_null(raw, index)
      }
      guard rc == SQLITE_OK else { throw database.error(rc) }
    }
  }

  /// Advances to the next row; `false` when there is none.
  func step() throws(SQLiteError) -> Bool {
    let rc = sqlite3_step(raw)
    if rc == SQLITE_ROW { return true }
    if rc == SQLITE_DONE { return false }
    throw database.error(rc)
  }

  func isNull(_ column: Int32) -> Bool { sqlite3_column_type(raw, column) == SQLITE_NULL }
  func int(_ column: Int32) -> Int64 { sqlite3_column_int64(raw, column) }
  func double(_ column: Int32) -> Double { sqlite3_column_double(raw, column) }
  func optionalDouble(_ column: Int32) -> Double? { isNull(column) ? nil : double(column) }
  func text(_ column: Int32) -> String {
    guard let p = sqlite3_column_text(raw, column) else { return "" }
    return String(cString: p)
  }
  func optionalText(_ column: Int32) -> String? { isNull(column) ? nil : text(column) }
}
