import Foundation
import GuildCore
import GuildPostgres
import GuildTestSupport
import PostgresNIO
import Synchronization
import Testing

/// Group commit on PostgreSQL: many callers' writes in few commits, each answered after its commit, one that
/// fails rolled back alone; an outage is a clear error at once, and the writer recovers by itself.
@Suite(.enabled(if: TestPostgres.isConfigured, "needs the throwaway PostgreSQL that scripts/test starts"), .timeLimit(.minutes(10)))
struct PostgresWriterTests {
    static func writer(
        _ location: PostgresLocation,
        committed: @escaping @Sendable ([PostgresEvent], Set<RecordKey>) -> Void = { _, _ in }
    ) -> PostgresWriter {
        PostgresWriter(location: location, logger: TestPostgres.logger, committed: committed)
    }

    static func prepare(_ location: PostgresLocation) async throws {
        let connection = try await TestPostgres.connect(location)
        defer { connection.close() }
        try await TestPostgres.blocking {
            _ = try PostgresMigrator.migrate(connection)
            try connection.execute("CREATE TABLE item (id bigint PRIMARY KEY, seq bigint NOT NULL)")
        }
    }

    /// The items stored (`insertItem`'s rows) and the log's event numbers, each in order.
    static func stored(_ location: PostgresLocation) async throws -> (ids: [Int64], seqs: [Int64]) {
        let connection = try await TestPostgres.connect(location)
        defer { connection.close() }
        return try await TestPostgres.blocking {
            let ids = try connection.query("SELECT id FROM item ORDER BY id").map { try $0.decode(Int64.self) }
            return (ids, try PostgresEventLog.read(after: 0, limit: 100, on: connection).map(\.seq))
        }
    }

    /// Inserts item `id` and appends its event (whose body's `index` is `id`); returns the number that stands for
    /// the event in its transaction (``PostgresWriteContext/append(_:)``).
    static func insertItem(_ id: Int64, failing: Bool = false) -> @Sendable (PostgresWriteContext) throws -> Int64 {
        { context in
            let seq = try context.append(PostgresEventLogTests.event(Int(id), host: "w"))
            try context.connection.execute("INSERT INTO item (id, seq) VALUES (\(id), \(seq))")
            struct Refused: Error {}
            if failing { throw Refused() }
            return seq
        }
    }

    @Test func concurrentWritesShareCommitsAndNumberTheirEventsInOrder() async throws {
        try await TestPostgres.withDatabase { location in
            try await Self.prepare(location)
            let published = Mutex<[Int64]>([])
            let writer = Self.writer(location) { events, _ in published.withLock { $0 += events.map(\.seq) } }
            try await withThrowingTaskGroup(of: Int64.self) { tasks in
                for id in 1...200 { tasks.addTask { try await writer.write(Self.insertItem(Int64(id))) } }
                try await tasks.waitForAll()
            }
            #expect(published.withLock { $0 } == Array(1...200))
            let (commits, operations) = writer.statistics
            #expect(operations == 200)
            #expect(commits < 200, "200 concurrent writes took \(commits) commits")
            let connection = try await TestPostgres.connect(location)
            defer { connection.close() }
            // Every reply came after its commit: each item's row and its own event are there.
            let rows = try await TestPostgres.blocking {
                try connection.query(
                    "SELECT count(*)::bigint FROM item JOIN event ON (convert_from(event.body, 'UTF8')::jsonb ->> 'index')::bigint = item.id"
                ).first?.decode(Int64.self)
            }
            #expect(rows == 200)
            try await writer.close()
        }
    }

