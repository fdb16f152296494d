import GuildCore
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import Synchronization

/// One write connection of a ``PostgresWriter``: runs concurrent write operations in shared PostgreSQL
/// transactions ("group commit") on a thread of its own.
///
/// A batch runs first without savepoints (one round trip less per operation); if one of its operations throws,
/// the batch is rolled back and run again with each operation in its own SAVEPOINT, so the one that throws rolls
/// back alone (and gives back the places its events took). An operation may send a statement whose answer it does
/// not read without waiting (``BlockingConnection/send(_:)``; the stores' records do for a membership, a message),
/// so the lane's thread is not woken for each: with savepoints the operation waits for them before it ends, so
/// their error is its own; without, the next statement that waits throws it and the batch runs again with
/// savepoints. An operation that catches a failed statement's error and returns fails all the same (PostgreSQL
/// would only roll back at COMMIT). The transaction's tail, one statement, takes the event log's lock, numbers
/// and inserts the events and their audience rows (``PostgresAudienceRows``) last, and it commits once. A batch with a failing operation costs twice the work:
/// bounded, and rare in practice. No caller returns before the commit holding its operation is durable. When the
/// database cannot be reached, callers get ``PostgresStoreError/unavailable(_:)`` at once instead of waiting: the
/// lane tries to reconnect when a batch comes, at most once per backoff interval (50 ms doubling to 1 s), and
/// recovers by itself when the database returns. A connection lost during COMMIT is ``PostgresStoreError/commitOutcomeUnknown``: the write may or may
/// not have been applied, and the caller is told so.
///
/// A quiet lane (``isQuiet``) never appends events, so it never waits for the event log's lock: an operation that
/// appends is refused there (``PostgresWriteRedirect``) and runs again on the writer's event lane. Its connection
/// also gives up a row lock after ``quietLockTimeout`` (the operation moves to the event lane too), so a wait
/// between lanes ends in that time rather than in PostgreSQL's deadlock check (a second by default).
final class PostgresWriterLane: Sendable {
    private struct Link {
        var connection: BlockingConnection?
        var nextAttempt: ContinuousClock.Instant = .now
        var backoff: Duration = .milliseconds(50)
        var lastError = ""
    }

    /// Whether the lane refuses appends (see the type's description).
    let isQuiet: Bool
    private let location: PostgresLocation
    private let logger: Logger
    private let connectTimeout: TimeAmount?
    private let answerTimeout: TimeAmount
    private let thread: NIOThreadPool
    private let queue: GroupCommitQueue<any PostgresPendingWrite>
    /// Only touched on the lane's thread.
    private let link = Mutex(Link())
    private let counts = Mutex((commits: 0, operations: 0))
    private let committed: @Sendable (_ events: [PostgresEvent], _ changed: Set<RecordKey>) -> Void

    /// How long a quiet lane's statement waits for a row lock before its operation moves to the event lane.
    static let quietLockTimeout = "100ms"

    /// Creates a lane for `location`; it connects when the first write comes.
    /// - Parameter committed: called on the lane's thread after each commit, with the events it appended and
    ///   the records its operations changed, before the operations' callers hear of it.
    init(
        location: PostgresLocation,
        maximumBatch: Int,
        connectTimeout: TimeAmount?,
        answerTimeout: TimeAmount,
        quiet: Bool,
        logger: Logger,
        committed: @escaping @Sendable (_ events: [PostgresEvent], _ changed: Set<RecordKey>) -> Void
    ) {
        self.location = location
        self.isQuiet = quiet
        self.queue = GroupCommitQueue(maximumBatch: maximumBatch)
        self.connectTimeout = connectTimeout
        self.answerTimeout = answerTimeout
        self.logger = logger
        self.committed = committed
        self.thread = NIOThreadPool(numberOfThreads: 1)
        self.thread.start()
    }

