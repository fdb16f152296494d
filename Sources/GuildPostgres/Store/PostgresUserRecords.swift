import GuildCore
import GuildJSON
import NIOCore
import PostgresNIO

/// The users area's records (`UserRecords`) in one PostgreSQL transaction: what `tx.users` hands out.
struct PostgresUserRecords: PostgresAreaRecords {
    let tx: PostgresTransaction
}

extension PostgresTransaction {
    /// The users area's records in this transaction.
    public var users: any UserRecords { PostgresUserRecords(tx: self) }
}

/// The users and sessions area on PostgreSQL (schema version 2), answering as `GuildStore`'s SQLite version does:
/// the same errors with the same codes, messages and fields, login names and emails compared case-insensitively
/// (ASCII letters only, as SQLite's COLLATE NOCASE), the custom fields as the same JSON text.
///
/// Several hosts may write at once, each through its own ``PostgresWriter``, where SQLite has a single writer. So a
/// row read to be changed is locked: a refresh token is consumed by deleting it (the second of two concurrent
/// rotations waits for the first to commit, then finds nothing), and a user a new token names is locked against
/// deletion (`FOR KEY SHARE`) until the transaction ends.
///
/// PostgreSQL text cannot hold U+0000: the display name, free text, is stored as its UTF-8 bytes, and a key holding
/// a NUL (an id, a login name, ...) names no row, since no stored key can hold one.
extension PostgresUserRecords: UserRecords {
    /// Inserts the user row and its first session's tokens; a taken login name, email or phone is
    /// `userAlreadyExists`.
    public func insertUser(_ user: User, passwordHash: String?, session: IssuedSession) throws {
        let fields = Self.fieldsText(user.fields)
        do {
            try self.connection.execute(
                """
                INSERT INTO "user" (
                    id, username, email, phone, display_name, fields, password_hash, is_pseudo, created_at, modified_at
                ) VALUES (
                    \(user.id), \(user.username), \(user.email), \(user.phone), \(Self.bytes(user.displayName)),
                    \(fields), \(passwordHash), \(user.isPseudo), \(user.createdAt), \(user.modifiedAt)
                )
                """
            )
        } catch {
            throw Self.translate(error)
        }
        try self.insertTokens(of: session, userID: user.id, now: user.createdAt)
    }

    /// The user found by the identity's login name, else its email (both case-insensitively), else its phone.
    public func credentials(for identity: LoginIdentity) throws -> (user: User, passwordHash: String?)? {
        let query: PostgresQuery
        if let username = identity.username {
            guard Self.isStorableKey(username) else { return nil }
            query = """
                SELECT \(unescaped: Self.userColumns) FROM "user"
                WHERE lower(username COLLATE "C") = lower(\(username) COLLATE "C")
                """
        } else if let email = identity.email {
            guard Self.isStorableKey(email) else { return nil }
            query = """
                SELECT \(unescaped: Self.userColumns) FROM "user"
                WHERE lower(email COLLATE "C") = lower(\(email) COLLATE "C")
                """
        } else if let phone = identity.phone {
            guard Self.isStorableKey(phone) else { return nil }
            query = "SELECT \(unescaped: Self.userColumns) FROM \"user\" WHERE phone = \(phone)"
        } else {
            return nil
        }
        guard let row = try self.connection.query(query).first else { return nil }
        return try Self.user(row.makeRandomAccess())
    }

    /// Stores a session's tokens; `userNotFound` when the user is gone. The user's row stays locked against
    /// deletion by another host until the transaction ends, so a token never names a missing user.
    public func insertSession(_ session: IssuedSession, userID: String, now: Int64) throws {
        guard try self.lockUser(id: userID) else {
            throw GuildError(.userNotFound, "no user with id \(userID)", field: "userID")
        }
        try self.insertTokens(of: session, userID: userID, now: now)
    }

