import GuildCore
import PostgresNIO

extension GroupEvent: PostgresLoggedEvent {
    /// The users it names (`event_subject`), the members it skips (`event_excluded`), and the membership
    /// intervals it opens and closes (`membership_history`), as SQLite's store records them.
    public func recordAudience(seq: Int64, on connection: BlockingConnection) throws {
        let named = Array(Set(self.namedRecipients))
        if !named.isEmpty {
            try connection.execute(
                """
                INSERT INTO event_subject (user_id, seq) SELECT u, \(seq) FROM unnest(\(named)::text[]) u
                ON CONFLICT DO NOTHING
                """
            )
        }
        let excluded = Array(Set(self.excluded))
        if !excluded.isEmpty {
            try connection.execute(
                "INSERT INTO event_excluded (seq, user_id) SELECT \(seq), u FROM unnest(\(excluded)::text[]) u"
            )
        }
        if !self.joined.isEmpty {
            try connection.execute(
                """
                INSERT INTO membership_history (group_id, user_id, from_seq, to_seq)
                SELECT \(self.groupID), u, \(seq), NULL FROM unnest(\(self.joined)::text[]) WITH ORDINALITY AS j (u, n)
                ORDER BY n
                """
            )
        }
        if !self.left.isEmpty {
            try connection.execute(
                """
                UPDATE membership_history SET to_seq = \(seq)
                WHERE group_id = \(self.groupID) AND user_id = ANY(\(self.left)::text[]) AND to_seq IS NULL
                """
            )
        }
    }
}

/// The groups area's side of the PostgreSQL event log, as `GuildStore`'s `GroupSQLiteEventArea` is SQLite's:
/// replay shows a user the events of groups they belonged to at the time (`membership_history`), events naming
/// them (`event_subject`), never those excluding them (`event_excluded`).
public enum GroupPostgresEventArea {
    /// The condition under which the user bound as `user` (a placeholder such as `$1`) may replay the group
    /// event `e` (a row of `event`).
    public static func replayCondition(user: String) -> String {
        """
        (EXISTS (SELECT 1 FROM event_subject s WHERE s.user_id = \(user) AND s.seq = e.seq)
            OR (e.audience = 'members' AND EXISTS (
                SELECT 1 FROM membership_history h
                WHERE h.user_id = \(user) AND h.group_id = substr(e.topic, 7) AND h.from_seq <= e.seq
                  AND (h.to_seq IS NULL OR h.to_seq >= e.seq))))
        AND NOT EXISTS (SELECT 1 FROM event_excluded x WHERE x.seq = e.seq AND x.user_id = \(user))
        """
    }

    /// The group topics a user follows now: their groups'.
    public static func following(userID: String, on connection: BlockingConnection) throws -> [EventTopic] {
        guard PostgresTransaction.isStorableKey(userID) else { return [] }
        return try connection.query("SELECT group_id FROM membership WHERE user_id = \(userID)")
            .map { EventTopic.group(try $0.decode(String.self)) }
    }

    /// Forgets the membership intervals that closed before the oldest event still in the log, and the audience
    /// rows of events no longer in it.
    public static func pruned(on connection: BlockingConnection) throws {
        try connection.execute(
            """
            DELETE FROM membership_history
            WHERE to_seq IS NOT NULL AND to_seq < coalesce((SELECT min(seq) FROM event), to_seq + 1)
            """
        )
        try connection.execute("DELETE FROM event_subject WHERE seq < coalesce((SELECT min(seq) FROM event), 0)")
        try connection.execute("DELETE FROM event_excluded WHERE seq < coalesce((SELECT min(seq) FROM event), 0)")
    }
}
