import Foundation
import GRDB
import GuildTestSupport
import Synchronization
import Testing

@testable import GuildStore

struct WALCheckpointerTests {
    /// A WAL-mode pool at `path` (a new file) whose writer has `checkpointer`'s hook.
    private static func pool(_ checkpointer: WALCheckpointer, at path: String) throws -> (DatabasePool, WALCheckpointer) {
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            if !db.configuration.readonly { try checkpointer.install(on: db) }
        }
        let pool = try DatabasePool(path: path, configuration: configuration)
        try pool.write { db in try db.execute(sql: "CREATE TABLE page (id INTEGER PRIMARY KEY, filler BLOB NOT NULL)") }
        return (pool, checkpointer)
    }

    /// Writes `transactions` transactions of four new pages each (a 3,900-byte row fills a 4,096-byte page).
    private static func fill(_ pool: DatabasePool, transactions: Int) throws {
        for _ in 0..<transactions {
            try pool.write { db in
                for _ in 0..<4 { try db.execute(sql: "INSERT INTO page (filler) VALUES (zeroblob(3900))") }
            }
        }
    }

    /// Writes one transaction at a time until one starts a background checkpoint, then stops `checkpointer`, which
    /// waits for it; returns the transactions written. That checkpoint began after every page was committed, so it
    /// copied them all back, however far a busy machine let the checkpointer's thread fall behind the writer (the
    /// checkpoints before it may have copied any part of the log).
    private static func fill(_ pool: DatabasePool, checkpointing checkpointer: WALCheckpointer) throws -> Int {
        let started = checkpointer.count
        var written = 0
        repeat {
            try Self.fill(pool, transactions: 1)
            written += 1
        } while checkpointer.count == started
        checkpointer.stop()
        return written
    }

    private static func walPages(_ path: String) throws -> Int {
        let size = (try FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0
        return max(0, size - 32) / (4096 + 24)
    }

    @Test func theStoreWriterLeavesCheckpointsToTheCheckpointer() async throws {
        let temp = try TemporaryStore()
        defer { temp.remove() }
        let automatic = try await temp.store.writeDatabase { db in try Int.fetchOne(db, sql: "PRAGMA wal_autocheckpoint") }
        #expect(automatic == 0)
        try await temp.store.writeDatabase { db in
            try db.execute(sql: "CREATE TABLE page (id INTEGER PRIMARY KEY, filler BLOB NOT NULL)")
        }
        for _ in 0..<400 {
            try await temp.store.writeDatabase { db in
                for _ in 0..<4 { try db.execute(sql: "INSERT INTO page (filler) VALUES (zeroblob(3900))") }
            }
        }
        #expect(temp.store.checkpointer.count >= 1)
        // The same writer connection, until a checkpoint starts that copies every page back.
        let written = 400 + (try Self.fill(temp.store.pool, checkpointing: temp.store.checkpointer))
        // Copied back by the checkpointer: the file holds every row's page, though the store's writer never checkpointed.
        let fileSize = (try FileManager.default.attributesOfItem(atPath: temp.store.configuration.path)[.size] as? Int) ?? 0
        #expect(fileSize >= written * 4 * 4096)
        try temp.store.close()
        let reopened = try SQLiteStore(configuration: temp.store.configuration)
        #expect(try await reopened.pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM page") } == written * 4)
        #expect(try await reopened.integrityCheck() == ["ok"])
        try reopened.close()
    }

    /// Runs `body` with a pool at a new file whose writer has a checkpointer with these thresholds, then closes both.
    private static func withPool(
        threshold: Int32,
        hardLimit: Int32,
        _ body: (DatabasePool, WALCheckpointer, String) throws -> Void
    ) throws {
        let temp = try TemporaryStore()
        defer { temp.remove() }
        let path = temp.directory.appendingPathComponent("wal.sqlite").path
        let (pool, checkpointer) = try Self.pool(WALCheckpointer(path: path, threshold: threshold, hardLimit: hardLimit), at: path)
        try body(pool, checkpointer, path)
        try pool.close()
        try checkpointer.close()
    }

    @Test func backgroundCheckpointsCopyTheLogWhileTheWriterGoesOn() throws {
        try Self.withPool(threshold: 40, hardLimit: 100_000) { pool, checkpointer, path in
            #expect(!checkpointer.isOpen)  // its connection opens with the first checkpoint, not at start-up
            try Self.fill(pool, transactions: 300)
            #expect(checkpointer.count >= 1)
            let written = 300 + (try Self.fill(pool, checkpointing: checkpointer))
            #expect(checkpointer.isOpen)
            // Copied back: the database file holds every page written, though no writer ever checkpointed.
            let fileSize = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
            #expect(fileSize >= written * 4 * 4096)
        }
    }

    @Test func theWriterCheckpointsItselfAtTheHardLimit() throws {
        try Self.withPool(threshold: 20, hardLimit: 60) { pool, checkpointer, path in
            checkpointer.stop()  // no background checkpoints: only the hard limit keeps the log short
            try Self.fill(pool, transactions: 300)
            #expect(checkpointer.count == 0)
            #expect(try Self.walPages(path) <= 60 + 8)
            #expect(try pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM page") } == 1200)
        }
    }

    @Test func theLogRewindsWhileReadersNeverStop() throws {
        // Readers that overlap one another always hold some snapshot in the log: a PASSIVE checkpoint at the hard
        // limit never catches up with the writer and the log grew without end (an hour-long soak: 773 MiB).
        try Self.withPool(threshold: 20, hardLimit: 60) { pool, checkpointer, path in
            let stop = Atomic<Bool>(false)
            let readers = DispatchGroup()
            for _ in 0..<3 {
                DispatchQueue.global().async(group: readers) {
                    while !stop.load(ordering: .relaxed) {
                        _ = try? pool.read { db in
                            let count = try Int.fetchOne(db, sql: "SELECT count(*) FROM page")
                            usleep(3000)
                            return count
                        }
                    }
                }
            }
            try Self.fill(pool, transactions: 400)
            stop.store(true, ordering: .relaxed)
            readers.wait()
            #expect(checkpointer.restarts >= 1)
            // 1,600 pages were written; a log that rewinds stays near the hard limit.
            #expect(try Self.walPages(path) < 600)
            #expect(try pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM page") } == 1600)
        }
    }

    @Test func withoutTheHookTheLogWouldGrow() throws {
        // The control for the test above: the same writes, automatic checkpoints off and no hard limit.
        try Self.withPool(threshold: 100_000, hardLimit: 100_000) { pool, _, path in
            try Self.fill(pool, transactions: 300)
            #expect(try Self.walPages(path) > 1000)
        }
    }
}
