import Foundation
import GuildPostgres
import PostgresNIO
import Synchronization
import Testing

/// The read pool: snapshots that cannot write, reads in parallel up to the pool's size, reconnection after a
/// dropped connection, and a clear error when there is no server.
@Suite(.enabled(if: TestPostgres.isConfigured, "needs the throwaway PostgreSQL that scripts/test starts"), .timeLimit(.minutes(10)))
struct PostgresReadersTests {
    @Test func aReadSeesCommittedRowsAndCannotWrite() async throws {
        try await TestPostgres.withDatabase { location in
            let setup = try await TestPostgres.connect(location)
            defer { setup.close() }
            try await TestPostgres.blocking {
                try setup.execute("CREATE TABLE item (id bigint PRIMARY KEY)")
                try setup.execute("INSERT INTO item VALUES (1), (2)")
            }
            let readers = PostgresReaders(location: location, count: 2, logger: TestPostgres.logger)
            let count = try await readers.read { try $0.query("SELECT count(*)::bigint FROM item").first?.decode(Int64.self) }
            #expect(count == 2)
            await #expect {
                try await readers.read { try $0.execute("INSERT INTO item VALUES (3)") }
            } throws: { error in
                (error as? PSQLError)?.serverInfo?[.sqlState] == "25006"  // read_only_sql_transaction
            }
            // The failed read's connection went back to the pool, still usable.
            #expect(try await readers.read { try $0.query("SELECT count(*)::bigint FROM item").first?.decode(Int64.self) } == 2)
            try await readers.close()
        }
    }

    @Test func readsRunInParallelUpToThePoolsSize() async throws {
        try await TestPostgres.withDatabase { location in
            let readers = PostgresReaders(location: location, count: 4, logger: TestPostgres.logger)
            let started = ContinuousClock.now
            let running = Running()
            try await withThrowingTaskGroup(of: Void.self) { reads in
                for _ in 0..<8 {
                    reads.addTask {
                        _ = try await readers.read { connection in
                            running.enter()
                            defer { running.leave() }
                            running.saw(readers.usage)
                            return try connection.execute("SELECT pg_sleep(0.3)")
                        }
                    }
                }
                try await reads.waitForAll()
            }
            let took = ContinuousClock.now - started
            // Eight 0.3 s reads on four connections: four at a time (counted, not timed), so at least two rounds.
            #expect(running.peak == 4)
            #expect(took >= .milliseconds(600), "took \(took)")
            #expect(readers.idleCount == 4)
            // What `system.status` reports: while the reads ran, each saw itself among those holding a connection,
            // never more than the pool's size; after them, four connections open and none held.
            #expect(running.usages.allSatisfy { $0.size == 4 && (1...4).contains($0.reading) && $0.reading <= $0.open && $0.open <= 4 })
            #expect(running.usages.contains { $0.reading == 4 })
            #expect(readers.usage == (size: 4, open: 4, reading: 0))
            try await readers.close()
        }
    }

    @Test func aDroppedReadConnectionIsReopened() async throws {
        try await TestPostgres.withDatabase { location in
            var named = location
            named.applicationName = "guild-readers-test-\(UUID().uuidString.prefix(6))"
            let readers = PostgresReaders(location: named, count: 1, logger: TestPostgres.logger)
            #expect(readers.usage == (size: 1, open: 0, reading: 0), "opened as reads need connections")
            let first = try await readers.read { $0.backendPID }
            #expect(readers.usage == (size: 1, open: 1, reading: 0))
            let admin = try await TestPostgres.connect(location)
            defer { admin.close() }
            _ = try await TestPostgres.blocking { try admin.execute("SELECT pg_terminate_backend(\(first))") }
            // The idle connection the server ended is no longer counted as open (once its client has seen the
            // end: polled, 60 s only to catch a hang).
            for _ in 0..<1200 where readers.usage.open > 0 { try await Task.sleep(for: .milliseconds(50)) }
            #expect(readers.usage == (size: 1, open: 0, reading: 0))
            var pid: Int32?
            for _ in 0..<3 where pid == nil {
                pid = try? await readers.read { $0.backendPID }
                if pid == nil { try await Task.sleep(for: .milliseconds(50)) }
            }
            #expect(pid != nil && pid != first, "a new connection serves reads after the old one was killed")
            #expect(readers.usage == (size: 1, open: 1, reading: 0))
            try await readers.close()
        }
    }

    @Test func noServerIsUnavailable() async throws {
        let nowhere = try PostgresLocation(url: "postgresql://guild@/guild?host=/tmp/no-such-postgres", environment: [:])
        let readers = PostgresReaders(location: nowhere, count: 1, logger: TestPostgres.logger)
        await #expect {
            try await readers.read { _ in 1 }
        } throws: { error in
            if case .unavailable? = error as? PostgresStoreError { return true }
            return false
        }
        try await readers.close()
    }
}

/// How many reads run at once, the most that ever did, and the pool's usage each read saw.
private final class Running: Sendable {
    private let state = Mutex<(now: Int, peak: Int)>((0, 0))
    private let seen = Mutex<[(size: Int, open: Int, reading: Int)]>([])

    var peak: Int { self.state.withLock { $0.peak } }
    var usages: [(size: Int, open: Int, reading: Int)] { self.seen.withLock { $0 } }

    func saw(_ usage: (size: Int, open: Int, reading: Int)) {
        self.seen.withLock { $0.append(usage) }
    }

    func enter() {
        self.state.withLock { state in
            state.now += 1
            state.peak = max(state.peak, state.now)
        }
    }

    func leave() {
        self.state.withLock { $0.now -= 1 }
    }
}