    /// The log's lock is taken by a transaction's tail, not by its first append: while one host's operation runs
    /// after appending (its transaction open, its events not numbered yet), another host's write that appends
    /// commits, and takes the number before it.
    @Test func anotherHostCommitsWhileATransactionThatAppendedIsStillOpen() async throws {
        try await TestPostgres.withDatabase { location in
            try await Self.prepare(location)
            let (first, second) = (Self.writer(location), Self.writer(location))
            let hold = Hold()
            let held = Task {
                try await first.write { context in
                    let seq = try context.append(PostgresEventLogTests.event(1, host: "first"))
                    try context.connection.execute("INSERT INTO item (id, seq) VALUES (1, \(seq))")
                    return try hold.work(context)
                }
            }
            try #require(try await Eventually.until { hold.holding })
            // When the first append took the lock, this waited for the held transaction to end (a minute: the
            // hold's own bound), and the wait below, half of that, ends first.
            let done = Mutex(false)
            let other = Task {
                _ = try await second.write(Self.insertItem(2))
                done.withLock { $0 = true }
            }
            let committed = try await Eventually.until(timeout: .seconds(30)) { done.withLock { $0 } }
            #expect(committed, "the second host committed while the first host's transaction was open")
            hold.release()
            _ = try await held.value
            _ = try await other.value
            let connection = try await TestPostgres.connect(location)
            defer { connection.close() }
            let events = try await TestPostgres.blocking { try PostgresEventLog.read(after: 0, limit: 10, on: connection) }
            #expect(events.map(\.seq) == [1, 2])
            #expect(events.map { String(decoding: $0.body, as: UTF8.self).contains("\"host\":\"first\"") } == [false, true])
            try await first.close()
            try await second.close()
        }
    }

    /// A group message stores its event's number (a recall rewrites that event): written in the batch that
    /// appends the event, the row holds the number the tail gives it, however many messages the batch holds, a
    /// message recalled in the same batch has its event's kept body rewritten, and a recall that fails after its
    /// rewrite leaves the body as it was.
    @Test func aMessageWrittenWithItsEventHoldsTheNumberTheTailGives() async throws {
        try await TestPostgres.withDatabase { location in
            try await Self.prepare(location)
            let connection = try await TestPostgres.connect(location)
            defer { connection.close() }
            _ = try await TestPostgres.blocking {
                try connection.execute(
                    "INSERT INTO \"group\" (id, name, type, created_at, modified_at) VALUES ('g', '\\x67'::bytea, 'Work', 0, 0)"
                )
            }
            let writer = Self.writer(location)
            _ = try await writer.write(Self.insertItem(1))
            @Sendable func send(_ seq: Int64, recalled: Bool = false) -> @Sendable (PostgresWriteContext) throws -> Int64 {
                { context in
                    let tx = PostgresTransaction(context)
                    let event = GroupEvent(kind: .newMessage, groupID: "g", actor: "u1", users: [], time: seq)
                    let eventSeq = try tx.append(event)
                    try tx.messages.insertMessage(
                        StoredMessage(
                            groupID: "g",
                            seq: seq,
                            msgID: "m\(seq)",
                            sender: "u1",
                            time: seq,
                            priority: .normal,
                            body: MessageBody(text: "text \(seq)"),
                            eventSeq: eventSeq
                        )
                    )
                    if recalled {
                        let stored = try #require(try tx.messages.messages(groupID: "g", in: seq...seq, descending: false, limit: 1).first)
                        try tx.rewrite(stored.eventSeq, as: GroupEvent(kind: .newMessage, groupID: "g", actor: "recalled", users: [], time: seq))
                    }
                    return eventSeq
                }
            }
            let failingRecall: @Sendable (PostgresWriteContext) throws -> Int64 = { context in
                let tx = PostgresTransaction(context)
                let stored = try #require(try tx.messages.messages(groupID: "g", in: 1...1, descending: false, limit: 1).first)
                try tx.rewrite(stored.eventSeq, as: GroupEvent(kind: .newMessage, groupID: "g", actor: "recalled", users: [], time: 1))
                struct Refused: Error {}
                throw Refused()
            }
            let outcomes = try await Self.oneBatch(writer, [send(1), send(2, recalled: true), failingRecall, send(3)])
            #expect(outcomes.map { (try? $0.get()) != nil } == [true, true, false, true])
            let (messages, events) = try await TestPostgres.blocking {
                (
                    try connection.query("SELECT seq, event_seq FROM group_message ORDER BY seq").map { try $0.decode((Int64, Int64).self) },
                    try PostgresEventLog.read(after: 0, limit: 10, on: connection)
                )
            }
            #expect(messages.map(\.0) == [1, 2, 3] && messages.map(\.1) == [2, 3, 4], "the item's event is 1")
            let actors = events.map { String(decoding: $0.body, as: UTF8.self) }.map { $0.contains("\"actor\":\"recalled\"") }
            #expect(actors == [false, false, true, false], "only the recalled message's event was rewritten")
            try await writer.close()
        }
    }

