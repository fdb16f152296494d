import Foundation
import GRDB
import GuildCore
import GuildTestSupport
import Synchronization
import Testing

@testable import GuildStore

struct SQLiteStoreTests {
    @Test func migratesFromEmptyWithWALAndFullSync() async throws {
        let temp = try TemporaryStore()
        defer { temp.remove() }
        let (mode, sync, tables) = try await temp.store.pool.read { db in
            (
                try String.fetchOne(db, sql: "PRAGMA journal_mode") ?? "",
                try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? -1,
                try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
            )
        }
        #expect(mode == "wal")
        #expect(sync == 2)  // FULL
        #expect(tables.contains("user"))
        #expect(tables.contains("token"))
        #expect(try await temp.store.integrityCheck() == ["ok"])
    }

    /// The writer is the connection whose commits must be durable. GRDB sets `synchronous = NORMAL` on it when
    /// it turns WAL on, after the configuration's own set-up ran: a reader showed FULL while every commit went
    /// unsynced (no fdatasync at all, seen with strace), until the store set the mode on the writer again.
    @Test(arguments: [("FULL", 2), ("full", 2), ("NORMAL", 1), ("EXTRA", 3), ("sometimes", 2)])
    func theWriterCommitsWithTheConfiguredSynchronousMode(configured: String, expected: Int) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("guild-store-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("guild.sqlite").path
        for _ in 0..<2 {  // a new database, then the same one reopened
            let store = try SQLiteStore(configuration: .init(path: path, synchronous: configured))
            let writer = try await store.pool.writeWithoutTransaction { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") }
            let reader = try await store.pool.read { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") }
            try store.close()
            #expect(writer == expected)
            #expect(reader == expected)
            #expect(store.synchronous == SQLiteStore.Configuration.synchronousModes[expected])
        }
    }

    @Test func reopeningKeepsData() async throws {
        let temp = try TemporaryStore()
        defer { temp.remove() }
        let users = try await makeService(temp.store)
        let (user, _) = try await users.register(identity: .init(username: "kim"), password: "pass", displayName: nil, fields: nil)
        try temp.store.close()
        let reopened = try SQLiteStore(configuration: temp.store.configuration)
        #expect(try await reopened.read { try $0.users.user(id: user.id) }?.username == "kim")
        try reopened.close()
    }

    @Test func schemaRefusesANonPseudoUserWithoutPassword() async throws {
        let temp = try TemporaryStore()
        defer { temp.remove() }
        await #expect(throws: DatabaseError.self) {
            try await temp.store.pool.write { db in
                try db.execute(sql: #"INSERT INTO "user" (id, username, isPseudo, createdAt, modifiedAt) VALUES ('x', 'x', 0, 0, 0)"#)
            }
        }
    }

    @Test func groupCommitSharesTransactionsAndIsolatesFailures() async throws {
        let temp = try TemporaryStore()
        defer { temp.remove() }
        try await temp.store.pool.write { db in
            try db.execute(sql: "CREATE TABLE counter (id INTEGER PRIMARY KEY, value INTEGER NOT NULL CHECK (value >= 0))")
        }
        let counter = CommitCounter()
        temp.store.pool.add(transactionObserver: counter, extent: .databaseLifetime)
        let before = temp.store.writeStatistics
        let outcomes = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<400 {
                group.addTask {
                    do {
                        try await temp.store.writeDatabase { db in
                            // Every tenth write breaks the CHECK constraint and must roll back alone.
                            try db.execute(sql: "INSERT INTO counter (id, value) VALUES (?, ?)", arguments: [index, index % 10 == 0 ? -1 : index])
                        }
                        return true
                    } catch {
                        return false
                    }
                }
            }
            var results: [Bool] = []
            for await result in group { results.append(result) }
            return results
        }
        #expect(outcomes.filter { $0 }.count == 360)
        let stored = try await temp.store.pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM counter") }
        #expect(stored == 360)
        // 400 concurrent writes needed far fewer commits than writes.
        #expect(counter.commits.load(ordering: .relaxed) < 400)
        // The store counts the same commits, and every write (the failed ones ran in committed transactions too).
        let after = temp.store.writeStatistics
        #expect(after.operations - before.operations == 400)
        #expect(after.commits - before.commits == counter.commits.load(ordering: .relaxed))
    }
}

private final class CommitCounter: TransactionObserver, Sendable {
    let commits = Atomic<Int>(0)
    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { true }
    func databaseDidChange(with event: DatabaseEvent) {}
    func databaseDidCommit(_ db: Database) { self.commits.add(1, ordering: .relaxed) }
    func databaseDidRollback(_ db: Database) {}
}
