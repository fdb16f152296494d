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
