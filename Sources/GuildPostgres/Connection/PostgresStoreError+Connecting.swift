import PostgresNIO

extension PostgresStoreError {
    /// What a failed connection attempt to `location` means to the person who configured it: refused
    /// credentials, a missing database, or a server that cannot be reached, each said plainly (never with the
    /// password); anything else as it came.
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
        default:
            break
        }
        if error.code == .connectionError || error.code == .serverClosedConnection {
            return Self.unavailable("cannot reach \(location): \(String(describing: error.underlying.map { "\($0)" } ?? "connection failed"))")
        }
        return error
    }
}
