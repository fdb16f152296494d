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
    }

    private static let nextID = Atomic<Int>(0)

    deinit {
        // postgres-nio requires a connection to be closed before it is released.
        if !self.connection.isClosed { self.connection.closeKeepingAlive() }
    }

    /// Runs `query` and returns its rows once the server has sent them all.
    @discardableResult
    public func query(_ query: PostgresQuery) throws -> [PostgresRow] {
        try self.connection.query(query, logger: self.logger).wait().rows
    }

    /// Runs `query`; returns how many rows it changed.
    @discardableResult
    public func execute(_ query: PostgresQuery) throws -> Int {
        try self.connection.query(query, logger: self.logger).wait().metadata.rows ?? 0
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
