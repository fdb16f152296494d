import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import Synchronization

/// One PostgreSQL connection whose calls return when the server has answered, for the store's own threads.
///
/// ``Store`` runs transaction bodies synchronously on threads of its own, never on Swift's cooperative pool
/// or an event loop (protocol/liveness.md); a body that reads or writes PostgreSQL waits here for each reply.
/// Calling it on an event loop would deadlock that loop, so it refuses to.
public final class BlockingConnection: Sendable {
    private let connection: PostgresConnection
    private let logger: Logger
    /// Statements sent with ``send(_:)`` and not yet waited for, oldest first.
    private let unanswered = Mutex<[StatementAnswer]>([])
    /// Every statement from its hand-over to its answer (see ``wait(for:)``), failed when the connection closes.
    private let waits: ConnectionWaits

    /// How long a wait may last before the connection is taken for lost (see ``init(_:group:connectTimeout:answerTimeout:logger:)``).
    private let answerTimeout: TimeAmount?
    /// When the wait in progress began (`NIODeadline.now()` in ns), 0 when none is: read by the watchdog.
    private let waitingSince = Atomic<UInt64>(0)
    /// The watchdog's repeated check, while the connection is open.
    private let watchdog = Mutex<RepeatedTask?>(nil)

    /// The default ``answerTimeout``: a server that has not answered a statement in 30 s is frozen or cut off
    /// (no statement of the store's waits that long on a live server: batches are short, reads are paged).
    public static let defaultAnswerTimeout: TimeAmount = .seconds(30)

    /// The server process serving this connection (`pg_backend_pid()`), to tell connections apart.
    public let backendPID: Int32

    /// Connects to `location`, with the password from its password file if it has one.
    ///
    /// A server that accepts the connection and then says nothing (stopped, or cut off behind a network that drops
    /// packets) fails the connect after `connectTimeout` (nil: the location's, ``PostgresLocation/connectTimeout``),
    /// the handshake included. Once connected, a statement not answered within `answerTimeout` closes the
    /// connection: every wait on it fails with ``PostgresStoreError/unavailable(_:)`` (its caller, a lane,
    /// reconnects for the next batch), instead of waiting as long as TCP would. Nil waits for ever: for the
    /// migrator, whose advisory lock waits for another host's migration.
    public init(
        _ location: PostgresLocation,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        connectTimeout: TimeAmount? = nil,
        answerTimeout: TimeAmount? = BlockingConnection.defaultAnswerTimeout,
        logger: Logger
    ) throws {
        let connectTimeout = connectTimeout ?? TimeAmount(location.connectTimeout)
        let configuration = try location.connectionConfiguration(connectTimeout: connectTimeout)
        let eventLoop = group.any()
        precondition(!eventLoop.inEventLoop, "a blocking PostgreSQL connection is never opened on an event loop")
        do {
            let connecting = PostgresConnection.connect(
                on: eventLoop,
                configuration: configuration,
                id: BlockingConnection.nextID.add(1, ordering: .relaxed).newValue,
                logger: logger
            )
            // A connection that comes after the deadline is closed, not leaked.
            self.connection = try Self.result(of: connecting, within: connectTimeout, what: "the connection's handshake") {
                $0.closeKeepingAlive()
            }
        } catch {
            throw PostgresStoreError.connecting(error, to: location)
        }
        self.logger = logger
        self.answerTimeout = answerTimeout
        // A query issued while the server is ending the session (`pg_ctl restart -m fast` sends FATAL, then closes)
        // may never be answered: every wait ends when the connection closes.
        self.waits = ConnectionWaits(closeFuture: self.connection.closeFuture, closedUnanswered: Self.closedUnanswered)
        do {
            let rows = try Self.result(
                of: self.connection.query("SELECT pg_backend_pid(), current_setting('synchronous_commit')", logger: logger),
                within: connectTimeout,
                what: "the connection's first query"
            ).rows
            guard let (pid, synchronousCommit) = try rows.first?.decode((Int32, String).self) else {
                throw PostgresStoreError.unexpectedReply("no backend pid")
            }
            self.backendPID = pid
            // A commit must be durable before its caller hears of it. A server, database or role whose default
            // is `off` would answer before the WAL reaches the disk: this session commits with `on`. Any other
            // value (`local`, `remote_write`, `on`, `remote_apply`) already waits for the local flush; it is kept.
            if synchronousCommit == "off" {
                _ = try self.connection.query("SET synchronous_commit = on", logger: logger).wait()
            }
        } catch {
            _ = try? self.connection.close().wait()
            throw error
        }
        if let answerTimeout {
            // Checked four times per timeout (at most once a second, at least every 50 ms): a wait ends between
            // 1.0 and 1.25 timeouts after it began. A wait costs two atomic stores; the check, one timer.
            let check = TimeAmount.nanoseconds(min(max(answerTimeout.nanoseconds / 4, 50_000_000), 1_000_000_000))
            let task = self.connection.eventLoop.scheduleRepeatedTask(initialDelay: check, delay: check) { [weak self] task in
                guard let self else { return task.cancel() }
                self.closeIfUnanswered(after: answerTimeout)
            }
            self.watchdog.withLock { $0 = task }
            self.connection.closeFuture.whenComplete { _ in task.cancel() }
        }
    }