    /// Holds the writer's event lane (a write that does not return) until the test lets it go.
    final class Hold: Sendable {
        private let state = Mutex((holding: false, released: false))
        var holding: Bool { self.state.withLock { $0.holding } }
        func release() { self.state.withLock { $0.released = true } }

        /// The held write: returns once released (or after a minute, which only catches a hang).
        func work(_ context: PostgresWriteContext) throws -> Int64 {
            self.state.withLock { $0.holding = true }
            let deadline = ContinuousClock.now + .seconds(60)
            while !self.state.withLock({ $0.released }) && ContinuousClock.now < deadline { usleep(1_000) }
            return 0
        }
    }

    /// Runs `works` as one batch of the writer's event lane, in this order: a held write keeps the lane busy
    /// until each is queued behind it (counted, not timed), then lets the batch go. Each write's outcome.
    static func oneBatch(
        _ writer: PostgresWriter,
        _ works: [@Sendable (PostgresWriteContext) throws -> Int64]
    ) async throws -> [Result<Int64, any Error>] {
        let hold = Hold()
        let holder = Task { try await writer.write(hold.work) }
        try #require(try await Eventually.until(every: .milliseconds(1)) { hold.holding })
        var writes: [Task<Int64, any Error>] = []
        for (index, work) in works.enumerated() {
            writes.append(Task { try await writer.write(work) })
            try #require(try await Eventually.until(every: .milliseconds(1)) { writer.waitingPerLane[0] == index + 1 })
        }
        hold.release()
        _ = try await holder.value
        var outcomes: [Result<Int64, any Error>] = []
        for write in writes { outcomes.append(await write.result) }
        return outcomes
    }

    /// Inserts item `id` and appends its event; its INSERT of item 0, which the test stores first, is
    /// sent without waiting and fails (a duplicate key) after the write's code has returned.
    static func insertItemSendingADuplicate(_ id: Int64) -> @Sendable (PostgresWriteContext) throws -> Int64 {
        { context in
            let seq = try Self.insertItem(id)(context)
            context.connection.send("INSERT INTO item (id, seq) VALUES (0, 0)")
            return seq
        }
    }

    /// Inserts item `id` and appends nothing.
    static func insertItemWithoutEvent(_ id: Int64) -> @Sendable (PostgresWriteContext) throws -> Int64 {
        { context in
            try context.connection.execute("INSERT INTO item (id, seq) VALUES (\(id), 0)")
            return 0
        }
    }

    @Test func aFailingOperationRollsBackAloneAndGivesItsNumberBack() async throws {
        try await TestPostgres.withDatabase { location in
            try await Self.prepare(location)
            let writer = Self.writer(location)
            // The three share one transaction; the middle one fails.
            let outcomes = try await Self.oneBatch(writer, [Self.insertItem(1), Self.insertItem(2, failing: true), Self.insertItem(3)])
            #expect(outcomes.map { (try? $0.get()) != nil } == [true, false, true])
            let (commits, operations) = writer.statistics
            #expect(commits == 2 && operations == 4, "the three shared a transaction")
            let (items, events) = try await Self.stored(location)
            #expect(items == [1, 3])
            #expect(events == [1, 2], "the failed operation's number was given back: no gap")
            try await writer.close()
        }
    }

