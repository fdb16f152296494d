/// One feature area's part of the PostgreSQL store, as `GuildStore.SQLiteStoreArea` is SQLite's: its schema's
/// migrations and the store side of its events (who may replay them). Its records are a type of its own over
/// ``PostgresTransaction`` (`Postgres<Area>Records`), which the transaction hands out. The area is listed once,
/// in ``PostgresStore/areas``, from which the migrations to run and the event areas to replay are read.
protocol PostgresStoreArea: SendableMetatype {
    /// The area's migrations, in its block of versions (``PostgresMigration/version``), oldest first.
    static var migrations: [PostgresMigration] { get }
    /// The area's side of the event log, when its events are in the log.
    static var eventArea: (any PostgresEventArea.Type)? { get }
}

extension PostgresStoreArea {
    static var eventArea: (any PostgresEventArea.Type)? { nil }
}

/// The event log and the users area: versions 1 and 2 (users' events are not in the log).
enum UsersPostgresArea: PostgresStoreArea {
    static var migrations: [PostgresMigration] { PostgresMigration.eventLogAndUsers }
}

/// Kii groups, IM groups and their messages: versions 3-9.
enum GroupsPostgresArea: PostgresStoreArea {
    static var migrations: [PostgresMigration] { PostgresMigration.groups }
    static var eventArea: (any PostgresEventArea.Type)? { GroupPostgresEventArea.self }
}

/// Buckets, objects and ACLs: versions 10-19.
enum ObjectsPostgresArea: PostgresStoreArea {
    static var migrations: [PostgresMigration] { PostgresMigration.objects }
    static var eventArea: (any PostgresEventArea.Type)? { ObjectPostgresEventArea.self }
}

/// Things, commands, states, triggers and installations: versions 20-29.
enum ThingsPostgresArea: PostgresStoreArea {
    static var migrations: [PostgresMigration] { PostgresMigration.things }
    static var eventArea: (any PostgresEventArea.Type)? { ThingPostgresEventArea.self }
}

/// Storage usage per owner and area: versions 30-39.
enum StoragePostgresArea: PostgresStoreArea {
    static var migrations: [PostgresMigration] { PostgresMigration.storage }
}
