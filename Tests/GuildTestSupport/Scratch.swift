import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A scratch directory with a short path (Unix socket paths must stay under 108 bytes), and the database a
/// daemon of it runs on: a SQLite file in the directory, or, when `GUILD_TEST_ENGINE=postgresql`, a fresh
/// database of its own on the throwaway server `GUILD_TEST_POSTGRES` names (see ``TestEngine``).
public struct Scratch: Sendable {
    /// The directory.
    public let path: String
    /// The `--database` value of a daemon of this directory: a SQLite file's path or a PostgreSQL URL.
    public let database: String
    private let postgresDatabase: TestEngine.Database?

    /// Creates a fresh directory under /tmp, readable by every uid (clients run as other users), and on
    /// PostgreSQL a fresh, empty database.
    public init() throws {
        self.path = "/tmp/ge-\(UUID().uuidString.prefix(8).lowercased())"
        try FileManager.default.createDirectory(atPath: self.path, withIntermediateDirectories: true)
        chmod(self.path, 0o755)
        switch TestEngine.current {
        case .sqlite:
            self.postgresDatabase = nil
            self.database = self.path + "/guild.sqlite"
        case .postgresql(let server):
            do {
                let database = try TestEngine.Database(on: server)
                self.postgresDatabase = database
                self.database = database.url
            } catch {
                try? FileManager.default.removeItem(atPath: self.path)
                throw error
            }
        }
    }

    /// Where a daemon of this directory listens.
    public var socket: String { self.path + "/s.sock" }

    /// Deletes the directory and everything in it, and drops a PostgreSQL database.
    public func remove() {
        try? FileManager.default.removeItem(atPath: self.path)
        self.postgresDatabase?.drop()
    }
}
