import PostgresNIO

/// Brings a database's schema up to this build's version at start, under an advisory lock so that hosts
/// starting together migrate once, one after the other: the second finds the work done.
///
/// A database migrated by a newer guildd is refused (``PostgresStoreError/newerSchema(found:known:)``): this
/// build would not know its tables' rules.
public enum PostgresMigrator {
    /// The advisory lock key every guildd takes while it migrates ("Guild" in ASCII).
    static let lockKey: Int64 = 0x4775_696C_64

    /// The newest schema version this build knows.
    public static var knownVersion: Int { PostgresMigration.all.map(\.version).max() ?? 0 }

    /// Every schema version this build knows.
    public static var knownVersions: Set<Int> { Set(PostgresMigration.all.map(\.version)) }

    /// Applies the migrations the database lacks; returns its newest version before and after.
    @discardableResult
    public static func migrate(_ connection: BlockingConnection) throws -> (from: Int, to: Int) {
        try self.migrate(connection, migrations: PostgresMigration.all)
    }

    /// Applies, in `migrations`' order, each one whose version the database has not recorded: an area's later
    /// migration may carry a lower version than another area's applied one (versions are blocks per area), so
    /// what was applied is a set, not a high-water mark. A recorded version this build does not know means a
    /// newer guildd migrated the database.
    static func migrate(_ connection: BlockingConnection, migrations: [PostgresMigration]) throws -> (from: Int, to: Int) {
        do {
            try connection.execute("SELECT pg_advisory_lock(\(Self.lockKey))")
            defer { _ = try? connection.execute("SELECT pg_advisory_unlock(\(Self.lockKey))") }
            // Created only when missing: a host whose role may read and write the data but not create tables
            // (least privilege; the schema's owner migrates) starts on a current schema without needing to.
            let exists = try connection.query("SELECT to_regclass('guild_schema_version') IS NOT NULL").first?.decode(Bool.self) ?? false
            if !exists {
                try connection.execute(
                    """
                    CREATE TABLE guild_schema_version (
                        version integer PRIMARY KEY,
                        name text NOT NULL,
                        applied_at timestamptz NOT NULL DEFAULT now()
                    )
                    """
                )
            }
            let applied = try self.appliedVersions(connection)
            let known = Set(migrations.map(\.version))
            let newest = migrations.map(\.version).max() ?? 0
            if let unknown = applied.subtracting(known).max() {
                throw PostgresStoreError.newerSchema(found: unknown, known: newest)
            }
            for migration in migrations where !applied.contains(migration.version) {
                try connection.transaction {
                    for statement in migration.statements { try connection.execute(PostgresQuery(unsafeSQL: statement)) }
                    try connection.execute(
                        "INSERT INTO guild_schema_version (version, name) VALUES (\(migration.version), \(migration.name))"
                    )
                }
            }
            return (applied.max() ?? 0, max(applied.max() ?? 0, newest))
        } catch let error as PSQLError where !PostgresStoreError.endsSession(error) && error.serverInfo?[.sqlState] != nil {
            // The server refused a statement (no right to create a table, a conflicting object): the schema is
            // the problem. A connection that dropped meanwhile stays what it is (the database unavailable).
            throw PostgresStoreError.migrationFailed(PostgresStoreError.summary(of: error))
        } catch let error where PostgresStoreError.endsSession(error) {
            throw PostgresStoreError.unavailable(
                "the connection to PostgreSQL dropped while migrating: \(PostgresStoreError.summary(of: error))"
            )
        }
    }

    /// The database's newest schema version (0 for an empty database).
    public static func version(_ connection: BlockingConnection) throws -> Int {
        try self.appliedVersions(connection).max() ?? 0
    }

    static func appliedVersions(_ connection: BlockingConnection) throws -> Set<Int> {
        let rows = try connection.query("SELECT version::bigint FROM guild_schema_version")
        return Set(try rows.map { Int(try $0.decode(Int64.self)) })
    }
}
