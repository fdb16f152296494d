import Foundation
import GRDB
import GuildCore
import GuildProtocol

/// The groups area's records (`GroupRecords`) in one SQLite transaction: what `tx.groups` hands out.
struct SQLiteGroupRecords: SQLiteAreaRecords {
    let tx: SQLiteTransaction
}

extension SQLiteTransaction {
    /// The groups area's records in this transaction.
    var groups: any GroupRecords { SQLiteGroupRecords(tx: self) }
}

extension SQLiteGroupRecords: GroupRecords {
    func group(_ id: String) throws -> Group? {
        try Row.fetchOne(
            self.db.cachedStatement(sql: "SELECT \(Self.groupColumns) FROM \"group\" g WHERE g.id = ?"),
            arguments: StoredText.arguments([id])
        ).map(Self.group)
    }

    func groupOwnership(_ id: String) throws -> GroupOwnership? {
        try Row.fetchOne(
            self.db.cachedStatement(sql: "SELECT ownerID FROM \"group\" WHERE id = ?"),
            arguments: StoredText.arguments([id])
        ).map { GroupOwnership(ownerID: $0[0]) }
    }

    func membership(groupID: String, userID: String) throws -> Membership? {
        try Row.fetchOne(
            self.db.cachedStatement(sql: "SELECT * FROM membership WHERE groupID = ? AND userID = ?"),
            arguments: StoredText.arguments([groupID, userID])
        ).map(Self.membership)
    }

