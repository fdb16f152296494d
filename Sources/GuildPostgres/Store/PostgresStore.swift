import GuildCore
import Logging
import NIOCore
import PostgresNIO
import Synchronization

/// Guild's store on PostgreSQL, for several hosts sharing one database (protocol/postgresql.md): writes through
/// this host's group commit (``PostgresWriter``), reads through a pool of snapshot connections
/// (``PostgresReaders``), and the events of every host's commits, in sequence order, from the shared log
/// (``PostgresEventFollower``).
public final class PostgresStore: Store, Sendable {
    /// What to connect to and how much to open.
    public struct Configuration: Sendable {
        /// The database.
        public var location: PostgresLocation
        /// Read connections (and threads).
        public var readers: Int
        /// The most operations one transaction takes.
        public var maximumWriteBatch: Int
        /// How often the follower reads the log when no notification comes.
        public var pollInterval: Duration
        /// Write connections (and threads): the event lane and quiet lanes beside it (see ``PostgresWriter``).
        public var writeConnections: Int
        /// How long a read or write connection waits for an answer before it is taken for lost and closed (a
        /// frozen or cut-off server; see ``BlockingConnection``).
        public var answerTimeout: TimeAmount

        /// Creates a configuration.
        public init(
            location: PostgresLocation,
            readers: Int = 4,
            maximumWriteBatch: Int = 256,
            pollInterval: Duration = .milliseconds(500),
            writeConnections: Int = Self.defaultWriteConnections,
            answerTimeout: TimeAmount = BlockingConnection.defaultAnswerTimeout
        ) {
            self.location = location
            self.readers = readers
            self.maximumWriteBatch = maximumWriteBatch
            self.pollInterval = pollInterval
            self.writeConnections = writeConnections
            self.answerTimeout = answerTimeout
        }

        /// The event lane and three quiet lanes (protocol/postgresql.md has the figures).
        public static let defaultWriteConnections = 4
    }

    /// The configuration.
    public let configuration: Configuration
    let writer: PostgresWriter
    let readers: PostgresReaders
    private let follower: PostgresEventFollower
    private let following: Mutex<Task<Void, Never>?>
    let listeners = CommitListeners()

    /// Connects, migrates the schema (under the advisory lock, see ``PostgresMigrator``), and starts following
    /// the log from its head.
    public init(configuration: Configuration, logger: Logger) throws {
        self.configuration = configuration
        // No answer timeout: the migrator's advisory lock waits for another host's migration, however long.
        let connection = try BlockingConnection(configuration.location, answerTimeout: nil, logger: logger)
        defer { connection.close() }
        try PostgresMigrator.migrate(connection)
        let head = try PostgresEventLog.head(on: connection)
        let listeners = self.listeners
        let follower = PostgresEventFollower(
            location: configuration.location,
            after: head,
            pollInterval: configuration.pollInterval,
            logger: logger
        ) { events in
            // Caches first: every host's commits name what they changed through their events' topics (a group's
            // events for the group), so a cache here drops an entry another host changed before anyone is told.
            listeners.committed(changing: Set(events.map { RecordKey(area: String($0.topic.area), id: String($0.topic.id)) }))
            listeners.deliver(events.map(\.committed))
        }
        self.follower = follower
        self.writer = PostgresWriter(
            location: configuration.location,
            maximumBatch: configuration.maximumWriteBatch,
            answerTimeout: configuration.answerTimeout,
            connections: configuration.writeConnections,
            logger: logger
        ) { events, changed in
            // Caches drop what the commit changed before any caller hears of it; the follower reads this host's
            // events at once, in sequence order with every other host's.
            if !changed.isEmpty { listeners.committed(changing: changed) }
            if !events.isEmpty { follower.wake() }
        }
        try self.writer.connect()
        self.readers = PostgresReaders(
            location: configuration.location,
            count: configuration.readers,
            answerTimeout: configuration.answerTimeout,
            logger: logger
        )
        self.following = Mutex(Task { await follower.run() })
    }

