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
    private let unanswered = Mutex<[EventLoopFuture<PostgresQueryResult>]>([])
    /// The waits in progress (see ``wait(for:)``), failed when the connection closes, and whether it has.
    private let waits = Mutex<Waits>(Waits())

    private struct Waits {
        var closed = false
        var next = 0
        var promises: [Int: EventLoopPromise<PostgresQueryResult>] = [:]
    }

    /// The server process serving this connection (`pg_backend_pid()`), to tell connections apart.
    public let backendPID: Int32

    /// Connects to `location`, with the password from its password file if it has one.
    public init(
        _ location: PostgresLocation,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        connectTimeout: TimeAmount = .seconds(10),
        logger: Logger
    ) throws {
        let configuration = try location.connectionConfiguration(connectTimeout: connectTimeout)
        let eventLoop = group.any()
        precondition(!eventLoop.inEventLoop, "a blocking PostgreSQL connection is never opened on an event loop")
        do {
            self.connection = try PostgresConnection.connect(
                on: eventLoop,
                configuration: configuration,
                id: BlockingConnection.nextID.add(1, ordering: .relaxed).newValue,
                logger: logger
            ).wait()
        } catch {
            throw PostgresStoreError.connecting(error, to: location)
        }
        self.logger = logger
        do {
            let rows = try self.connection.query(
                "SELECT pg_backend_pid(), current_setting('synchronous_commit')",
                logger: logger
            ).wait().rows
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
        // A query issued while the server is ending the session (`pg_ctl restart -m fast` sends FATAL, then closes)
        // may never be answered: every wait ends when the connection closes.
        self.connection.closeFuture.whenComplete { [weak self] _ in self?.failWaits() }
    }

    /// Fails every wait in progress, and the ones to come: the connection closed.
    private func failWaits() {
        let promises = self.waits.withLock { waits in
            waits.closed = true
            defer { waits.promises = [:] }
            return Array(waits.promises.values)
        }
        for promise in promises { promise.fail(Self.closedUnanswered) }
    }

    private static let nextID = Atomic<Int>(0)

    deinit {
        // postgres-nio requires a connection to be closed before it is released.
        if !self.connection.isClosed { self.connection.closeKeepingAlive() }
    }

    /// Runs `query` and returns its rows once the server has sent them all (after every statement sent before it).
    @discardableResult
    public func query(_ query: PostgresQuery) throws -> [PostgresRow] {
        try self.answer(self.connection.query(query, logger: self.logger)).rows
    }

    /// Runs `query`; returns how many rows it changed.
    @discardableResult
    public func execute(_ query: PostgresQuery) throws -> Int {
        try self.answer(self.connection.query(query, logger: self.logger)).metadata.rows ?? 0
    }

    /// Sends `query` without waiting for its answer, for a statement whose result nobody reads: postgres-nio sends
    /// it when the statement before it is answered, on its event loop, so the calling thread is not woken for
    /// it. The next call that waits (``query(_:)``, ``execute(_:)``, ``flush()``) waits for it too and throws
    /// its error first: a failed statement aborts the transaction, and what follows it fails for that reason.
    public func send(_ query: PostgresQuery) {
        let future = self.connection.query(query, logger: self.logger)
        self.unanswered.withLock { $0.append(future) }
    }

    /// Waits for the statements sent with ``send(_:)``; throws the first error among them.
    public func flush() throws {
        let futures = self.unanswered.withLock { unanswered in
            defer { unanswered.removeAll() }
            return unanswered
        }
        var firstError: (any Error)?
        for future in futures {
            do {
                _ = try self.wait(for: future)
            } catch {
                if firstError == nil { firstError = error }
            }
        }
        if let firstError { throw firstError }
    }

    /// The result of `future`, a statement issued after every one sent before it: their errors come first.
    private func answer(_ future: EventLoopFuture<PostgresQueryResult>) throws -> PostgresQueryResult {
        let earlier = Result { try self.flush() }
        let own = Result { try self.wait(for: future) }
        try earlier.get()
        return try own.get()
    }

    /// What a wait throws when the connection closed without answering.
    static let closedUnanswered = PostgresStoreError.unavailable("PostgreSQL closed the connection before answering")

    /// The result of `future`, or ``closedUnanswered`` as soon as the connection closes without answering it.
    /// Bounded: a wait is held only while it is in progress.
    private func wait(for future: EventLoopFuture<PostgresQueryResult>) throws -> PostgresQueryResult {
        let promise = future.eventLoop.makePromise(of: PostgresQueryResult.self)
        future.cascade(to: promise)
        let id: Int? = self.waits.withLock { waits in
            guard !waits.closed else { return nil }
            waits.next += 1
            waits.promises[waits.next] = promise
            return waits.next
        }
        guard let id else {
            // Closed already: the query's own answer if it came first, else the closure.
            promise.fail(Self.closedUnanswered)
            return try promise.futureResult.wait()
        }
        defer { _ = self.waits.withLock { $0.promises.removeValue(forKey: id) } }
        return try promise.futureResult.wait()
    }

    /// Runs `body` in a transaction (`isolation` one of PostgreSQL's levels) and commits it; rolls back if it
    /// throws. The commit is durable when this returns (the connection never commits with `synchronous_commit = off`,
    /// see ``init(_:group:connectTimeout:logger:)``; a server run with `fsync = off` cannot be helped).
    public func transaction<T>(isolation: String = "READ COMMITTED", _ body: () throws -> T) throws -> T {
        try self.execute(PostgresQuery(unsafeSQL: "BEGIN ISOLATION LEVEL \(isolation)"))
        do {
            let value = try body()
            try self.execute("COMMIT")
            return value
        } catch {
            _ = try? self.execute("ROLLBACK")
            throw error
        }
    }

    /// Whether the connection is closed (the server ended it or the network dropped).
    public var isClosed: Bool { self.connection.isClosed }

    /// Closes the connection.
    public func close() {
        _ = try? self.connection.close().wait()
    }
}
