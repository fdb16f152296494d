import Foundation
import GRDB
import Glibc

extension SQLiteStore {
    /// Why a backup or a restore was refused.
    public struct BackupError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Copies the live database to a new file at `path` with SQLite's online backup, from one read snapshot
    /// while writers go on: the copy holds every write committed before the call. The copy is written to a
    /// temporary file next to `path` (mode 0600) and linked into place only when complete, never over an
    /// existing file. Returns the copy's size in bytes.
    public func backup(to path: String) async throws -> Int64 {
        let partial = path + ".partial-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer { unlink(partial) }
        try Self.preparePrivateFiles(at: partial)
        let destination = try DatabaseQueue(path: partial)
        do {
            try await self.pool.read { db in
                try destination.writeWithoutTransaction { copy in try db.backup(to: copy) }
            }
            // One self-contained file: no write-ahead log beside it (guildd sets WAL again when it opens it).
            try await destination.writeWithoutTransaction { copy in try copy.execute(sql: "PRAGMA journal_mode=DELETE") }
            try destination.close()
        } catch {
            try? destination.close()
            throw error
        }
        guard link(partial, path) == 0 else {
            throw BackupError(description: "cannot create \(path): \(String(cString: strerror(errno)))")
        }
        // The copy's contents were synced by its last commit; its name is durable once its directory is.
        Self.syncDirectory(of: path)
        let size = (try FileManager.default.attributesOfItem(atPath: path))[.size] as? NSNumber
        return size?.int64Value ?? 0
    }

    /// Replaces the database at `database` with the backup at `backup`, for `guildd --restore` (the daemon
    /// must not be running on it). The backup must pass `PRAGMA integrity_check`; it is copied next to the
    /// database (mode 0600), the old write-ahead log and shared-memory files are removed, and the copy is
    /// renamed into place, so the database is either the old one or the whole backup.
    public static func restore(backup: String, to database: String) throws {
        guard FileManager.default.fileExists(atPath: backup) else { throw BackupError(description: "\(backup) does not exist") }
        let check = try DatabaseQueue(path: backup)
        let integrity = try check.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
        let hasMigrations = try check.read { db in try db.tableExists("grdb_migrations") }
        try check.close()
        guard integrity == ["ok"] else {
            throw BackupError(description: "\(backup) fails the integrity check: \(integrity.joined(separator: "; "))")
        }
        guard hasMigrations else { throw BackupError(description: "\(backup) is not a Guild database") }
        try Self.preparePrivateFiles(at: database)
        let staged = database + ".restoring"
        unlink(staged)
        do {
            try FileManager.default.copyItem(atPath: backup, toPath: staged)
        } catch {
            throw BackupError(description: "cannot copy \(backup) to \(staged): \(error.localizedDescription)")
        }
        chmod(staged, 0o600)
        if let handle = FileHandle(forUpdatingAtPath: staged) {
            try? handle.synchronize()
            try? handle.close()
        }
        unlink(database + "-wal")
        unlink(database + "-shm")
        guard rename(staged, database) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(staged)
            throw BackupError(description: "cannot replace \(database): \(reason)")
        }
        Self.syncDirectory(of: database)
    }

    /// fsyncs the directory holding `path`, so that a link, rename or unlink in it survives a crash of the
    /// machine. Best effort: a file system that cannot sync a directory has nothing more to offer.
    static func syncDirectory(of path: String) {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        _ = fsync(descriptor)
        Glibc.close(descriptor)
    }

}
