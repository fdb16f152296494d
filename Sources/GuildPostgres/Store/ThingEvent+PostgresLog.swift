import GuildCore
import PostgresNIO

extension ThingEvent: PostgresLoggedEvent {
    /// The principals it names (`thing_event_reader`; `installation:<id>` for each installation a command's
    /// result goes to) and the owner groups it names (`thing_event_group`), as SQLite's store records them.
    public func recordAudience(seq: Int64, on connection: BlockingConnection) throws {
        let principals =
            self.audience.installations.isEmpty
            ? self.audience.principals : self.audience.installations.map { "installation:" + $0 }
        if !principals.isEmpty {
            try connection.execute(
                """
                INSERT INTO thing_event_reader (seq, principal) SELECT \(seq), p FROM unnest(\(principals)::text[]) p
                ON CONFLICT DO NOTHING
                """
            )
        }
        if !self.audience.groups.isEmpty {
            try connection.execute(
                """
                INSERT INTO thing_event_group (seq, group_id)
                SELECT \(seq), g FROM unnest(\(self.audience.groups)::text[]) g
                ON CONFLICT DO NOTHING
                """
            )
        }
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
        """
        (EXISTS (SELECT 1 FROM thing_event_reader r WHERE r.principal IN (\(user), \(installation)) AND r.seq = e.seq)
            OR EXISTS (
                SELECT 1 FROM thing_event_group g JOIN membership_history h ON h.group_id = g.group_id
                WHERE g.seq = e.seq AND h.user_id = \(user) AND h.from_seq <= e.seq
                    AND (h.to_seq IS NULL OR h.to_seq >= e.seq)))
        """
    }

    /// Forgets the audience rows of events no longer in the log.
    public static func pruned(on connection: BlockingConnection) throws {
        for table in ["thing_event_reader", "thing_event_group"] {
            try connection.execute(
                "DELETE FROM \(unescaped: table) WHERE seq < coalesce((SELECT min(seq) FROM event), seq + 1)"
            )
        }
    }
}
