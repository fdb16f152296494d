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

extension UserRecord: FetchableRecord, PersistableRecord {
    static let databaseTableName = "user"

    enum Columns {
        static let id = Column(CodingKeys.id)
        static let username = Column(CodingKeys.username)
        static let email = Column(CodingKeys.email)
        static let phone = Column(CodingKeys.phone)
    }
}