    /// Runs `work` in a savepoint of a shared transaction and returns its result once that transaction is
    /// committed.
    func write<T: Sendable>(_ work: @escaping @Sendable (PostgresWriteContext) throws -> T) async throws -> T {
        let operation = PostgresTypedWrite(work)
        if try self.queue.append(operation, closedError: PostgresStoreError.unavailable("the store is closed")) {
            self.thread.submit { _ in self.drain() }
        }
        return try await operation.value()
    }

    /// Writes queued for the lane and not yet taken into a batch.
    var waiting: Int { self.queue.waiting }

    /// Transactions committed so far, and the operations they held.
    var statistics: (commits: Int, operations: Int) { self.counts.withLock { $0 } }

    /// Whether the lane's connection is open (false before the first write and while the database is away).
    var isConnected: Bool { self.link.withLock { $0.connection.map { !$0.isClosed } ?? false } }

    /// Opens the write connection now rather than at the first write, on the calling thread (which waits for
    /// the server): a store that starts connected reports so, and a wrong URL fails at start.
    func connect() throws {
        _ = try self.connection()
    }

    /// Fails writes from now on, closes the connection and stops the lane's thread.
    func close() async throws {
        self.queue.close()
        try await self.thread.shutdownGracefully()
        self.link.withLock { $0.connection?.close() }
    }

    private func drain() {
        while let batch = self.queue.nextBatch() { self.commit(batch) }
    }

    private func commit(_ batch: [any PostgresPendingWrite]) {
        let connection: BlockingConnection
        do {
            connection = try self.connection()
        } catch {
            for operation in batch { operation.failed(error) }
            return
        }
        // First without savepoints: one round trip less per operation, and almost every batch succeeds whole. If
        // an operation fails, the batch is rolled back and run again with a savepoint around each operation, so
        // the failed one rolls back alone.
        var outcome = self.attempt(batch, on: connection, savepoints: false)
        if case .operationFailed = outcome {
            outcome = self.attempt(batch, on: connection, savepoints: true)
        }
        switch outcome {
        case .committed(let events, let changed):
            self.counts.withLock {
                $0.commits += 1
                $0.operations += batch.count
            }
            self.committed(events, changed)
            for operation in batch { operation.committed() }
        case .failed(let error), .operationFailed(let error):
            for operation in batch { operation.failed(error) }
        }
    }

    private enum Attempt {
        case committed([PostgresEvent], Set<RecordKey>)
        /// An operation failed without savepoints: the transaction was rolled back.
        case operationFailed(any Error)
        case failed(any Error)
    }

