import GRDB
import GRDBSQLite

/// Rows read straight from SQLite, for the few hot reads that return many rows or run on every write: no row
/// copy, no `DatabaseValue` per column, no generic decoding (a user's unread counts in 1,000 groups spent more in
/// GRDB's row decoding than in SQLite).
enum RawRows {
    /// SQLite's SQLITE_TRANSIENT: it copies bound text before the bind call returns.
    private static let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)

    /// Steps the statement `sql` (prepared once per connection) with `arguments` bound to its parameters in order
    /// and calls `row` with the statement at each row. Text is bound with its length, so a NUL in it is kept and
    /// matches nothing, as ``StoredText`` binds it (the ids and names looked up hold none).
    static func forEach(
        _ db: Database,
        sql: String,
        arguments: [String],
        _ row: (OpaquePointer) throws -> Void
    ) throws {
        let statement = try db.cachedStatement(sql: sql)
        let handle = statement.sqliteStatement
        sqlite3_reset(handle)
        defer {
            sqlite3_reset(handle)
            sqlite3_clear_bindings(handle)
        }
        func failure(_ code: Int32) -> DatabaseError {
            DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)))
        }
        for (index, argument) in arguments.enumerated() {
            // SQLITE_TRANSIENT: SQLite copies the text, which need not outlive this call.
            let code = argument.utf8CString.withUnsafeBufferPointer { text in
                sqlite3_bind_text(handle, Int32(index + 1), text.baseAddress, Int32(text.count - 1), Self.transient)
            }
            guard code == SQLITE_OK else { throw failure(code) }
        }
        while true {
            switch sqlite3_step(handle) {
            case SQLITE_ROW: try row(handle)
            case SQLITE_DONE: return
            case let code: throw failure(code)
            }
        }
    }

    /// The text (or blob, read as UTF-8) in `column` of the current row, whole; nil for NULL.
    static func text(_ handle: OpaquePointer, _ column: Int32) -> String? {
        guard sqlite3_column_type(handle, column) != SQLITE_NULL, let bytes = sqlite3_column_text(handle, column) else { return nil }
        return String(decoding: UnsafeBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(handle, column))), as: UTF8.self)
    }

    /// The integer in `column` of the current row (0 for NULL).
    static func int64(_ handle: OpaquePointer, _ column: Int32) -> Int64 {
        sqlite3_column_int64(handle, column)
    }
}

/// Reads an enum stored as its raw text, row after row: a value whose bytes match the previous row's is the
/// previous row's case, without a `String` made and matched against every case (a column of a few distinct
/// values, such as a group's type, repeats from row to row).
struct RawEnumColumn<Value: RawRepresentable> where Value.RawValue == String {
    private var lastBytes: [UInt8] = []
    private var lastValue: Value?

    /// The case in `column` of the current row, or nil for NULL or text that is no case.
    mutating func read(_ handle: OpaquePointer, _ column: Int32) -> Value? {
        guard let pointer = sqlite3_column_text(handle, column) else { return nil }
        let bytes = UnsafeBufferPointer(start: pointer, count: Int(sqlite3_column_bytes(handle, column)))
        if self.lastValue != nil, bytes.elementsEqual(self.lastBytes) { return self.lastValue }
        self.lastBytes = Array(bytes)
        self.lastValue = Value(rawValue: String(decoding: bytes, as: UTF8.self))
        return self.lastValue
    }
}
