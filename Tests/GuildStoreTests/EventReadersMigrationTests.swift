import Foundation
import GRDB
import Testing

@testable import GuildStore

/// The objects and things areas' readers tables move from principal order to seq order, rows kept.
struct EventReadersMigrationTests {
    @Test func readersTablesAreRekeyedBySeqWithTheirRowsKept() async throws {
        try await withTemporaryDatabasePath("guild-readers") { path in
            let migrator = Migrations.migrator(areas: SQLiteStore.areas)
            let old = try DatabaseQueue(path: path)
            try migrator.migrate(old, upTo: "objects-1-buckets-objects-acls")
            try await old.write { db in
                try db.execute(sql: "INSERT INTO object_event_reader (userID, seq) VALUES ('u2', 1), ('u1', 2), ('u1', 1)")
            }
            try migrator.migrate(old, upTo: "things-1-things-commands-states")
            #expect(try await old.read { db in try Self.primaryKey(of: "thing_event_reader", db) } == ["principal", "seq"])
            try await old.write { db in
                try db.execute(sql: "INSERT INTO thing_event_reader (principal, seq) VALUES ('installation:i1', 3), ('t1', 2), ('u1', 3)")
            }
            try old.close()

            let store = try SQLiteStore(configuration: .init(path: path))
            defer { try? store.close() }
            try await store.pool.read { db in
                #expect(try Self.primaryKey(of: "object_event_reader", db) == ["seq", "userID"])
                #expect(try Self.primaryKey(of: "thing_event_reader", db) == ["seq", "principal"])
                let objects = try Row.fetchAll(db, sql: "SELECT seq, userID FROM object_event_reader").map { "\($0[0] as Int64) \($0[1] as String)" }
                #expect(objects == ["1 u1", "1 u2", "2 u1"])
                let things = try Row.fetchAll(db, sql: "SELECT seq, principal FROM thing_event_reader").map { "\($0[0] as Int64) \($0[1] as String)" }
                #expect(things == ["2 t1", "3 installation:i1", "3 u1"])
                // The replay conditions find a principal's row by the event's seq through the primary key.
                let plan = try Row.fetchAll(
                    db,
                    sql: "EXPLAIN QUERY PLAN SELECT 1 FROM thing_event_reader r WHERE r.principal IN ('u1', 'installation:i1') AND r.seq = 3"
                ).map { $0["detail"] as String }
                #expect(plan.contains { $0.contains("USING PRIMARY KEY (seq=? AND principal=?)") }, "\(plan)")
            }
            #expect(try await store.integrityCheck() == ["ok"])
        }
    }

    /// The primary key's columns in key order.
    private static func primaryKey(of table: String, _ db: Database) throws -> [String] {
        try Row.fetchAll(db, sql: "SELECT name, pk FROM pragma_table_info(?) WHERE pk > 0 ORDER BY pk", arguments: [table])
            .map { $0["name"] as String }
    }
}
