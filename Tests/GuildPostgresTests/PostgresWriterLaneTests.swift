import Foundation
import GuildCore
import GuildPostgres
import PostgresNIO
import Synchronization
import Testing

/// A writer with quiet lanes beside its event lane: sites that never append learn to commit there, a write that
/// appends after all runs once on the event lane, and a quiet lane gives up a row lock rather than wait.
@Suite(.enabled(if: TestPostgres.isConfigured, "needs the throwaway PostgreSQL that scripts/test starts"), .timeLimit(.minutes(10)))
struct PostgresWriterLaneTests {
    static let quietSite = WriteSite(fileID: "GuildPostgresTests/quiet.swift", line: 1)
    static let eventSite = WriteSite(fileID: "GuildPostgresTests/events.swift", line: 2)

    static func writer(
        _ location: PostgresLocation,
        committed: @escaping @Sendable ([PostgresEvent], Set<RecordKey>) -> Void = { _, _ in }
    ) -> PostgresWriter {
        PostgresWriter(location: location, connections: 4, logger: TestPostgres.logger, committed: committed)
    }

    static func prepare(_ location: PostgresLocation) async throws {
        let connection = try await TestPostgres.connect(location)
        defer { connection.close() }
        try await TestPostgres.blocking {
            _ = try PostgresMigrator.migrate(connection)
            try connection.execute("CREATE TABLE note (id bigint PRIMARY KEY, seq bigint, counter bigint NOT NULL DEFAULT 0)")
        }
    }

    /// Inserts note `id`, with an event when `appending`; returns the number that stands for the event in its
    /// transaction.
    static func insertNote(_ id: Int64, appending: Bool = false) -> @Sendable (PostgresWriteContext) throws -> Int64? {
        { context in
            let seq = appending ? try context.append(PostgresEventLogTests.event(Int(id), host: "lanes")) : nil
            try context.connection.execute("INSERT INTO note (id, seq) VALUES (\(id), \(seq))")
            return seq
        }
    }

    /// Teaches `writer` that `quietSite` appends nothing (its first writes run on the event lane).
    static func learnQuiet(_ writer: PostgresWriter, from id: Int64) async throws {
        for offset in 0..<3 { _ = try await writer.write(at: Self.quietSite, Self.insertNote(id + Int64(offset))) }
        #expect(writer.learnedSites == (sites: 1, quiet: 1))
    }

    static func rows(_ location: PostgresLocation) async throws -> (notes: [Int64], events: [Int64]) {
        let connection = try await TestPostgres.connect(location)
        defer { connection.close() }
        return try await TestPostgres.blocking {
            (
                try connection.query("SELECT id FROM note ORDER BY id").map { try $0.decode(Int64.self) },
                try PostgresEventLog.read(after: 0, limit: 10_000, on: connection).map(\.seq)
            )
        }
    }

    @Test func quietWritesCommitBesideTheEventLaneAndEventsStayInOrder() async throws {
        try await TestPostgres.withDatabase { location in
            try await Self.prepare(location)
            let published = Mutex<[Int64]>([])
            let writer = Self.writer(location) { events, _ in published.withLock { $0 += events.map(\.seq) } }
            try await Self.learnQuiet(writer, from: 1)
            #expect(writer.laneStatistics.map(\.operations) == [3, 0, 0, 0], "a site's first writes run on the event lane")
            // 150 quiet writes and 150 that append, all at once.
            let seqs = try await withThrowingTaskGroup(of: Int64?.self) { tasks in
                for id in Int64(100)..<250 { tasks.addTask { try await writer.write(at: Self.quietSite, Self.insertNote(id)) } }
                for id in Int64(1_000)..<1_150 {
                    tasks.addTask { try await writer.write(at: Self.eventSite, Self.insertNote(id, appending: true)) }
                }
                return try await tasks.reduce(into: []) { $0.append($1) }
            }
            #expect(seqs.compactMap { $0 }.count == 150 && seqs.compactMap { $0 }.allSatisfy { $0 < 0 }, "provisional until the tail")
            #expect(published.withLock { $0 } == Array(1...150), "one sequence, published in order")
            let lanes = writer.laneStatistics.map(\.operations)
            #expect(lanes[0] == 3 + 150, "every write that appends ran on the event lane")
            #expect(lanes[1...].reduce(0, +) == 150, "the quiet site's writes ran on the quiet lanes: \(lanes)")
            #expect(lanes[1...].allSatisfy { $0 > 0 }, "spread over the three quiet lanes: \(lanes)")
            #expect(writer.learnedSites == (sites: 2, quiet: 1))
            let (notes, events) = try await Self.rows(location)
            #expect(notes == Array(1...3) + Array(100..<250) + Array(1_000..<1_150))
            #expect(events == Array(1...150))
            try await writer.close()
        }
    }

