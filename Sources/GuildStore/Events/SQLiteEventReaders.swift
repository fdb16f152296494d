import GRDB

/// The tables an area keeps for replay of events addressed to named principals and to the members of groups
/// (objects and things): `<readers>(seq, <principal>)` and `<groups>(seq, groupID)`, both in seq order, so an
/// event's rows go at the end of their table (the replay condition looks them up by the event's seq). What
/// they admit is the area's `ReplayRule` (`ReplayRule+SQLite.swift`).
enum SQLiteEventReaders {
    /// The migration that puts a readers table made as `(<principal>, seq)` in seq order. Keyed by principal,
    /// each event wrote into the page of each principal it named: a random page of that index in every write's
    /// commit (about half the WAL pages of a batch of `thing.putState`); keyed by seq, the rows of a batch of
    /// events share the last page or two.
    static func seqOrderMigration(readers: String, principal: String) -> String {
        """
        CREATE TABLE \(readers)_by_seq (
            seq INTEGER NOT NULL,
            \(principal) TEXT NOT NULL,
            PRIMARY KEY (seq, \(principal))
        ) WITHOUT ROWID;
        INSERT INTO \(readers)_by_seq (seq, \(principal)) SELECT seq, \(principal) FROM \(readers);
        DROP TABLE \(readers);
        ALTER TABLE \(readers)_by_seq RENAME TO \(readers);
        """
    }

    /// The oldest seq the log still holds, or one past every seq when it is empty (no later event can have a
    /// smaller one), as SQL. It is a constant for the statement, so `seq < \(oldestKept)` walks an index on seq
    /// from its start: a fallback that depended on the row (`coalesce(..., seq + 1)`) made every delete a scan of
    /// the whole table, once per pruning batch (the two-hour soak's p99 from its fiftieth minute, 2026-11-29).
    static let oldestKept = "coalesce((SELECT min(seq) FROM event), 9223372036854775807)"

    /// Forgets the rows of `tables` whose events are no longer in the log (these tables do not cascade).
    static func prune(_ tables: [String], in db: Database) throws {
        for table in tables {
            try db.execute(sql: "DELETE FROM \(table) WHERE seq < \(Self.oldestKept)")
        }
    }
}
