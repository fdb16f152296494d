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

extension PostgresStoreError {
    /// Whether `error` ends its connection's session: the connection closed or failed, or the server said it is
    /// ending the session (SQLSTATE class 08, connection exceptions, and 57P01-57P03: an administrator's shutdown,
    /// a crash of another backend, a server starting or stopping). The error can arrive before the connection is
    /// marked closed; either way, nothing more is sent on it.
    static func endsSession(_ error: any Error) -> Bool {
        if case .unavailable? = error as? PostgresStoreError { return true }
        guard let error = error as? PSQLError else { return false }
        if [.serverClosedConnection, .clientClosedConnection, .connectionError, .uncleanShutdown].contains(error.code) {
            return true
        }
        guard let state = error.serverInfo?[.sqlState] else { return false }
        return state.hasPrefix("08") || ["57P01", "57P02", "57P03"].contains(state)
    }

    /// Whether `error` says the transaction had already failed (SQLSTATE 25P02): an earlier statement's failure
    /// that nobody threw on, so the statement answering it was not itself at fault.
    static func abortedEarlier(_ error: any Error) -> Bool {
        (error as? PSQLError)?.serverInfo?[.sqlState] == "25P02"
    }
}
