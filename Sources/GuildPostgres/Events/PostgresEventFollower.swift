import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import Synchronization

/// Follows the shared event log from one host: reads every committed event after its cursor, in sequence
/// order, exactly once, and hands them to `deliver`.
///
/// It `LISTEN`s for the notification each commit sends (``PostgresEventLog/channel``) and also reads every
/// `pollInterval`, so a notification lost with a dropped connection costs at most that much latency, never an
/// event: notifications only say "look", the log says what is there. A dropped connection is reopened with
/// backoff (50 ms doubling to 1 s) and reading resumes from the cursor.
public final class PostgresEventFollower: Sendable {
    private let location: PostgresLocation
    private let pollInterval: Duration
    private let batchSize: Int
    private let group: any EventLoopGroup
    private let logger: Logger
    private let deliver: @Sendable ([PostgresEvent]) -> Void
    private let state: Mutex<(cursor: Int64, connects: Int)>
    /// Wakes the current connection's loop to read at once.
    private let waker = Mutex<AsyncStream<Void>.Continuation?>(nil)
    /// The current connection's waits for answers, ended when it closes.
    private let waits = Mutex<ConnectionWaits?>(nil)
    /// How long a read may go unanswered before the connection is taken for lost.
    static let answerTimeout: TimeAmount = .seconds(10)

    /// Creates a follower that delivers the events after `after`.
    public init(
        location: PostgresLocation,
        after: Int64,
        pollInterval: Duration = .milliseconds(500),
        batchSize: Int = 1_024,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        logger: Logger,
        deliver: @escaping @Sendable ([PostgresEvent]) -> Void
    ) {
        self.location = location
        self.pollInterval = pollInterval
        self.batchSize = batchSize
        self.group = group
        self.logger = logger
        self.deliver = deliver
        self.state = Mutex((after, 0))
    }

    /// The last sequence number delivered.
    public var cursor: Int64 { self.state.withLock { $0.cursor } }

    /// How many times it has connected (more than once after a dropped connection).
    public var connects: Int { self.state.withLock { $0.connects } }

    /// Reads the log now instead of at the next notification or poll (this host just committed).
    public func wake() {
        _ = self.waker.withLock { $0 }?.yield()
    }

    /// Follows the log until the task is cancelled.
    public func run() async {
        var backoff = Duration.milliseconds(50)
        while !Task.isCancelled {
            do {
                try await self.follow { backoff = .milliseconds(50) }
            } catch {
                if Task.isCancelled { return }
                self.logger.warning(
                    "event log: following stopped; reconnecting",
                    metadata: ["error": "\(PostgresStoreError.summary(of: error))", "retryIn": "\(backoff)", "database": "\(self.location)"]
                )
            }
            try? await Task.sleep(for: backoff)
            backoff = min(backoff * 2, .seconds(1))
        }
    }

    /// One connection's life: listen, catch up, then read on each notification or poll until it fails.
    private func follow(connected: () -> Void) async throws {
        let configuration = try self.location.connectionConfiguration()
        let connection = try await PostgresConnection.connect(on: self.group.any(), configuration: configuration, id: 0, logger: self.logger)
        self.state.withLock { $0.connects += 1 }
        connected()
        let (wakeups, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        self.waker.withLock { $0 = wake }
        let waits = ConnectionWaits(closeFuture: connection.closeFuture, closedUnanswered: PostgresStoreError.unavailable("the connection closed"))
        self.waits.withLock { $0 = waits }
        let listener = connection.addListener(channel: PostgresEventLog.channel) { _, _ in wake.yield() }
        connection.closeFuture.whenComplete { _ in wake.finish() }
        defer {
            listener.stop()
            wake.finish()
            connection.closeKeepingAlive()
        }
        _ = try await self.rows(of: "LISTEN \(unescaped: PostgresEventLog.channel)", on: connection, waits: waits)
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask {
                while true {
                    try await Task.sleep(for: self.pollInterval)
                    wake.yield()
                }
            }
            try await self.catchUp(connection, waits: waits)
            for await _ in wakeups { try await self.catchUp(connection, waits: waits) }
            tasks.cancelAll()
        }
        throw PostgresStoreError.unexpectedReply("the event log's connection closed")
    }

    /// Reads and delivers everything after the cursor, a batch at a time.
    private func catchUp(_ connection: PostgresConnection, waits: ConnectionWaits) async throws {
        while true {
            let after = self.cursor
            let rows = try await self.rows(
                of: "SELECT \(unescaped: PostgresEventLog.columns) FROM event WHERE seq > \(after) ORDER BY seq LIMIT \(self.batchSize)",
                on: connection,
                waits: waits
            )
            let events = try rows.map(PostgresEventLog.event(from:))
            guard let last = events.last else { return }
            self.state.withLock { $0.cursor = last.seq }
            self.deliver(events)
            if events.count < self.batchSize { return }
        }
    }

    /// Runs `query` and returns its rows, or fails as soon as the connection closes (a query in flight when the
    /// server ends the session must not leave the follower waiting on it) or ``answerTimeout`` passes.
    private func rows(of query: PostgresQuery, on connection: PostgresConnection, waits: ConnectionWaits) async throws -> [PostgresRow] {
        try await waits.untilClosed(connection.query(query, logger: self.logger).map(\.rows))
            .within(Self.answerTimeout, orFail: { Self.unanswered })
            .get()
    }

    /// What a read of the log that got no answer within ``answerTimeout`` fails with.
    private static let unanswered = PostgresStoreError.unavailable(
        "PostgreSQL did not answer a read of the event log within \(answerTimeout.inWords)"
    )

    /// How many of the current connection's reads are waiting for their answer: at most one, and none between
    /// reads, however long the connection lives.
    var readsInProgress: Int { self.waits.withLock { $0 }?.count ?? 0 }
}
