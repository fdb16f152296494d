import Foundation
import GuildPostgres
import Logging
import PostgresNIO

/// The store engine the end-to-end suites' daemons run on. SQLite unless `GUILD_TEST_ENGINE=postgresql`, when
/// every ``Scratch`` gets a fresh database on the PostgreSQL server `GUILD_TEST_POSTGRES` names (the
/// throwaway server `scripts/test` starts; it runs a representative part of the end-to-end suites so).
public enum TestEngine: Sendable, Equatable {
    /// The embedded default: a SQLite file in the scratch directory.
    case sqlite
    /// PostgreSQL: the URL of a server on which the tests may create and drop databases.
    case postgresql(server: String)

    /// The engine of this test run.
    public static let current: TestEngine = {
        let environment = ProcessInfo.processInfo.environment
        guard environment["GUILD_TEST_ENGINE"] == "postgresql" else { return .sqlite }
        guard let server = environment["GUILD_TEST_POSTGRES"] else {
            fatalError("GUILD_TEST_ENGINE=postgresql needs GUILD_TEST_POSTGRES (scripts/postgres start DIR prints it)")
        }
        return .postgresql(server: server)
    }()

    /// Whether the suites' daemons run on PostgreSQL.
    public static var isPostgreSQL: Bool { Self.current != .sqlite }

    /// A database of its own on a PostgreSQL server, created and dropped over a connection of the store's own
    /// kind (no `psql` child: Scratch is synchronous, and a test process spawning children with thousands of
    /// descriptors open is what GuildHarness's `ChildProcess` exists to avoid).
    struct Database: Sendable {
        /// The server (a superuser's location: it creates and drops databases).
        let server: PostgresLocation
        /// The database's name.
        let name: String

        private static let logger: Logger = {
            var logger = Logger(label: "test-engine-postgres")
            logger.logLevel = .critical
            return logger
        }()

        /// Creates an empty database on the server at `url`.
        init(on url: String) throws {
            self.server = try PostgresLocation(url: url)
            self.name = "guild_e2e_\(UUID().uuidString.prefix(8).lowercased())"
            try Self.execute("CREATE DATABASE \(unescaped: self.name)", on: self.server)
        }

        /// The URL of the database: the server's, every setting kept (its password file, TLS, connect timeout),
        /// naming this database instead of the server's own.
        var url: String {
            var location = self.server
            location.database = self.name
            return location.url
        }

        /// Drops the database, ending connections a killed daemon may have left.
        func drop() { try? Self.execute("DROP DATABASE IF EXISTS \(unescaped: self.name) WITH (FORCE)", on: self.server) }

        private static func execute(_ statement: PostgresQuery, on server: PostgresLocation) throws {
            let connection = try BlockingConnection(server, logger: Self.logger)
            defer { connection.close() }
            try connection.execute(statement)
        }
    }
}
