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
    private let idle = Mutex<[BlockingConnection]>([])

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
    public var idleCount: Int { self.idle.withLock { $0.count } }

    /// Closes every connection and stops the pool's threads.
    public func close() async throws {
        try await self.threads.shutdownGracefully()
        let connections = self.idle.withLock { idle in
            defer { idle = [] }
            return idle
        }
        for connection in connections { connection.close() }
    }

    private func take() throws -> BlockingConnection {
        while let connection = self.idle.withLock({ $0.popLast() }) {
            if !connection.isClosed { return connection }
        }
        do {
            return try BlockingConnection(
                self.location,
                connectTimeout: self.connectTimeout,
                answerTimeout: self.answerTimeout,
                logger: self.logger
            )
        } catch let error as PostgresStoreError {
            throw error
        } catch {
            throw PostgresStoreError.unavailable("PostgreSQL is unreachable: \(PostgresStoreError.summary(of: error))")
        }
    }

    private func give(_ connection: BlockingConnection) {
        self.idle.withLock { $0.append(connection) }
    }
}
