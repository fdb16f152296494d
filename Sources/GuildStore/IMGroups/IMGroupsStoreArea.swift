import GRDB

/// The IM groups area in SQLite: group profiles, mutes, join applications, attributes and dismissed ids
/// (v4 to v6, in ``Migrations``), and group messages with members' read marks (its own migrations), read and
/// written through `SQLiteIMGroupRecords` and `SQLiteMessageRecords`.
struct IMGroupsStoreArea: SQLiteStoreArea {
    func registerMigrations(in migrator: inout DatabaseMigrator) {
        Self.registerMessageMigration(&migrator)
    }
}
