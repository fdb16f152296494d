import GuildCore
import GuildJSON
import NIOCore
import PostgresNIO

/// The groups area's records (`GroupRecords`) in one PostgreSQL transaction: what `tx.groups` hands out.
struct PostgresGroupRecords: PostgresAreaRecords {
    let tx: PostgresTransaction
}

extension PostgresTransaction {
    /// The groups area's records in this transaction.
    public var groups: any GroupRecords { PostgresGroupRecords(tx: self) }
}

/// The groups area on PostgreSQL (schema version 3), answering as `GuildStore`'s SQLite version does.
///
/// Several hosts may write at once, each through its own ``PostgresWriter``, where SQLite has a single writer. Every
/// group operation reads its group first (`group(_:)`, `groupOwnership(_:)`), and in a write transaction that read
/// locks the group's row (`FOR NO KEY UPDATE`) until the transaction ends: the checks an operation makes on what it
/// read (the member limit against the member count, the one owner) hold when it writes, as under SQLite's single
/// writer, while a read-only transaction never waits. The statements that add, remove or re-role a member keep
/// `member_count`, `owner_id` and the member's read mark in step, where SQLite uses triggers.
///
/// Free text (the name, ...) is stored as its UTF-8 bytes, since PostgreSQL's text cannot hold U+0000; a key
/// holding a NUL names no row, since no stored key can hold one.
extension PostgresGroupRecords: GroupRecords {
    /// A group by id; in a write transaction its row stays locked until the transaction ends.
    public func group(_ id: String) throws -> Group? {
        guard Self.isStorableKey(id) else { return nil }
        return try self.connection.query(self.groupQuery(id)).first.map { try Self.group(from: $0.makeRandomAccess()) }
    }

    /// The statement ``group(_:)`` runs: the group's row, locked in a write transaction.
    private func groupQuery(_ id: String) -> PostgresQuery {
        "SELECT \(unescaped: Self.groupColumns) FROM \"group\" g WHERE g.id = \(id) \(unescaped: self.rowLock)"
    }

    /// Whether the group exists, and its owner; in a write transaction its row stays locked until the end.
    public func groupOwnership(_ id: String) throws -> GroupOwnership? {
        guard Self.isStorableKey(id) else { return nil }
        let rows = try self.connection.query(
            "SELECT owner_id FROM \"group\" WHERE id = \(id) \(unescaped: self.rowLock)"
        )
        return try rows.first.map { GroupOwnership(ownerID: try $0.decode(String?.self)) }
    }

    /// A user's membership of a group.
    public func membership(groupID: String, userID: String) throws -> Membership? {
        guard Self.isStorableKey(groupID), Self.isStorableKey(userID) else { return nil }
        let rows = try self.connection.query(
            """
            SELECT \(unescaped: Self.membershipColumns) FROM membership
            WHERE group_id = \(groupID) AND user_id = \(userID)
            """
        )
        return try rows.first.map(Self.membership)
    }

    /// The group and the user's membership, the group's row locked as ``group(_:)`` locks it. In a write, two
    /// statements sent together, so the thread waits once: the lock, then the membership. In PostgreSQL's READ
    /// COMMITTED a statement that waits for a row lock sees the newest version of that row but every other row as
    /// of the moment it began, so one statement that locked the group and joined the membership read the caller's
    /// standing as it was before the transaction it waited for (another host's, which may have just removed or
    /// demoted the caller); the membership's own statement begins after the lock is held. A read-only transaction
    /// locks nothing and sees one snapshot: one statement.
    public func groupAndMembership(_ id: String, userID: String?) throws -> (group: Group, membership: Membership?)? {
        guard Self.isStorableKey(id) else { return nil }
        let member = userID.flatMap { Self.isStorableKey($0) ? $0 : nil }
        guard self.isWriteTransaction else {
            let rows = try self.connection.query(
                """
                SELECT \(unescaped: Self.groupColumns), m.id, m.group_id, m.user_id, m.role, m.joined_at
                FROM "group" g LEFT JOIN membership m ON m.group_id = g.id AND m.user_id = \(member)
                WHERE g.id = \(id)
                """
            )
            guard let row = rows.first?.makeRandomAccess() else { return nil }
            return (try Self.group(from: row), try Self.joinedMembership(row, from: Self.groupColumnCount))
        }
        guard let member else { return try self.group(id).map { ($0, nil) } }
        let locked = self.connection.send(self.groupQuery(id))
        let membership = try self.connection.query(
            "SELECT \(unescaped: Self.membershipColumns) FROM membership WHERE group_id = \(id) AND user_id = \(member)"
        )
        guard let row = try self.connection.rows(of: locked).first?.makeRandomAccess() else { return nil }
        return (try Self.group(from: row), try membership.first.map(Self.membership))
    }

