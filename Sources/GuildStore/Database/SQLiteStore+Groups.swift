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
        let generation = self.groupSummaries.generation
        return try await self.read { db in
            // The user's groups in join order from the covering index, then each group's JSON from the summary
            // cache, or from its row (written straight from SQLite's column buffers, then cached).
            let ids = try Self.columnStrings(
                db.cachedStatement(sql: "SELECT groupID FROM membership WHERE userID = ?1 AND (?2 = 0 OR role = 'owner') ORDER BY id"),
                arguments: [userID, ownedOnly ? 1 : 0]
            )
            var summaries = self.groupSummaries.lookup(ids)
            var found: [String: [UInt8]] = [:]
            let row = try db.cachedStatement(
                sql: #"SELECT createdAt, id, memberCount, modifiedAt, name, ownerID, type FROM "group" WHERE id = ?"#
            )
            for index in ids.indices where summaries[index] == nil {
                guard let json = try Self.summaryJSON(row, id: ids[index]) else { continue }
                summaries[index] = json
                found[ids[index]] = json
            }
            self.groupSummaries.store(found, generation: generation)
            var bytes: [UInt8] = []
            bytes.reserveCapacity(summaries.reduce(2) { $0 + ($1?.count ?? 0) + 1 })
            bytes.append(UInt8(ascii: "["))
            var first = true
            for summary in summaries {
                guard let summary else { continue }
                if !first { bytes.append(UInt8(ascii: ",")) }
                first = false
                bytes.append(contentsOf: summary)
            }
            bytes.append(UInt8(ascii: "]"))
            return bytes
        }
    }

    /// The first column of every row, stepping SQLite's C API directly.
    private static func columnStrings(_ statement: Statement, arguments: StatementArguments) throws -> [String] {
        try statement.setArguments(arguments)
        let handle = statement.sqliteStatement
        defer { sqlite3_reset(handle) }
        var strings: [String] = []
        while try Self.step(handle) {
            strings.append(String(cString: sqlite3_column_text(handle, 0)))
        }
        return strings
    }

    /// A group's wire JSON (GroupInfo, keys sorted) written from its row's column buffers; nil when no row.
    private static func summaryJSON(_ statement: Statement, id: String) throws -> [UInt8]? {
        try statement.setArguments([id])
        let handle = statement.sqliteStatement
        defer { sqlite3_reset(handle) }
        guard try Self.step(handle) else { return nil }
        func text(_ column: Int32) -> UnsafeBufferPointer<UInt8> {
            UnsafeBufferPointer(start: sqlite3_column_text(handle, column), count: Int(sqlite3_column_bytes(handle, column)))
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256)
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
        return bytes
    }

    /// Steps a statement: true for a row, false when done.
    private static func step(_ handle: SQLiteStatement) throws -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let code:
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(sqlite3_db_handle(handle))))
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
