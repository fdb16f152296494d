import GRDB
import GuildCore

/// A read-only SQLite connection of its own for reads that run at once on the calling thread (see
/// `ImmediateReader`). Unlike the pool's readers it is not shared, so a read never waits for another; in WAL
/// mode it never waits for the writer either.
final class SQLiteImmediateReader: ImmediateReader {
    private let queue: DatabaseQueue

    init(path: String, configuration: GRDB.Configuration) throws {
        var configuration = configuration
        configuration.readonly = true
        configuration.label = "guild.immediate"
        self.queue = try DatabaseQueue(path: path, configuration: configuration)
    }

    func read<T>(_ body: (any Transaction) throws -> T) throws -> T {
        // The queue is this thread's alone: it runs `body` on the calling thread, in one snapshot.
        try self.queue.unsafeRead { db in try Self.inSnapshot(db) { try body(SQLiteTransaction(db: $0, log: EventLog())) } }
    }

    /// Runs `body` in a read transaction (one snapshot), opened and closed with cached statements:
    /// `DatabaseQueue.read` does the same through a savepoint whose two statements it parses and prepares anew
    /// on each call, which cost more than a point read's lookups. However `body` or the commit fails, the
    /// transaction is rolled back, so the connection is never left inside one. (Only here: these reads run on
    /// the calling thread and are never cancelled. The pool's reads keep GRDB's `read`, which also leaves its
    /// transaction when a task is cancelled.)
    private static func inSnapshot<T>(_ db: Database, _ body: (Database) throws -> T) throws -> T {
        try db.cachedStatement(sql: "BEGIN DEFERRED TRANSACTION").execute()
        do {
            let result = try body(db)
            try db.cachedStatement(sql: "COMMIT TRANSACTION").execute()
            return result
        } catch {
            if db.isInsideTransaction { try? db.rollback() }
            throw error
        }
    }
}
