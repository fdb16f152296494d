import GRDB
import GRDBSQLite
import GuildCore
import GuildProtocol

/// A row of the `user` table.
struct UserRecord: Codable, Sendable {
    var id: String
    var username: String?
    var email: String?
    var phone: String?
    var displayName: String?
    /// Custom fields, stored as JSON text.
    var fields: [String: JSONValue]
    var passwordHash: String?
    var isPseudo: Bool
    var createdAt: Int64
    var modifiedAt: Int64

    init(_ user: User, passwordHash: String?) {
        self.id = user.id
        self.username = user.username
        self.email = user.email
        self.phone = user.phone
        self.displayName = user.displayName
        self.fields = user.fields
        self.passwordHash = passwordHash
        self.isPseudo = user.isPseudo
        self.createdAt = user.createdAt
        self.modifiedAt = user.modifiedAt
    }

    var user: User {
        User(
            id: self.id,
            username: self.username,
            email: self.email,
            phone: self.phone,
            displayName: self.displayName,
            fields: self.fields,
            isPseudo: self.isPseudo,
            createdAt: self.createdAt,
            modifiedAt: self.modifiedAt
        )
    }

    mutating func apply(_ user: User) {
        self.username = user.username
        self.email = user.email
        self.phone = user.phone
        self.displayName = user.displayName
        self.fields = user.fields
        self.isPseudo = user.isPseudo
        self.modifiedAt = user.modifiedAt
    }
}

extension UserRecord {
    /// The columns in the order ``init(row:)`` reads them.
    static let selection = "id, username, email, phone, displayName, fields, passwordHash, isPseudo, createdAt, modifiedAt"

    /// Reads a row of ``selection`` by position: no column-name lookups, no Decodable machinery.
    init(row: Row) throws {
        self.id = row[0]
        self.username = row[1]
        self.email = row[2]
        self.phone = row[3]
        self.displayName = row[4]
        // JSON text (GRDB may have stored it as text or as a blob).
        let json: [UInt8] =
            switch (row[5] as DatabaseValue).storage {
            case .string(let text): Array(text.utf8)
            case .blob(let data): Array(data)
            default: Array("{}".utf8)
            }
        self.fields = json == Array("{}".utf8) ? [:] : try RPCCoding.decode([String: JSONValue].self, from: json)
        self.passwordHash = row[6]
        self.isPseudo = row[7]
        self.createdAt = row[8]
        self.modifiedAt = row[9]
    }

    /// The user with this id, through a statement prepared once per connection.
    ///
    /// Every write that changes a user reads it first on the single writer thread, so this reads the columns
    /// straight from SQLite: no row copy, no column-name table, no generic decoding.
    static func find(_ db: Database, id: String) throws -> UserRecord? {
        let statement = try db.cachedStatement(sql: "SELECT \(Self.selection) FROM \"user\" WHERE id = ?")
        let handle = statement.sqliteStatement
        sqlite3_reset(handle)
        defer {
            sqlite3_reset(handle)
            sqlite3_clear_bindings(handle)
        }
        let step = id.utf8CString.withUnsafeBufferPointer { text -> Int32 in
            // SQLITE_STATIC: the text outlives the step, which is the only use of the binding.
            guard sqlite3_bind_text(handle, 1, text.baseAddress, Int32(text.count - 1), nil) == SQLITE_OK else {
                return SQLITE_ERROR
            }
            return sqlite3_step(handle)
        }
        switch step {
        case SQLITE_ROW: return try UserRecord(statement: handle)
        case SQLITE_DONE: return nil
        default: throw DatabaseError(resultCode: ResultCode(rawValue: step), message: String(cString: sqlite3_errmsg(db.sqliteConnection)))
        }
    }

    /// Reads the current row of a statement over ``selection``.
    private init(statement handle: OpaquePointer) throws {
        func text(_ column: Int32) -> String? {
            guard sqlite3_column_type(handle, column) != SQLITE_NULL, let bytes = sqlite3_column_text(handle, column) else { return nil }
            return String(decoding: UnsafeBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(handle, column))), as: UTF8.self)
        }
        self.id = text(0) ?? ""
        self.username = text(1)
        self.email = text(2)
        self.phone = text(3)
        self.displayName = text(4)
        // JSON text (or a blob, as GRDB may have stored it).
        let json = sqlite3_column_blob(handle, 5).map {
            UnsafeRawBufferPointer(start: $0, count: Int(sqlite3_column_bytes(handle, 5)))
        }
        if let json, !json.elementsEqual("{}".utf8) {
            self.fields = try RPCCoding.decode([String: JSONValue].self, from: json)
        } else {
            self.fields = [:]
        }
        self.passwordHash = text(6)
        self.isPseudo = sqlite3_column_int64(handle, 7) != 0
        self.createdAt = sqlite3_column_int64(handle, 8)
        self.modifiedAt = sqlite3_column_int64(handle, 9)
    }
}

extension UserRecord: FetchableRecord, PersistableRecord {
    static let databaseTableName = "user"

    enum Columns {
        static let id = Column(CodingKeys.id)
        static let username = Column(CodingKeys.username)
        static let email = Column(CodingKeys.email)
        static let phone = Column(CodingKeys.phone)
    }
}