    /// Whether a user exists.
    public func userExists(_ id: String) throws -> Bool {
        guard Self.isStorableKey(id) else { return false }
        return try !self.connection.query("SELECT 1 FROM \"user\" WHERE id = \(id)").isEmpty
    }

    /// The user's membership and existence in one statement.
    public func invitee(groupID: String, userID: String) throws -> (membership: Membership?, exists: Bool) {
        guard Self.isStorableKey(groupID), Self.isStorableKey(userID) else { return (nil, false) }
        let rows = try self.connection.query(
            """
            SELECT EXISTS (SELECT 1 FROM "user" WHERE id = \(userID)), m.id, m.group_id, m.user_id, m.role, m.joined_at
            FROM (SELECT 1) one LEFT JOIN membership m ON m.group_id = \(groupID) AND m.user_id = \(userID)
            """
        )
        guard let row = rows.first?.makeRandomAccess() else { throw PostgresStoreError.unexpectedReply("no row for an invitee") }
        return (try Self.joinedMembership(row, from: 1), try row[0].decode(Bool.self))
    }

    /// All members of a group, in join order.
    public func memberIDs(groupID: String) throws -> [String] {
        guard Self.isStorableKey(groupID) else { return [] }
        return try self.connection.query("SELECT user_id FROM membership WHERE group_id = \(groupID) ORDER BY id")
            .map { try $0.decode(String.self) }
    }

    /// A page of members in join order after `cursor`.
    public func memberPage(groupID: String, after cursor: Int64, limit: Int) throws -> [Membership] {
        guard Self.isStorableKey(groupID) else { return [] }
        return try self.connection.query(
            """
            SELECT \(unescaped: Self.membershipColumns) FROM membership
            WHERE group_id = \(groupID) AND id > \(cursor) ORDER BY id LIMIT \(Int64(max(limit, 0)))
            """
        ).map(Self.membership)
    }

    /// All memberships of a user, in join order.
    public func memberships(userID: String) throws -> [Membership] {
        guard Self.isStorableKey(userID) else { return [] }
        return try self.connection.query(
            "SELECT \(unescaped: Self.membershipColumns) FROM membership WHERE user_id = \(userID) ORDER BY id"
        ).map(Self.membership)
    }

    /// Creates a group; `groupAlreadyExists` when the id is taken.
    public func insertGroup(id: String, name: String, type: GroupType, now: Int64) throws {
        self.changed(Self.groupKey(id))
        do {
            try self.connection.execute(
                """
                INSERT INTO "group" (id, name, type, member_count, created_at, modified_at)
                VALUES (\(id), \(ByteBuffer(string: name)), \(type.rawValue), 0, \(now), \(now))
                """
            )
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" {
            throw GuildError(.groupAlreadyExists, "a group with id \(id) already exists", field: "groupID")
        }
    }

    /// Adds a member with a role, with its read mark at the group's newest message; counts it, and makes the group's
    /// owner an owner's user. Sent without waiting (nothing reads its answer; see ``PostgresWriterLane``).
    public func insertMember(groupID: String, userID: String, role: GroupRole, now: Int64) throws {
        self.changed(Self.groupKey(groupID))
        self.connection.send(
            """
            WITH m AS (
                INSERT INTO membership (group_id, user_id, role, joined_at)
                VALUES (\(groupID), \(userID), \(role.rawValue), \(now)) RETURNING id
            ), r AS (
                INSERT INTO group_read (membership_id, base_seq, read_seq)
                SELECT m.id, g.message_seq, g.message_seq FROM m, "group" g WHERE g.id = \(groupID)
            )
            UPDATE "group" SET member_count = member_count + 1,
                owner_id = CASE WHEN \(role == .owner) THEN \(userID) ELSE owner_id END
            WHERE id = \(groupID)
            """
        )
    }