    /// `future`'s value, or a failure once `timeout` has passed without it; `late` gets a value that comes after
    /// that (to close it).
    private static func result<T: Sendable>(
        of future: EventLoopFuture<T>,
        within timeout: TimeAmount,
        what: String,
        late: @escaping @Sendable (T) -> Void = { _ in }
    ) throws -> T {
        try future.within(
            timeout,
            orFail: { PostgresStoreError.unavailable("PostgreSQL did not answer \(what) within \(timeout.inWords)") },
            late: late
        ).wait()
    }

    /// Closes the connection when the wait in progress began more than `timeout` ago: the server is frozen or
    /// cut off, and the waiting thread is answered ``PostgresStoreError/unavailable(_:)`` now.
    private func closeIfUnanswered(after timeout: TimeAmount) {
        let since = self.waitingSince.load(ordering: .relaxed)
        guard since != 0, NIODeadline.now().uptimeNanoseconds &- since > UInt64(timeout.nanoseconds) else { return }
        let reason = PostgresStoreError.unavailable("PostgreSQL did not answer within \(timeout.inWords)")
        guard self.waits.close(because: reason) else { return }
        self.logger.warning(
            "PostgreSQL did not answer; closing the connection",
            metadata: ["backend_pid": "\(self.backendPID)", "timeout": "\(timeout.inWords)"]
        )
        self.connection.closeKeepingAlive()
    }

    private static let nextID = Atomic<Int>(0)

    deinit {
        self.watchdog.withLock { $0?.cancel() }
        // postgres-nio requires a connection to be closed before it is released.
        if !self.connection.isClosed { self.connection.closeKeepingAlive() }
    }

    /// Runs `query` and returns its rows once the server has sent them all (after every statement sent before it).
    @discardableResult
    public func query(_ query: PostgresQuery) throws -> [PostgresRow] {
        try self.answer(self.issue(query)).rows
    }

    /// Runs `query`; returns how many rows it changed.
    @discardableResult
    public func execute(_ query: PostgresQuery) throws -> Int {
        try self.answer(self.issue(query)).metadata.rows ?? 0
    }

    /// Hands `query` to postgres-nio on the connection's event loop, with what takes its answer: one task on the
    /// loop per statement, which postgres-nio's own call from this thread would make anyway; its answer is given
    /// to the ``StatementAnswer`` there, or a failure if the connection closes first.
    private func issue(_ query: PostgresQuery) -> StatementAnswer {
        let answer = StatementAnswer()
        let (connection, logger, waits) = (self.connection, self.logger, self.waits)
        connection.eventLoop.execute {
            waits.whenAnswered(connection.query(query, logger: logger)) { answer.give($0) }
        }
        return answer
    }

