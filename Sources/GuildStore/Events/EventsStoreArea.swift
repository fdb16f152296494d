import GRDB

/// The event log in SQLite: the `event` table (topic-generic since v7), appended to by
/// `Database+EventLog.swift` and replayed by `SQLiteStore+Events.swift` with each area's rule.
struct EventsStoreArea: SQLiteStoreArea {
    func registerMigrations(in migrator: inout DatabaseMigrator) {
        Self.registerTopicMigration(&migrator)
    }
}
