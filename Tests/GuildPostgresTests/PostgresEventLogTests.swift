import Foundation
import GuildCore
import PostgresNIO
import Synchronization
import Testing

@testable import GuildPostgres

/// The shared event log: one gap-free sequence that readers on any host only ever see as a prefix, and
/// followers that deliver it in order, exactly once, across dropped connections.
@Suite(.enabled(if: TestPostgres.isConfigured, "needs the throwaway PostgreSQL that scripts/test starts"), .timeLimit(.minutes(10)))
struct PostgresEventLogTests {
    static func event(_ index: Int, host: String) -> PostgresEvent {
        PostgresEvent(
            topic: EventTopic(area: "group", id: "g\(index % 3)"),
            kind: "test.appended",
            audience: "members",
            time: 1_700_000_000_000 + Int64(index),
            body: Array(#"{"kind":"test.appended","host":"\#(host)","index":\#(index)}"#.utf8)
        )
    }

    /// A migrated database and `count` connections to it.
    static func withLog<T: Sendable>(connections count: Int, _ body: ([BlockingConnection], PostgresLocation) async throws -> T) async throws -> T {
        try await TestPostgres.withDatabase { location in
            var connections: [BlockingConnection] = []
            for _ in 0..<count { connections.append(try await TestPostgres.connect(location)) }
            defer { for connection in connections { connection.close() } }
            _ = try await TestPostgres.blocking { [connections] in try PostgresMigrator.migrate(connections[0]) }
            return try await body(connections, location)
        }
    }

    @Test func appendedEventsReadBackInOrderAsSubscribersSeeThem() async throws {
        try await Self.withLog(connections: 1) { connections, _ in
            let connection = connections[0]
            let appended = try await TestPostgres.blocking {
                try connection.transaction { try PostgresEventLog.append((0..<3).map { Self.event($0, host: "a") }, on: connection) }
            }
            #expect(appended.map(\.seq) == [1, 2, 3])
            let read = try await TestPostgres.blocking { try PostgresEventLog.read(after: 1, limit: 10, on: connection) }
            #expect(read == Array(appended.dropFirst()))
            #expect(String(decoding: read[0].json, as: UTF8.self) == #"{"seq":2,"kind":"test.appended","host":"a","index":1}"#)
            #expect(try await TestPostgres.blocking { try PostgresEventLog.head(on: connection) } == 3)
        }
    }

    /// Every host rebuilds who receives an event written through another from its row alone.
    @Test func anEventsRoutingTravelsWithItsRow() async throws {
        try await Self.withLog(connections: 1) { connections, _ in
            let connection = connections[0]
            var routing = EventRouting(
                addressees: ["u1"],
                joining: ["u2", "u3"],
                leaving: [],
                followersSee: true,
                excluded: ["u4"],
                followersOf: [EventTopic(area: "group", id: "g1")],
                everyone: false
            )
            routing.installations = ["i1"]
            var event = Self.event(0, host: "a")
            event.routing = routing
            _ = try await TestPostgres.blocking { [event] in try connection.transaction { try PostgresEventLog.append([event], on: connection) } }
            let read = try #require(try await TestPostgres.blocking { try PostgresEventLog.read(after: 0, limit: 1, on: connection) }.first)
            let committed = read.committed
            #expect(committed.seq == 1 && committed.topic == event.topic && committed.kind == event.kind)
            #expect(committed.json == read.json)
            #expect(committed.routing.addressees == ["u1"] && committed.routing.joining == ["u2", "u3"])
            #expect(committed.routing.followersSee && !committed.routing.everyone && committed.routing.excluded == ["u4"])
            #expect(committed.routing.followersOf == [EventTopic(area: "group", id: "g1")])
            #expect(committed.routing.installations == ["i1"])
        }
    }

    /// The tail inserts a transaction's events as arrays in one statement, however many: more than the 1,000 one
    /// multi-row INSERT held when each event took seven parameters, bodies of any bytes, read back as written.
    @Test func aTailOfThousandsOfEventsGoesInWholeAndInOrder() async throws {
        try await Self.withLog(connections: 1) { connections, _ in
            let connection = connections[0]
            let events = (0..<2_500).map { Self.event($0, host: "a\u{00e9}\\u0000\u{1F600}") }
            let appended = try await TestPostgres.blocking { try connection.transaction { try PostgresEventLog.append(events, on: connection) } }
            #expect(appended.map(\.seq) == Array(1...2_500))
            let read = try await TestPostgres.blocking { try PostgresEventLog.read(after: 0, limit: 3_000, on: connection) }
            #expect(read == appended)
            #expect(read.last.map { String(decoding: $0.body, as: UTF8.self) }?.contains("\u{00e9}\\u0000\u{1F600}") == true)
            #expect(try await TestPostgres.blocking { try PostgresEventLog.head(on: connection) } == 2_500)
        }
    }

    /// The tail is one statement of several parts, sent without waiting: when one part fails, none of the others'
    /// rows are written (the events, their audience, the head), nor the batch's own rows, every write of the batch
    /// fails, and the log goes on from where it was.
    @Test func aTailWhosePartFailsWritesNoneOfItsParts() async throws {
        try await Self.withLog(connections: 1) { connections, location in
            let connection = connections[0]
            // A row at seq 3 that the head does not count: the batch's third event collides with it.
            _ = try await TestPostgres.blocking {
                try connection.execute("CREATE TABLE item (id bigint PRIMARY KEY, seq bigint NOT NULL)")
                try connection.execute(
                    "INSERT INTO event (seq, topic, kind, audience, body, time) VALUES (3, 'group:g', 'stray', 'members', '\\x7b7d', 0)"
                )
            }
            let writer = PostgresWriterTests.writer(location)
            let outcomes = try await PostgresWriterTests.oneBatch(
                writer,
                [
                    PostgresAudienceRowsTests.append(.memberEnter, users: ["u1"], joined: ["u1"]),
                    PostgresWriterTests.insertItem(1),
                    PostgresAudienceRowsTests.append(.memberEnter, users: ["u2"], joined: ["u2"]),
                ]
            )
            #expect(outcomes.allSatisfy { (try? $0.get()) == nil }, "the batch's tail failed: no write committed")
            let (head, events, subjects, intervals, items) = try await TestPostgres.blocking {
                (
                    try PostgresEventLog.head(on: connection),
                    try connection.query("SELECT seq FROM event ORDER BY seq").map { try $0.decode(Int64.self) },
                    try connection.query("SELECT count(*) FROM event_subject").first?.decode(Int64.self),
                    try connection.query("SELECT count(*) FROM membership_history").first?.decode(Int64.self),
                    try connection.query("SELECT count(*) FROM item").first?.decode(Int64.self)
                )
            }
            #expect(head == 0 && events == [3] && subjects == 0 && intervals == 0 && items == 0)
            // Once the stray row is gone, the same writes go in from the head on.
            _ = try await TestPostgres.blocking { try connection.execute("DELETE FROM event WHERE seq = 2") }
            _ = try await writer.write(PostgresAudienceRowsTests.append(.memberEnter, users: ["u1"], joined: ["u1"]))
            #expect(try await TestPostgres.blocking { try PostgresEventLog.head(on: connection) } == 1)
            try await writer.close()
        }
    }

    @Test func aRolledBackAppendGivesItsNumbersBack() async throws {
        try await Self.withLog(connections: 1) { connections, _ in
            let connection = connections[0]
            struct Abandon: Error {}
            await #expect(throws: Abandon.self) {
                try await TestPostgres.blocking {
                    try connection.transaction {
                        _ = try PostgresEventLog.append([Self.event(0, host: "a")], on: connection)
                        throw Abandon()
                    }
                }
            }
            let appended = try await TestPostgres.blocking {
                try connection.transaction { try PostgresEventLog.append([Self.event(1, host: "a")], on: connection) }
            }
            #expect(appended.map(\.seq) == [1])
        }
    }

