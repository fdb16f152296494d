import GRDB

/// Two tables an area keeps for replay of events addressed to named principals and to the members of groups
/// (objects and things): `<readers>(seq, <principal>)` and `<groups>(seq, groupID)`, both in seq order, so an
/// event's rows go at the end of their table (the replay condition looks them up by the event's seq). A principal replays an
/// event it was named in, or one of a group it was a member of at the time (the groups' `membership_history`).
struct SQLiteEventReaders: Sendable {
    /// The table of named principals, and its principal column.
    var readers: String
    var principal: String
    /// The table of groups.
    var groups: String
    /// The SQL a named principal must equal: `:user`, or a list such as `(:user, :installation)` with `IN`.
    var principalMatch: String = "= :user"

    /// The replay condition over the event row `e`, besides what the area adds.
    var replayCondition: String {
        """
        EXISTS (SELECT 1 FROM \(self.readers) r WHERE r.\(self.principal) \(self.principalMatch) AND r.seq = e.seq)
        OR EXISTS (
            SELECT 1 FROM \(self.groups) g JOIN membership_history h ON h.groupID = g.groupID
            WHERE g.seq = e.seq AND h.userID = :user AND h.fromSeq <= e.seq AND (h.toSeq IS NULL OR h.toSeq >= e.seq))
        """
    }

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

    /// Records the principals and groups of the event appended as `seq`.
    func record(seq: Int64, principals: [String], groups: [String], in db: Database) throws {
        for principal in principals {
            try db.cachedStatement(sql: "INSERT OR IGNORE INTO \(self.readers) (\(self.principal), seq) VALUES (?, ?)").execute(
                arguments: StoredText.arguments([principal, seq])
            )
        }
        for group in groups {
            try db.cachedStatement(sql: "INSERT OR IGNORE INTO \(self.groups) (seq, groupID) VALUES (?, ?)").execute(
                arguments: StoredText.arguments([seq, group])
            )
        }
    }

    /// Drops the rows of events no longer in the log.
    func pruned(in db: Database) throws {
        for table in [self.readers, self.groups] {
            try db.execute(sql: "DELETE FROM \(table) WHERE seq < coalesce((SELECT min(seq) FROM event), seq + 1)")
        }
    }
}
