import Foundation
import GuildPostgres
import PostgresNIO
import Testing

/// Connecting with a wrong URL or wrong credentials is a clear error that names what to fix, never the password.
@Suite(.enabled(if: TestPostgres.isConfigured, "needs the throwaway PostgreSQL that scripts/test starts"), .timeLimit(.minutes(10)))
struct PostgresConnectingTests {
    /// A role that must give its password (scripts/postgres makes members of guild_password_users do so), a
    /// password file holding `filePassword` for it, and the location naming both.
    @discardableResult
    static func withPasswordRole<T: Sendable>(
        filePassword: String?,
        _ body: @Sendable (PostgresLocation, _ password: String) async throws -> T
    ) async throws -> T {
        let role = "guild_pw_\(UUID().uuidString.prefix(8).lowercased())"
        let password = "right-\(UUID().uuidString.prefix(12))"
        let server = try PostgresLocation(url: TestPostgres.url ?? "")
        let admin = try await TestPostgres.connect(server)
        defer { admin.close() }
        try await TestPostgres.blocking {
            if try admin.query("SELECT 1 FROM pg_roles WHERE rolname = 'guild_password_users'").isEmpty {
                _ = try? admin.execute("CREATE ROLE guild_password_users NOLOGIN")
            }
            try admin.execute(PostgresQuery(unsafeSQL: "CREATE ROLE \(role) LOGIN PASSWORD '\(password)' IN ROLE guild_password_users"))
        }
        let file = "/tmp/gpw-\(UUID().uuidString.prefix(8))"
        defer {
            try? FileManager.default.removeItem(atPath: file)
            _ = try? admin.execute(PostgresQuery(unsafeSQL: "DROP ROLE \(role)"))
        }
        if let filePassword {
            _ = FileManager.default.createFile(
                atPath: file,
                contents: Data("*:*:*:\(role):\(filePassword)\n".utf8),
                attributes: [.posixPermissions: 0o600]
            )
        }
        var location = server
        location.user = role
        location.passwordFile = file
        return try await body(location, password)
    }

    @Test func theRightPasswordFromThePasswordFileLetsTheRoleIn() async throws {
        try await Self.withPasswordRole(filePassword: nil) { location, password in
            let file = try #require(location.passwordFile)
            _ = FileManager.default.createFile(
                atPath: file,
                contents: Data("*:*:*:\(location.user):\(password)\n".utf8),
                attributes: [.posixPermissions: 0o600]
            )
            let connection = try await TestPostgres.connect(location)
            defer { connection.close() }
            let user = try await TestPostgres.blocking { try connection.query("SELECT current_user::text").first?.decode(String.self) }
            #expect(user == location.user)
        }
    }

