import GuildCore
import GuildJSON
import PostgresNIO

/// An area's records over one ``PostgresTransaction``: its connection, row locks and log, as the
/// transaction's own.
protocol PostgresAreaRecords {
    var tx: PostgresTransaction { get }
}

extension PostgresAreaRecords {
    var connection: BlockingConnection { self.tx.connection }
    var rowLock: String { self.tx.rowLock }
    var isWriteTransaction: Bool { self.tx.isWriteTransaction }

    func changed(_ record: RecordKey) { self.tx.changed(record) }

    @discardableResult
    func append(_ event: some LoggableEvent) throws -> Int64 { try self.tx.append(event) }

    /// Whether `key` can name a stored row (``PostgresTransaction/isStorableKey(_:)``).
    static func isStorableKey(_ key: String) -> Bool { PostgresTransaction.isStorableKey(key) }

    /// Free text from its UTF-8 bytes.
    static func text(_ bytes: ByteBuffer) -> String {
        String(buffer: bytes)
    }

    /// A JSON object of strings as stored in a text column.
    static func stringMap(_ text: String?) -> [String: String] {
        guard let text, text != "{}", let members = (try? JSONValue(parsing: text))?.objectValue else { return [:] }
        return members.compactMapValues(\.stringValue)
    }

    /// The text column form of a map of strings, as SQLite stores it (keys sorted, `{}` for none).
    static func text(_ map: [String: String]) -> String {
        map.isEmpty ? "{}" : JSONValue.object(map.mapValues(JSONValue.string)).jsonText
    }

    /// The single count `sql` selects.
    func count(_ sql: PostgresQuery) throws -> Int64 {
        try self.connection.query(sql).first?.decode(Int64.self) ?? 0
    }
}
