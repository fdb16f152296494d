import Foundation

/// Where a PostgreSQL database is and who Guild connects as, read from a `postgresql://` URL (libpq's
/// connection URI, the subset Guild needs):
///
///     postgresql://guild@db.example:5432/guild
///     postgresql://guild@/guild?host=/run/postgresql          (a Unix socket directory)
///     postgresql://guild@db.example/guild?passfile=/etc/guild/pgpass
///     postgresql://guild@db.example/guild?sslmode=verify-full&sslrootcert=/etc/guild/db-ca.pem   (TLS)
///     postgresql://guild@db.example/guild?connect_timeout=30  (seconds to connect, the handshake included)
///
/// The URL never holds a password: it would show in `ps` output and in logs. The password comes from the
/// password file named by `passfile=`, else `PGPASSFILE`, else `~/.pgpass` (libpq's format and rules), and
/// ``description`` names the database without it.
public struct PostgresLocation: Sendable, Equatable, CustomStringConvertible {
    /// Where the server listens.
    public enum Endpoint: Sendable, Equatable {
        /// A TCP host and port.
        case tcp(host: String, port: Int)
        /// A Unix socket: `directory/.s.PGSQL.port`.
        case socket(directory: String, port: Int)

        /// The server's socket file, for ``socket(directory:port:)``.
        public var socketPath: String? {
            guard case .socket(let directory, let port) = self else { return nil }
            return directory + "/.s.PGSQL.\(port)"
        }
    }

    /// Where the server listens.
    public var endpoint: Endpoint
    /// The role Guild connects as.
    public var user: String
    /// The database's name.
    public var database: String
    /// The password file to look the password up in, if the URL names one.
    public var passwordFile: String?
    /// The application name the connections show in `pg_stat_activity`.
    public var applicationName: String
    /// Whether a TCP connection uses TLS and what it checks (`sslmode`; a Unix socket never uses TLS, as with
    /// libpq).
    public var tls: TLSMode
    /// The certificates a server's certificate must chain to (`sslrootcert`, a PEM file); nil: the system's.
    public var rootCertificates: String?
    /// How long a connection may take to be ready, the handshake included (`connect_timeout`, whole seconds):
    /// a server that accepts and then says nothing (stopped, or behind a network that drops packets) fails the
    /// connect after it. A server that is down refuses at once, whatever this is.
    public var connectTimeout: Duration

    /// The ``connectTimeout`` when the URL gives none: postgres-nio's own default. libpq's is to wait for ever,
    /// which a daemon cannot: it must answer `STORAGE_UNAVAILABLE`. Two seconds (this store's first default)
    /// failed guildd's start on a busy CI machine (2026-12-01), where a server took longer to start a backend.
    public static let defaultConnectTimeout: Duration = .seconds(10)

    /// libpq's `sslmode` values Guild takes. `allow` and `prefer`, which fall back to plain text without a word,
    /// are refused: a connection is encrypted or it is not.
    public enum TLSMode: String, Sendable, Equatable {
        /// Plain text (the default, as it was before TLS was supported; libpq's default is `prefer`).
        case disable
        /// TLS, without checking the server's certificate (as libpq when no root certificate is named).
        case require
        /// TLS, the server's certificate signed by a trusted root; its name is not checked.
        case verifyCA = "verify-ca"
        /// TLS, the certificate signed by a trusted root and naming the host connected to.
        case verifyFull = "verify-full"
    }