    /// A statement an operation sends without waiting (``BlockingConnection/send(_:)``) that fails is that
    /// operation's failure alone, wherever it is in its batch: first, in the middle, or last (whose statements the
    /// lane waits for before the batch's tail).
    @Test(arguments: [0, 1, 2])
    func aFailedStatementSentWithoutWaitingFailsItsOperationAlone(failing: Int) async throws {
        try await TestPostgres.withDatabase { location in
            try await Self.prepare(location)
            let connection = try await TestPostgres.connect(location)
            _ = try await TestPostgres.blocking { try connection.execute("INSERT INTO item (id, seq) VALUES (0, 0)") }
            connection.close()
            let writer = Self.writer(location)
            let works = (1...3).map { id in id - 1 == failing ? Self.insertItemSendingADuplicate(Int64(id)) : Self.insertItem(Int64(id)) }
            let outcomes = try await Self.oneBatch(writer, works)
            #expect(outcomes.map { (try? $0.get()) != nil } == (0..<3).map { $0 != failing })
            #expect(throws: PSQLError.self) { try outcomes[failing].get() }
            if case .failure(let error as PSQLError) = outcomes[failing] { #expect(error.serverInfo?[.sqlState] == "23505") }
            #expect(writer.statistics.commits == 2 && writer.statistics.operations == 4, "the three shared a transaction")
            let (items, events) = try await Self.stored(location)
            #expect(items == [0] + (1...3).filter { $0 - 1 != failing })
            #expect(events == [1, 2], "the failed operation's number was given back: no gap")
            try await writer.close()
        }
    }

    /// An operation that catches the failure of one of its statements and returns as if it had worked: PostgreSQL
    /// answers the COMMIT of such a transaction with "ROLLBACK" and no error. Nothing of it may be acknowledged;
    /// the writes beside it still commit.
    @Test(arguments: [false, true])
    func aWriteThatSwallowsAFailedStatementIsNotAcknowledged(appends: Bool) async throws {
        try await TestPostgres.withDatabase { location in
            try await Self.prepare(location)
            let writer = Self.writer(location)
            let swallowing: @Sendable (PostgresWriteContext) throws -> Int64 = { context in
                _ = try? context.connection.execute("SELECT 1 / 0")
                return 0
            }
            let outcomes = try await Self.oneBatch(writer, [appends ? Self.insertItem(1) : Self.insertItemWithoutEvent(1), swallowing])
            #expect(outcomes.map { (try? $0.get()) != nil } == [true, false])
            let (items, _) = try await Self.stored(location)
            #expect(items == [1])
            // A transaction of its own: its COMMIT answers ROLLBACK, and the caller hears it failed.
            await #expect(throws: PostgresStoreError.self) { _ = try await writer.write(swallowing) }
            try await writer.close()
        }
    }

    @Test func anUnreachableDatabaseIsAnErrorAtOnceNotAHang() async throws {
        let nowhere = try PostgresLocation(url: "postgresql://guild@/guild?host=/tmp/no-such-postgres", environment: [:])
        let writer = Self.writer(nowhere)
        let started = ContinuousClock.now
        await #expect {
            _ = try await writer.write(Self.insertItem(1))
        } throws: { error in
            guard case .unavailable(let reason)? = error as? PostgresStoreError else { return false }
            return reason.contains("unreachable")
        }
        // Within the backoff, the next write fails without trying again.
        await #expect(throws: PostgresStoreError.self) { _ = try await writer.write(Self.insertItem(2)) }
        // Answered, not hung: a refused connection fails at once; the bound only catches a hang.
        #expect(ContinuousClock.now - started < .seconds(60))
        try await writer.close()
    }

