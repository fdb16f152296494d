import Foundation
import GRDB
import GRDBSQLite
import GuildCore
import Synchronization

/// Guild's embedded SQLite database: one WAL-mode `DatabasePool` per file for the life of the process,
/// migrated on open, with group commit for writes.
public final class SQLiteStore: Sendable {
    /// How the database is opened.
    public struct Configuration: Sendable {
        /// The database file; created with its directory when missing.
        public var path: String
        /// `PRAGMA synchronous`: `FULL` (default) fsyncs the WAL at every commit, so an acknowledged write
        /// survives power loss; `NORMAL` survives a process crash only.
        public var synchronous: String
        /// The most operations one group-commit transaction takes.
        public var maximumWriteBatch: Int
        /// Reader connections (and threads): the bound on concurrent reads. Keep the server's bound on
        /// expensive calls below it, so cheap reads always find a reader.
        public var maximumReaders: Int
        /// Whether the database's directory is Guild's own (the default state directory, `…/guild`): then it is
        /// set to mode 0700 even when it already exists (an older guildd created it 0755). Otherwise only the
        /// directories the store creates get 0700, and an existing one (`/tmp`, a shared directory) is left alone.
        public var ownsDirectory: Bool

        /// The default reader count: two more than the CPUs, at least 6.
        public static let defaultReaders: Int = max(6, ProcessInfo.processInfo.activeProcessorCount + 2)

        /// Creates a configuration.
        public init(
            path: String,
            synchronous: String = "FULL",
            maximumWriteBatch: Int = 256,
            maximumReaders: Int = Configuration.defaultReaders,
            ownsDirectory: Bool = false
        ) {
            self.path = path
            self.synchronous = synchronous
            self.maximumWriteBatch = maximumWriteBatch
            self.maximumReaders = maximumReaders
            self.ownsDirectory = ownsDirectory
        }
    }

    /// The configuration the store was opened with.
    public let configuration: Configuration
    /// The write connection's `PRAGMA synchronous` (`OFF`, `NORMAL`, `FULL` or `EXTRA`), read back from it once
    /// the store set it: what its commits actually do, whatever a library set before.
    public let synchronous: String
    let pool: DatabasePool
    let writer: GroupCommitWriter
    /// Checkpoints the WAL beside the writer (see ``WALCheckpointer``).
    let checkpointer: WALCheckpointer
    let publisher = EventPublisher()
    let hooks = CommitHooks()
    /// The areas whose events the log holds, with their replay rules.
    public let eventAreas: SQLiteEventAreas
    private let closed = Atomic<Bool>(false)
    private let readDelay = Atomic<Int>(0)

