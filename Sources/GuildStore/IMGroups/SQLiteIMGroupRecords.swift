import Foundation
import GRDB
import GuildCore
import GuildProtocol

/// The IM groups area's records (`IMGroupRecords`) in one SQLite transaction: what `tx.imGroups` hands out.
struct SQLiteIMGroupRecords: SQLiteAreaRecords {
    let tx: SQLiteTransaction
}

extension SQLiteTransaction {
    /// The IM groups area's records in this transaction.
    var imGroups: any IMGroupRecords { SQLiteIMGroupRecords(tx: self) }
}

extension SQLiteIMGroupRecords: IMGroupRecords {
    func dismissedType(_ id: String) throws -> GroupType? {
        try String.fetchOne(self.db.cachedStatement(sql: "SELECT type FROM dismissed_group WHERE id = ?"), arguments: StoredText.arguments([id])).map
        {
            GroupType(rawValue: $0) ?? .work
        }
    }

    func insertTombstone(id: String, type: GroupType, now: Int64) throws {
        try self.db.cachedStatement(sql: "INSERT OR REPLACE INTO dismissed_group (id, type, dismissedAt) VALUES (?, ?, ?)").execute(
            arguments: StoredText.arguments([
                id, type.rawValue, now,
            ])
        )
    }

    func membershipCount(userID: String) throws -> Int {
        try Int.fetchOne(self.db.cachedStatement(sql: "SELECT count(*) FROM membership WHERE userID = ?"), arguments: StoredText.arguments([userID]))
            ?? 0
    }

    func managerIDs(groupID: String) throws -> [String] {
        try String.fetchAll(
            self.db.cachedStatement(sql: "SELECT userID FROM membership WHERE groupID = ? AND role IN ('owner', 'admin') ORDER BY id"),
            arguments: StoredText.arguments([groupID])
        )
    }

    func longestStandingMember(groupID: String, excluding: String) throws -> String? {
        try String.fetchOne(
            self.db.cachedStatement(sql: "SELECT userID FROM membership WHERE groupID = ? AND userID != ? ORDER BY id LIMIT 1"),
            arguments: StoredText.arguments([groupID, excluding])
        )
    }

    func memberInfos(groupID: String, roles: Set<GroupRole>, after cursor: Int64, limit: Int) throws -> [(cursor: Int64, info: MemberInfo)] {
        let roleList = roles.map { "'\($0.rawValue)'" }.sorted().joined(separator: ", ")
        return try Row.fetchAll(
            self.db.cachedStatement(
                sql:
                    "SELECT \(SQLiteGroupRecords.memberInfoColumns) WHERE m.groupID = ? AND m.id > ? AND m.role IN (\(roleList)) ORDER BY m.id LIMIT ?"
            ),
            arguments: StoredText.arguments([groupID, cursor, limit])
        ).map { (cursor: $0[0], info: SQLiteGroupRecords.memberInfo(from: $0)) }
    }

    func memberInfos(groupID: String, userIDs: [String]) throws -> [MemberInfo] {
        guard !userIDs.isEmpty else { return [] }
        let marks = Array(repeating: "?", count: userIDs.count).joined(separator: ", ")
        return try Row.fetchAll(
            self.db.cachedStatement(
                sql: "SELECT \(SQLiteGroupRecords.memberInfoColumns) WHERE m.groupID = ? AND m.userID IN (\(marks)) ORDER BY m.id"
            ),
            arguments: StoredText.arguments([groupID] + userIDs)
        ).map(SQLiteGroupRecords.memberInfo)
    }

    func updateMember(groupID: String, userID: String, nameCard: String?, custom: [String: String]?, receiveOption: ReceiveOption?) throws {
        try self.db.cachedStatement(
            sql: """
                UPDATE membership SET nameCard = coalesce(?, nameCard), custom = coalesce(?, custom),
                receiveOption = coalesce(?, receiveOption) WHERE groupID = ? AND userID = ?
                """
        ).execute(
            arguments: StoredText.arguments([nameCard, try custom.map(SQLiteGroupRecords.text), receiveOption?.rawValue, groupID, userID])
        )
    }

    func membersNotReceiving(groupID: String) throws -> [String] {
        try String.fetchAll(
            self.db.cachedStatement(sql: "SELECT userID FROM membership WHERE groupID = ? AND receiveOption = 'NOT_RECEIVE'"),
            arguments: StoredText.arguments([groupID])
        )
    }

