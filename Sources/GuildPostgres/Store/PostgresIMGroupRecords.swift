import GuildCore
import NIOCore
import PostgresNIO

/// The IM groups area's records (`IMGroupRecords`) in one PostgreSQL transaction: what `tx.imGroups` hands out.
struct PostgresIMGroupRecords: PostgresAreaRecords {
    let tx: PostgresTransaction
}

extension PostgresTransaction {
    /// The IM groups area's records in this transaction.
    public var imGroups: any IMGroupRecords { PostgresIMGroupRecords(tx: self) }
}

/// The IM groups area on PostgreSQL (schema version 4), answering as `GuildStore`'s SQLite version does. Message
/// numbers and attribute versions are taken by one `UPDATE ... RETURNING` each, which PostgreSQL's row lock makes
/// atomic across hosts.
extension PostgresIMGroupRecords: IMGroupRecords {
    /// The type of a dismissed IM group, nil when the id was never dismissed.
    public func dismissedType(_ id: String) throws -> GroupType? {
        guard Self.isStorableKey(id) else { return nil }
        return try self.connection.query("SELECT type FROM dismissed_group WHERE id = \(id)").first.map {
            GroupType(rawValue: try $0.decode(String.self)) ?? .work
        }
    }

    /// Records a dismissed IM group (replacing an older record of the id).
    public func insertTombstone(id: String, type: GroupType, now: Int64) throws {
        try self.connection.execute(
            """
            INSERT INTO dismissed_group (id, type, dismissed_at) VALUES (\(id), \(type.rawValue), \(now))
            ON CONFLICT (id) DO UPDATE SET type = excluded.type, dismissed_at = excluded.dismissed_at
            """
        )
    }

    /// How many groups a user is a member of.
    public func membershipCount(userID: String) throws -> Int {
        guard Self.isStorableKey(userID) else { return 0 }
        return Int(try self.count("SELECT count(*) FROM membership WHERE user_id = \(userID)"))
    }

    /// The owner and admins of a group, in join order.
    public func managerIDs(groupID: String) throws -> [String] {
        guard Self.isStorableKey(groupID) else { return [] }
        return try self.connection.query(
            "SELECT user_id FROM membership WHERE group_id = \(groupID) AND role IN ('owner', 'admin') ORDER BY id"
        ).map { try $0.decode(String.self) }
    }

    /// The longest-standing member other than `excluding`.
    public func longestStandingMember(groupID: String, excluding: String) throws -> String? {
        guard Self.isStorableKey(groupID) else { return nil }
        return try self.connection.query(
            """
            SELECT user_id FROM membership WHERE group_id = \(groupID) AND user_id != \(excluding)
            ORDER BY id LIMIT 1
            """
        ).first?.decode(String.self)
    }

    /// A page of members with their IM details, in join order after `cursor`, only those with `roles`.
    public func memberInfos(
        groupID: String,
        roles: Set<GroupRole>,
        after cursor: Int64,
        limit: Int
    ) throws -> [(cursor: Int64, info: MemberInfo)] {
        guard Self.isStorableKey(groupID) else { return [] }
        let roleNames = roles.map(\.rawValue).sorted()
        return try self.connection.query(
            """
            SELECT \(unescaped: Self.memberInfoColumns)
            WHERE m.group_id = \(groupID) AND m.id > \(cursor) AND m.role = ANY(\(roleNames)::text[])
            ORDER BY m.id LIMIT \(Int64(max(limit, 0)))
            """
        ).map { row in
            let row = row.makeRandomAccess()
            return (cursor: try row[0].decode(Int64.self), info: try Self.memberInfo(from: row))
        }
    }

    /// The IM details of the named users who are members, in join order.
    public func memberInfos(groupID: String, userIDs: [String]) throws -> [MemberInfo] {
        let userIDs = userIDs.filter(Self.isStorableKey)
        guard !userIDs.isEmpty, Self.isStorableKey(groupID) else { return [] }
        return try self.connection.query(
            """
            SELECT \(unescaped: Self.memberInfoColumns)
            WHERE m.group_id = \(groupID) AND m.user_id = ANY(\(userIDs)::text[]) ORDER BY m.id
            """
        ).map { try Self.memberInfo(from: $0.makeRandomAccess()) }
    }

