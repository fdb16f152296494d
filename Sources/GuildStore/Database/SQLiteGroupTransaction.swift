import Foundation
import GRDB
import GuildCore
import GuildProtocol

/// ``GroupTransaction`` over one GRDB savepoint, appending events to the operation's log.
struct SQLiteGroupTransaction: GroupTransaction {
    let db: Database
    let log: EventLog

    static let groupColumns = """
        g.id, g.name, g.type, g.memberCount, g.createdAt, g.modifiedAt,
        (SELECT o.userID FROM membership o WHERE o.groupID = g.id AND o.role = 'owner') AS ownerID
        """

    /// Reads a row of ``groupColumns`` by position (no column-name lookups on long lists).
    static func group(from row: Row) -> Group {
        Group(
            id: row[0],
            name: row[1],
            type: GroupType(rawValue: row[2]) ?? .basic,
            ownerID: row[6],
            memberCount: row[3],
            createdAt: row[4],
            modifiedAt: row[5]
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

    func group(_ id: String) throws -> Group? {
        try Row.fetchOne(self.db, sql: "SELECT \(Self.groupColumns) FROM \"group\" g WHERE g.id = ?", arguments: [id]).map(Self.group)
    }

    func membership(groupID: String, userID: String) throws -> Membership? {
        try Row.fetchOne(
            self.db,
            sql: "SELECT * FROM membership WHERE groupID = ? AND userID = ?",
            arguments: [groupID, userID]
        ).map(Self.membership)
    }

    func userExists(_ id: String) throws -> Bool {
        try Bool.fetchOne(self.db, sql: #"SELECT EXISTS (SELECT 1 FROM "user" WHERE id = ?)"#, arguments: [id]) ?? false
    }

    func memberIDs(groupID: String) throws -> [String] {
        try String.fetchAll(self.db, sql: "SELECT userID FROM membership WHERE groupID = ? ORDER BY id", arguments: [groupID])
    }

    func memberships(userID: String) throws -> [Membership] {
        try Row.fetchAll(self.db, sql: "SELECT * FROM membership WHERE userID = ? ORDER BY id", arguments: [userID]).map(Self.membership)
    }

    func insertGroup(id: String, name: String, type: GroupType, now: Int64) throws {
        do {
            try self.db.execute(
                sql: #"INSERT INTO "group" (id, name, type, memberCount, createdAt, modifiedAt) VALUES (?, ?, ?, 0, ?, ?)"#,
                arguments: [id, name, type.rawValue, now, now]
            )
        } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_PRIMARYKEY {
            throw GuildError(.groupAlreadyExists, "a group with id \(id) already exists", field: "groupID")
        }
    }

    func insertMember(groupID: String, userID: String, role: GroupRole, now: Int64) throws {
        try self.db.execute(
            sql: "INSERT INTO membership (groupID, userID, role, joinedAt) VALUES (?, ?, ?, ?)",
            arguments: [groupID, userID, role.rawValue, now]
        )
        try self.db.execute(sql: #"UPDATE "group" SET memberCount = memberCount + 1 WHERE id = ?"#, arguments: [groupID])
    }

    func setRole(groupID: String, userID: String, role: GroupRole) throws {
        try self.db.execute(
            sql: "UPDATE membership SET role = ? WHERE groupID = ? AND userID = ?",
            arguments: [role.rawValue, groupID, userID]
        )
    }

    func deleteMember(groupID: String, userID: String) throws {
        try self.db.execute(sql: "DELETE FROM membership WHERE groupID = ? AND userID = ?", arguments: [groupID, userID])
        if self.db.changesCount > 0 {
            try self.db.execute(sql: #"UPDATE "group" SET memberCount = memberCount - 1 WHERE id = ?"#, arguments: [groupID])
        }
    }

    func renameGroup(id: String, name: String, now: Int64) throws {
        try self.db.execute(sql: #"UPDATE "group" SET name = ?, modifiedAt = ? WHERE id = ?"#, arguments: [name, now, id])
    }

    func touchGroup(id: String, now: Int64) throws {
        try self.db.execute(sql: #"UPDATE "group" SET modifiedAt = ? WHERE id = ?"#, arguments: [now, id])
    }

    func deleteGroup(id: String) throws {
        try self.db.execute(sql: #"DELETE FROM "group" WHERE id = ?"#, arguments: [id])
    }

    @discardableResult
    func append(_ event: GroupEvent) throws -> Int64 {
        let body = try RPCCoding.encode(EventBody(event))
        try self.db.execute(
            sql: "INSERT INTO event (kind, groupID, audience, body, time) VALUES (?, ?, ?, ?, ?)",
            arguments: [event.kind.rawValue, event.groupID, event.audience.rawValue, Data(body), event.time]
        )
        let seq = self.db.lastInsertedRowID
        for user in Set(event.users) {
            try self.db.execute(sql: "INSERT OR IGNORE INTO event_subject (userID, seq) VALUES (?, ?)", arguments: [user, seq])
        }
        for user in event.joined {
            try self.db.execute(
                sql: "INSERT INTO membership_history (groupID, userID, fromSeq, toSeq) VALUES (?, ?, ?, NULL)",
                arguments: [event.groupID, user, seq]
            )
        }
        for user in event.left {
            try self.db.execute(
                sql: "UPDATE membership_history SET toSeq = ? WHERE groupID = ? AND userID = ? AND toSeq IS NULL",
                arguments: [seq, event.groupID, user]
            )
        }
        self.log.events.append(CommittedEvent(seq: seq, event: event, json: EventBody.json(seq: seq, body: body)))
        return seq
    }
}
