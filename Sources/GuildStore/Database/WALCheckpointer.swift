import Dispatch
import GRDB
import GRDBSQLite
import Synchronization

/// Checkpoints the write-ahead log on a connection of its own, so the group-commit writer does not stop to do it.
///
/// SQLite's automatic checkpoint runs inside the commit that pushes the WAL past 1,000 pages: that writer copies
/// every page in the log back into the database file and fsyncs it before its commit returns, and every write
/// queued behind it waits (guild-bench saw command round trips with a p99 four times the p50, and no other
/// cause). Instead, the writer's WAL hook (``install(on:)``) only asks this checkpointer to run a PASSIVE
/// checkpoint on its own connection and thread, which copies the pages while the writer goes on committing.
///
/// A background checkpoint cannot restart the log (SQLite rewinds the WAL only when a writer finds everything
/// copied back and no reader still reading from the log), so under unbroken writes the file would grow without
/// end. When it reaches `hardLimit` pages the writer checkpoints itself in RESTART mode: by then the background
/// has copied nearly everything, so the copy is short, and the checkpoint then waits (at most
/// `restartWaitMilliseconds`) for the readers still on the log to finish, so that the next transaction starts the
/// log again from its beginning. A PASSIVE checkpoint there, as SQLite's own hook does, is not enough: under
/// unbroken overlapping reads some reader always holds the log, and an hour-long soak left a 773 MiB WAL. Readers
/// that start while it waits read the database file, not the log, so they do not hold it up.
final class WALCheckpointer: Sendable {
    /// The WAL pages after a commit that start a background checkpoint (SQLite's automatic threshold).
    let threshold: Int32
    /// The WAL pages after a commit at which the writer checkpoints itself.
    let hardLimit: Int32
    /// How long the writer's RESTART checkpoint waits for readers still on the log; past it the log only grows
    /// until a later commit tries again.
    let restartWaitMilliseconds: Int32
    /// The writer connection's busy timeout (its GRDB `busyMode`), restored after the checkpoint's shorter wait.
    let writerBusyMilliseconds: Int32

    private struct State {
        var running = false
        var stopped = false
        var checkpoints = 0
        var restarts = 0
        /// After a RESTART that found a reader still on the log, the pages at which the writer tries again: a long
        /// reader (a backup holds one snapshot for its whole copy) would otherwise cost every commit the wait.
        var nextRestart: Int32 = 0
    }

    private let path: String
    /// The checkpointer's own connection, opened by the first background checkpoint: opening one costs start-up
    /// about a millisecond, and a daemon that writes little never needs it.
    private let connection = Mutex<DatabaseQueue?>(nil)
    /// Where background checkpoints run, one at a time.
    private let queue = DispatchQueue(label: "guild.checkpointer")
    private let state = Mutex(State())
    private let group = DispatchGroup()

    /// A checkpointer for the database at `path` (in WAL mode by the time the first checkpoint runs).
    init(
        path: String,
        threshold: Int32 = 1000,
        hardLimit: Int32 = 16_000,
        restartWaitMilliseconds: Int32 = 250,
        writerBusyMilliseconds: Int32 = 10_000
    ) {
        self.path = path
        self.threshold = threshold
        self.hardLimit = max(threshold, hardLimit)
        self.restartWaitMilliseconds = restartWaitMilliseconds
        self.writerBusyMilliseconds = writerBusyMilliseconds
    }

    /// RESTART checkpoints the writer ran at the hard limit that rewound the log.
    var restarts: Int { self.state.withLock { $0.restarts } }

    /// Background checkpoints started so far.
    var count: Int { self.state.withLock { $0.checkpoints } }

    /// Whether the checkpointer's connection has been opened (by a first background checkpoint).
    var isOpen: Bool { self.connection.withLock { $0 != nil } }

