import GuildCore
import PostgresNIO

extension ThingEvent: PostgresLoggedEvent {
    /// The principals it names (`thing_event_reader`; `installation:<id>` for each installation a command's
    /// result goes to) and the owner groups it names (`thing_event_group`), as SQLite's store records them.
    public func recordAudience(seq: Int64, into rows: PostgresAudienceRows) {
        ThingEventAudience().replay.record(self.replayAudience, seq: seq, topic: self.topic, into: rows)
    }
}

/// The things area's side of the PostgreSQL event log, as `GuildStore`'s `ThingSQLiteEventArea` is SQLite's:
/// replay shows a thing event to the principals it named (users, the thing itself; `installation:<id>` for a
/// command's result, matched against the subscription's installation) and to the members, at the time, of the
/// owner groups it named (`membership_history`). Thing events are addressed, never followed.
public enum ThingPostgresEventArea {
    /// The condition under which the user bound as `user` (a placeholder such as `$1`), subscribed through the
    /// installation bound as `installation` (`installation:<id>`, or NULL), may replay the thing event `e`.
    public static func replayCondition(user: String, installation: String) -> String {
        ThingEventAudience().replay.postgresCondition(user: user, installation: installation)
    }

    /// Forgets the audience rows of events no longer in the log.
    public static func pruned(on connection: BlockingConnection) throws {
        try ThingEventAudience().replay.prune(on: connection)
    }
}
