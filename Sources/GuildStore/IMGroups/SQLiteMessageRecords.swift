import Foundation
import GRDB
import GuildCore
import GuildProtocol

/// The group messages area's records (`GroupMessageRecords`) in one SQLite transaction: what `tx.messages` hands out.
struct SQLiteMessageRecords: SQLiteAreaRecords {
    let tx: SQLiteTransaction
}

extension SQLiteTransaction {
    /// The group messages' records in this transaction.
    var messages: any GroupMessageRecords { SQLiteMessageRecords(tx: self) }
}

extension SQLiteMessageRecords: GroupMessageRecords {
    func insertMessage(_ message: StoredMessage) throws {
        try self.db.cachedStatement(
            sql: "INSERT INTO group_message (groupID, seq, msgID, sender, time, priority, body, eventSeq) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
        ).execute(
            arguments: StoredText.arguments([
                message.groupID, message.seq, message.msgID, message.sender, message.time, message.priority.rawValue,
                try message.body.map { Data(try RPCCoding.encode($0)) }, message.eventSeq,
            ])
        )
    }

    func messages(groupID: String, in range: ClosedRange<Int64>, descending: Bool, limit: Int) throws -> [StoredMessage] {
        try Row.fetchAll(
            self.db.cachedStatement(
                sql: """
                    SELECT \(Self.messageColumns) FROM group_message WHERE groupID = ? AND seq BETWEEN ? AND ?
                    ORDER BY seq \(descending ? "DESC" : "ASC") LIMIT ?
                    """
            ),
            arguments: StoredText.arguments([groupID, range.lowerBound, range.upperBound, limit])
        ).map(Self.storedMessage)
    }

    func message(groupID: String, msgID: String) throws -> StoredMessage? {
        try Row.fetchOne(
            self.db.cachedStatement(sql: "SELECT \(Self.messageColumns) FROM group_message WHERE groupID = ? AND msgID = ?"),
            arguments: StoredText.arguments([groupID, msgID])
        ).map(Self.storedMessage)
    }

    func revokeMessage(groupID: String, seq: Int64, by userID: String?) throws {
        try self.db.cachedStatement(sql: "UPDATE group_message SET body = NULL, revokedBy = ? WHERE groupID = ? AND seq = ?").execute(
            arguments: StoredText.arguments([userID ?? "", groupID, seq])
        )
    }

    func deleteMessageEvents(before time: Int64, limit: Int) throws -> Int {
        try self.db.cachedStatement(
            sql: """
                DELETE FROM event WHERE seq IN (
                    SELECT seq FROM event WHERE time < ? AND kind = 'newMessage' AND substr(topic, 1, 6) = 'group:' ORDER BY time, seq LIMIT ?
                )
                """
        ).execute(arguments: [time, EventPruning.clamped(limit: limit)])
        return self.db.changesCount
    }

    func deleteMessages(before time: Int64, limit: Int) throws -> Int {
        try self.db.cachedStatement(
            sql: """
                DELETE FROM group_message WHERE (groupID, seq) IN (
                    SELECT groupID, seq FROM group_message WHERE time < ? ORDER BY time LIMIT ?
                )
                """
        ).execute(arguments: [time, EventPruning.clamped(limit: limit)])
        return self.db.changesCount
    }