    /// Turns SQLite's automatic checkpoint off on the writer connection `db` and installs the WAL hook that
    /// calls ``committed(pages:writer:)`` after each of its commits.
    func install(on db: Database) throws {
        try db.execute(sql: "PRAGMA wal_autocheckpoint = 0")
        // When the log rewinds, a file that one large transaction grew past the hard limit shrinks back to it.
        try db.execute(sql: "PRAGMA journal_size_limit = \(Int64(self.hardLimit) * 4096)")
        let context = Unmanaged.passUnretained(self).toOpaque()
        sqlite3_wal_hook(
            db.sqliteConnection,
            { context, connection, _, pages in
                guard let context else { return SQLITE_OK }
                return Unmanaged<WALCheckpointer>.fromOpaque(context).takeUnretainedValue()
                    .committed(pages: pages, writer: connection)
            },
            context
        )
    }

    /// Called on the writer's thread after a commit left `pages` pages in the WAL.
    private func committed(pages: Int32, writer: OpaquePointer?) -> Int32 {
        if pages >= self.hardLimit {
            guard pages >= self.state.withLock({ $0.nextRestart }) else { return SQLITE_OK }
            // SQLITE_BUSY (a reader still on the log after the short wait) only leaves the log longer until a commit
            // `threshold` pages later tries again; the writer's own busy timeout is back before its next transaction.
            let started = StoreMetrics.now()
            sqlite3_busy_timeout(writer, self.restartWaitMilliseconds)
            let result = sqlite3_wal_checkpoint_v2(writer, nil, SQLITE_CHECKPOINT_RESTART, nil, nil)
            sqlite3_busy_timeout(writer, self.writerBusyMilliseconds)
            StoreMetrics.writerCheckpointed(rewound: result == SQLITE_OK, started: started)
            self.state.withLock { state in
                if result == SQLITE_OK {
                    state.restarts += 1
                    state.nextRestart = 0
                } else {
                    state.nextRestart = pages + self.threshold
                }
            }
        } else if pages >= self.threshold {
            let starts = self.state.withLock { state in
                guard !state.running, !state.stopped else { return false }
                state.running = true
                state.checkpoints += 1
                self.group.enter()
                return true
            }
            guard starts else { return SQLITE_OK }
            StoreMetrics.backgroundCheckpointStarted()
            self.queue.async {
                // A busy or locked database, or a connection that could not open, only postpones the checkpoint to
                // a later commit (past the hard limit the writer checkpoints itself).
                _ = try? self.openedConnection().writeWithoutTransaction { db in
                    // A read first: a connection learns that the database is in WAL mode from a read transaction,
                    // and a checkpoint on a connection that does not know the log is there does nothing.
                    _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master")
                    _ = try db.checkpoint(.passive)
                }
                self.state.withLock { $0.running = false }
                self.group.leave()
            }
        }
        return SQLITE_OK
    }

    /// The checkpointer's connection, opened on first use (on `queue`).
    private func openedConnection() throws -> DatabaseQueue {
        if let connection = self.connection.withLock({ $0 }) { return connection }
        var configuration = Configuration()
        configuration.label = "guild.checkpointer"
        configuration.busyMode = .timeout(10)
        configuration.prepareDatabase { db in
            // The checkpointer reads no rows: a small page cache, and it never checkpoints on commit itself.
            try db.execute(sql: "PRAGMA cache_size = 16")
            try db.execute(sql: "PRAGMA wal_autocheckpoint = 0")
        }
        let connection = try DatabaseQueue(path: self.path, configuration: configuration)
        self.connection.withLock { $0 = connection }
        return connection
    }

    /// Starts no more background checkpoints and waits for a running one (the writer's hook checkpoints on the
    /// writer from now on, past the hard limit only).
    func stop() {
        self.state.withLock { $0.stopped = true }
        self.group.wait()
    }

    /// Stops (see ``stop()``) and closes the checkpointer's connection, if one was opened.
    func close() throws {
        self.stop()
        try self.connection.withLock { $0 }?.close()
    }
}
