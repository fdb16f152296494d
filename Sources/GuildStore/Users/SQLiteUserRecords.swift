import Foundation
import GRDB
import GuildCore
import GuildProtocol

/// The users area's records (`UserRecords`) in one SQLite transaction: what `tx.users` hands out.
struct SQLiteUserRecords: SQLiteAreaRecords {
    let tx: SQLiteTransaction
}

extension SQLiteTransaction {
    /// The users area's records in this transaction.
    var users: any UserRecords { SQLiteUserRecords(tx: self) }
}

extension SQLiteUserRecords: UserRecords {
    func insertUser(_ user: User, passwordHash: String?, session: IssuedSession) throws {
        let db = self.db
        do {
            try UserRecord(user, passwordHash: passwordHash).insert(db)
        } catch let error as DatabaseError {
            throw Self.translate(error)
        }
        for token in TokenRecord.records(for: session, userID: user.id, now: user.createdAt) {
            try token.insert(db)
        }
    }

    func credentials(for identity: LoginIdentity) throws -> (user: User, passwordHash: String?)? {
        let db = self.db
        let record: UserRecord?
        if let username = identity.username {
            record = try UserRecord.fetchOne(db, where: .username, is: username)
        } else if let email = identity.email {
            record = try UserRecord.fetchOne(db, where: .email, is: email)
        } else if let phone = identity.phone {
            record = try UserRecord.fetchOne(db, where: .phone, is: phone)
        } else {
            return nil
        }
        return record.map { ($0.user, $0.passwordHash) }
    }

    func insertSession(_ session: IssuedSession, userID: String, now: Int64) throws {
        let db = self.db
        // The user may have been deleted since their credentials were read (a login racing user.delete):
        // checked in the same transaction as the insert, so the token never names a missing user.
        guard try UserRecord.find(db, id: userID) != nil else {
            throw GuildError(.userNotFound, "no user with id \(userID)", field: "userID")
        }
        for token in TokenRecord.records(for: session, userID: userID, now: now) {
            try token.insert(db)
        }
    }

    func rotateRefreshToken(hash: [UInt8], to session: IssuedSession, now: Int64) throws -> User {
        let db = self.db
        guard
            let old = try TokenRecord.filter(
                TokenRecord.Columns.hash == Data(hash) && TokenRecord.Columns.kind == TokenRecord.Kind.refresh.rawValue
            ).fetchOne(db),
            let user = try UserRecord.find(db, id: old.userID)
        else {
            throw GuildError(.invalidRefreshToken, "the refresh token is unknown, already used or revoked")
        }
        try TokenRecord.filter(TokenRecord.Columns.family == old.family).deleteAll(db)
        for token in TokenRecord.records(for: session, userID: old.userID, now: now) {
            try token.insert(db)
        }
        return user.user
    }

    func resolveAccessToken(hash: [UInt8], now: Int64) throws -> ResolvedSession? {
        let db = self.db
        let statement = try db.cachedStatement(sql: "SELECT userID, expiresAt FROM token WHERE hash = ? AND kind = 'access'")
        // A thing's token (thing.onboard) binds the connection to the thing, a principal of its own.
        guard let row = try Row.fetchOne(statement, arguments: [Data(hash)]) else {
            return try SQLiteThingRecords(tx: self.tx).resolveThingToken(hash: hash)
        }
        let userID: String = row[0]
        let expiresAt: Int64? = row[1]
        if let expiresAt, expiresAt <= now { return nil }
        guard let user = try UserRecord.find(db, id: userID) else { return nil }
        return ResolvedSession(user: user.user, tokenHash: hash, expiresAt: expiresAt)
    }

    func setIdentity(userID: String, identity: LoginIdentity, passwordHash: String, now: Int64) throws -> Bool {
        do {
            try self.db.cachedStatement(
                sql: """
                    UPDATE "user" SET username = ?, email = ?, phone = ?, passwordHash = ?, isPseudo = 0, modifiedAt = ?
                    WHERE id = ? AND isPseudo
                    """
            ).execute(
                arguments: StoredText.arguments([identity.username, identity.email, identity.phone, passwordHash, now, userID])
            )
        } catch let error as DatabaseError {
            throw Self.translate(error)
        }
        return self.db.changesCount > 0
    }

    func passwordHash(userID: String) throws -> String? {
        let db = self.db
        guard let record = try UserRecord.find(db, id: userID) else {
            throw GuildError(.userNotFound, "no user with id \(userID)", field: "userID")
        }
        return record.passwordHash
    }

    func replacePassword(userID: String, passwordHash: String, session: IssuedSession, now: Int64) throws {
        let db = self.db
        guard var record = try UserRecord.find(db, id: userID) else {
            throw GuildError(.userNotFound, "no user with id \(userID)", field: "userID")
        }
        record.passwordHash = passwordHash
        record.modifiedAt = now
        try record.update(db)
        try TokenRecord.filter(TokenRecord.Columns.userID == userID).deleteAll(db)
        for token in TokenRecord.records(for: session, userID: userID, now: now) {
            try token.insert(db)
        }
    }

    func user(id: String) throws -> User? {
        let db = self.db
        return try UserRecord.find(db, id: id)?.user
    }

    func saveUser(_ user: User, old: User) throws {
        let db = self.db
        let id = user.id
        let now = user.modifiedAt
        // Write only what changed, with statements prepared once per connection.
        var assignments: [String] = []
        var arguments: StatementArguments = []
        if user.displayName != old.displayName {
            assignments.append("displayName = ?")
            _ = arguments.append(contentsOf: [StoredText.value(user.displayName)])
        }
        if user.email != old.email {
            assignments.append("email = ?")
            _ = arguments.append(contentsOf: [StoredText.value(user.email)])
        }
        if user.phone != old.phone {
            assignments.append("phone = ?")
            _ = arguments.append(contentsOf: [StoredText.value(user.phone)])
        }
        if user.fields != old.fields {
            assignments.append("fields = ?")
            _ = arguments.append(contentsOf: [String(decoding: try RPCCoding.encode(user.fields), as: UTF8.self)])
        }
        assignments.append("modifiedAt = ?")
        _ = arguments.append(contentsOf: [now, id])
        do {
            let sql = "UPDATE \"user\" SET \(assignments.joined(separator: ", ")) WHERE id = ?"
            try db.cachedStatement(sql: sql).execute(arguments: arguments)
        } catch let error as DatabaseError {
            throw Self.translate(error)
        }
    }

    func deleteUserRecord(id: String) throws -> Bool {
        try UserRecord.deleteOne(self.db, key: id)
    }

    func revokeSession(accessTokenHash: [UInt8]) throws {
        let db = self.db
        guard let token = try TokenRecord.fetchOne(db, key: Data(accessTokenHash)) else { return }
        try TokenRecord.filter(TokenRecord.Columns.family == token.family).deleteAll(db)
    }

    /// Turns a uniqueness violation into `userAlreadyExists` naming the field; anything else passes through.
    static func translate(_ error: DatabaseError) -> any Error {
        guard error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE else { return error }
        let message = error.message ?? ""
        for field in ["username", "email", "phone"] where message.contains("user.\(field)") {
            return GuildError(.userAlreadyExists, "a user with this \(field) already exists", field: field)
        }
        return GuildError(.userAlreadyExists, "the user already exists")
    }
}
