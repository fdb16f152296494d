import PostgresNIO

extension PostgresStoreError {
    /// What a failed connection attempt to `location` means to the person who configured it: refused
    /// credentials, a missing database, a server that cannot be reached, takes no connection now or whose TLS
    /// certificate fails the check, each said plainly (never with the password); anything else as unavailable,
    /// with the server's own words.
    static func connecting(_ error: any Error, to location: PostgresLocation) -> any Error {
        guard let error = error as? PSQLError else { return error }
        if error.code == .authMechanismRequiresPassword {
            return Self.authenticationFailed(
                user: location.user,
                database: location.database,
                reason: "the server asks for a password and the password file has none for this role"
            )
        }
        switch error.serverInfo?[.sqlState] {
        case "28P01", "28000":
            return Self.authenticationFailed(
                user: location.user,
                database: location.database,
                reason: error.serverInfo?[.message] ?? "authentication failed"
            )
        case "3D000":
            return Self.databaseMissing(location.database)
        case "53300", "53000", "57P03":
            // Too many clients (for the server, the role or the database), out of resources, or starting up or
            // shutting down: the server is there but takes no connection now, which a retry may get.
            return Self.unavailable("\(location) takes no connection now: \(Self.summary(of: error))")
        default:
            break
        }
        if let underlying = error.underlying, underlying is NIOSSLError || underlying is NIOSSLExtraError {
            // The server answered, but its certificate failed the check sslmode asks for (or TLS itself failed).
            let roots = location.rootCertificates.map { "sslrootcert \($0)" } ?? "the system's roots"
            return Self.unavailable(
                "\(location) did not pass the TLS check (sslmode=\(location.tls.rawValue), \(roots)): \(underlying)"
            )
        }
        if error.code == .connectionError || error.code == .serverClosedConnection {
            return Self.unavailable("cannot reach \(location): \(String(describing: error.underlying.map { "\($0)" } ?? "connection failed"))")
        }
        return Self.unavailable("connecting to \(location) failed: \(Self.summary(of: error))")
    }
}