    /// Changes a member's name card, custom fields or receive option (nil leaves one as it is).
    public func updateMember(
        groupID: String,
        userID: String,
        nameCard: String?,
        custom: [String: String]?,
        receiveOption: ReceiveOption?
    ) throws {
        guard Self.isStorableKey(groupID), Self.isStorableKey(userID) else { return }
        try self.connection.execute(
            """
            UPDATE membership SET name_card = coalesce(\(nameCard.map { ByteBuffer(string: $0) })::bytea, name_card),
                custom = coalesce(\(custom.map(Self.text))::text, custom),
                receive_option = coalesce(\(receiveOption?.rawValue)::text, receive_option)
            WHERE group_id = \(groupID) AND user_id = \(userID)
            """
        )
    }

    /// The members whose receive option is `NOT_RECEIVE`.
    public func membersNotReceiving(groupID: String) throws -> [String] {
        guard Self.isStorableKey(groupID) else { return [] }
        return try self.connection.query(
            "SELECT user_id FROM membership WHERE group_id = \(groupID) AND receive_option = 'NOT_RECEIVE'"
        ).map { try $0.decode(String.self) }
    }

    /// Until when a user is muted in a group (0 when not).
    public func muteUntil(groupID: String, userID: String) throws -> Int64 {
        guard Self.isStorableKey(groupID), Self.isStorableKey(userID) else { return 0 }
        return try self.count("SELECT mute_until FROM group_mute WHERE group_id = \(groupID) AND user_id = \(userID)")
    }

    /// Mutes a user until a time; 0 unmutes.
    public func setMute(groupID: String, userID: String, until: Int64) throws {
        if until > 0 {
            try self.connection.execute(
                """
                INSERT INTO group_mute (group_id, user_id, mute_until) VALUES (\(groupID), \(userID), \(until))
                ON CONFLICT (group_id, user_id) DO UPDATE SET mute_until = excluded.mute_until
                """
            )
        } else if Self.isStorableKey(groupID), Self.isStorableKey(userID) {
            try self.connection.execute("DELETE FROM group_mute WHERE group_id = \(groupID) AND user_id = \(userID)")
        }
    }

    /// Records a pending join application; returns it.
    public func insertApplication(
        groupID: String,
        fromUser: String,
        message: String,
        now: Int64
    ) throws
        -> JoinApplication
    {
        let rows = try self.connection.query(
            """
            INSERT INTO application (group_id, from_user, message, status, created_at)
            VALUES (\(groupID), \(fromUser), \(ByteBuffer(string: message)), 'PENDING', \(now)) RETURNING id
            """
        )
        return .pending(id: try rows.first?.decode(Int64.self) ?? 0, groupID: groupID, fromUser: fromUser, message: message, now: now)
    }

    /// An application by id.
    public func application(id: Int64) throws -> JoinApplication? {
        try self.connection.query("SELECT \(unescaped: Self.applicationColumns) FROM application WHERE id = \(id)")
            .first.map(Self.application)
    }

    /// A user's pending application to a group.
    public func pendingApplication(groupID: String, fromUser: String) throws -> JoinApplication? {
        guard Self.isStorableKey(groupID), Self.isStorableKey(fromUser) else { return nil }
        return try self.connection.query(
            """
            SELECT \(unescaped: Self.applicationColumns) FROM application
            WHERE group_id = \(groupID) AND from_user = \(fromUser) AND status = 'PENDING'
            """
        ).first.map(Self.application)
    }

    /// Marks an application accepted or refused.
    public func handleApplication(
        id: Int64,
        status: JoinApplication.Status,
        by handler: String?,
        message: String,
        now: Int64
    ) throws {
        try self.connection.execute(
            """
            UPDATE application SET status = \(status.rawValue), handled_by = \(handler),
                handled_message = \(ByteBuffer(string: message)), handled_at = \(now)
            WHERE id = \(id)
            """
        )
    }