    /// Sends `query` without waiting for its answer: postgres-nio sends it when the statement before it is
    /// answered, on its event loop, so the calling thread is not woken for it. The next call that waits
    /// (``query(_:)``, ``execute(_:)``, ``flush()``) waits for it too and throws its error first: a failed statement
    /// aborts the transaction, and what follows it fails for that reason. Its rows, for the caller that reads
    /// them once a later call has waited: ``rows(of:)``.
    @discardableResult
    public func send(_ query: PostgresQuery) -> Sent {
        let answer = self.issue(query)
        self.unanswered.withLock { $0.append(answer) }
        return Sent(answer: answer)
    }

    /// A statement sent with ``send(_:)``, whose rows may be read later.
    public struct Sent: Sendable {
        fileprivate let answer: StatementAnswer
    }

    /// The rows `sent` returned; waits for them if no call has waited past it yet.
    public func rows(of sent: Sent) throws -> [PostgresRow] {
        try self.wait(for: sent.answer).rows
    }

    /// Waits for the statements sent with ``send(_:)``; throws the first error among them.
    public func flush() throws {
        let answers = self.unanswered.withLock { unanswered in
            defer { unanswered.removeAll() }
            return unanswered
        }
        var firstError: (any Error)?
        for answer in answers {
            do {
                _ = try self.wait(for: answer)
            } catch {
                if firstError == nil { firstError = error }
            }
        }
        if let firstError { throw firstError }
    }

    /// The result of `answer`, a statement issued after every one sent before it: their errors come first.
    private func answer(_ answer: StatementAnswer) throws -> PostgresQueryResult {
        let earlier = Result { try self.flush() }
        let own = Result { try self.wait(for: answer) }
        try earlier.get()
        return try own.get()
    }

    /// What a wait throws when the connection closed without answering.
    static let closedUnanswered = PostgresStoreError.unavailable("PostgreSQL closed the connection before answering")

    /// The result of `answer`, or ``closedUnanswered`` as soon as the connection closes without answering it.
    /// Bounded: a statement is held in ``waits`` only until it is answered.
    private func wait(for answer: StatementAnswer) throws -> PostgresQueryResult {
        // The answer comes on an event loop: waiting on one could wait for ever (as `EventLoopFuture.wait()` checks).
        precondition(MultiThreadedEventLoopGroup.currentEventLoop == nil, "a blocking PostgreSQL connection waited on an event loop")
        self.waitingSince.store(NIODeadline.now().uptimeNanoseconds, ordering: .relaxed)
        defer { self.waitingSince.store(0, ordering: .relaxed) }
        do {
            return try answer.wait()
        } catch {
            // Closed for want of an answer: postgres-nio fails the query as closed by the client; say why.
            if let reason = self.waits.reason { throw reason }
            throw error
        }
    }

    /// Runs `body` in a transaction (`isolation` one of PostgreSQL's levels) and commits it; rolls back if it
    /// throws. The commit is durable when this returns (the connection never commits with `synchronous_commit = off`,
    /// see ``init(_:group:connectTimeout:logger:)``; a server run with `fsync = off` cannot be helped).
    public func transaction<T>(isolation: String = "READ COMMITTED", _ body: () throws -> T) throws -> T {
        try self.execute(PostgresQuery(unsafeSQL: "BEGIN ISOLATION LEVEL \(isolation)"))
        do {
            let value = try body()
            guard try self.commit() else { throw Self.rolledBackAtCommit }
            return value
        } catch {
            _ = try? self.execute("ROLLBACK")
            throw error
        }
    }

    /// Commits the open transaction (after the statements sent before it, whose error it throws first); false when
    /// PostgreSQL rolled it back instead, which it does without an error when a statement of the transaction
    /// had failed and nobody threw that failure on (COMMIT's answer is then "ROLLBACK"): nothing was written.
    public func commit() throws -> Bool {
        try self.answer(self.issue("COMMIT")).metadata.command == "COMMIT"
    }

    /// What a transaction whose COMMIT rolled back (see ``commit()``) fails with.
    static let rolledBackAtCommit = PostgresStoreError.unexpectedReply(
        "PostgreSQL rolled the transaction back at COMMIT: one of its statements had failed; nothing was written"
    )

    /// Whether the connection is closed (the server ended it or the network dropped).
    public var isClosed: Bool { self.connection.isClosed }

    /// Closes the connection.
    public func close() {
        _ = try? self.connection.close().wait()
    }
}