    /// Consumes a refresh token by deleting it, so that of two hosts rotating it at once, the second finds it gone
    /// (`invalidRefreshToken`) once the first commits; then revokes its session and stores `session`.
    public func rotateRefreshToken(hash: [UInt8], to session: IssuedSession, now: Int64) throws -> User {
        let consumed = try self.connection.query(
            "DELETE FROM token WHERE hash = \(ByteBuffer(bytes: hash)) AND kind = 'refresh' RETURNING user_id, family"
        )
        guard let row = consumed.first else { throw Self.invalidRefreshToken }
        let (userID, family) = try row.decode((String, String).self)
        let found = try self.connection.query(
            "SELECT \(unescaped: Self.userColumns) FROM \"user\" WHERE id = \(userID) FOR KEY SHARE"
        )
        guard let userRow = found.first else { throw Self.invalidRefreshToken }
        let user = try Self.user(userRow.makeRandomAccess()).user
        try self.connection.execute("DELETE FROM token WHERE family = \(family)")
        try self.insertTokens(of: session, userID: userID, now: now)
        return user
    }

    /// The user of a live access token, in one round trip; `nil` when it is unknown or expired.
    public func resolveAccessToken(hash: [UInt8], now: Int64) throws -> ResolvedSession? {
        let rows = try self.connection.query(
            """
            SELECT \(unescaped: Self.userColumns(prefix: "u.")), t.expires_at
            FROM token t JOIN "user" u ON u.id = t.user_id
            WHERE t.hash = \(ByteBuffer(bytes: hash)) AND t.kind = 'access'
            """
        )
        // No user's token: a thing's, as SQLite's store goes on to (thing.onboard).
        guard let row = rows.first?.makeRandomAccess() else { return try PostgresThingRecords(tx: self.tx).resolveThingToken(hash: hash) }
        let expiresAt = try row[Self.userColumnNames.count].decode(Int64?.self)
        if let expiresAt, expiresAt <= now { return nil }
        return ResolvedSession(user: try Self.user(row).user, tokenHash: hash, expiresAt: expiresAt)
    }

    /// Gives a pseudo user the identity and password, in one conditional update (which waits for another
    /// host's change to the row and then sees it); `userAlreadyExists` when a part of the identity is taken.
    public func setIdentity(userID: String, identity: LoginIdentity, passwordHash: String, now: Int64) throws -> Bool {
        guard Self.isStorableKey(userID) else { return false }
        do {
            return try self.connection.execute(
                """
                UPDATE "user" SET username = \(identity.username), email = \(identity.email), phone = \(identity.phone),
                    password_hash = \(passwordHash), is_pseudo = false, modified_at = \(now)
                WHERE id = \(userID) AND is_pseudo
                """
            ) > 0
        } catch {
            throw Self.translate(error)
        }
    }

    /// A user's password hash (`nil` for a pseudo user); `userNotFound` when there is no such user.
    public func passwordHash(userID: String) throws -> String? {
        let rows =
            Self.isStorableKey(userID)
            ? try self.connection.query("SELECT password_hash FROM \"user\" WHERE id = \(userID)") : []
        guard let row = rows.first else {
            throw GuildError(.userNotFound, "no user with id \(userID)", field: "userID")
        }
        return try row.decode(String?.self)
    }

    /// Replaces the password hash, revokes every token of the user and stores `session`; `userNotFound` when there
    /// is no such user.
    public func replacePassword(userID: String, passwordHash: String, session: IssuedSession, now: Int64) throws {
        let updated =
            Self.isStorableKey(userID)
            ? try self.connection.execute(
                "UPDATE \"user\" SET password_hash = \(passwordHash), modified_at = \(now) WHERE id = \(userID)"
            ) : 0
        guard updated > 0 else {
            throw GuildError(.userNotFound, "no user with id \(userID)", field: "userID")
        }
        try self.connection.execute("DELETE FROM token WHERE user_id = \(userID)")
        try self.insertTokens(of: session, userID: userID, now: now)
    }

    /// The user with this id.
    public func user(id: String) throws -> User? {
        guard Self.isStorableKey(id) else { return nil }
        let rows = try self.connection.query("SELECT \(unescaped: Self.userColumns) FROM \"user\" WHERE id = \(id)")
        return try rows.first.map { try Self.user($0.makeRandomAccess()).user }
    }

