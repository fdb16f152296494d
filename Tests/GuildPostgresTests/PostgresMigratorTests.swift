import Foundation
import GuildCore
import GuildStore
import PostgresNIO
import Testing

@testable import GuildPostgres

/// Schema migrations at start: once, under an advisory lock, and never onto a newer schema.
@Suite(.enabled(if: TestPostgres.isConfigured, "needs the throwaway PostgreSQL that scripts/test starts"), .timeLimit(.minutes(10)))
struct PostgresMigratorTests {
    @Test func anEmptyDatabaseIsMigratedToTheKnownVersion() async throws {
        try await TestPostgres.withDatabase { location in
            let connection = try await TestPostgres.connect(location)
            defer { connection.close() }
            let (from, to) = try await TestPostgres.blocking { try PostgresMigrator.migrate(connection) }
            #expect(from == 0)
            #expect(to == PostgresMigrator.knownVersion)
            #expect(try await TestPostgres.blocking { try PostgresEventLog.head(on: connection) } == 0)
            // Again: nothing to do.
            let again = try await TestPostgres.blocking { try PostgresMigrator.migrate(connection) }
            #expect(again.from == PostgresMigrator.knownVersion && again.to == PostgresMigrator.knownVersion)
        }
    }

    @Test func hostsStartingTogetherMigrateOnce() async throws {
        try await TestPostgres.withDatabase { location in
            let outcomes = try await withThrowingTaskGroup(of: Int.self) { hosts in
                for _ in 0..<4 {
                    hosts.addTask {
                        let connection = try await TestPostgres.connect(location)
                        defer { connection.close() }
                        return try await TestPostgres.blocking { try PostgresMigrator.migrate(connection).from }
                    }
                }
                return try await hosts.reduce(into: []) { $0.append($1) }
            }
            // One host found the database empty; the others waited on the lock and found it migrated.
            #expect(outcomes.sorted() == [0] + Array(repeating: PostgresMigrator.knownVersion, count: 3))
            let connection = try await TestPostgres.connect(location)
            defer { connection.close() }
            let rows = try await TestPostgres.blocking { try connection.query("SELECT count(*)::bigint FROM guild_schema_version") }
            #expect(try rows.first?.decode(Int64.self) == Int64(PostgresMigrator.knownVersions.count))
        }
    }

    /// Versions are blocks per area: an area's new migration may be numbered below another area's applied one,
    /// and is applied all the same.
    @Test func aLaterMigrationWithALowerVersionIsStillApplied() async throws {
        try await TestPostgres.withDatabase { location in
            let connection = try await TestPostgres.connect(location)
            defer { connection.close() }
            @Sendable func table(_ version: Int) -> PostgresMigration {
                PostgresMigration(version: version, name: "table \(version)", statements: ["CREATE TABLE t\(version) (id int)"])
            }
            let first = try await TestPostgres.blocking { try PostgresMigrator.migrate(connection, migrations: [table(1), table(10)]) }
            #expect(first.from == 0 && first.to == 10)
            let second = try await TestPostgres.blocking {
                try PostgresMigrator.migrate(connection, migrations: [table(1), table(3), table(10)])
            }
            #expect(second.from == 10 && second.to == 10)
            let tables = try await TestPostgres.blocking {
                try connection.query("SELECT count(*)::bigint FROM pg_tables WHERE tablename IN ('t1', 't3', 't10')").first?.decode(Int64.self)
            }
            #expect(tables == 3)
        }
    }