    /// Changes a member's role, and the group's owner with it.
    public func setRole(groupID: String, userID: String, role: GroupRole) throws {
        self.changed(Self.groupKey(groupID))
        guard Self.isStorableKey(groupID), Self.isStorableKey(userID) else { return }
        let changed = try self.connection.execute(
            "UPDATE membership SET role = \(role.rawValue) WHERE group_id = \(groupID) AND user_id = \(userID)"
        )
        guard changed > 0 else { return }
        try self.connection.execute(
            """
            UPDATE "group" SET owner_id = (
                SELECT m.user_id FROM membership m WHERE m.group_id = \(groupID) AND m.role = 'owner'
            ) WHERE id = \(groupID)
            """
        )
    }

    /// Removes a member (its read mark goes with it), uncounts it, and clears the owner when it was the owner.
    public func deleteMember(groupID: String, userID: String) throws {
        self.changed(Self.groupKey(groupID))
        guard Self.isStorableKey(groupID), Self.isStorableKey(userID) else { return }
        self.connection.send(
            """
            WITH d AS (
                DELETE FROM membership WHERE group_id = \(groupID) AND user_id = \(userID) RETURNING role
            )
            UPDATE "group" SET member_count = member_count - 1,
                owner_id = CASE WHEN (SELECT role FROM d) = 'owner' THEN NULL ELSE owner_id END
            WHERE id = \(groupID) AND EXISTS (SELECT 1 FROM d)
            """
        )
    }

    /// Marks a group changed (owner change).
    public func touchGroup(id: String, now: Int64) throws {
        self.changed(Self.groupKey(id))
        guard Self.isStorableKey(id) else { return }
        try self.connection.execute("UPDATE \"group\" SET modified_at = \(now) WHERE id = \(id)")
    }

    /// Deletes a group; its memberships, read marks, mutes, applications and messages go with it.
    public func deleteGroup(id: String) throws {
        self.changed(Self.groupKey(id))
        guard Self.isStorableKey(id) else { return }
        try self.connection.execute("DELETE FROM \"group\" WHERE id = \(id)")
    }

    /// Writes the profile fields of `group` and its modification time.
    public func saveProfile(_ group: Group) throws {
        self.changed(Self.groupKey(group.id))
        guard Self.isStorableKey(group.id) else { return }
        try self.connection.execute(
            """
            UPDATE "group" SET name = \(ByteBuffer(string: group.name)),
                introduction = \(ByteBuffer(string: group.introduction)),
                notification = \(ByteBuffer(string: group.notification)),
                face_url = \(ByteBuffer(string: group.faceURL)),
                add_option = \(group.addOption.rawValue), all_muted = \(group.allMuted),
                custom = \(Self.text(group.custom)), modified_at = \(group.modifiedAt)
            WHERE id = \(group.id)
            """
        )
    }

    /// The groups a user is a member of, in join order.
    public func groups(memberOf userID: String) throws -> [Group] {
        try self.groups(of: userID, ownedOnly: false)
    }

    /// The groups a user owns, in join order.
    public func groups(ownedBy userID: String) throws -> [Group] {
        try self.groups(of: userID, ownedOnly: true)
    }

    /// The ids of the groups a user is a member of (or owns, with `ownedOnly`), in join order.
    public func groupIDs(of userID: String, ownedOnly: Bool) throws -> [String] {
        guard Self.isStorableKey(userID) else { return [] }
        return try self.connection.query(
            """
            SELECT group_id FROM membership WHERE user_id = \(userID) AND (NOT \(ownedOnly) OR role = 'owner')
            ORDER BY id
            """
        ).map { try $0.decode(String.self) }
    }

    /// Checks the group invariants (SQLite's, but its foreign key check: PostgreSQL enforces foreign keys always).
    public func groupInvariantViolations() throws -> [String] {
        var violations: [String] = []
        for row in try self.connection.query(
            """
            SELECT g.id FROM "group" g WHERE g.owner_id IS DISTINCT FROM
                (SELECT m.user_id FROM membership m WHERE m.group_id = g.id AND m.role = 'owner')
            """
        ) {
            let groupID = try row.decode(String.self)
            violations.append("group \(groupID)'s owner column disagrees with its owner's membership")
        }
        for row in try self.connection.query(
            "SELECT group_id, count(*) FROM membership WHERE role = 'owner' GROUP BY group_id HAVING count(*) > 1"
        ) {
            let (groupID, owners) = try row.decode((String, Int64).self)
            violations.append("group \(groupID) has \(owners) owners")
        }
        for row in try self.connection.query(
            """
            SELECT g.id, g.member_count, a.actual FROM "group" g,
                LATERAL (SELECT count(*) AS actual FROM membership m WHERE m.group_id = g.id) a
            WHERE g.member_count != a.actual
            """
        ) {
            let (groupID, counted, actual) = try row.decode((String, Int64, Int64).self)
            violations.append("group \(groupID) counts \(counted) members but has \(actual)")
        }
        let unopened = try self.count(
            """
            SELECT count(*) FROM membership m WHERE (
                SELECT count(*) FROM membership_history h
                WHERE h.group_id = m.group_id AND h.user_id = m.user_id AND h.to_seq IS NULL
            ) != 1
            """
        )
        if unopened > 0 { violations.append("\(unopened) memberships lack exactly one open history interval") }
        let dangling = try self.count(
            """
            SELECT count(*) FROM membership_history h WHERE h.to_seq IS NULL AND NOT EXISTS (
                SELECT 1 FROM membership m WHERE m.group_id = h.group_id AND m.user_id = h.user_id
            )
            """
        )
        if dangling > 0 { violations.append("\(dangling) open history intervals have no membership") }
        return violations
    }
}