    /// Every feature area the store holds, in migration order (an area after those it refers to). A new area
    /// adds its records, migrations and event area, and one line here.
    static let areas: [any PostgresStoreArea.Type] = [
        UsersPostgresArea.self,
        GroupsPostgresArea.self,
        ObjectsPostgresArea.self,
        ThingsPostgresArea.self,
        StoragePostgresArea.self,
    ]

    /// The areas whose events the log holds, with their replay rules.
    static let eventAreas: [any PostgresEventArea.Type] = PostgresStore.areas.compactMap { $0.eventArea }

    // MARK: - Store

    public func write<T: Sendable>(at site: WriteSite, _ body: @escaping @Sendable (any Transaction) throws -> T) async throws -> T {
        do {
            return try await self.writer.write(at: site) { context in try body(PostgresTransaction(context)) }
        } catch let error as PostgresStoreError {
            throw error.guildError
        }
    }

    public func read<T: Sendable>(_ body: @escaping @Sendable (any Transaction) throws -> T) async throws -> T {
        do {
            return try await self.readers.read { connection in try body(PostgresTransaction(reading: connection)) }
        } catch let error as PostgresStoreError {
            throw error.guildError
        }
    }

    /// PostgreSQL reads wait for the server: never at once on an event loop.
    public func makeImmediateReader() throws -> (any ImmediateReader)? { nil }

    public func afterCommit(_ hook: @escaping @Sendable (Set<RecordKey>) -> Void) {
        self.listeners.hooks.withLock { $0.append(hook) }
    }

    /// The log's head covers every event and the schema is one this build knows; `["ok"]` when so.
    public func integrityCheck() async throws -> [String] {
        try await self.readers.read { connection in
            var problems: [String] = []
            let head = try PostgresEventLog.head(on: connection)
            let newest = try connection.query("SELECT coalesce(max(seq), 0)::bigint FROM event").first?.decode(Int64.self) ?? 0
            if newest > head { problems.append("event \(newest) is past the log's head \(head)") }
            let unknown = try PostgresMigrator.appliedVersions(connection).subtracting(PostgresMigrator.knownVersions)
            if !unknown.isEmpty { problems.append("schema versions this build does not know: \(unknown.sorted())") }
            return problems.isEmpty ? ["ok"] : problems
        }
    }

    // MARK: - Lifecycle and health

    /// Stops following the log and closes every connection.
    public func close() async throws {
        self.following.withLock { $0 }?.cancel()
        try await self.writer.close()
        try await self.readers.close()
    }

    /// Whether the writer's connection is open, and how far the follower has read.
    public var health: (writerConnected: Bool, followerCursor: Int64, followerConnects: Int) {
        (self.writer.isConnected, self.follower.cursor, self.follower.connects)
    }

    /// The read pool: its size, the connections open and the reads holding one now (``PostgresReaders/usage``).
    public var readPool: (size: Int, open: Int, reading: Int) { self.readers.usage }

    /// Transactions committed through this host so far, and the operations they held.
    public var writeStatistics: (commits: Int, operations: Int) { self.writer.statistics }

    /// Shared: daemons on several hosts may write to one database at once.
    public var isSharedByHosts: Bool { true }
}

/// Who hears of commits: the after-commit hooks (this host's commits' changed records) and the committed-event
/// sinks (every host's events, in sequence order, from the follower).
final class CommitListeners: Sendable {
    let hooks = Mutex<[@Sendable (Set<RecordKey>) -> Void]>([])
    let sinks = Mutex<[@Sendable ([CommittedEvent]) -> Void]>([])

    func committed(changing changed: Set<RecordKey>) {
        for hook in self.hooks.withLock({ $0 }) { hook(changed) }
    }

    func deliver(_ events: [CommittedEvent]) {
        for sink in self.sinks.withLock({ $0 }) { sink(events) }
    }
}