    @Test func aQuietSiteThatAppendsRunsOnceOnTheEventLaneAndIsLearned() async throws {
        try await TestPostgres.withDatabase { location in
            try await Self.prepare(location)
            let writer = Self.writer(location)
            try await Self.learnQuiet(writer, from: 1)
            _ = try await writer.write(at: Self.eventSite, Self.insertNote(10, appending: true))
            // The quiet site appends this time: refused on the quiet lane (rolled back there), committed on the
            // event lane with the next number.
            _ = try await writer.write(at: Self.quietSite, Self.insertNote(11, appending: true))
            #expect(writer.learnedSites == (sites: 2, quiet: 0), "the site is known to append now")
            // A lane counts the operations its commits held, rolled back or not: the quiet lane's one is the
            // refused attempt.
            #expect(writer.laneStatistics.map(\.operations).reduce(0, +) == 6)
            #expect(writer.laneStatistics[0].operations == 5)
            _ = try await writer.write(at: Self.quietSite, Self.insertNote(12))
            #expect(writer.laneStatistics[0].operations == 6, "and its writes stay on the event lane")
            let (notes, events) = try await Self.rows(location)
            #expect(notes == [1, 2, 3, 10, 11, 12])
            #expect(events == [1, 2])
            try await writer.close()
        }
    }

    @Test func aRefusedAppendTheWorkCatchesStillMovesTheWrite() async throws {
        try await TestPostgres.withDatabase { location in
            try await Self.prepare(location)
            let writer = Self.writer(location)
            try await Self.learnQuiet(writer, from: 1)
            // Work that swallows the append's error: on a quiet lane it would commit its row without the event.
            _ = try await writer.write(at: Self.quietSite) { context in
                let seq = try? context.append(PostgresEventLogTests.event(20, host: "lanes"))
                try context.connection.execute("INSERT INTO note (id, seq) VALUES (20, \(seq))")
                return seq
            }
            let (notes, events) = try await Self.rows(location)
            #expect(notes == [1, 2, 3, 20])
            #expect(events == [1])
            #expect(writer.laneStatistics[0].operations == 4, "it committed on the event lane")
            try await writer.close()
        }
    }

    @Test func aQuietLaneGivesUpARowLockAndTheWriteWaitsOnTheEventLane() async throws {
        try await TestPostgres.withDatabase { location in
            try await Self.prepare(location)
            let writer = Self.writer(location)
            try await Self.learnQuiet(writer, from: 1)
            let holder = try await TestPostgres.connect(location)
            defer { holder.close() }
            let locked = Mutex(false)
            // Another session holds note 1's row lock for a second, ten times the quiet lanes' lock timeout.
            let holding = Task {
                try await TestPostgres.blocking {
                    try holder.transaction {
                        try holder.execute("SELECT 1 FROM note WHERE id = 1 FOR UPDATE")
                        locked.withLock { $0 = true }
                        try holder.execute("SELECT pg_sleep(1)")
                    }
                }
            }
            while !locked.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(10)) }
            let counter = try await writer.write(at: Self.quietSite) { context in
                try context.connection.query("UPDATE note SET counter = counter + 1 WHERE id = 1 RETURNING counter").first?.decode(Int64.self)
            }
            try await holding.value
            #expect(counter == 1, "applied once")
            #expect(writer.laneStatistics[0].operations == 4, "it committed on the event lane")
            #expect(writer.learnedSites == (sites: 1, quiet: 1), "a lock wait does not make the site appending")
            try await writer.close()
        }
    }
}
