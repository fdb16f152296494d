import GuildCore
import PostgresNIO

extension GroupEvent: PostgresLoggedEvent {
    /// The users it names (`event_subject`), the members it skips (`event_excluded`), and the membership
    /// intervals it opens and closes (`membership_history`), as SQLite's store records them.
    public func recordAudience(seq: Int64, into rows: PostgresAudienceRows) {
        GroupEventAudience().replay.record(self.replayAudience, seq: seq, topic: self.topic, into: rows)
    }
}

/// The groups area's side of the PostgreSQL event log, as `GuildStore`'s `GroupSQLiteEventArea` is SQLite's:
/// replay shows a user the events of groups they belonged to at the time (`membership_history`), events naming
/// them (`event_subject`), never those excluding them (`event_excluded`).
public enum GroupPostgresEventArea {
    /// The condition under which the user bound as `user` (a placeholder such as `$1`) may replay the group
    /// event `e` (a row of `event`).
    public static func replayCondition(user: String) -> String {
        GroupEventAudience().replay.postgresCondition(user: user, installation: "NULL")
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
            DELETE FROM membership_history WHERE to_seq < \(unescaped: ReplayRule.oldestKept)
            """
        )
        try GroupEventAudience().replay.prune(on: connection)
    }
}
