import GRDB
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

    public func groups(memberOf userID: String) async throws -> [Group] {
        try await self.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT \(SQLiteGroupTransaction.groupColumns) FROM membership m JOIN "group" g ON g.id = m.groupID
                    WHERE m.userID = ? ORDER BY m.id
                    """,
                arguments: StoredText.arguments([userID])
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
                arguments: StoredText.arguments([userID])
            ).map(SQLiteGroupTransaction.group)
        }
    }

    public func groupListJSON(userID: String, ownedOnly: Bool) async throws -> [UInt8] {
        let generation = self.groupSummaries.generation
        return try await self.read { db in
            // The user's groups in join order from the covering index, then each group's JSON from the summary
            // cache, or from its row (then cached).
            let ids = try String.fetchAll(
                db.cachedStatement(sql: "SELECT groupID FROM membership WHERE userID = ?1 AND (?2 = 0 OR role = 'owner') ORDER BY id"),
                arguments: StoredText.arguments([userID, ownedOnly ? 1 : 0])
            )
            var summaries = self.groupSummaries.lookup(ids)
            var found: [String: [UInt8]] = [:]
            let rows = SQLiteGroupTransaction(db: db, log: EventLog())
            for index in ids.indices where summaries[index] == nil {
                guard let group = try rows.group(ids[index]) else { continue }
                var json: [UInt8] = []
                GroupInfo(group).writeJSON(to: &json)
                summaries[index] = json
                found[ids[index]] = json
            }
            self.groupSummaries.store(found, generation: generation)
            var bytes: [UInt8] = []
            bytes.reserveCapacity(summaries.reduce(2) { $0 + ($1?.count ?? 0) + 1 })
            bytes.append(UInt8(ascii: "["))
            for (index, summary) in summaries.compactMap({ $0 }).enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                bytes.append(contentsOf: summary)
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