    func muteUntil(groupID: String, userID: String) throws -> Int64 {
        try Int64.fetchOne(
            self.db.cachedStatement(sql: "SELECT muteUntil FROM group_mute WHERE groupID = ? AND userID = ?"),
            arguments: StoredText.arguments([groupID, userID])
        )
            ?? 0
    }

    func setMute(groupID: String, userID: String, until: Int64) throws {
        if until > 0 {
            try self.db.cachedStatement(sql: "INSERT OR REPLACE INTO group_mute (groupID, userID, muteUntil) VALUES (?, ?, ?)").execute(
                arguments: StoredText.arguments([
                    groupID, userID, until,
                ])
            )
        } else {
            try self.db.cachedStatement(sql: "DELETE FROM group_mute WHERE groupID = ? AND userID = ?").execute(
                arguments: StoredText.arguments([groupID, userID])
            )
        }
    }

    func insertApplication(groupID: String, fromUser: String, message: String, now: Int64) throws -> JoinApplication {
        try self.db.cachedStatement(sql: "INSERT INTO application (groupID, fromUser, message, status, createdAt) VALUES (?, ?, ?, 'PENDING', ?)")
            .execute(
                arguments: StoredText.arguments([groupID, fromUser, message, now])
            )
        return .pending(id: self.db.lastInsertedRowID, groupID: groupID, fromUser: fromUser, message: message, now: now)
    }

    func application(id: Int64) throws -> JoinApplication? {
        try Row.fetchOne(self.db.cachedStatement(sql: "SELECT * FROM application WHERE id = ?"), arguments: StoredText.arguments([id])).map(
            SQLiteGroupRecords.application
        )
    }

    func pendingApplication(groupID: String, fromUser: String) throws -> JoinApplication? {
        try Row.fetchOne(
            self.db.cachedStatement(sql: "SELECT * FROM application WHERE groupID = ? AND fromUser = ? AND status = 'PENDING'"),
            arguments: StoredText.arguments([groupID, fromUser])
        ).map(SQLiteGroupRecords.application)
    }

    func handleApplication(id: Int64, status: JoinApplication.Status, by handler: String?, message: String, now: Int64) throws {
        try self.db.cachedStatement(sql: "UPDATE application SET status = ?, handledBy = ?, handledMessage = ?, handledAt = ? WHERE id = ?").execute(
            arguments: StoredText.arguments([status.rawValue, handler, message, now, id])
        )
    }

    func applications(groupID: String, before cursor: Int64, limit: Int) throws -> (applications: [JoinApplication], pending: Int) {
        let rows = try Row.fetchAll(
            self.db.cachedStatement(sql: "SELECT * FROM application WHERE groupID = ? AND (? = 0 OR id < ?) ORDER BY id DESC LIMIT ?"),
            arguments: StoredText.arguments([groupID, cursor, cursor, limit])
        )
        let pending =
            try Int.fetchOne(
                self.db.cachedStatement(sql: "SELECT count(*) FROM application WHERE groupID = ? AND status = 'PENDING'"),
                arguments: StoredText.arguments([groupID])
            )
            ?? 0
        return (rows.map(SQLiteGroupRecords.application), pending)
    }

    func attributes(groupID: String) throws -> GroupAttributes {
        guard
            let row = try Row.fetchOne(
                self.db.cachedStatement(sql: #"SELECT attributes, attributesVersion FROM "group" WHERE id = ?"#),
                arguments: StoredText.arguments([groupID])
            )
        else { return GroupAttributes(values: [:], version: 0) }
        return GroupAttributes(values: SQLiteGroupRecords.stringMap(row[0]), version: row[1])
    }

    func saveAttributes(groupID: String, values: [String: String]) throws -> Int64 {
        try Int64.fetchOne(
            self.db.cachedStatement(
                sql: #"UPDATE "group" SET attributes = ?, attributesVersion = attributesVersion + 1 WHERE id = ? RETURNING attributesVersion"#
            ),
            arguments: StoredText.arguments([try SQLiteGroupRecords.text(values), groupID])
        ) ?? 0
    }

    func nextMessageSeq(groupID: String) throws -> Int64 {
        try Int64.fetchOne(
            self.db.cachedStatement(sql: #"UPDATE "group" SET messageSeq = messageSeq + 1 WHERE id = ? RETURNING messageSeq"#),
            arguments: StoredText.arguments([groupID])
        ) ?? 0
    }

}
