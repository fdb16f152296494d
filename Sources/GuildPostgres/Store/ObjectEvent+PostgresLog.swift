import GuildCore
import PostgresNIO

extension ObjectEvent: PostgresLoggedEvent {
    /// The users and groups who could read what the event is about (`object_event_reader`,
    /// `object_event_group`), as SQLite's store records them: none when everyone could.
    public func recordAudience(seq: Int64, into rows: PostgresAudienceRows) {
        ObjectEventAudience().replay.record(self.replayAudience, seq: seq, topic: self.topic, into: rows)
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
        ObjectEventAudience().replay.postgresCondition(user: user, installation: "NULL")
    }

    /// Nobody follows a bucket: subscriptions name the buckets they watch.
    public static func following(userID: String, on connection: BlockingConnection) throws -> [EventTopic] { [] }

    /// Drops the audience rows of events no longer in the log.
    public static func pruned(on connection: BlockingConnection) throws {
        try ObjectEventAudience().replay.prune(on: connection)
    }
}