    /// Opens (creating and migrating when needed) the database.
    public init(configuration: Configuration) throws {
        self.configuration = configuration
        try Self.preparePrivateFiles(at: configuration.path, ownsDirectory: configuration.ownsDirectory)
        let checkpointer = WALCheckpointer(path: configuration.path, writerBusyMilliseconds: Configuration.busyMilliseconds)
        self.checkpointer = checkpointer
        var config = Configuration.grdb(synchronous: configuration.synchronousMode, readers: configuration.maximumReaders)
        config.label = "guild"
        config.prepareDatabase { db in
            if !db.configuration.readonly { try checkpointer.install(on: db) }
        }
        self.pool = try DatabasePool(path: configuration.path, configuration: config)
        // GRDB turns WAL on after `prepareDatabase` ran on the writer, and sets `synchronous = NORMAL` on it
        // then: without this, commits would not be fsynced (they would survive a crash of guildd, not of the
        // machine). Readers never write, so the writer is the one connection the setting matters on.
        let synchronous = configuration.synchronousMode
        let effective = try self.pool.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA synchronous = \(synchronous)")
            return try Int.fetchOne(db, sql: "PRAGMA synchronous")
        }
        let modes = Configuration.synchronousModes
        self.synchronous = effective.flatMap { modes.indices.contains($0) ? modes[$0] : nil } ?? "unknown"
        try Migrations.migrator(areas: Self.areas).migrate(self.pool)
        self.eventAreas = SQLiteEventAreas(Self.areas.compactMap(\.eventArea))
        self.writer = GroupCommitWriter(
            writer: self.pool,
            publisher: self.publisher,
            hooks: self.hooks,
            maximumBatch: configuration.maximumWriteBatch
        )
    }

    /// A database file, or a directory for one, that cannot be created: the message names it and says why.
    public struct FileError: Error, CustomStringConvertible {
        /// The file or directory.
        public let path: String
        public let description: String
    }

    /// Creates the database's missing directories with mode 0700 and the database file with mode 0600, and sets
    /// an existing database file, WAL and shared-memory index to 0600, whatever the umask: the file holds password
    /// hashes and personal data. SQLite creates the `-wal` and `-shm` files with the database file's mode.
    /// Directories that already exist are left as they are (the database may live in a shared one, such as `/tmp`),
    /// except the database's own directory when `ownsDirectory`.
    static func preparePrivateFiles(at path: String, ownsDirectory: Bool = false) throws {
        guard !path.isEmpty, path != ":memory:", !path.hasPrefix("file:") else { return }
        let url = URL(fileURLWithPath: path)
        var missing: [String] = []
        var directory = url.deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: directory.path), directory.path != "/" {
            missing.append(directory.path)
            directory = directory.deletingLastPathComponent()
        }
        for created in missing.reversed() {
            guard mkdir(created, 0o700) == 0 || errno == EEXIST else {
                throw FileError(path: created, description: "cannot create the directory \(created): \(String(cString: strerror(errno)))")
            }
            chmod(created, 0o700)
        }
        if ownsDirectory { chmod(url.deletingLastPathComponent().path, 0o700) }
        if !FileManager.default.fileExists(atPath: url.path) {
            let descriptor = open(url.path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else {
                throw FileError(path: url.path, description: "cannot create \(url.path): \(String(cString: strerror(errno)))")
            }
            Glibc.close(descriptor)
        }
        for file in [url.path, url.path + "-wal", url.path + "-shm"] {
            // Fails harmlessly when the file is missing or belongs to someone else (then SQLite decides).
            chmod(file, 0o600)
        }
    }

    /// Group commit so far: transactions committed (one fsync each) and the write operations they held.
    public var writeStatistics: (commits: Int, operations: Int) { self.writer.statistics }

    /// What SQLite holds on the heap in this process, over every connection of every store (page caches of up
    /// to 16 MiB per connection, prepared statements, the connections themselves): `sqlite3_memory_used`.
    public var engineHeapBytes: Int64? { sqlite3_memory_used() }

    /// Runs `PRAGMA integrity_check` and returns its messages (`["ok"]` when the file is sound).
    public func integrityCheck() async throws -> [String] {
        try await self.pool.read { db in
            try String.fetchAll(db, sql: "PRAGMA integrity_check")
        }
    }

    /// Checkpoints the WAL and closes the database. Closing again does nothing.
    public func close() throws {
        guard !self.closed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        self.checkpointer.stop()
        _ = try? self.pool.writeWithoutTransaction { db in
            try db.checkpoint(.truncate)
        }
        try self.pool.close()
        try self.checkpointer.close()
    }

    /// Runs `work` as part of a durable group-commit transaction (see ``GroupCommitWriter``).
    func writeDatabase<T: Sendable>(_ work: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await self.writer.write { db, _ in try work(db) }
    }

    /// Delivers committed events to `sink`, in commit order, after each commit.
    public func onCommittedEvents(_ sink: @escaping @Sendable ([CommittedEvent]) -> Void) {
        self.publisher.set(sink)
    }

    /// Returns once the events of every commit so far have reached the ``onCommittedEvents(_:)`` sink (which
    /// runs on a queue of its own, after each commit).
    public func waitForPublishedEvents() {
        self.publisher.waitUntilDelivered()
    }

    /// Runs `work` in a read-only snapshot on one of the database pool's reader threads, never on the
    /// calling task's thread.
    ///
    /// Swift's cooperative pool has one thread per CPU: a read that ran (or waited for a free reader) there
    /// would hold a thread every other task needs, and a handful of slow reads would stop the daemon, shutdown
    /// included. GRDB's asynchronous read waits for a reader on a queue of its own and runs `work` on that
    /// reader's serial queue, so the bound on concurrent reads is the pool's reader count and a slow read
    /// delays only other reads (see protocol/liveness.md).
    func readDatabase<T: Sendable>(_ work: @escaping @Sendable (Database) throws -> T) async throws -> T {
        let delay = self.readDelay.load(ordering: .relaxed)
        if delay > 0 {
            return try await self.pool.read { db in
                usleep(UInt32(min(delay, 60_000)) * 1000)
                return try work(db)
            }
        }
        return try await self.pool.read(work)
    }

    /// Sets a failpoint (for liveness tests, `guildd --test-failpoints`): `store.readDelay` makes every read
    /// block its reader thread `milliseconds` longer, like a slow query; 0 turns it off.
    public func setFailpoint(_ name: String, milliseconds: Int) throws {
        guard name == "store.readDelay" else {
            throw GuildError.invalidInput("unknown failpoint \(name); known: store.readDelay", field: "name")
        }
        guard (0...60_000).contains(milliseconds) else {
            throw GuildError.invalidInput("milliseconds must be 0 to 60000", field: "milliseconds")
        }
        self.readDelay.store(milliseconds, ordering: .relaxed)
    }
}