    /// A page of a group's applications (newest first, before `cursor`, 0 for the first page), and how many are
    /// pending.
    public func applications(
        groupID: String,
        before cursor: Int64,
        limit: Int
    ) throws -> (applications: [JoinApplication], pending: Int) {
        guard Self.isStorableKey(groupID) else { return ([], 0) }
        let rows = try self.connection.query(
            """
            SELECT \(unescaped: Self.applicationColumns) FROM application
            WHERE group_id = \(groupID) AND (\(cursor) = 0 OR id < \(cursor))
            ORDER BY id DESC LIMIT \(Int64(max(limit, 0)))
            """
        )
        let pending = try self.count(
            "SELECT count(*) FROM application WHERE group_id = \(groupID) AND status = 'PENDING'"
        )
        return (try rows.map(Self.application), Int(pending))
    }

    /// A group's attributes (none, version 0, for a missing group).
    public func attributes(groupID: String) throws -> GroupAttributes {
        guard Self.isStorableKey(groupID),
            let row = try self.connection.query(
                "SELECT attributes, attributes_version FROM \"group\" WHERE id = \(groupID)"
            ).first
        else { return GroupAttributes(values: [:], version: 0) }
        let (values, version) = try row.decode((String, Int64).self)
        return GroupAttributes(values: Self.stringMap(values), version: version)
    }

    /// Replaces a group's attributes; returns the new version (0 for a missing group).
    public func saveAttributes(groupID: String, values: [String: String]) throws -> Int64 {
        guard Self.isStorableKey(groupID) else { return 0 }
        return try self.count(
            """
            UPDATE "group" SET attributes = \(Self.text(values)), attributes_version = attributes_version + 1
            WHERE id = \(groupID) RETURNING attributes_version
            """
        )
    }

    /// Takes the group's next message sequence number (1, 2, ...; 0 for a missing group).
    public func nextMessageSeq(groupID: String) throws -> Int64 {
        guard Self.isStorableKey(groupID) else { return 0 }
        return try self.count(
            "UPDATE \"group\" SET message_seq = message_seq + 1 WHERE id = \(groupID) RETURNING message_seq"
        )
    }
}

extension PostgresIMGroupRecords {
    /// A member's IM details, read by ``memberInfo(from:)``; the query goes on with its `WHERE`.
    static let memberInfoColumns = """
        m.id, m.user_id, m.role, m.joined_at, m.name_card, u.display_name,
        coalesce((SELECT x.mute_until FROM group_mute x WHERE x.group_id = m.group_id AND x.user_id = m.user_id), 0),
        m.receive_option, m.custom
        FROM membership m JOIN "user" u ON u.id = m.user_id
        """

    static func memberInfo(from row: PostgresRandomAccessRow) throws -> MemberInfo {
        MemberInfo(
            userID: try row[1].decode(String.self),
            role: GroupRole(rawValue: try row[2].decode(String.self)) ?? .member,
            joinedAt: try row[3].decode(Int64.self),
            nameCard: Self.text(try row[4].decode(ByteBuffer.self)),
            nickName: try row[5].decode(ByteBuffer?.self).map(Self.text),
            muteUntil: try row[6].decode(Int64.self),
            receiveOption: ReceiveOption(rawValue: try row[7].decode(String.self)) ?? .receive,
            custom: Self.stringMap(try row[8].decode(String.self))
        )
    }

    static let applicationColumns = """
        id, group_id, from_user, message, status, handled_by, handled_message, created_at, handled_at
        """

    static func application(_ row: PostgresRow) throws -> JoinApplication {
        let row = row.makeRandomAccess()
        return JoinApplication(
            id: try row[0].decode(Int64.self),
            groupID: try row[1].decode(String.self),
            fromUser: try row[2].decode(String.self),
            message: Self.text(try row[3].decode(ByteBuffer.self)),
            status: JoinApplication.Status(rawValue: try row[4].decode(String.self)) ?? .pending,
            handledBy: try row[5].decode(String?.self),
            handledMessage: Self.text(try row[6].decode(ByteBuffer.self)),
            createdAt: try row[7].decode(Int64.self),
            handledAt: try row[8].decode(Int64?.self)
        )
    }
}
