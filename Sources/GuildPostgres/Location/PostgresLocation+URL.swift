import Foundation

extension PostgresLocation {
    /// The location as a URL that ``init(url:environment:)`` reads back to an equal location, whatever the
    /// environment: every setting is written out (the endpoint, the user, the database, the application name,
    /// TLS, the root certificates, the password file, the connect timeout), in the query's libpq names. Like the
    /// URLs it is read from, it holds no password. Unlike ``description``, which is for people and logs, this is
    /// for handing the same location to another process or another database's name (the test suites' daemons).
    public var url: String {
        let (host, port) =
            switch self.endpoint {
            case .tcp(let host, let port): (host, port)
            case .socket(let directory, let port): (directory, port)
            }
        var items = [
            ("host", host), ("port", String(port)), ("user", self.user), ("dbname", self.database),
            ("application_name", self.applicationName), ("sslmode", self.tls.rawValue),
        ]
        if let rootCertificates = self.rootCertificates { items.append(("sslrootcert", rootCertificates)) }
        if let passwordFile = self.passwordFile { items.append(("passfile", passwordFile)) }
        items.append(("connect_timeout", String(self.connectTimeout.components.seconds)))
        return "postgresql://?" + items.map { "\($0)=\(Self.escaped($1))" }.joined(separator: "&")
    }

    /// A query value with everything but unreserved characters and `/` percent-encoded, so that `&`, `=`, `+`,
    /// `#` and spaces in a path or a name come back as they were.
    private static func escaped(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: Self.unescaped) ?? value
    }

    private static let unescaped = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~/")
}
