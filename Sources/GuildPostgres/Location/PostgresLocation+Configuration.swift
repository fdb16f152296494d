import NIOCore
import PostgresNIO

extension PostgresLocation {
    /// postgres-nio's configuration for this location, with the password from its password file.
    func connectionConfiguration(connectTimeout: TimeAmount) throws -> PostgresConnection.Configuration {
        let password = try self.password()
        var configuration: PostgresConnection.Configuration
        switch self.endpoint {
        case .tcp(let host, let port):
            configuration = .init(host: host, port: port, username: self.user, password: password, database: self.database, tls: .disable)
        case .socket(let directory, let port):
            configuration = .init(
                unixSocketPath: directory + "/.s.PGSQL.\(port)",
                username: self.user,
                password: password,
                database: self.database
            )
        }
        configuration.options.connectTimeout = connectTimeout
        configuration.options.additionalStartupParameters = [("application_name", self.applicationName)]
        return configuration
    }
}
