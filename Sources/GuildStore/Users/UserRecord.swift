import GRDB
import GRDBSQLite
import GuildCore
import GuildJSON
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
    /// The columns in the order ``init(statement:)`` reads them.
    static let selection = "id, username, email, phone, displayName, fields, passwordHash, isPseudo, createdAt, modifiedAt"

    /// The user with this id.
    static func find(_ db: Database, id: String) throws -> UserRecord? {
        try Self.fetchOne(db, where: .id, is: id)
    }

    /// A column a user is found by.
    enum Key: String {
        case id, username, email, phone
    }

    /// The user whose `key` column equals `value`, through a statement prepared once per connection.
    ///
    /// Every write that changes a user reads it first on the single writer thread, so this reads the columns
    /// straight from SQLite: no row copy, no column-name table, no generic decoding.
    static func fetchOne(_ db: Database, where key: Key, is value: String) throws -> UserRecord? {
        var record: UserRecord?
        // The key columns are unique: one row at most.
        try RawRows.forEach(db, sql: "SELECT \(Self.selection) FROM \"user\" WHERE \(key.rawValue) = ?", arguments: [value]) { row in
            record = try UserRecord(statement: row)
        }
        return record
    }

    /// Reads the current row of a statement over ``selection``.
    private init(statement handle: OpaquePointer) throws {
        func text(_ column: Int32) -> String? { RawRows.text(handle, column) }
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

extension UserRecord: PersistableRecord {
    static let databaseTableName = "user"

    /// The row's columns; text through ``StoredText`` so that a NUL in a display name is stored whole, and the
    /// custom fields as the JSON text ``init(statement:)`` reads.
    func encode(to container: inout PersistenceContainer) throws {
        container["id"] = self.id
        container["username"] = StoredText.value(self.username)
        container["email"] = StoredText.value(self.email)
        container["phone"] = StoredText.value(self.phone)
        container["displayName"] = StoredText.value(self.displayName)
        container["fields"] = self.fields.isEmpty ? "{}" : String(decoding: try RPCCoding.encode(self.fields), as: UTF8.self)
        container["passwordHash"] = StoredText.value(self.passwordHash)
        container["isPseudo"] = self.isPseudo
        container["createdAt"] = self.createdAt
        container["modifiedAt"] = self.modifiedAt
    }
}
