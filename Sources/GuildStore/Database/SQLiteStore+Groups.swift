import GRDB
import GRDBSQLite
import GuildCore
import GuildProtocol

extension SQLiteStore: GroupRepository {
    public func groupTransaction<T: Sendable>(_ body: @escaping @Sendable (any GroupTransaction) throws -> T) async throws -> T {
        try await self.writeWithEvents { db, log in
            try body(SQLiteGroupTransaction(db: db, log: log))
        }
    }

    public func groupRead<T: Sendable>(_ body: @escaping @Sendable (any GroupTransaction) throws -> T) async throws -> T {
        try await self.read { db in
            try body(SQLiteGroupTransaction(db: db, log: EventLog()))
        }
    }

    public func group(id: String) async throws -> Group? {
        try await self.read { db in
            try Row.fetchOne(db, sql: "SELECT \(SQLiteGroupTransaction.groupColumns) FROM \"group\" g WHERE g.id = ?", arguments: [id])
                .map(SQLiteGroupTransaction.group)
        }
    }

    public func groups(memberOf userID: String) async throws -> [Group] {
        try await self.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT \(SQLiteGroupTransaction.groupColumns) FROM membership m JOIN "group" g ON g.id = m.groupID
                    WHERE m.userID = ? ORDER BY m.id
                    """,
                arguments: [userID]
            ).map(SQLiteGroupTransaction.group)
        }
    }

    public func groups(ownedBy userID: String) async throws -> [Group] {
        try await self.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT \(SQLiteGroupTransaction.groupColumns) FROM membership m JOIN "group" g ON g.id = m.groupID
                    WHERE m.userID = ? AND m.role = 'owner' ORDER BY m.id
                    """,
                arguments: [userID]
            ).map(SQLiteGroupTransaction.group)
        }
    }

    public func groupListJSON(userID: String, ownedOnly: Bool) async throws -> [UInt8] {
        try await self.read { db in
            // Rows are stepped through SQLite's C API and written as JSON straight from its column buffers: for
            // a user in a thousand groups, building each object with json_object or through GRDB's Row costs
            // more than finding the rows. Keys in the order the wire uses (GroupInfo, sorted).
            let statement = try db.cachedStatement(
                sql: """
                    SELECT g.createdAt, g.id, g.memberCount, g.modifiedAt, g.name, g.ownerID, g.type
                    FROM membership m JOIN "group" g ON g.id = m.groupID
                    WHERE m.userID = ?1 AND (?2 = 0 OR m.role = 'owner')
                    ORDER BY m.id
                    """
            )
            try statement.setArguments([userID, ownedOnly ? 1 : 0])
            let handle = statement.sqliteStatement
            defer { sqlite3_reset(handle) }
            var bytes: [UInt8] = []
            bytes.reserveCapacity(64 * 1024)
            bytes.append(UInt8(ascii: "["))
            func text(_ column: Int32) -> UnsafeBufferPointer<UInt8> {
                UnsafeBufferPointer(start: sqlite3_column_text(handle, column), count: Int(sqlite3_column_bytes(handle, column)))
            }
            var first = true
            while true {
                let code = sqlite3_step(handle)
                if code == SQLITE_DONE { break }
                guard code == SQLITE_ROW else {
                    throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)))
                }
                if !first { bytes.append(UInt8(ascii: ",")) }
                first = false
                bytes.append(contentsOf: #"{"createdAt":"#.utf8)
                JSONText.appendInt64(sqlite3_column_int64(handle, 0), to: &bytes)
                bytes.append(contentsOf: #","groupID":"#.utf8)
                JSONText.appendString(utf8: text(1), to: &bytes)
                bytes.append(contentsOf: #","memberCount":"#.utf8)
                JSONText.appendInt64(sqlite3_column_int64(handle, 2), to: &bytes)
                bytes.append(contentsOf: #","modifiedAt":"#.utf8)
                JSONText.appendInt64(sqlite3_column_int64(handle, 3), to: &bytes)
                bytes.append(contentsOf: #","name":"#.utf8)
                JSONText.appendString(utf8: text(4), to: &bytes)
                bytes.append(contentsOf: #","owner":"#.utf8)
                if sqlite3_column_type(handle, 5) == SQLITE_NULL {
                    bytes.append(contentsOf: "null".utf8)
                } else {
                    JSONText.appendString(utf8: text(5), to: &bytes)
                }
                bytes.append(contentsOf: #","type":"#.utf8)
                JSONText.appendString(utf8: text(6), to: &bytes)
                bytes.append(UInt8(ascii: "}"))
            }
            bytes.append(UInt8(ascii: "]"))
            return bytes
        }
    }

    public func checkInvariants() async throws -> [String] {
        try await self.read { db in
            var violations: [String] = []
            for row in try Row.fetchAll(
                db,
                sql: """
                    SELECT g.id FROM "group" g
                    WHERE g.ownerID IS NOT (SELECT m.userID FROM membership m WHERE m.groupID = g.id AND m.role = 'owner')
                    """
            ) {
                violations.append("group \(row[0] as String)'s owner column disagrees with its owner's membership")
            }
            for row in try Row.fetchAll(db, sql: "SELECT groupID, count(*) AS n FROM membership WHERE role = 'owner' GROUP BY groupID HAVING n > 1") {
                violations.append("group \(row["groupID"] as String) has \(row["n"] as Int) owners")
            }
            for row in try Row.fetchAll(
                db,
                sql:
                    #"SELECT g.id, g.memberCount, (SELECT count(*) FROM membership m WHERE m.groupID = g.id) AS actual FROM "group" g WHERE g.memberCount != actual"#
            ) {
                violations.append("group \(row["id"] as String) counts \(row["memberCount"] as Int) members but has \(row["actual"] as Int)")
            }
            let orphans =
                try Int.fetchOne(
                    db,
                    sql:
                        #"SELECT count(*) FROM membership m WHERE NOT EXISTS (SELECT 1 FROM "user" u WHERE u.id = m.userID) OR NOT EXISTS (SELECT 1 FROM "group" g WHERE g.id = m.groupID)"#
                ) ?? 0
            if orphans > 0 { violations.append("\(orphans) memberships name a missing user or group") }
            let unopened =
                try Int.fetchOne(
                    db,
                    sql:
                        "SELECT count(*) FROM membership m WHERE (SELECT count(*) FROM membership_history h WHERE h.groupID = m.groupID AND h.userID = m.userID AND h.toSeq IS NULL) != 1"
                ) ?? 0
            if unopened > 0 { violations.append("\(unopened) memberships lack exactly one open history interval") }
            let dangling =
                try Int.fetchOne(
                    db,
                    sql:
                        "SELECT count(*) FROM membership_history h WHERE h.toSeq IS NULL AND NOT EXISTS (SELECT 1 FROM membership m WHERE m.groupID = h.groupID AND m.userID = h.userID)"
                ) ?? 0
            if dangling > 0 { violations.append("\(dangling) open history intervals have no membership") }
            for row in try Row.fetchAll(db, sql: "PRAGMA foreign_key_check") {
                violations.append("foreign key violation in \(row[0] as String? ?? "?")")
            }
            return violations
        }
    }
}
