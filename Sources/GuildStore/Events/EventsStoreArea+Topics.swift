import GRDB

extension EventsStoreArea {
    /// v7: the event log becomes topic-generic. `event.groupID` gives way to `topic` (`group:<groupID>` for
    /// every existing event); `audience` keeps the word the event's area reads back (no longer checked here).
    ///
    /// SQLite cannot drop a column that other tables reference nor change a NOT NULL column in place, so the
    /// table is rebuilt: GRDB runs migrations with foreign keys off and checks them afterwards, so dropping the
    /// old table cascades nothing, and `event_subject` and `event_excluded` refer to the new table by name once
    /// it is renamed. The AUTOINCREMENT counter is carried over, so no sequence number is ever reused.
    static func registerTopicMigration(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v7: a topic on every event instead of a group") { db in
            let counter = try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'event'")
            try db.execute(
                sql: """
                    CREATE TABLE event_v7 (
                        seq INTEGER PRIMARY KEY AUTOINCREMENT,
                        topic TEXT NOT NULL,
                        kind TEXT NOT NULL,
                        audience TEXT NOT NULL,
                        body BLOB NOT NULL,
                        time INTEGER NOT NULL
                    );
                    INSERT INTO event_v7 (seq, topic, kind, audience, body, time)
                        SELECT seq, 'group:' || groupID, kind, audience, body, time FROM event ORDER BY seq;
                    DROP TABLE event;
                    ALTER TABLE event_v7 RENAME TO event;
                    CREATE INDEX event_time ON event(time);
                    DELETE FROM sqlite_sequence WHERE name IN ('event', 'event_v7');
                    """
            )
            if let counter {
                try db.execute(sql: "INSERT INTO sqlite_sequence (name, seq) VALUES ('event', ?)", arguments: [counter])
            }
        }
    }
}
