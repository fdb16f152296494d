import Foundation
import GuildHarness

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

    /// A database of its own on a PostgreSQL server, created with `psql` and dropped with it.
    struct Database: Sendable {
        /// The server's URL (a superuser's: it creates and drops databases).
        let server: String
        /// The database's name.
        let name: String

        /// Creates an empty database on `server`.
        init(on server: String) throws {
            self.server = server
            self.name = "guild_e2e_\(UUID().uuidString.prefix(8).lowercased())"
            try Self.psql(server, "CREATE DATABASE \(self.name)")
        }

        /// The URL of the database: the server's, naming this database instead of the server's own.
        var url: String { Self.url(self.server, database: self.name) }

        /// Drops the database, ending connections a killed daemon may have left.
        func drop() { try? Self.psql(self.server, "DROP DATABASE IF EXISTS \(self.name) WITH (FORCE)") }

        /// `server` (`postgresql://USER@HOST/DB?QUERY`) with `database` in place of its database.
        static func url(_ server: String, database: String) -> String {
            let query = server.firstIndex(of: "?").map { String(server[$0...]) } ?? ""
            let base = server.prefix(upTo: server.firstIndex(of: "?") ?? server.endIndex)
            let authorityEnd =
                base.range(of: "://").flatMap { scheme in base[scheme.upperBound...].firstIndex(of: "/") } ?? base.endIndex
            return base[..<authorityEnd] + "/" + database + query
        }

        private static func psql(_ server: String, _ command: String) throws {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/psql")
            process.arguments = ["-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", server, "-c", command]
            // stderr to a file, not a pipe, and the exit seen with `waitUntilEnded`: neither waits on a descriptor
            // that a process spawned at the same moment may have inherited (see `Process.endedStatus`).
            let errorPath = "/tmp/ge-psql-\(UUID().uuidString).err"
            _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
            defer { try? FileManager.default.removeItem(atPath: errorPath) }
            guard let errors = FileHandle(forWritingAtPath: errorPath) else { throw DaemonError("cannot write \(errorPath)") }
            process.standardError = errors
            process.standardOutput = FileHandle.nullDevice
            process.standardInput = FileHandle.nullDevice
            try process.run()
            try? errors.close()
            let status = process.waitUntilEnded()
            guard status == 0 else {
                let message = FileManager.default.contents(atPath: errorPath) ?? Data()
                throw DaemonError("psql \(command): \(String(decoding: message, as: UTF8.self))")
            }
        }
    }
}
