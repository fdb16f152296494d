import Foundation
import GuildCore
import GuildPostgres
import GuildProtocol
import GuildServer
import GuildStore
import Logging
import NIOPosix

/// The store `--database` names, with what the daemon needs of it besides ``GuildCore/Store``: a SQLite file
/// (the embedded default) or, for `postgresql://` URLs, a PostgreSQL database shared with other hosts
/// (protocol/postgresql.md).
struct DaemonStore: Sendable {
    let store: any Store
    /// The file, or the URL without any secret: for logs and `system.status`.
    let name: String
    let close: @Sendable () async throws -> Void
    let writeStatistics: @Sendable () -> SystemStatus.Writes?
    let status: @Sendable () -> SystemStatus.Database
    let backup: @Sendable (_ path: String) async throws -> Int64
    /// `--test-failpoints` (SQLite's store only).
    let setFailpoint: (@Sendable (_ name: String, _ milliseconds: Int) throws -> Void)?

    /// Whether `database` names a PostgreSQL database rather than a SQLite file.
    static func isPostgres(_ database: String?) -> Bool {
        guard let database else { return false }
        return database.hasPrefix("postgresql://") || database.hasPrefix("postgres://")
    }

    static func sqlite(_ configuration: SQLiteStore.Configuration) throws -> DaemonStore {
        let store = try SQLiteStore(configuration: configuration)
        return DaemonStore(
            store: store,
            name: configuration.path,
            close: { try await NIOThreadPool.singleton.runIfActive { try store.close() } },
            writeStatistics: {
                let (commits, operations) = store.writeStatistics
                return SystemStatus.Writes(commits: commits, operations: operations)
            },
            status: {
                SystemStatus.Database(engine: "sqlite", connected: true, synchronous: store.synchronous, heapBytes: store.engineHeapBytes)
            },
            backup: { path in
                do {
                    return try await store.backup(to: path)
                } catch let error as SQLiteStore.FileError {
                    // The caller's path: a directory that cannot be created, a file that cannot be written.
                    throw GuildError(.invalidInput, error.description, field: "path")
                }
            },
            setFailpoint: { name, milliseconds in try store.setFailpoint(name, milliseconds: milliseconds) }
        )
    }

    /// Connects and migrates (on a pool thread: it waits for the server).
    static func postgres(url: String, readers: Int, writeConnections: Int, logger: Logger) async throws -> DaemonStore {
        let location = try PostgresLocation(url: url)
        let store = try await NIOThreadPool.singleton.runIfActive {
            try PostgresStore(
                configuration: .init(location: location, readers: readers, writeConnections: writeConnections),
                logger: logger
            )
        }
        return DaemonStore(
            store: store,
            name: location.description,
            close: { try await store.close() },
            writeStatistics: {
                let (commits, operations) = store.writeStatistics
                return SystemStatus.Writes(commits: commits, operations: operations)
            },
            status: {
                let health = store.health
                let readPool = store.readPool
                return SystemStatus.Database(
                    engine: "postgresql",
                    connected: health.writerConnected,
                    eventCursor: health.followerCursor,
                    followerConnects: health.followerConnects,
                    readPool: SystemStatus.Database.ReadPool(size: readPool.size, open: readPool.open, reading: readPool.reading)
                )
            },
            backup: { _ in
                throw GuildError(
                    .unsupported,
                    "a PostgreSQL database is backed up with PostgreSQL's own tools (pg_dump, base backups), not guildctl",
                    field: "path"
                )
            },
            setFailpoint: nil
        )
    }
}
