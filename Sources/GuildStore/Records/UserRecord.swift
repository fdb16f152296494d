import GRDB
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
    static func find(_ db: Database, id: String) throws -> UserRecord? {
        let statement = try db.cachedStatement(sql: "SELECT \(Self.selection) FROM \"user\" WHERE id = ?")
        return try Row.fetchOne(statement, arguments: [id]).map(UserRecord.init(row:))
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
