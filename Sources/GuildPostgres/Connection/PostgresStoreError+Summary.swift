import PostgresNIO

extension PostgresStoreError {
    /// `error` in words a log reader or client can act on. postgres-nio's `PSQLError` describes itself only as
    /// "Generic description to prevent accidental leakage of sensitive data"; this says the server's message and
    /// SQLSTATE when the server sent one (`sorry, too many clients already (SQLSTATE 53300)`), or the error's code
    /// and underlying cause when it did not. Neither carries the query's bound values nor a password. An
    /// `unavailable` error is its reason alone, for callers that say "unavailable" themselves.
    static func summary(of error: any Error) -> String {
        if case .unavailable(let reason)? = error as? PostgresStoreError { return reason }
        guard let error = error as? PSQLError else { return "\(error)" }
        if let message = error.serverInfo?[.message] {
            let state = error.serverInfo?[.sqlState].map { " (SQLSTATE \($0))" } ?? ""
            return message + state
        }
        if let underlying = error.underlying {
            return "\(error.code): \(underlying)"
        }
        return "\(error.code)"
    }
}
