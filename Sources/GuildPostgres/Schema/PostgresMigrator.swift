import PostgresNIO

/// Brings a database's schema up to this build's version at start, under an advisory lock so that hosts
/// starting together migrate once, one after the other: the second finds the work done.
///
/// A database migrated by a newer guildd is refused (``PostgresStoreError/newerSchema(found:known:)``): this
/// build would not know its tables' rules.
public enum PostgresMigrator {
    /// The advisory lock key every guildd takes while it migrates ("Guild" in ASCII).
    static let lockKey: Int64 = 0x4775_696C_64

    /// The schema version this build knows.
    public static var knownVersion: Int { PostgresMigration.all.last?.version ?? 0 }

    /// Applies the migrations the database lacks; returns the versions before and after.
    @discardableResult
    public static func migrate(_ connection: BlockingConnection) throws -> (from: Int, to: Int) {
        try self.migrate(connection, migrations: PostgresMigration.all)
    }

    static func migrate(_ connection: BlockingConnection, migrations: [PostgresMigration]) throws -> (from: Int, to: Int) {
        try connection.execute("SELECT pg_advisory_lock(\(Self.lockKey))")
        defer { _ = try? connection.execute("SELECT pg_advisory_unlock(\(Self.lockKey))") }
        try connection.execute(
            """
            CREATE TABLE IF NOT EXISTS guild_schema_version (
                version integer PRIMARY KEY,
                name text NOT NULL,
                applied_at timestamptz NOT NULL DEFAULT now()
            )
            """
        )
        let current = try self.version(connection)
        let known = migrations.last?.version ?? 0
        guard current <= known else { throw PostgresStoreError.newerSchema(found: current, known: known) }
        for migration in migrations where migration.version > current {
            try connection.transaction {
                for statement in migration.statements { try connection.execute(PostgresQuery(unsafeSQL: statement)) }
                try connection.execute("INSERT INTO guild_schema_version (version, name) VALUES (\(migration.version), \(migration.name))")
            }
        }
        return (current, max(current, known))
    }

    /// The database's schema version (0 for an empty database).
    public static func version(_ connection: BlockingConnection) throws -> Int {
        let rows = try connection.query("SELECT coalesce(max(version), 0)::bigint FROM guild_schema_version")
        return Int(try rows.first?.decode(Int64.self) ?? 0)
    }
}