    /// A host whose role may read and write the data but not create tables (least privilege) starts on a current
    /// schema; on one it would have to migrate, it stops with the server's reason and what to do.
    @Test func aRoleThatMayOnlyReadAndWriteNeedsNoMigrationAndIsToldWhenOneIsDue() async throws {
        let role = "guild_data_\(UUID().uuidString.prefix(8).lowercased())"
        try await TestPostgres.withDatabase { location in
            let owner = try await TestPostgres.connect(location)
            defer { owner.close() }
            _ = try await TestPostgres.blocking {
                try owner.execute(PostgresQuery(unsafeSQL: "CREATE ROLE \(role) LOGIN"))
                try owner.execute(PostgresQuery(unsafeSQL: "GRANT pg_read_all_data, pg_write_all_data TO \(role)"))
            }
            defer { _ = try? owner.execute(PostgresQuery(unsafeSQL: "DROP ROLE \(role)")) }
            var limited = location
            limited.user = role
            // A database nobody migrated yet: the role may not create the tables.
            let fresh = try await TestPostgres.connect(limited)
            defer { fresh.close() }
            let refused = await #expect(throws: PostgresStoreError.self, "a role without CREATE migrated a database") {
                _ = try await TestPostgres.blocking { try PostgresMigrator.migrate(fresh) }
            }
            guard case .migrationFailed(let reason)? = refused else {
                Issue.record("expected migrationFailed, got \(String(describing: refused))")
                return
            }
            #expect(reason.contains("permission denied"), "\(reason)")
            #expect(refused?.description.contains("run it as a role that owns the schema") == true, "\(String(describing: refused))")
            // Once the owner migrated, the role starts with nothing to do.
            _ = try await TestPostgres.blocking { try PostgresMigrator.migrate(owner) }
            let again = try await TestPostgres.blocking { try PostgresMigrator.migrate(fresh) }
            #expect(again.from == PostgresMigrator.knownVersion && again.to == PostgresMigrator.knownVersion)
        }
    }

    /// A connection the server ends while it migrates is the database out of reach (`unavailable`, which a host
    /// retries), not a schema it cannot migrate (`migrationFailed`, which tells the operator to change roles).
    @Test func aConnectionEndedWhileMigratingIsUnavailableNotAFailedMigration() async throws {
        try await TestPostgres.withDatabase { location in
            let owner = try await TestPostgres.connect(location)
            defer { owner.close() }
            let doomed = try await TestPostgres.connect(location)
            defer { doomed.close() }
            let ended = try await TestPostgres.blocking {
                try owner.query("SELECT pg_terminate_backend(\(doomed.backendPID))").first?.decode(Bool.self)
            }
            #expect(ended == true)
            let refused = await #expect(throws: PostgresStoreError.self, "a migration on a terminated connection succeeded") {
                _ = try await TestPostgres.blocking { try PostgresMigrator.migrate(doomed) }
            }
            guard case .unavailable(let reason)? = refused else {
                Issue.record("expected unavailable, got \(String(describing: refused))")
                return
            }
            #expect(!reason.isEmpty)
            // Nothing was half-applied: the owner migrates the whole schema from nothing.
            let (from, to) = try await TestPostgres.blocking { try PostgresMigrator.migrate(owner) }
            #expect(from == 0 && to == PostgresMigrator.knownVersion)
        }
    }

    @Test func aDatabaseOfANewerSchemaIsRefused() async throws {
        try await TestPostgres.withDatabase { location in
            let connection = try await TestPostgres.connect(location)
            defer { connection.close() }
            _ = try await TestPostgres.blocking { try PostgresMigrator.migrate(connection) }
            let newer = PostgresMigrator.knownVersion + 1
            _ = try await TestPostgres.blocking {
                try connection.execute("INSERT INTO guild_schema_version (version, name) VALUES (\(newer), 'from the future')")
            }
            await #expect(throws: PostgresStoreError.newerSchema(found: newer, known: PostgresMigrator.knownVersion)) {
                try await TestPostgres.blocking { try PostgresMigrator.migrate(connection) }
            }
            // The refusal released the lock: another host is not left waiting on it.
            let other = try await TestPostgres.connect(location)
            defer { other.close() }
            let rows = try await TestPostgres.blocking { try other.query("SELECT pg_try_advisory_lock(\(0x4775_696C_64 as Int64))") }
            #expect(try rows.first?.decode(Bool.self) == true)
        }
    }
}

/// The areas' list (``PostgresStore/areas``) is where the migrations and the event areas come from: every
/// migration once, in version order, each area in a block of its own, and the same event areas as SQLite's.
struct PostgresStoreAreaTests {
    /// The block a version belongs to: the event log and users 1-2, groups 3-9, then one per ten versions.
    static func block(_ version: Int) -> Int {
        version <= 2 ? 0 : version < 10 ? 1 : version / 10 + 1
    }

    @Test func theAreasGiveEveryMigrationOnceInVersionOrder() {
        let versions = PostgresMigration.all.map(\.version)
        #expect(versions.first == 1)
        #expect(versions == versions.sorted())
        #expect(Set(versions).count == versions.count)
        let blocks = PostgresStore.areas.map { area in Set(area.migrations.map { Self.block($0.version) }) }
        #expect(blocks.allSatisfy { $0.count == 1 })
        #expect(Set(blocks.flatMap { $0 }).count == PostgresStore.areas.count)
        #expect(PostgresMigrator.knownVersion == versions.last)
    }

    @Test func theEventAreasAreSQLitesToo() {
        let postgres = PostgresStore.eventAreas.map { $0.area }
        let sqlite = SQLiteStore.areas.compactMap { $0.eventArea?.area }
        #expect(!postgres.isEmpty)
        #expect(Set(postgres) == Set(sqlite))
    }

    /// The areas' replay rules name their tables' columns as SQLite spells them; PostgreSQL's are their
    /// snake_case, and each rule's tables exist in the migrated schema.
    @Test(.enabled(if: TestPostgres.isConfigured, "needs the throwaway PostgreSQL that scripts/test starts"))
    func replayRulesNamePostgresColumnsInSnakeCase() async throws {
        #expect(ReplayRule.column("userID") == "user_id")
        #expect(ReplayRule.column("groupID") == "group_id")
        #expect(ReplayRule.column("principal") == "principal")
        #expect(ReplayRule.column("fromSeq") == "from_seq")
        try await TestPostgres.withDatabase { location in
            let connection = try await TestPostgres.connect(location)
            defer { connection.close() }
            _ = try await TestPostgres.blocking { try PostgresMigrator.migrate(connection) }
            for area in EventAreas.declared {
                let rule = area.replay
                let columns =
                    [(rule.readers.table, ReplayRule.column(rule.readers.column))] + (rule.groups.map { [($0, "group_id")] } ?? [])
                    + (rule.excluded.map { [($0, "user_id")] } ?? [])
                for (table, column) in columns {
                    let found = try await TestPostgres.blocking {
                        try connection.query(
                            "SELECT count(*) FROM information_schema.columns WHERE table_name = \(table) AND column_name = \(column)"
                        ).first?.decode(Int64.self) ?? 0
                    }
                    #expect(found == 1, "\(area.area): \(table).\(column)")
                }
            }
        }
    }
}
