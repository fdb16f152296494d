import PostgresNIO

/// An operation that cannot finish on a quiet lane of a ``PostgresWriter`` (it appends an event, or waited for a
/// row lock longer than the lane allows): it is rolled back there and runs again on the event lane. Never
/// reaches a caller.
struct PostgresWriteRedirect: Error {
    /// Whether the operation appended (rather than waited too long for a lock).
    var appends: Bool

    /// Whether `error` is PostgreSQL giving up a lock wait (`lock_not_available`, SQLSTATE 55P03), as a quiet
    /// lane's `lock_timeout` makes it.
    static func isLockTimeout(_ error: any Error) -> Bool {
        (error as? PSQLError)?.serverInfo?[.sqlState] == "55P03"
    }
}
