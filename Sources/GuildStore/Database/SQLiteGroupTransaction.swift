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

    func group(_ id: String) throws -> Group? {
        try Row.fetchOne(
            self.db.cachedStatement(sql: "SELECT \(Self.groupColumns) FROM \"group\" g WHERE g.id = ?"),
            arguments: StoredText.arguments([id])
        ).map(Self.group)
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
        self.log.touchedGroups.insert(id)
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
        self.log.touchedGroups.insert(groupID)
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
        self.log.touchedGroups.insert(groupID)
        try self.db.cachedStatement(sql: "UPDATE membership SET role = ? WHERE groupID = ? AND userID = ?").execute(
            arguments: StoredText.arguments([
                role.rawValue, groupID, userID,
            ])
        )
    }

    func deleteMember(groupID: String, userID: String) throws {
        self.log.touchedGroups.insert(groupID)
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
        self.log.touchedGroups.insert(id)
        try self.db.cachedStatement(sql: #"UPDATE "group" SET modifiedAt = ? WHERE id = ?"#).execute(arguments: StoredText.arguments([now, id]))
    }

    func deleteGroup(id: String) throws {
        self.log.touchedGroups.insert(id)
        try self.db.cachedStatement(sql: #"DELETE FROM "group" WHERE id = ?"#).execute(arguments: StoredText.arguments([id]))
    }

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

    func saveProfile(_ group: Group) throws {
        self.log.touchedGroups.insert(group.id)
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
                sql: "SELECT \(Self.memberInfoColumns) WHERE m.groupID = ? AND m.id > ? AND m.role IN (\(roleList)) ORDER BY m.id LIMIT ?"
            ),
            arguments: StoredText.arguments([groupID, cursor, limit])
        ).map { (cursor: $0[0], info: Self.memberInfo(from: $0)) }
    }

    func memberInfos(groupID: String, userIDs: [String]) throws -> [MemberInfo] {
        guard !userIDs.isEmpty else { return [] }
        let marks = Array(repeating: "?", count: userIDs.count).joined(separator: ", ")
        return try Row.fetchAll(
            self.db.cachedStatement(sql: "SELECT \(Self.memberInfoColumns) WHERE m.groupID = ? AND m.userID IN (\(marks)) ORDER BY m.id"),
            arguments: StoredText.arguments([groupID] + userIDs)
        ).map(Self.memberInfo)
    }

    func updateMember(groupID: String, userID: String, nameCard: String?, custom: [String: String]?, receiveOption: ReceiveOption?) throws {
        try self.db.cachedStatement(
            sql: """
                UPDATE membership SET nameCard = coalesce(?, nameCard), custom = coalesce(?, custom),
                receiveOption = coalesce(?, receiveOption) WHERE groupID = ? AND userID = ?
                """
        ).execute(
            arguments: StoredText.arguments([nameCard, try custom.map(Self.text), receiveOption?.rawValue, groupID, userID])
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
        return JoinApplication(
            id: self.db.lastInsertedRowID,
            groupID: groupID,
            fromUser: fromUser,
            message: message,
            status: .pending,
            handledBy: nil,
            handledMessage: "",
            createdAt: now,
            handledAt: nil
        )
    }

    func application(id: Int64) throws -> JoinApplication? {
        try Row.fetchOne(self.db.cachedStatement(sql: "SELECT * FROM application WHERE id = ?"), arguments: StoredText.arguments([id])).map(
            Self.application
        )
    }

    func pendingApplication(groupID: String, fromUser: String) throws -> JoinApplication? {
        try Row.fetchOne(
            self.db.cachedStatement(sql: "SELECT * FROM application WHERE groupID = ? AND fromUser = ? AND status = 'PENDING'"),
            arguments: StoredText.arguments([groupID, fromUser])
        ).map(Self.application)
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
        return (rows.map(Self.application), pending)
    }

    func attributes(groupID: String) throws -> GroupAttributes {
        guard
            let row = try Row.fetchOne(
                self.db.cachedStatement(sql: #"SELECT attributes, attributesVersion FROM "group" WHERE id = ?"#),
                arguments: StoredText.arguments([groupID])
            )
        else { return GroupAttributes(values: [:], version: 0) }
        return GroupAttributes(values: Self.stringMap(row[0]), version: row[1])
    }

    func saveAttributes(groupID: String, values: [String: String]) throws -> Int64 {
        try Int64.fetchOne(
            self.db.cachedStatement(
                sql: #"UPDATE "group" SET attributes = ?, attributesVersion = attributesVersion + 1 WHERE id = ? RETURNING attributesVersion"#
            ),
            arguments: StoredText.arguments([try Self.text(values), groupID])
        ) ?? 0
    }

    func nextMessageSeq(groupID: String) throws -> Int64 {
        try Int64.fetchOne(
            self.db.cachedStatement(sql: #"UPDATE "group" SET messageSeq = messageSeq + 1 WHERE id = ? RETURNING messageSeq"#),
            arguments: StoredText.arguments([groupID])
        ) ?? 0
    }

    @discardableResult
    func append(_ event: GroupEvent) throws -> Int64 {
        try self.db.appendEvent(event, to: self.log)
    }
}