    /// Writes only the columns that differ between `user` and `old`, and the modification time: a concurrent
    /// change to another column by another host stays. A taken email or phone is `userAlreadyExists`.
    ///
    /// A change that leaves the email and the phone alone cannot break a constraint, so it is sent without
    /// waiting (nothing reads its answer; see ``PostgresWriterLane``): a profile update waits only for its commit.
    public func saveUser(_ user: User, old: User) throws {
        guard Self.isStorableKey(user.id) else { return }
        var columns = UserColumnUpdate()
        if user.displayName != old.displayName { columns.set("display_name", Self.bytes(user.displayName)) }
        if user.email != old.email { columns.set("email", user.email) }
        if user.phone != old.phone { columns.set("phone", user.phone) }
        if user.fields != old.fields { columns.set("fields", Self.fieldsText(user.fields)) }
        let update = columns.statement(id: user.id, modifiedAt: user.modifiedAt)
        guard user.email != old.email || user.phone != old.phone else {
            self.connection.send(update)
            return
        }
        do {
            try self.connection.execute(update)
        } catch {
            throw Self.translate(error)
        }
    }

    /// One statement: the given columns and the modification time set, and the row as stored returned (no read
    /// before it, which would be a round trip of its own). A taken email or phone is `userAlreadyExists`.
    public func setProfile(id: String, displayName: String?, email: String?, phone: String?, modifiedAt: Int64) throws -> User? {
        guard Self.isStorableKey(id) else { return nil }
        var columns = UserColumnUpdate()
        if let displayName { columns.set("display_name", Self.bytes(displayName)) }
        if let email { columns.set("email", email) }
        if let phone { columns.set("phone", phone) }
        let update = columns.statement(id: id, modifiedAt: modifiedAt, returning: Self.userColumns)
        do {
            let rows = try self.connection.query(update)
            return try rows.first.map { try Self.user($0.makeRandomAccess()).user }
        } catch {
            throw Self.translate(error)
        }
    }

    /// Deletes the user row; its tokens go with it (`ON DELETE CASCADE`).
    public func deleteUserRecord(id: String) throws -> Bool {
        guard Self.isStorableKey(id) else { return false }
        return try self.connection.execute("DELETE FROM \"user\" WHERE id = \(id)") > 0
    }

    /// Deletes every token of the session the token with this hash belongs to.
    public func revokeSession(accessTokenHash: [UInt8]) throws {
        try self.connection.execute(
            """
            DELETE FROM token
            WHERE family = (SELECT family FROM token WHERE hash = \(ByteBuffer(bytes: accessTokenHash)))
            """
        )
    }
}

extension PostgresUserRecords {
    /// The `user` columns ``user(_:from:)`` reads, in its order.
    private static let userColumnNames = [
        "id", "username", "email", "phone", "display_name", "fields", "password_hash", "is_pseudo", "created_at",
        "modified_at",
    ]

    private static let userColumns = PostgresUserRecords.userColumns(prefix: "")

    private static func userColumns(prefix: String) -> String {
        Self.userColumnNames.map { prefix + $0 }.joined(separator: ", ")
    }

    private static var invalidRefreshToken: GuildError {
        GuildError(.invalidRefreshToken, "the refresh token is unknown, already used or revoked")
    }

    /// Reads a user from the ``userColumns`` of `row`, starting at column `first`.
    private static func user(
        _ row: PostgresRandomAccessRow,
        from first: Int = 0
    ) throws -> (user: User, passwordHash: String?) {
        let displayName = try row[first + 4].decode(ByteBuffer?.self)
        let user = User(
            id: try row[first].decode(String.self),
            username: try row[first + 1].decode(String?.self),
            email: try row[first + 2].decode(String?.self),
            phone: try row[first + 3].decode(String?.self),
            displayName: displayName.map { String(buffer: $0) },
            fields: try Self.fields(fromText: try row[first + 5].decode(String.self)),
            isPseudo: try row[first + 7].decode(Bool.self),
            createdAt: try row[first + 8].decode(Int64.self),
            modifiedAt: try row[first + 9].decode(Int64.self)
        )
        return (user, try row[first + 6].decode(String?.self))
    }