    /// Reads a `postgresql://` (or `postgres://`) URL.
    public init(url text: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        guard text.hasPrefix("postgresql://") || text.hasPrefix("postgres://") else {
            throw PostgresStoreError.invalidURL("it must start with postgresql://")
        }
        guard let components = URLComponents(string: text) else {
            throw PostgresStoreError.invalidURL("it is not a well-formed URL")
        }
        if components.password != nil { throw PostgresStoreError.passwordInURL }
        var query: [String: String] = [:]
        for item in components.queryItems ?? [] {
            guard let value = item.value else { throw PostgresStoreError.invalidURL("parameter \(item.name) has no value") }
            switch item.name {
            case "host", "port", "user", "dbname", "passfile", "application_name", "sslmode", "sslrootcert", "connect_timeout":
                query[item.name] = value
            case "password":
                throw PostgresStoreError.passwordInURL
            default:
                throw PostgresStoreError.invalidURL("unknown parameter \(item.name)")
            }
        }
        let mode = query["sslmode"] ?? "disable"
        guard let tls = TLSMode(rawValue: mode) else {
            throw PostgresStoreError.invalidURL(
                "sslmode=\(mode) is not supported: use disable, require, verify-ca or verify-full (allow and prefer fall back to plain text)"
            )
        }
        self.tls = tls
        self.rootCertificates = query["sslrootcert"]
        if self.rootCertificates != nil, tls == .disable {
            throw PostgresStoreError.invalidURL("sslrootcert needs sslmode=require, verify-ca or verify-full")
        }
        if let text = query["connect_timeout"] {
            // libpq reads 0 (or less) as "wait for ever"; a daemon must notice a server that never answers.
            guard let seconds = Int(text), (1...3600).contains(seconds) else {
                throw PostgresStoreError.invalidURL("connect_timeout=\(text) is not a whole number of seconds from 1 to 3600")
            }
            self.connectTimeout = .seconds(seconds)
        } else {
            self.connectTimeout = Self.defaultConnectTimeout
        }
        let portText = query["port"] ?? components.port.map(String.init) ?? environment["PGPORT"] ?? "5432"
        guard let port = Int(portText), (1...65535).contains(port) else {
            throw PostgresStoreError.invalidURL("port \(portText) is not a port number")
        }
        let host = query["host"] ?? (components.percentEncodedHost?.isEmpty == false ? components.host : nil) ?? environment["PGHOST"]
        switch host {
        case .some(let host) where host.hasPrefix("/"):
            self.endpoint = .socket(directory: host, port: port)
        case .some(let host) where !host.isEmpty:
            self.endpoint = .tcp(host: host, port: port)
        default:
            self.endpoint = .socket(directory: "/run/postgresql", port: port)
        }
        guard let user = query["user"] ?? components.user ?? environment["PGUSER"], !user.isEmpty else {
            throw PostgresStoreError.invalidURL("no user: write postgresql://USER@HOST/DATABASE")
        }
        self.user = user
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        self.database = query["dbname"] ?? (path.isEmpty ? nil : path) ?? environment["PGDATABASE"] ?? user
        self.passwordFile = query["passfile"]
        self.applicationName = query["application_name"] ?? "guildd"
    }

    /// The URL without any secret, for logs and `system.status`.
    public var description: String {
        switch self.endpoint {
        case .tcp(let host, let port):
            "postgresql://\(self.user)@\(host):\(port)/\(self.database)"
        case .socket(let directory, let port):
            "postgresql://\(self.user)@/\(self.database)?host=\(directory)&port=\(port)"
        }
    }

    /// The password for this location from its password file, or nil when there is none (the server may not
    /// ask for one: peer or trust authentication on a socket).
    public func password(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> String? {
        let path: String
        if let named = self.passwordFile ?? environment["PGPASSFILE"] {
            path = named
        } else if let home = environment["HOME"] {
            path = home + "/.pgpass"
        } else {
            return nil
        }
        guard let file = try PasswordFile(path: path) else { return nil }
        let (host, port): (String, Int) =
            switch self.endpoint {
            case .tcp(let host, let port): (host, port)
            // libpq matches a socket connection against "localhost" (or the socket directory).
            case .socket(_, let port): ("localhost", port)
            }
        return file.password(host: host, port: port, database: self.database, user: self.user)
            ?? (self.socketDirectory.flatMap { file.password(host: $0, port: port, database: self.database, user: self.user) })
    }

    private var socketDirectory: String? {
        if case .socket(let directory, _) = self.endpoint { return directory }
        return nil
    }
}
