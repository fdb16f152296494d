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
        try self.queue.unsafeRead { db in try db.inSnapshot { try body(SQLiteTransaction(db: $0, log: EventLog())) } }
    }
}
