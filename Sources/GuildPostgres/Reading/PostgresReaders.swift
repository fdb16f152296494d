import Logging
import NIOCore
import NIOPosix
import Synchronization

/// A pool of read connections, each used by one read at a time on a thread of the pool's own: reads run
/// concurrently with each other and with the writer, never on an event loop or the cooperative pool.
///
/// Each read is one `REPEATABLE READ READ ONLY` transaction, a consistent snapshot like a SQLite read. A
/// connection is opened when a read first needs one and reopened after it dropped; while the database cannot be
/// reached a read fails with ``PostgresStoreError/unavailable(_:)`` (within the connect timeout), and a read
/// whose connection drops under it fails the same way (the next one reconnects).
public final class PostgresReaders: Sendable {
    private let location: PostgresLocation
    private let logger: Logger
    private let connectTimeout: TimeAmount?
    private let answerTimeout: TimeAmount
    private let threads: NIOThreadPool
    /// The connections no read holds, and how many reads hold one now.
    private let connections = Mutex<(idle: [BlockingConnection], reading: Int)>(([], 0))

    /// The most connections (and reads at once) the pool has.
    public let size: Int

    /// Creates a pool of at most `count` connections (and threads); `connectTimeout` nil is the location's
    /// (``PostgresLocation/connectTimeout``).
    public init(
        location: PostgresLocation,
        count: Int = 4,
        connectTimeout: TimeAmount? = nil,
        answerTimeout: TimeAmount = BlockingConnection.defaultAnswerTimeout,
        logger: Logger
    ) {
        precondition(count > 0, "a reader pool needs a connection")
        self.location = location
        self.logger = logger
        self.connectTimeout = connectTimeout
        self.answerTimeout = answerTimeout
        self.size = count
        self.threads = NIOThreadPool(numberOfThreads: count)
        self.threads.start()
    }

    /// Runs `body` in a read-only snapshot on one of the pool's connections.
    public func read<T: Sendable>(_ body: @escaping @Sendable (BlockingConnection) throws -> T) async throws -> T {
        try await self.threads.runIfActive {
            let connection = try self.take()
            do {
                let value = try connection.transaction(isolation: "REPEATABLE READ READ ONLY") { try body(connection) }
                self.give(connection)
                return value
            } catch {
                // A connection that dropped (or whose session the server is ending) is not kept; one that is
                // still open goes back to the pool.
                let ended = connection.isClosed || PostgresStoreError.endsSession(error)
                if !ended { self.give(connection) }
                if ended {
                    self.connections.withLock { $0.reading -= 1 }
                    if !connection.isClosed { connection.close() }
                    throw PostgresStoreError.unavailable(
                        "the connection to PostgreSQL dropped during a read: \(PostgresStoreError.summary(of: error))"
                    )
                }
                throw error
            }
        }
    }

    /// Connections open and idle now.
    public var idleCount: Int { self.connections.withLock { $0.idle.count } }

    /// The pool now, for `system.status`: its size, the connections open (idle ones the server has not closed, and
    /// those reads hold), and the reads holding one. A read waiting for a free thread is in neither.
    public var usage: (size: Int, open: Int, reading: Int) {
        self.connections.withLock { connections in
            let idle = connections.idle.count(where: { !$0.isClosed })
            return (self.size, idle + connections.reading, connections.reading)
        }
    }

    /// Closes every connection and stops the pool's threads.
    public func close() async throws {
        try await self.threads.shutdownGracefully()
        let idle = self.connections.withLock { connections in
            defer { connections.idle = [] }
            return connections.idle
        }
        for connection in idle { connection.close() }
    }

    /// An open connection for a read, counted as reading until ``give(_:)`` or a drop. Idle connections the
    /// server has closed meanwhile are let go.
    private func take() throws -> BlockingConnection {
        let reused = self.connections.withLock { connections -> BlockingConnection? in
            while let connection = connections.idle.popLast() {
                if connection.isClosed { continue }
                connections.reading += 1
                return connection
            }
            return nil
        }
        if let reused { return reused }
        do {
            let connection = try BlockingConnection(
                self.location,
                connectTimeout: self.connectTimeout,
                answerTimeout: self.answerTimeout,
                logger: self.logger
            )
            self.connections.withLock { $0.reading += 1 }
            return connection
        } catch let error as PostgresStoreError {
            throw error
        } catch {
            throw PostgresStoreError.unavailable("PostgreSQL is unreachable: \(PostgresStoreError.summary(of: error))")
        }
    }

    /// Puts a read's connection back among the idle ones.
    private func give(_ connection: BlockingConnection) {
        self.connections.withLock { connections in
            connections.idle.append(connection)
            connections.reading -= 1
        }
    }
}
