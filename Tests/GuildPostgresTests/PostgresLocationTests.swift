import Foundation
import NIOCore
import PostgresNIO
import Testing

@testable import GuildPostgres

/// `--database postgresql://...`: what each URL means, and that no password is ever taken from it.
struct PostgresLocationTests {
    @Test func aTCPURLNamesHostPortUserAndDatabase() throws {
        let location = try PostgresLocation(url: "postgresql://guild@db.example:6543/guilddb", environment: [:])
        #expect(location.endpoint == .tcp(host: "db.example", port: 6543))
        #expect(location.user == "guild")
        #expect(location.database == "guilddb")
        #expect(location.description == "postgresql://guild@db.example:6543/guilddb")
    }

    @Test func aSocketDirectoryAndDefaults() throws {
        let location = try PostgresLocation(url: "postgresql://guild@/guild?host=/run/pg", environment: [:])
        #expect(location.endpoint == .socket(directory: "/run/pg", port: 5432))
        #expect(location.endpoint.socketPath == "/run/pg/.s.PGSQL.5432")
        let bare = try PostgresLocation(url: "postgres://guild@", environment: [:])
        #expect(bare.endpoint == .socket(directory: "/run/postgresql", port: 5432))
        #expect(bare.database == "guild")
    }

    /// `connect_timeout` bounds each connect (whole seconds, as libpq's); without it, 10 s. libpq's "0: wait for
    /// ever" is refused with its reason, as is anything not a whole number of seconds from 1 to 3600.
    @Test func connectTimeoutIsTakenInWholeSeconds() throws {
        let plain = try PostgresLocation(url: "postgresql://guild@db.example/guild", environment: [:])
        #expect(plain.connectTimeout == .seconds(10))
        #expect(plain.connectTimeout == PostgresLocation.defaultConnectTimeout)
        let given = try PostgresLocation(url: "postgresql://guild@db.example/guild?connect_timeout=30", environment: [:])
        #expect(given.connectTimeout == .seconds(30))
        #expect(try given.connectionConfiguration().options.connectTimeout == .seconds(30))
        #expect(try given.connectionConfiguration(connectTimeout: .seconds(1)).options.connectTimeout == .seconds(1))
        for text in ["0", "-1", "2.5", "ten", "3601", ""] {
            #expect {
                try PostgresLocation(url: "postgresql://guild@db.example/guild?connect_timeout=\(text)", environment: [:])
            } throws: { error in
                "\(error)".contains("connect_timeout=\(text) is not a whole number of seconds from 1 to 3600")
            }
        }
    }

    @Test func aPasswordInTheURLIsRefused() {
        #expect(throws: PostgresStoreError.passwordInURL) {
            try PostgresLocation(url: "postgresql://guild:secret@db.example/guild", environment: [:])
        }
        #expect(throws: PostgresStoreError.passwordInURL) {
            try PostgresLocation(url: "postgresql://guild@db.example/guild?password=secret", environment: [:])
        }
        #expect(PostgresStoreError.passwordInURL.description.contains("password file"))
    }

    @Test func badURLsAreRefusedWithTheirReason() {
        for url in [
            "mysql://guild@db/guild", "postgresql://@db/guild", "postgresql://guild@db:99999/guild", "postgresql://guild@db/g?sslmode=prefer",
            "postgresql://guild@db/g?sslmode=allow", "postgresql://guild@db/g?sslmode=on", "postgresql://guild@db/g?sslrootcert=/x.pem",
            "postgresql://guild@db/g?bogus=1",
        ] {
            #expect(throws: PostgresStoreError.self, "\(url)") { try PostgresLocation(url: url, environment: [:]) }
        }
    }

    @Test func sslmodeAndARootCertificate() throws {
        let plain = try PostgresLocation(url: "postgresql://guild@db.example/guild", environment: [:])
        #expect(plain.tls == .disable && plain.rootCertificates == nil)
        for mode in ["disable", "require", "verify-ca", "verify-full"] {
            let location = try PostgresLocation(url: "postgresql://guild@db.example/guild?sslmode=\(mode)", environment: [:])
            #expect(location.tls.rawValue == mode)
        }
        let verified = try PostgresLocation(
            url: "postgresql://guild@db.example/guild?sslmode=verify-full&sslrootcert=/etc/guild/db-ca.pem",
            environment: [:]
        )
        #expect(verified.tls == .verifyFull && verified.rootCertificates == "/etc/guild/db-ca.pem")
        // A root certificate file that is not there is said when connecting, by name.
        #expect {
            _ = try verified.tlsConfiguration()
        } throws: { error in
            "\(error)".contains("/etc/guild/db-ca.pem")
        }
    }

    /// ``PostgresLocation/url`` reads back to the same location, every setting kept, in an environment that would
    /// fill in different defaults; odd characters in paths and names survive.
    @Test func theURLReadsBackToTheSameLocation() throws {
        let environment = ["PGHOST": "elsewhere", "PGPORT": "7000", "PGUSER": "intruder", "PGDATABASE": "other"]
        for text in [
            "postgresql://guild@db.example:6543/guilddb",
            "postgresql://guild@/guild?host=/run/pg%20dir&port=5433",
            "postgresql://guild@[::1]/guild?connect_timeout=30&application_name=guildd%20b",
            "postgresql://guild@db.example/g%26d?sslmode=verify-full&sslrootcert=/etc/guild/ca%3D1.pem&passfile=/etc/guild/pg%23pass",
            "postgresql://guild@db.example/guild?sslmode=require",
        ] {
            let location = try PostgresLocation(url: text, environment: [:])
            let again = try PostgresLocation(url: location.url, environment: environment)
            #expect(again == location, "\(text) -> \(location.url)")
            #expect(!location.url.contains("password"))
        }
        var renamed = try PostgresLocation(url: "postgresql://guild@/guild?host=/tmp/pg&passfile=/tmp/pgpass&connect_timeout=45", environment: [:])
        renamed.database = "guild_e2e_1"
        let read = try PostgresLocation(url: renamed.url, environment: [:])
        #expect(read.database == "guild_e2e_1" && read.passwordFile == "/tmp/pgpass" && read.connectTimeout == .seconds(45))
    }

    @Test func thePasswordComesFromThePasswordFile() throws {
        let path = "/tmp/gpgpass-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let text = """
            # comment
            other.example:5432:*:guild:wrong
            db.example:5432:guild:guild:se\\:cret
            *:*:*:*:fallback

            """
        _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600])
        let location = try PostgresLocation(url: "postgresql://guild@db.example/guild?passfile=\(path)", environment: [:])
        #expect(try location.password(environment: [:]) == "se:cret")
        #expect(!location.description.contains("cret"))
        let viaEnvironment = try PostgresLocation(url: "postgresql://someone@elsewhere/x", environment: [:])
        #expect(try viaEnvironment.password(environment: ["PGPASSFILE": path]) == "fallback")
        #expect(try viaEnvironment.password(environment: ["PGPASSFILE": path + ".missing"]) == nil)

        chmod(path, 0o644)
        #expect(throws: PostgresStoreError.passwordFileTooOpen(path: path)) { try location.password(environment: [:]) }
    }
}