    private func attempt(_ batch: [any PostgresPendingWrite], on connection: BlockingConnection, savepoints: Bool) -> Attempt {
        let numbering = EventNumbering()
        var changed = Set<RecordKey>()
        var committing = false
        do {
            // Not waited for: the batch's first statement that waits (or the COMMIT) throws its error.
            connection.send("BEGIN")
            for operation in batch {
                let context = PostgresWriteContext(
                    connection: connection,
                    sequence: numbering,
                    mayAppend: !self.isQuiet,
                    waitsForItsStatements: savepoints
                )
                defer { changed.formUnion(context.changed) }
                guard savepoints else {
                    if !operation.run(context) {
                        try connection.execute("ROLLBACK")
                        return .operationFailed(PostgresStoreError.unexpectedReply("an operation failed"))
                    }
                    continue
                }
                let mark = numbering.mark
                try connection.execute("SAVEPOINT operation")
                var failed = !operation.run(context)
                if !failed {
                    do {
                        try connection.execute("RELEASE SAVEPOINT operation")
                    } catch let error where !(connection.isClosed || PostgresStoreError.endsSession(error)) {
                        // One of its statements failed and it did not throw that on: it failed all the same.
                        operation.refuse(
                            PostgresStoreError.unexpectedReply(
                                "a statement of this write failed and the write went on: \(PostgresStoreError.summary(of: error))"
                            )
                        )
                        failed = true
                    }
                }
                if failed {
                    numbering.rollBack(to: mark)
                    try connection.execute("ROLLBACK TO SAVEPOINT operation")
                    try connection.execute("RELEASE SAVEPOINT operation")
                }
            }
            if !savepoints {
                // The last operation's statements sent without waiting: their error is an operation's, so the batch
                // runs again with savepoints rather than failing whole at the COMMIT.
                do {
                    try connection.flush()
                } catch let error where !(connection.isClosed || PostgresStoreError.endsSession(error)) {
                    try connection.execute("ROLLBACK")
                    return .operationFailed(error)
                }
            }
            // The tail, one statement that takes the log's lock and numbers the events, is sent without waiting;
            // COMMIT waits for it and throws its error first.
            let tail = PostgresEventLog.send(numbering.events, audience: numbering.audience, messages: numbering.messages, on: connection)
            committing = true
            guard try connection.commit() else {
                // Rolled back, not committed: a statement failed and an operation did not throw its error on.
                return savepoints ? .failed(BlockingConnection.rolledBackAtCommit) : .operationFailed(BlockingConnection.rolledBackAtCommit)
            }
            guard let tail else { return .committed([], changed) }
            // Answered before the COMMIT was; a reply without the head (a broken server) leaves the events'
            // numbers unknown, and the callers are told what they would be after a lost COMMIT.
            guard let base = try? PostgresEventLog.base(answering: connection.rows(of: tail)) else {
                return .failed(PostgresStoreError.commitOutcomeUnknown)
            }
            return .committed(PostgresEventLog.numbered(numbering.events, base: base), changed)
        } catch {
            if connection.isClosed || PostgresStoreError.endsSession(error) {
                if !connection.isClosed { connection.close() }
                self.dropConnection(error)
                return .failed(
                    committing
                        ? PostgresStoreError.commitOutcomeUnknown
                        : PostgresStoreError.unavailable("the connection to PostgreSQL dropped: \(PostgresStoreError.summary(of: error))")
                )
            }
            _ = try? connection.execute("ROLLBACK")
            // The tail or COMMIT found the transaction failed earlier: an operation's statement, not the tail's.
            if !savepoints && PostgresStoreError.abortedEarlier(error) { return .operationFailed(error) }
            return .failed(error)
        }
    }

    /// The open connection, reconnecting if the backoff allows; throws `unavailable` while the database is away.
    private func connection() throws -> BlockingConnection {
        try self.link.withLock { link in
            if let connection = link.connection, !connection.isClosed { return connection }
            link.connection = nil
            guard ContinuousClock.now >= link.nextAttempt else {
                throw PostgresStoreError.unavailable("PostgreSQL is unreachable (\(link.lastError)); retrying")
            }
            do {
                let connection = try BlockingConnection(
                    self.location,
                    connectTimeout: self.connectTimeout,
                    answerTimeout: self.answerTimeout,
                    logger: self.logger
                )
                if self.isQuiet {
                    do {
                        try connection.execute(PostgresQuery(unsafeSQL: "SET lock_timeout = '\(Self.quietLockTimeout)'"))
                    } catch {
                        connection.close()
                        throw error
                    }
                }
                link.connection = connection
                link.backoff = .milliseconds(50)
                return connection
            } catch {
                link.lastError = PostgresStoreError.summary(of: error)
                link.nextAttempt = .now + link.backoff
                link.backoff = min(link.backoff * 2, .seconds(1))
                self.logger.warning(
                    "PostgreSQL unreachable",
                    metadata: ["database": "\(self.location)", "error": "\(PostgresStoreError.summary(of: error))"]
                )
                throw PostgresStoreError.unavailable("PostgreSQL is unreachable: \(PostgresStoreError.summary(of: error))")
            }
        }
    }

    private func dropConnection(_ error: any Error) {
        self.logger.warning(
            "PostgreSQL connection lost",
            metadata: ["database": "\(self.location)", "error": "\(PostgresStoreError.summary(of: error))"]
        )
        self.link.withLock { $0.connection = nil }
    }
}
