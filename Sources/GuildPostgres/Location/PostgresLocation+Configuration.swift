import Foundation
import NIOCore
import PostgresNIO

extension PostgresLocation {
    /// postgres-nio's configuration for this location, with the password from its password file.
    /// - Parameter connectTimeout: the connect timeout, nil for the location's own (``connectTimeout``).
    func connectionConfiguration(connectTimeout: TimeAmount? = nil) throws -> PostgresConnection.Configuration {
        let password = try self.password()
        var configuration: PostgresConnection.Configuration
        switch self.endpoint {
        case .tcp(let host, let port):
            configuration = .init(
                host: host,
                port: port,
                username: self.user,
                password: password,
                database: self.database,
                tls: try self.tlsConfiguration()
            )
        case .socket(let directory, let port):
            configuration = .init(
                unixSocketPath: directory + "/.s.PGSQL.\(port)",
                username: self.user,
                password: password,
                database: self.database
            )
        }
        configuration.options.connectTimeout = connectTimeout ?? TimeAmount(self.connectTimeout)
        configuration.options.additionalStartupParameters = [("application_name", self.applicationName)]
        return configuration
    }

    /// postgres-nio's TLS setting for `tls` and `rootCertificates` (a TCP connection's).
    func tlsConfiguration() throws -> PostgresConnection.Configuration.TLS {
        guard self.tls != .disable else { return .disable }
        var tls = TLSConfiguration.makeClientConfiguration()
        switch self.tls {
        case .disable: return .disable
        // libpq checks the chain in `require` too when a root certificate is named.
        case .require: tls.certificateVerification = self.rootCertificates == nil ? .none : .noHostnameVerification
        case .verifyCA: tls.certificateVerification = .noHostnameVerification
        case .verifyFull: tls.certificateVerification = .fullVerification
        }
        if let rootCertificates = self.rootCertificates {
            guard FileManager.default.isReadableFile(atPath: rootCertificates) else {
                throw PostgresStoreError.invalidURL("sslrootcert \(rootCertificates) cannot be read")
            }
            tls.trustRoots = .file(rootCertificates)
        }
        do {
            return .require(try NIOSSLContext(configuration: tls))
        } catch {
            throw PostgresStoreError.invalidURL("sslrootcert \(rootCertificates ?? "(the system's)"): \(error)")
        }
    }
}
