import GRDB

/// The groups area in SQLite: `group`, `membership`, and `membership_history`, `event_subject` and
/// `event_excluded`, which say who may replay a group's events (``GroupSQLiteEventArea``).
struct GroupsStoreArea: SQLiteStoreArea {
    func registerMigrations(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("groups-1: closed membership intervals by their end") { db in
            // Pruning the event log forgets the intervals that closed before its oldest event: with this index a
            // range, without it a scan of every interval ever kept, once per pruning batch.
            try db.execute(sql: "CREATE INDEX membership_history_closed ON membership_history(toSeq) WHERE toSeq IS NOT NULL")
        }
    }

    var eventArea: (any SQLiteEventArea)? { GroupSQLiteEventArea() }
}
