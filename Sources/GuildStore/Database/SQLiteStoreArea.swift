import GRDB

/// One feature area's part of the SQLite store: its schema changes, and the store side of its events (who
/// may replay them). Its records and queries are a type of its own over ``SQLiteTransaction`` in the area's
/// folder (`Sources/GuildStore/<Area>/SQLite<Area>Records.swift`), which the transaction hands out; the area
/// is listed once, in ``SQLiteStore/areas``.
public protocol SQLiteStoreArea: Sendable {
    /// Registers the area's migrations, oldest first (see ``Migrations`` for those that predate areas).
    func registerMigrations(in migrator: inout DatabaseMigrator)
    /// The area's side of the event log, when its events are in the log.
    var eventArea: (any SQLiteEventArea)? { get }
}

extension SQLiteStoreArea {
    public func registerMigrations(in migrator: inout DatabaseMigrator) {}
    public var eventArea: (any SQLiteEventArea)? { nil }
}
