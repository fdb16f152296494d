import Foundation
import GRDB
import GuildCore
import GuildProtocol

/// The store's one ``Transaction``: a GRDB savepoint of a group-commit transaction (or a read-only snapshot),
/// with the operation's log of appended events and changed records. Each area's records are implemented in
/// an extension of their own (`SQLiteTransaction+Users.swift`, `+Groups`, `+IMGroups`, `+Events`).
final class SQLiteTransaction: Transaction {
    let db: Database
    let log: EventLog

    init(db: Database, log: EventLog) {
        self.db = db
        self.log = log
    }

    func changed(_ record: RecordKey) {
        self.log.changed.insert(record)
    }

    /// Marks a group changed, for the caches of listed groups.
    func changedGroup(_ id: String) {
        self.log.changed.insert(RecordKey(area: "group", id: id))
    }

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
