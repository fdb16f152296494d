import Foundation
import GuildPostgres
import Logging
import NIOPosix
import PostgresNIO

/// The throwaway PostgreSQL server `scripts/test` starts (`scripts/postgres`), named by `GUILD_TEST_POSTGRES`;
/// each test gets a database of its own, dropped afterwards.
enum TestPostgres {
    /// The server's URL, when one is running for the tests.
    static let url = ProcessInfo.processInfo.environment["GUILD_TEST_POSTGRES"]

    /// Whether a server was started for the tests (`scripts/test` fails when it cannot start one).
    static var isConfigured: Bool { url != nil }

    static let logger: Logger = {
        var logger = Logger(label: "test-postgres")
        logger.logLevel = .critical
        return logger
    }()

    /// Runs `body` with a fresh, empty database; drops it afterwards.
    static func withDatabase<T: Sendable>(_ body: (PostgresLocation) async throws -> T) async throws -> T {
        let server = try PostgresLocation(url: url ?? "")
        let name = "guild_test_\(UUID().uuidString.prefix(8).lowercased())"
        try await blocking {
            let connection = try BlockingConnection(server, logger: logger)
            defer { connection.close() }
            try connection.execute("CREATE DATABASE \(unescaped: name)")
        }
        var location = server
        location.database = name
        do {
            let value = try await body(location)
            try await drop(name, on: server)
            return value
        } catch {
            try? await drop(name, on: server)
            throw error
        }
    }

    private static func drop(_ name: String, on server: PostgresLocation) async throws {
        try await blocking {
            let connection = try BlockingConnection(server, logger: logger)
            defer { connection.close() }
            try connection.execute("DROP DATABASE \(unescaped: name) WITH (FORCE)")
        }
    }

    /// Opens a connection to `location` (on a pool thread: it waits for the server).
    static func connect(_ location: PostgresLocation) async throws -> BlockingConnection {
        try await blocking { try BlockingConnection(location, logger: logger) }
    }

    /// Runs blocking PostgreSQL calls on NIO's thread pool, never on the cooperative pool.
    static func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await NIOThreadPool.singleton.runIfActive(body)
    }
}