extension PostgresGroupRecords {
    /// The columns ``group(from:)`` reads, in its order, of `"group" g`.
    static let groupColumns = """
        g.id, g.name, g.type, g.member_count, g.created_at, g.modified_at, g.owner_id,
        g.introduction, g.notification, g.face_url, g.add_option, g.all_muted, g.custom
        """

    /// How many columns ``groupColumns`` names.
    static let groupColumnCount = 13

    /// The columns ``membership(_:)`` reads, in its order.
    static let membershipColumns = "id, group_id, user_id, role, joined_at"

    /// The record a change to group `id` names (SQLite's `changedGroup`).
    static func groupKey(_ id: String) -> RecordKey {
        RecordKey(area: GroupEventAudience.groupArea, id: id)
    }

    /// Reads a row of ``groupColumns``.
    static func group(from row: PostgresRandomAccessRow) throws -> Group {
        var group = Group(
            id: try row[0].decode(String.self),
            name: Self.text(try row[1].decode(ByteBuffer.self)),
            type: GroupType(rawValue: try row[2].decode(String.self)) ?? .basic,
            ownerID: try row[6].decode(String?.self),
            memberCount: Int(try row[3].decode(Int64.self)),
            createdAt: try row[4].decode(Int64.self),
            modifiedAt: try row[5].decode(Int64.self)
        )
        group.introduction = Self.text(try row[7].decode(ByteBuffer.self))
        group.notification = Self.text(try row[8].decode(ByteBuffer.self))
        group.faceURL = Self.text(try row[9].decode(ByteBuffer.self))
        group.addOption = AddOption(rawValue: try row[10].decode(String.self)) ?? .forbid
        group.allMuted = try row[11].decode(Bool.self)
        group.custom = Self.stringMap(try row[12].decode(String.self))
        return group
    }

    /// Reads a membership `LEFT JOIN`ed into a row: ``membershipColumns`` from column `first` on, nil when the
    /// join found none.
    static func joinedMembership(_ row: PostgresRandomAccessRow, from first: Int) throws -> Membership? {
        guard let joinSeq = try row[first].decode(Int64?.self) else { return nil }
        return Membership(
            groupID: try row[first + 1].decode(String.self),
            userID: try row[first + 2].decode(String.self),
            role: GroupRole(rawValue: try row[first + 3].decode(String.self)) ?? .member,
            joinedAt: try row[first + 4].decode(Int64.self),
            joinSeq: joinSeq
        )
    }

    /// Reads a row of ``membershipColumns``.
    static func membership(_ row: PostgresRow) throws -> Membership {
        let (id, groupID, userID, role, joinedAt) = try row.decode((Int64, String, String, String, Int64).self)
        return Membership(
            groupID: groupID,
            userID: userID,
            role: GroupRole(rawValue: role) ?? .member,
            joinedAt: joinedAt,
            joinSeq: id
        )
    }

    private func groups(of userID: String, ownedOnly: Bool) throws -> [Group] {
        guard Self.isStorableKey(userID) else { return [] }
        return try self.connection.query(
            """
            SELECT \(unescaped: Self.groupColumns) FROM membership m JOIN "group" g ON g.id = m.group_id
            WHERE m.user_id = \(userID) AND (NOT \(ownedOnly) OR m.role = 'owner') ORDER BY m.id
            """
        ).map { try Self.group(from: $0.makeRandomAccess()) }
    }
}
