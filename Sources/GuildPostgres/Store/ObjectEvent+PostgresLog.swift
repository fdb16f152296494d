import GuildCore
import PostgresNIO

extension ObjectEvent: PostgresLoggedEvent {
    /// The users and groups who could read what the event is about (`object_event_reader`,
    /// `object_event_group`), as SQLite's store records them: none when everyone could.
    public func recordAudience(seq: Int64, on connection: BlockingConnection) throws {
        guard !self.readers.everyone else { return }
        // PostgreSQL text cannot hold U+0000; no user or group id holds one, so no one could replay as such.
        let users = Array(Set(self.readers.users.filter(PostgresTransaction.isStorableKey)))
        if !users.isEmpty {
            try connection.execute(
                """
                INSERT INTO object_event_reader (seq, user_id) SELECT \(seq), u FROM unnest(\(users)::text[]) u
                ON CONFLICT DO NOTHING
                """
            )
        }
        let groups = Array(Set(self.readers.groups.filter(PostgresTransaction.isStorableKey)))
        if !groups.isEmpty {
            try connection.execute(
                """
                INSERT INTO object_event_group (seq, group_id) SELECT \(seq), g FROM unnest(\(groups)::text[]) g
                ON CONFLICT DO NOTHING
                """
            )
        }
    }
}

/// The objects area's side of the PostgreSQL event log, as `GuildStore`'s `ObjectSQLiteEventArea` is SQLite's:
/// replay shows a user an object event when they could read what it is about at the time: everyone could, they
/// were named (`object_event_reader`), or they were then a member of a group that could (`object_event_group`
/// and the groups' `membership_history`).
public enum ObjectPostgresEventArea {
    /// The condition under which the user bound as `user` (a placeholder such as `$1`) may replay the object
    /// event `e` (a row of `event`).
    public static func replayCondition(user: String) -> String {
        """
        e.audience = 'everyone'
        OR EXISTS (SELECT 1 FROM object_event_reader r WHERE r.user_id = \(user) AND r.seq = e.seq)
        OR EXISTS (
            SELECT 1 FROM object_event_group g JOIN membership_history h ON h.group_id = g.group_id
            WHERE g.seq = e.seq AND h.user_id = \(user) AND h.from_seq <= e.seq
                AND (h.to_seq IS NULL OR h.to_seq >= e.seq))
        """
    }

    /// Nobody follows a bucket: subscriptions name the buckets they watch.
    public static func following(userID: String, on connection: BlockingConnection) throws -> [EventTopic] { [] }

    /// Drops the audience rows of events no longer in the log.
    public static func pruned(on connection: BlockingConnection) throws {
        for table in ["object_event_reader", "object_event_group"] {
            try connection.execute(
                PostgresQuery(
                    unsafeSQL: "DELETE FROM \(table) WHERE seq < coalesce((SELECT min(seq) FROM event), seq + 1)"
                )
            )
        }
    }
}