    /// Statements sent without waiting (BEGIN, the batch's tail): one that fails is the error of the next call
    /// that waits, never a COMMIT that only rolled back. A tail that fails through the writer:
    /// `PostgresEventLogTests.aTailWhosePartFailsWritesNoneOfItsParts`.
    @Test func aFailedStatementSentWithoutWaitingFailsTheWaitAfterIt() async throws {
        try await TestPostgres.withDatabase { location in
            try await Self.prepare(location)
            let connection = try await TestPostgres.connect(location)
            defer { connection.close() }
            try await TestPostgres.blocking {
                try connection.execute("INSERT INTO item (id, seq) VALUES (1, 0)")
                connection.send("BEGIN")
                connection.send("INSERT INTO item (id, seq) VALUES (1, 1)")
                #expect {
                    try connection.execute("COMMIT")
                } throws: { error in
                    (error as? PSQLError)?.serverInfo?[.sqlState] == "23505"
                }
                // The connection goes on: nothing is left unanswered.
                #expect(try connection.query("SELECT count(*)::bigint FROM item").first?.decode(Int64.self) == 1)
            }
        }
    }

    /// PostgreSQL crashes (immediate stop) and comes back: writes meanwhile fail with a clear error, the writer
    /// reconnects by itself, and nothing acknowledged before the crash is lost.
    @Test func aCrashedDatabaseComesBackAndTheWriterRecovers() async throws {
        let server = try await TestPostgres.blocking { try OwnPostgresServer() }
        defer { server.remove() }
        let location = try PostgresLocation(url: server.url)
        try await Self.prepare(location)
        let writer = Self.writer(location)
        for id in 1...20 { _ = try await writer.write(Self.insertItem(Int64(id))) }
        try await TestPostgres.blocking { try server.crash() }
        await #expect(throws: PostgresStoreError.self) { _ = try await writer.write(Self.insertItem(21)) }
        #expect(!writer.isConnected)
        try await TestPostgres.blocking { try server.restart() }
        let recovered = try await Eventually.until(timeout: .seconds(20), every: .milliseconds(100)) {
            (try? await writer.write(Self.insertItem(22))) != nil
        }
        #expect(recovered)
        let (ids, seqs) = try await Self.stored(location)
        #expect(ids == Array(1...20) + [22])
        #expect(seqs == Array(1...21), "the events stay gap-free across the crash")
        try await writer.close()
    }

    /// A frozen server (its processes stopped; a partition looks the same): a write is answered `unavailable` once
    /// the answer timeout has passed instead of waiting as long as TCP would, a reconnect while it stays frozen
    /// fails within the connect timeout, and once it goes on the writer recovers by itself with nothing
    /// acknowledged lost and the events gap-free.
    @Test func aFrozenServerIsUnavailableWithinTheAnswerTimeoutAndTheWriterRecovers() async throws {
        let server = try await TestPostgres.blocking { try OwnPostgresServer() }
        defer {
            server.thaw()
            server.remove()
        }
        let location = try PostgresLocation(url: server.url)
        try await Self.prepare(location)
        // The connect timeout is not what the test measures (a frozen server's handshake fails whatever it is), and
        // the first connect must not fail on a busy machine: 5 s, not 1.
        let writer = PostgresWriter(location: location, connectTimeout: .seconds(5), answerTimeout: .seconds(1), logger: TestPostgres.logger)
        for id in 1...10 { _ = try await writer.write(Self.insertItem(Int64(id))) }
        try await TestPostgres.blocking { try server.freeze() }
        let refused = await #expect(throws: PostgresStoreError.self, "a write to a frozen server succeeded") {
            _ = try await writer.write(Self.insertItem(11))
        }
        guard case .unavailable(let reason)? = refused else {
            Issue.record("expected unavailable, got \(String(describing: refused))")
            return
        }
        #expect(reason.contains("did not answer within 1 s"), "\(reason)")
        #expect(!writer.isConnected)
        // Still frozen: the reconnect's handshake gets no answer either.
        await #expect(throws: PostgresStoreError.self) { _ = try await writer.write(Self.insertItem(12)) }
        server.thaw()
        let recovered = try await Eventually.until(timeout: .seconds(20), every: .milliseconds(100)) {
            (try? await writer.write(Self.insertItem(13))) != nil
        }
        #expect(recovered, "the writer writes again once the server goes on")
        let (ids, seqs) = try await Self.stored(location)
        #expect(ids == Array(1...10) + [13])
        #expect(seqs == Array(1...11), "the events stay gap-free across the freeze")
        try await writer.close()
    }
}
