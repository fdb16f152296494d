import GuildCore
import GuildProtocol
import NIOCore
import PostgresNIO

/// The group messages area's records (`GroupMessageRecords`) in one PostgreSQL transaction: what `tx.messages` hands out.
struct PostgresMessageRecords: PostgresAreaRecords {
    let tx: PostgresTransaction
}

extension PostgresTransaction {
    /// The group messages' records in this transaction.
    public var messages: any GroupMessageRecords { PostgresMessageRecords(tx: self) }
}

/// Group messages and members' read marks on PostgreSQL (schema version 5), answering as `GuildStore`'s SQLite
/// version does. A read mark is created with its membership (``insertMember(groupID:userID:role:now:)``) and goes
/// with it; each change to one is a single `UPDATE` computed from the row it locks, so two hosts' changes to the
/// same mark apply one after the other. The statements of a message's sending (its row, the sender's mark, the
/// mentions) are sent without waiting: nothing reads their answer (see ``PostgresWriterLane``).
extension PostgresMessageRecords: GroupMessageRecords {
    /// Stores a message; its event's number, when the transaction appended that event, is given by the tail.
    public func insertMessage(_ message: StoredMessage) throws {
        let body = try message.body.map { ByteBuffer(bytes: try RPCCoding.encode($0)) }
        self.tx.holdsEventNumber(message.eventSeq, groupMessage: message.groupID, seq: message.seq)
        self.connection.send(
            """
            INSERT INTO group_message (group_id, seq, msg_id, sender, time, priority, body, event_seq)
            VALUES (\(message.groupID), \(message.seq), \(message.msgID), \(message.sender), \(message.time),
                \(message.priority.rawValue), \(body)::bytea, \(message.eventSeq))
            """
        )
    }

    /// Up to `limit` messages with seq in `range`, newest first when `descending`.
    public func messages(
        groupID: String,
        in range: ClosedRange<Int64>,
        descending: Bool,
        limit: Int
    ) throws -> [StoredMessage] {
        guard Self.isStorableKey(groupID) else { return [] }
        return try self.connection.query(
            """
            SELECT \(unescaped: Self.messageColumns) FROM group_message
            WHERE group_id = \(groupID) AND seq BETWEEN \(range.lowerBound) AND \(range.upperBound)
            ORDER BY seq \(unescaped: descending ? "DESC" : "ASC") LIMIT \(Int64(max(limit, 0)))
            """
        ).map(Self.storedMessage)
    }

    /// A message by its id.
    public func message(groupID: String, msgID: String) throws -> StoredMessage? {
        guard Self.isStorableKey(groupID), Self.isStorableKey(msgID) else { return nil }
        return try self.connection.query(
            """
            SELECT \(unescaped: Self.messageColumns) FROM group_message
            WHERE group_id = \(groupID) AND msg_id = \(msgID)
            """
        ).first.map(Self.storedMessage)
    }

    /// Removes a message's body.
    public func revokeMessage(groupID: String, seq: Int64, by userID: String?) throws {
        guard Self.isStorableKey(groupID) else { return }
        try self.connection.execute(
            """
            UPDATE group_message SET body = NULL, revoked_by = \(userID ?? "")
            WHERE group_id = \(groupID) AND seq = \(seq)
            """
        )
    }

    /// Deletes at most `limit` group `newMessage` events from before `time`, the oldest first; returns how many.
    public func deleteMessageEvents(before time: Int64, limit: Int) throws -> Int {
        try self.connection.execute(
            """
            DELETE FROM event WHERE seq IN (
                SELECT seq FROM event WHERE time < \(time) AND kind = 'newMessage' AND substr(topic, 1, 6) = 'group:'
                ORDER BY time, seq LIMIT \(EventPruning.clamped(limit: limit))
            )
            """
        )
    }

    /// Deletes at most `limit` messages sent before `time`, the oldest first; returns how many.
    public func deleteMessages(before time: Int64, limit: Int) throws -> Int {
        try self.connection.execute(
            """
            DELETE FROM group_message WHERE (group_id, seq) IN (
                SELECT group_id, seq FROM group_message WHERE time < \(time) ORDER BY time LIMIT \(EventPruning.clamped(limit: limit))
            )
            """
        )
    }

    /// The group's newest message seq (0 before the first, and for a missing group).
    public func lastMessageSeq(groupID: String) throws -> Int64 {
        guard Self.isStorableKey(groupID) else { return 0 }
        return try self.count("SELECT message_seq FROM \"group\" WHERE id = \(groupID)")
    }

    /// A member's read mark; nil for a non-member.
    public func readMark(groupID: String, userID: String) throws -> ReadMark? {
        guard Self.isStorableKey(groupID), Self.isStorableKey(userID) else { return nil }
        return try self.connection.query(
            """
            SELECT \(unescaped: Self.readMarkColumns) WHERE m.group_id = \(groupID) AND m.user_id = \(userID)
            """
        ).first.map(Self.readMark)
    }