    /// The mechanism itself: while one transaction holds appended but uncommitted events, another cannot number
    /// its own, so no later number can be committed before an earlier one.
    @Test func aSecondAppendWaitsForTheFirstTransactionToEnd() async throws {
        try await Self.withLog(connections: 2) { connections, _ in
            let (first, second) = (connections[0], connections[1])
            try await TestPostgres.blocking {
                try first.execute("BEGIN")
                _ = try PostgresEventLog.append([Self.event(0, host: "a")], on: first)
                try second.execute("BEGIN")
                try second.execute("SET LOCAL lock_timeout = '300ms'")
            }
            await #expect(throws: PSQLError.self) {
                try await TestPostgres.blocking { _ = try PostgresEventLog.append([Self.event(1, host: "b")], on: second) }
            }
            try await TestPostgres.blocking {
                try second.execute("ROLLBACK")
                try first.execute("COMMIT")
            }
            let next = try await TestPostgres.blocking {
                try second.transaction { try PostgresEventLog.append([Self.event(1, host: "b")], on: second) }
            }
            #expect(next.map(\.seq) == [2])
        }
    }

    /// Two hosts append concurrently, each transaction lingering after its append so commits interleave; a
    /// reader that keeps reading `seq > cursor` must see every number once, in order, never skipping one.
    @Test func concurrentWritersOnTwoHostsNeverShowAReaderAGap() async throws {
        try await Self.withLog(connections: 3) { connections, _ in
            let perHost = 150
            let done = WritersDone()
            let observed = try await withThrowingTaskGroup(of: [Int64].self) { tasks in
                for (host, connection) in connections.prefix(2).enumerated() {
                    tasks.addTask {
                        try await TestPostgres.blocking {
                            defer { done.count.add(1, ordering: .relaxed) }
                            for index in 0..<perHost {
                                try connection.transaction {
                                    let count = 1 + index % 3
                                    _ = try PostgresEventLog.append((0..<count).map { Self.event(index * 3 + $0, host: "h\(host)") }, on: connection)
                                    if index % 4 == 0 { usleep(UInt32.random(in: 200...2_000)) }
                                }
                            }
                            return []
                        }
                    }
                }
                let reader = connections[2]
                tasks.addTask {
                    try await TestPostgres.blocking {
                        var seen: [Int64] = []
                        var cursor: Int64 = 0
                        while true {
                            let finished = done.count.load(ordering: .relaxed) == 2
                            let events = try PostgresEventLog.read(after: cursor, limit: 100, on: reader)
                            seen += events.map(\.seq)
                            cursor = events.last?.seq ?? cursor
                            if finished, events.isEmpty { return seen }
                        }
                    }
                }
                return try await tasks.reduce(into: []) { $0 += $1 }
            }
            let total = 2 * (0..<perHost).reduce(0) { $0 + 1 + $1 % 3 }
            #expect(observed.count == total)
            #expect(observed == Array(1...Int64(total)), "the reader skipped or repeated a number")
        }
    }

    /// What the head row prevents: with a plain sequence, a later number commits first and a reader moves past
    /// the earlier one, which then appears behind its cursor.
    @Test func aPlainSequenceWouldLetAReaderSkip() async throws {
        try await Self.withLog(connections: 3) { connections, _ in
            let (first, second, reader) = (connections[0], connections[1], connections[2])
            let seen = try await TestPostgres.blocking {
                try first.execute("CREATE SEQUENCE plain_seq")
                try first.execute("CREATE TABLE plain_event (seq bigint PRIMARY KEY)")
                try first.execute("BEGIN")
                try first.execute("INSERT INTO plain_event VALUES (nextval('plain_seq'))")  // takes 1
                try second.execute("INSERT INTO plain_event VALUES (nextval('plain_seq'))")  // takes 2, commits
                let seen = try reader.query("SELECT seq FROM plain_event WHERE seq > 0 ORDER BY seq").map { try $0.decode(Int64.self) }
                try first.execute("COMMIT")
                return seen
            }
            #expect(seen == [2], "a reader at cursor 2 would never read 1")
        }
    }

    /// A follower on host B delivers host A's and B's writes in order, exactly once, even when its connection is
    /// killed mid-stream (the lost notifications cost latency: it reconnects and reads from its cursor).
    @Test func aFollowerDeliversEveryEventOnceAcrossADroppedConnection() async throws {
        try await Self.withLog(connections: 3) { connections, location in
            var followerLocation = location
            followerLocation.applicationName = "guild-follower-test"
            let delivered = Mutex<[Int64]>([])
            let follower = PostgresEventFollower(
                location: followerLocation,
                after: 0,
                pollInterval: .milliseconds(100),
                batchSize: 16,
                logger: TestPostgres.logger
            ) { events in delivered.withLock { $0 += events.map(\.seq) } }
            let following = Task { await follower.run() }
            defer { following.cancel() }
            func write(_ count: Int, from connection: BlockingConnection, host: String) async throws {
                try await TestPostgres.blocking {
                    for index in 0..<count {
                        _ = try connection.transaction { try PostgresEventLog.append([Self.event(index, host: host)], on: connection) }
                    }
                }
            }
            async let a: Void = write(100, from: connections[0], host: "a")
            async let b: Void = write(100, from: connections[1], host: "b")
            try await a
            try await b
            try await Self.eventually { delivered.withLock { $0.count } >= 100 }
            let killed = try await TestPostgres.blocking {
                try connections[2].query(
                    "SELECT count(pg_terminate_backend(pid))::bigint FROM pg_stat_activity WHERE application_name = 'guild-follower-test'"
                ).first?.decode(Int64.self)
            }
            #expect(killed == 1)
            try await write(50, from: connections[0], host: "a")
            try await Self.eventually { delivered.withLock { $0.count } >= 250 }
            #expect(delivered.withLock { $0 } == Array(1...250))
            #expect(follower.connects >= 2)
            #expect(follower.cursor == 250)
            // Dozens of reads on the connection it has now (batches of 16, a poll each 100 ms): none of them is
            // held once answered, only the one in flight if any.
            #expect(follower.readsInProgress <= 1)
        }
    }

    static func eventually(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while !condition(), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
    }
}

/// How many writers have finished, shared by the tasks of one test.
final class WritersDone: Sendable {
    let count = Atomic<Int>(0)
}