    @Test func aWrongPasswordIsRefusedAuthenticationSaidPlainly() async throws {
        try await Self.withPasswordRole(filePassword: "wrong-password") { location, password in
            await #expect {
                _ = try await TestPostgres.connect(location)
            } throws: { error in
                guard case .authenticationFailed(let user, _, let reason)? = error as? PostgresStoreError else { return false }
                let text = "\(error)"
                return user == location.user && reason.contains("password authentication failed")
                    && !text.contains("wrong-password") && !text.contains(password) && text.contains("password file")
            }
        }
    }

    @Test func noPasswordForARoleThatNeedsOneIsRefusedAuthentication() async throws {
        try await Self.withPasswordRole(filePassword: nil) { location, _ in
            await #expect {
                _ = try await TestPostgres.connect(location)
            } throws: { error in
                guard case .authenticationFailed(_, _, let reason)? = error as? PostgresStoreError else { return false }
                return reason.contains("asks for a password")
            }
        }
    }

    /// A database (or role, or server) whose default is `synchronous_commit = off` would have every commit answered
    /// before it is on disk: the connection turns it `on` for its session, and leaves the values that already wait
    /// for the local flush as they are.
    @Test(arguments: [("off", "on"), ("local", "local"), ("on", "on")])
    func commitsNeverRunWithSynchronousCommitOff(databaseDefault: String, expected: String) async throws {
        try await TestPostgres.withDatabase { location in
            let admin = try await TestPostgres.connect(try PostgresLocation(url: TestPostgres.url ?? ""))
            defer { admin.close() }
            _ = try await TestPostgres.blocking {
                try admin.execute(PostgresQuery(unsafeSQL: "ALTER DATABASE \(location.database) SET synchronous_commit = \(databaseDefault)"))
            }
            let connection = try await TestPostgres.connect(location)
            defer { connection.close() }
            let (current, sessionDefault) = try await TestPostgres.blocking {
                let rows = try connection.query(
                    "SELECT current_setting('synchronous_commit'), (SELECT reset_val FROM pg_settings WHERE name = 'synchronous_commit')"
                )
                return try #require(try rows.first?.decode((String, String).self))
            }
            #expect(sessionDefault == databaseDefault)  // the database's default reached the session
            #expect(current == expected)
        }
    }

    /// TLS to a server over TCP (its own, listening for TLS only): verify-full with the server's certificate as
    /// the root connects encrypted and the writer writes through it; a name the certificate does not hold, roots
    /// that did not sign it, and plain text are refused; require encrypts without checking.
    @Test func tlsConnectsEncryptedAndRefusesWhatItCannotVerify() async throws {
        let port = 20_000 + Int.random(in: 0..<20_000)
        let server = try await TestPostgres.blocking { try OwnPostgresServer(tlsPort: port) }
        defer { server.remove() }
        func location(_ host: String, _ parameters: String) throws -> PostgresLocation {
            try PostgresLocation(url: "postgresql://postgres@\(host):\(port)/postgres?\(parameters)", environment: [:])
        }
        func encrypted(_ location: PostgresLocation) async throws -> Bool? {
            let connection = try await TestPostgres.connect(location)
            defer { connection.close() }
            return try await TestPostgres.blocking {
                try connection.query("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()").first?.decode(Bool.self)
            }
        }
        let verified = try location("localhost", "sslmode=verify-full&sslrootcert=\(server.certificate)")
        #expect(try await encrypted(verified) == true)
        #expect(try await encrypted(try location("127.0.0.1", "sslmode=require")) == true)
        #expect(try await encrypted(try location("127.0.0.1", "sslmode=verify-ca&sslrootcert=\(server.certificate)")) == true)

        let writer = PostgresWriter(location: verified, logger: TestPostgres.logger)
        let written = try await writer.write { context in try context.connection.query("SELECT 1").first?.decode(Int.self) }
        #expect(written == 1)
        try await writer.close()

        for refused in [
            try location("127.0.0.1", "sslmode=verify-full&sslrootcert=\(server.certificate)"),  // not the certificate's name
            try location("localhost", "sslmode=verify-full"),  // the system's roots did not sign it
        ] {
            await #expect {
                _ = try await TestPostgres.connect(refused)
            } throws: { error in
                guard case .unavailable(let reason)? = error as? PostgresStoreError else { return false }
                return reason.contains("did not pass the TLS check (sslmode=verify-full")
            }
        }
        // The server takes TLS only: its pg_hba.conf has no line for plain text, which it says.
        await #expect {
            _ = try await TestPostgres.connect(try location("localhost", "sslmode=disable"))
        } throws: { error in
            "\(error)".contains("no encryption")
        }
    }

    @Test func aMissingDatabaseIsNamed() async throws {
        var location = try PostgresLocation(url: TestPostgres.url ?? "")
        location.database = "no_such_guild_database"
        await #expect(throws: PostgresStoreError.databaseMissing("no_such_guild_database")) {
            _ = try await TestPostgres.connect(location)
        }
    }

    @Test func noServerAtTheURLIsUnavailable() async throws {
        let location = try PostgresLocation(url: "postgresql://guild@/guild?host=/tmp/no-such-postgres", environment: [:])
        await #expect {
            _ = try await TestPostgres.connect(location)
        } throws: { error in
            guard case .unavailable(let reason)? = error as? PostgresStoreError else { return false }
            return reason.contains("/tmp/no-such-postgres")
        }
    }

    /// A server that takes no more connections (here a role at its `CONNECTION LIMIT`, the same SQLSTATE 53300 as
    /// a server at `max_connections`) is unavailable in the server's own words, not postgres-nio's "Generic
    /// description", both when connecting and through a writer, which says it to its callers.
    @Test func aServerAtItsConnectionLimitIsUnavailableInItsOwnWords() async throws {
        let role = "guild_limit_\(UUID().uuidString.prefix(8).lowercased())"
        let server = try PostgresLocation(url: TestPostgres.url ?? "")
        let admin = try await TestPostgres.connect(server)
        defer {
            _ = try? admin.execute(PostgresQuery(unsafeSQL: "DROP ROLE IF EXISTS \(role)"))
            admin.close()
        }
        _ = try await TestPostgres.blocking {
            try admin.execute(PostgresQuery(unsafeSQL: "CREATE ROLE \(role) LOGIN CONNECTION LIMIT 1"))
        }
        var location = server
        location.user = role
        let first = try await TestPostgres.connect(location)
        defer { first.close() }
        func isTooManyConnections(_ error: any Error) -> Bool {
            guard case .unavailable(let reason)? = error as? PostgresStoreError else { return false }
            return reason.contains("too many connections for role") && reason.contains("SQLSTATE 53300")
                && !reason.contains("Generic description")
        }
        await #expect(performing: { _ = try await TestPostgres.connect(location) }, throws: isTooManyConnections)
        let writer = PostgresWriter(location: location, logger: TestPostgres.logger)
        await #expect(performing: { _ = try await writer.write { try $0.connection.execute("SELECT 1") } }, throws: isTooManyConnections)
        try? await writer.close()
    }
}