    /// The read marks of every group the user is a member of, in join order.
    public func readMarks(userID: String) throws -> [ReadMark] {
        guard Self.isStorableKey(userID) else { return [] }
        return try self.connection.query(
            "SELECT \(unescaped: Self.readMarkColumns) WHERE m.user_id = \(userID) ORDER BY m.id"
        ).map(Self.readMark)
    }

    /// Sets a member's read mark, recounting their own messages after it.
    public func setReadSeq(groupID: String, userID: String, seq: Int64) throws {
        guard Self.isStorableKey(groupID), Self.isStorableKey(userID) else { return }
        try self.connection.execute(
            """
            UPDATE group_read SET read_seq = \(seq), own_unread = (
                SELECT count(*) FROM group_message WHERE group_id = \(groupID) AND seq > \(seq) AND sender = \(userID)
            )
            WHERE membership_id = (SELECT id FROM membership WHERE group_id = \(groupID) AND user_id = \(userID))
            """
        )
    }

    /// Notes the sender's own message `seq`: caught up before sending, the mark moves past it; else it waits as an
    /// own unread one.
    public func noteOwnMessage(groupID: String, userID: String, seq: Int64) throws {
        guard Self.isStorableKey(groupID), Self.isStorableKey(userID) else { return }
        self.connection.send(
            """
            UPDATE group_read SET
                read_seq = CASE WHEN greatest(read_seq, base_seq) + own_unread >= \(seq) - 1
                    THEN \(seq) ELSE read_seq END,
                own_unread = CASE WHEN greatest(read_seq, base_seq) + own_unread >= \(seq) - 1
                    THEN 0 ELSE own_unread + 1 END
            WHERE membership_id = (SELECT id FROM membership WHERE group_id = \(groupID) AND user_id = \(userID))
            """
        )
    }

    /// Notes that message `seq` mentions these members (or all of them).
    public func noteMentions(groupID: String, userIDs: [String], all: Bool, seq: Int64) throws {
        guard Self.isStorableKey(groupID) else { return }
        if all {
            self.connection.send("UPDATE \"group\" SET at_all_seq = \(seq) WHERE id = \(groupID)")
        }
        let userIDs = userIDs.filter(Self.isStorableKey)
        guard !userIDs.isEmpty else { return }
        self.connection.send(
            """
            UPDATE group_read SET mention_seq = \(seq) WHERE membership_id IN (
                SELECT id FROM membership WHERE group_id = \(groupID) AND user_id = ANY(\(userIDs)::text[])
            )
            """
        )
    }

    /// Members who joined after message `seq` was sent.
    public func membersJoined(groupID: String, after seq: Int64) throws -> [String] {
        guard Self.isStorableKey(groupID) else { return [] }
        return try self.connection.query(
            """
            SELECT m.user_id FROM membership m JOIN group_read r ON r.membership_id = m.id
            WHERE m.group_id = \(groupID) AND r.base_seq >= \(seq)
            """
        ).map { try $0.decode(String.self) }
    }
}

extension PostgresMessageRecords {
    private static let messageColumns = "group_id, seq, msg_id, sender, time, priority, body, event_seq"

    private static func storedMessage(_ row: PostgresRow) throws -> StoredMessage {
        let row = row.makeRandomAccess()
        let body = try row[6].decode(ByteBuffer?.self)
        return StoredMessage(
            groupID: try row[0].decode(String.self),
            seq: try row[1].decode(Int64.self),
            msgID: try row[2].decode(String.self),
            sender: try row[3].decode(String.self),
            time: try row[4].decode(Int64.self),
            priority: MessagePriority(rawValue: try row[5].decode(String.self)) ?? .normal,
            body: body.flatMap { try? RPCCoding.decode(MessageBody.self, from: $0.readableBytesView) },
            eventSeq: try row[7].decode(Int64.self)
        )
    }

    /// A read mark's columns: the membership's, its group's and the mark's; the query goes on with its `WHERE`.
    private static let readMarkColumns = """
        m.group_id, g.type, m.receive_option, g.message_seq, g.at_all_seq, r.base_seq, r.read_seq, r.mention_seq,
        r.own_unread
        FROM membership m JOIN "group" g ON g.id = m.group_id JOIN group_read r ON r.membership_id = m.id
        """

    private static func readMark(_ row: PostgresRow) throws -> ReadMark {
        let row = row.makeRandomAccess()
        return ReadMark(
            groupID: try row[0].decode(String.self),
            type: GroupType(rawValue: try row[1].decode(String.self)) ?? .work,
            receiveOption: ReceiveOption(rawValue: try row[2].decode(String.self)) ?? .receive,
            lastSeq: try row[3].decode(Int64.self),
            atAllSeq: try row[4].decode(Int64.self),
            baseSeq: try row[5].decode(Int64.self),
            readSeq: try row[6].decode(Int64.self),
            mentionSeq: try row[7].decode(Int64.self),
            ownUnread: try row[8].decode(Int64.self)
        )
    }
}