extension SQLiteStore: Store {
    /// One writer: `site` changes nothing.
    public func write<T: Sendable>(at site: WriteSite, _ body: @escaping @Sendable (any Transaction) throws -> T) async throws -> T {
        try await self.writer.write { db, log in try body(SQLiteTransaction(db: db, log: log)) }
    }

    public func read<T: Sendable>(_ body: @escaping @Sendable (any Transaction) throws -> T) async throws -> T {
        try await self.readDatabase { db in try body(SQLiteTransaction(db: db, log: EventLog())) }
    }

    public func makeImmediateReader() throws -> (any ImmediateReader)? {
        try SQLiteImmediateReader(
            path: self.configuration.path,
            configuration: Configuration.grdb(synchronous: self.configuration.synchronous, readers: 1)
        )
    }

    public func afterCommit(_ hook: @escaping @Sendable (Set<RecordKey>) -> Void) {
        self.hooks.add(hook)
    }
}

extension SQLiteStore.Configuration {
    /// SQLite's `synchronous` modes, each at the index of its numeric value.
    static let synchronousModes = ["OFF", "NORMAL", "FULL", "EXTRA"]

    /// `synchronous` as the pragma's value: one of SQLite's modes, `FULL` for anything else.
    var synchronousMode: String {
        let mode = self.synchronous.uppercased()
        return Self.synchronousModes.contains(mode) ? mode : "FULL"
    }

    /// How long a connection waits for a lock before SQLITE_BUSY (GRDB's `busyMode`; the WAL checkpointer restores
    /// it on the writer after its own shorter wait).
    static let busyMilliseconds: Int32 = 10_000

    fileprivate static func grdb(synchronous mode: String, readers: Int) -> GRDB.Configuration {
        var config = GRDB.Configuration()
        config.foreignKeysEnabled = true
        config.busyMode = .timeout(Double(Self.busyMilliseconds) / 1000)
        config.maximumReaderCount = max(1, readers)
        config.prepareDatabase { db in
            // For every connection; the writer's is set again once WAL is on (see `SQLiteStore.init`).
            try db.execute(sql: "PRAGMA synchronous = \(mode)")
            // A page cache of up to 16 MiB per connection (allocated as pages are read), and no memory map: a
            // list of 1,000 groups walks a few thousand random pages, which SQLite finds in its own cache far
            // faster than through a memory map (where every page access goes through the pager's mapping
            // objects) or through pread on a 2 MiB cache (measured on 1,000,000 memberships: 2.3 ms against
            // 5-7 ms for either).
            try db.execute(sql: "PRAGMA cache_size = -16384")
            try db.execute(sql: "PRAGMA mmap_size = 0")
        }
        return config
    }
}