    func userExists(_ id: String) throws -> Bool {
        try Bool.fetchOne(self.db.cachedStatement(sql: #"SELECT EXISTS (SELECT 1 FROM "user" WHERE id = ?)"#), arguments: StoredText.arguments([id]))
            ?? false
    }

    func memberIDs(groupID: String) throws -> [String] {
        try String.fetchAll(
            self.db.cachedStatement(sql: "SELECT userID FROM membership WHERE groupID = ? ORDER BY id"),
            arguments: StoredText.arguments([groupID])
        )
    }

    func memberPage(groupID: String, after cursor: Int64, limit: Int) throws -> [Membership] {
        // The columns of `SELECT *`, in the order `membership(from:)` reads them.
        let page = try self.db.cachedStatement(
            sql: "SELECT id, groupID, userID, role, joinedAt FROM membership WHERE groupID = ? AND id > ? ORDER BY id LIMIT ?"
        )
        var members: [Membership] = []
        members.reserveCapacity(limit)
        let rows = try Row.fetchCursor(page, arguments: StoredText.arguments([groupID, cursor, limit]))
        while let row = try rows.next() { members.append(Self.membership(from: row)) }
        return members
    }

    func memberships(userID: String) throws -> [Membership] {
        try Row.fetchAll(
            self.db.cachedStatement(sql: "SELECT * FROM membership WHERE userID = ? ORDER BY id"),
            arguments: StoredText.arguments([userID])
        ).map(
            Self.membership
        )
    }

    func insertGroup(id: String, name: String, type: GroupType, now: Int64) throws {
        self.changedGroup(id)
        do {
            try self.db.cachedStatement(sql: #"INSERT INTO "group" (id, name, type, memberCount, createdAt, modifiedAt) VALUES (?, ?, ?, 0, ?, ?)"#)
                .execute(
                    arguments: StoredText.arguments([id, name, type.rawValue, now, now])
                )
        } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_PRIMARYKEY {
            throw GuildError(.groupAlreadyExists, "a group with id \(id) already exists", field: "groupID")
        }
    }

    func insertMember(groupID: String, userID: String, role: GroupRole, now: Int64) throws {
        self.changedGroup(groupID)
        try self.db.cachedStatement(sql: "INSERT INTO membership (groupID, userID, role, joinedAt) VALUES (?, ?, ?, ?)").execute(
            arguments: StoredText.arguments([
                groupID, userID, role.rawValue, now,
            ])
        )
        try self.db.cachedStatement(sql: #"UPDATE "group" SET memberCount = memberCount + 1 WHERE id = ?"#).execute(
            arguments: StoredText.arguments([groupID])
        )
    }

    func setRole(groupID: String, userID: String, role: GroupRole) throws {
        self.changedGroup(groupID)
        try self.db.cachedStatement(sql: "UPDATE membership SET role = ? WHERE groupID = ? AND userID = ?").execute(
            arguments: StoredText.arguments([
                role.rawValue, groupID, userID,
            ])
        )
    }

    func deleteMember(groupID: String, userID: String) throws {
        self.changedGroup(groupID)
        try self.db.cachedStatement(sql: "DELETE FROM membership WHERE groupID = ? AND userID = ?").execute(
            arguments: StoredText.arguments([groupID, userID])
        )
        if self.db.changesCount > 0 {
            try self.db.cachedStatement(sql: #"UPDATE "group" SET memberCount = memberCount - 1 WHERE id = ?"#).execute(
                arguments: StoredText.arguments([groupID])
            )
        }
    }

    func touchGroup(id: String, now: Int64) throws {
        self.changedGroup(id)
        try self.db.cachedStatement(sql: #"UPDATE "group" SET modifiedAt = ? WHERE id = ?"#).execute(arguments: StoredText.arguments([now, id]))
    }

    func deleteGroup(id: String) throws {
        self.changedGroup(id)
        try self.db.cachedStatement(sql: #"DELETE FROM "group" WHERE id = ?"#).execute(arguments: StoredText.arguments([id]))
    }

    func saveProfile(_ group: Group) throws {
        self.changedGroup(group.id)
        try self.db.cachedStatement(
            sql: """
                UPDATE "group" SET name = ?, introduction = ?, notification = ?, faceURL = ?, addOption = ?, allMuted = ?,
                custom = ?, modifiedAt = ? WHERE id = ?
                """
        ).execute(
            arguments: StoredText.arguments([
                group.name, group.introduction, group.notification,
                group.faceURL, group.addOption.rawValue, group.allMuted,
                try Self.text(group.custom), group.modifiedAt, group.id,
            ])
        )
    }

    func groups(memberOf userID: String) throws -> [Group] {
        try Row.fetchAll(
            self.db,
            sql: """
                SELECT \(Self.groupColumns) FROM membership m JOIN "group" g ON g.id = m.groupID
                WHERE m.userID = ? ORDER BY m.id
                """,
            arguments: StoredText.arguments([userID])
        ).map(Self.group)
    }

    func groups(ownedBy userID: String) throws -> [Group] {
        try Row.fetchAll(
            self.db,
            sql: """
                SELECT \(Self.groupColumns) FROM membership m JOIN "group" g ON g.id = m.groupID
                WHERE m.userID = ? AND m.role = 'owner' ORDER BY m.id
                """,
            arguments: StoredText.arguments([userID])
        ).map(Self.group)
    }

    func groupIDs(of userID: String, ownedOnly: Bool) throws -> [String] {
        // In join order from the covering index.
        try String.fetchAll(
            self.db.cachedStatement(sql: "SELECT groupID FROM membership WHERE userID = ?1 AND (?2 = 0 OR role = 'owner') ORDER BY id"),
            arguments: StoredText.arguments([userID, ownedOnly ? 1 : 0])
        )
    }

    func groupInvariantViolations() throws -> [String] {
        let db = self.db
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

/// How the groups area reads and writes its rows (the IM groups and messages areas read them too).
extension SQLiteGroupRecords {
    static let groupColumns = """
        g.id, g.name, g.type, g.memberCount, g.createdAt, g.modifiedAt,
        g.ownerID,
        g.introduction, g.notification, g.faceURL, g.addOption, g.allMuted, g.custom
        """

    /// Reads a row of ``groupColumns`` by position (no column-name lookups on long lists).
    static func group(from row: Row) -> Group {
        var group = Group(
            id: row[0],
            name: row.text(at: 1) ?? "",
            type: GroupType(rawValue: row[2]) ?? .basic,
            ownerID: row[6],
            memberCount: row[3],
            createdAt: row[4],
            modifiedAt: row[5]
        )
        group.introduction = row.text(at: 7) ?? ""
        group.notification = row.text(at: 8) ?? ""
        group.faceURL = row.text(at: 9) ?? ""
        group.addOption = AddOption(rawValue: row[10]) ?? .forbid
        group.allMuted = row[11]
        group.custom = Self.stringMap(row[12])
        return group
    }

    /// A JSON object of strings as stored in a TEXT column.
    static func stringMap(_ text: String?) -> [String: String] {
        guard let text, text != "{}" else { return [:] }
        return (try? JSONDecoder().decode([String: String].self, from: Data(text.utf8))) ?? [:]
    }

    /// The TEXT column form of a map of strings (keys sorted, so equal maps store equal text).
    static func text(_ map: [String: String]) throws -> String {
        guard !map.isEmpty else { return "{}" }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(map), as: UTF8.self)
    }

    static let memberInfoColumns = """
        m.id, m.userID, m.role, m.joinedAt, m.nameCard, u.displayName,
        coalesce((SELECT x.muteUntil FROM group_mute x WHERE x.groupID = m.groupID AND x.userID = m.userID), 0),
        m.receiveOption, m.custom
        FROM membership m JOIN "user" u ON u.id = m.userID
        """

    static func memberInfo(from row: Row) -> MemberInfo {
        MemberInfo(
            userID: row[1],
            role: GroupRole(rawValue: row[2]) ?? .member,
            joinedAt: row[3],
            nameCard: row.text(at: 4) ?? "",
            nickName: row.text(at: 5),
            muteUntil: row[6],
            receiveOption: ReceiveOption(rawValue: row[7]) ?? .receive,
            custom: Self.stringMap(row[8])
        )
    }

    static func application(from row: Row) -> JoinApplication {
        JoinApplication(
            id: row["id"],
            groupID: row["groupID"],
            fromUser: row["fromUser"],
            message: row.text(named: "message") ?? "",
            status: JoinApplication.Status(rawValue: row["status"]) ?? .pending,
            handledBy: row["handledBy"],
            handledMessage: row.text(named: "handledMessage") ?? "",
            createdAt: row["createdAt"],
            handledAt: row["handledAt"]
        )
    }

    /// Reads a `SELECT *` row of `membership` by position: id, groupID, userID, role, joinedAt.
    static func membership(from row: Row) -> Membership {
        Membership(
            groupID: row[1],
            userID: row[2],
            role: GroupRole(rawValue: row[3]) ?? .member,
            joinedAt: row[4],
            joinSeq: row[0]
        )
    }
}
