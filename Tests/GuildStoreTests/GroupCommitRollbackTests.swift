import Foundation
import GRDB
import GuildCore
import GuildTestSupport
import Synchronization
import Testing

@testable import GuildStore

/// When SQLite rolls a whole group-commit transaction back (as it may on SQLITE_FULL or an I/O error), the
/// writer fails the whole batch with that error (so a full disk answers STORAGE_FULL to every operation of the
/// batch, not GRDB's "Transaction was aborted", which would be an internal error): no operation is acknowledged
/// whose write is gone. Afterwards writes work again.
struct GroupCommitRollbackTests {
    struct Lost: Error {}

    @Test func aTransactionRolledBackUnderneathFailsTheWholeBatch() async throws {
        let temp = try TemporaryStore()
        defer { temp.remove() }
        try await temp.store.pool.write { db in try db.execute(sql: "CREATE TABLE t (x INTEGER PRIMARY KEY)") }
        let outcomes = Outcomes()
        let store = temp.store
        try await withThrowingTaskGroup(of: Void.self) { group in
            // The first write holds the writer while the others queue up into one batch. They are queued only
            // once it runs, however long a loaded machine takes to start it.
            let holding = Mutex(false)
            group.addTask {
                try await store.write { _ in
                    holding.withLock { $0 = true }
                    Thread.sleep(forTimeInterval: 0.3)
                }
            }
            while !holding.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(5)) }
            for x in 1...9 {
                group.addTask {
                    do {
                        try await store.writeDatabase { db in
                            try db.execute(sql: "INSERT INTO t (x) VALUES (?)", arguments: [x])
                            if x == 5 {
                                // What SQLite does to the transaction on some errors: all of it is gone.
                                try db.execute(sql: "ROLLBACK")
                                throw Lost()
                            }
                        }
                        outcomes.acknowledged.withLock { _ = $0.insert(x) }
                    } catch {
                        outcomes.failed.withLock { _ = $0.insert(x) }
                        if !(error is Lost) { outcomes.otherErrors.withLock { $0.append("\(x): \(error)") } }
                    }
                }
            }
            try await group.waitForAll()
        }
        let stored = Set(try await temp.store.pool.read { db in try Int.fetchAll(db, sql: "SELECT x FROM t") })
        let written = outcomes.acknowledged.withLock { $0 }
        #expect(outcomes.failed.withLock { $0 }.contains(5))
        #expect(outcomes.otherErrors.withLock { $0 }.isEmpty, "\(outcomes.otherErrors.withLock { $0 })")
        #expect(stored == written, "acknowledged \(written.sorted()) but stored \(stored.sorted())")
        // The writer recovers.
        try await store.writeDatabase { db in try db.execute(sql: "INSERT INTO t (x) VALUES (100)") }
        #expect(try await temp.store.pool.read { db in try Int.fetchOne(db, sql: "SELECT x FROM t WHERE x = 100") } == 100)
    }
}

/// Which writes were acknowledged and which failed, across the writing tasks.
private final class Outcomes: Sendable {
    let acknowledged = Mutex<Set<Int>>([])
    let failed = Mutex<Set<Int>>([])
    let otherErrors = Mutex<[String]>([])
}