    func lastMessageSeq(groupID: String) throws -> Int64 {
        try Int64.fetchOne(
            self.db.cachedStatement(sql: #"SELECT messageSeq FROM "group" WHERE id = ?"#),
            arguments: StoredText.arguments([groupID])
        ) ?? 0
    }

    func readMark(groupID: String, userID: String) throws -> ReadMark? {
        var mark: ReadMark?
        var reader = ReadMarkReader()
        try RawRows.forEach(
            self.db,
            sql: "SELECT \(Self.readMarkColumns) WHERE m.groupID = ? AND m.userID = ?",
            arguments: [groupID, userID]
        ) { row in mark = reader.read(row) }
        return mark
    }

    func readMarks(userID: String) throws -> [ReadMark] {
        // Read straight from SQLite (a user in 1,000 groups: GRDB's row decoding cost more than the query).
        var marks: [ReadMark] = []
        var reader = ReadMarkReader()
        try RawRows.forEach(self.db, sql: "SELECT \(Self.readMarkColumns) WHERE m.userID = ? ORDER BY m.id", arguments: [userID]) { row in
            marks.append(reader.read(row))
        }
        return marks
    }

    func setReadSeq(groupID: String, userID: String, seq: Int64) throws {
        try self.db.cachedStatement(
            sql: """
                UPDATE group_read SET readSeq = ?1,
                    ownUnread = (SELECT count(*) FROM group_message WHERE groupID = ?2 AND seq > ?1 AND sender = ?3)
                WHERE membershipID = (SELECT id FROM membership WHERE groupID = ?2 AND userID = ?3)
                """
        ).execute(arguments: StoredText.arguments([seq, groupID, userID]))
    }

    func noteOwnMessage(groupID: String, userID: String, seq: Int64) throws {
        // Caught up before sending: the mark moves past the own message; else it waits as an own unread one.
        try self.db.cachedStatement(
            sql: """
                UPDATE group_read SET
                    readSeq = CASE WHEN max(readSeq, baseSeq) + ownUnread >= ?1 - 1 THEN ?1 ELSE readSeq END,
                    ownUnread = CASE WHEN max(readSeq, baseSeq) + ownUnread >= ?1 - 1 THEN 0 ELSE ownUnread + 1 END
                WHERE membershipID = (SELECT id FROM membership WHERE groupID = ?2 AND userID = ?3)
                """
        ).execute(arguments: StoredText.arguments([seq, groupID, userID]))
    }

    func noteMentions(groupID: String, userIDs: [String], all: Bool, seq: Int64) throws {
        if all {
            try self.db.cachedStatement(sql: #"UPDATE "group" SET atAllSeq = ? WHERE id = ?"#).execute(
                arguments: StoredText.arguments([seq, groupID])
            )
        }
        for userID in userIDs {
            try self.db.cachedStatement(
                sql: "UPDATE group_read SET mentionSeq = ? WHERE membershipID = (SELECT id FROM membership WHERE groupID = ? AND userID = ?)"
            ).execute(arguments: StoredText.arguments([seq, groupID, userID]))
        }
    }

    func membersJoined(groupID: String, after seq: Int64) throws -> [String] {
        try String.fetchAll(
            self.db.cachedStatement(
                sql: "SELECT m.userID FROM membership m JOIN group_read r ON r.membershipID = m.id WHERE m.groupID = ? AND r.baseSeq >= ?"
            ),
            arguments: StoredText.arguments([groupID, seq])
        )
    }

    private static let messageColumns = "groupID, seq, msgID, sender, time, priority, body, eventSeq"

    private static func storedMessage(_ row: Row) -> StoredMessage {
        let body: Data? = row[6]
        return StoredMessage(
            groupID: row.text(at: 0) ?? "",
            seq: row[1],
            msgID: row.text(at: 2) ?? "",
            sender: row.text(at: 3) ?? "",
            time: row[4],
            priority: MessagePriority(rawValue: row[5]) ?? .normal,
            body: body.flatMap { try? RPCCoding.decode(MessageBody.self, from: $0) },
            eventSeq: row[7]
        )
    }

    /// A read mark's columns: the membership's from its covering index, the group's from `group_unread` (named, as
    /// the planner would take the primary key's index and then the row), the mark by its rowid.
    private static let readMarkColumns = """
        m.groupID, g.type, m.receiveOption, g.messageSeq, g.atAllSeq, r.baseSeq, r.readSeq, r.mentionSeq, r.ownUnread
        FROM membership m JOIN "group" g INDEXED BY group_unread ON g.id = m.groupID JOIN group_read r ON r.membershipID = m.id
        """
}

/// Reads a read mark from a row over `readMarkColumns`, the type and receive option of one row after another
/// matched without a `String` each (see ``RawEnumColumn``).
private struct ReadMarkReader {
    private var types = RawEnumColumn<GroupType>()
    private var options = RawEnumColumn<ReceiveOption>()

    mutating func read(_ row: OpaquePointer) -> ReadMark {
        ReadMark(
            groupID: RawRows.text(row, 0) ?? "",
            type: self.types.read(row, 1) ?? .work,
            receiveOption: self.options.read(row, 2) ?? .receive,
            lastSeq: RawRows.int64(row, 3),
            atAllSeq: RawRows.int64(row, 4),
            baseSeq: RawRows.int64(row, 5),
            readSeq: RawRows.int64(row, 6),
            mentionSeq: RawRows.int64(row, 7),
            ownUnread: RawRows.int64(row, 8)
        )
    }
}