    /// The user with this id, its row locked for update until the transaction ends.
    private func userForUpdate(id: String) throws -> User? {
        guard Self.isStorableKey(id) else { return nil }
        let rows = try self.connection.query(
            "SELECT \(unescaped: Self.userColumns) FROM \"user\" WHERE id = \(id) FOR UPDATE"
        )
        return try rows.first.map { try Self.user($0.makeRandomAccess()).user }
    }

    /// Whether the user exists; if so, its row is locked against deletion until the transaction ends.
    private func lockUser(id: String) throws -> Bool {
        guard Self.isStorableKey(id) else { return false }
        return try !self.connection.query("SELECT 1 FROM \"user\" WHERE id = \(id) FOR KEY SHARE").isEmpty
    }

    /// Inserts the access token of `session` and its refresh token if it has one, in one statement.
    private func insertTokens(of session: IssuedSession, userID: String, now: Int64) throws {
        let access = ByteBuffer(bytes: session.accessToken.hash)
        if let refresh = session.refreshToken {
            try self.connection.execute(
                """
                INSERT INTO token (hash, user_id, kind, family, expires_at, created_at) VALUES
                    (\(access), \(userID), 'access', \(session.family), \(session.expiresAt), \(now)),
                    (\(ByteBuffer(bytes: refresh.hash)), \(userID), 'refresh', \(session.family), NULL, \(now))
                """
            )
        } else {
            try self.connection.execute(
                """
                INSERT INTO token (hash, user_id, kind, family, expires_at, created_at)
                VALUES (\(access), \(userID), 'access', \(session.family), \(session.expiresAt), \(now))
                """
            )
        }
    }

    /// Free text as its UTF-8 bytes, for a `bytea` column.
    private static func bytes(_ text: String?) -> ByteBuffer? {
        text.map { ByteBuffer(string: $0) }
    }

    /// The custom fields as the JSON text SQLite stores (compact, keys sorted; `{}` for none).
    private static func fieldsText(_ fields: [String: JSONValue]) -> String {
        fields.isEmpty ? "{}" : JSONValue.object(fields).jsonText
    }

    /// The custom fields from their JSON text.
    private static func fields(fromText text: String) throws -> [String: JSONValue] {
        guard text != "{}" else { return [:] }
        guard let fields = try JSONValue(parsing: text).objectValue else {
            throw PostgresStoreError.unexpectedReply("a user's stored fields are not a JSON object")
        }
        return fields
    }

    /// Turns a uniqueness violation into `userAlreadyExists` naming the field, as SQLite's store does; anything
    /// else passes through, a taken id too (SQLite reports that as a primary key violation, which its store does
    /// not translate: ids are generated).
    private static func translate(_ error: any Error) -> any Error {
        guard let error = error as? PSQLError, error.serverInfo?[.sqlState] == "23505" else { return error }
        let constraint = error.serverInfo?[.constraintName]
        guard constraint != "user_pkey" else { return error }
        for field in ["username", "email", "phone"] where constraint == "user_\(field)" {
            return GuildError(.userAlreadyExists, "a user with this \(field) already exists", field: field)
        }
        return GuildError(.userAlreadyExists, "the user already exists")
    }
}

/// An `UPDATE "user"` of one user, built a column at a time: the columns set, then the modification time.
private struct UserColumnUpdate {
    private var assignments: [String] = []
    private var update = PostgresStatement()

    /// Sets `column` to `value` (NULL when nil).
    mutating func set<Value: PostgresDynamicTypeEncodable>(_ column: String, _ value: Value?) {
        self.assignments.append("\(column) = \(self.update.bind(value))")
    }

    /// The statement for the user `id`, with `modified_at` set too; `returning` names the columns it answers with.
    consuming func statement(id: String, modifiedAt: Int64, returning: String? = nil) -> PostgresQuery {
        self.assignments.append("modified_at = \(self.update.bind(modifiedAt))")
        let tail = returning.map { " RETURNING \($0)" } ?? ""
        self.update.sql = "UPDATE \"user\" SET \(self.assignments.joined(separator: ", ")) WHERE id = \(self.update.bind(id))\(tail)"
        return self.update.query
    }
}
