/// Every way the PostgreSQL engine refuses to start or to go on, each with a message that says what to change.
public enum PostgresStoreError: Error, Equatable, CustomStringConvertible {
    /// `--database` is not a `postgresql://` URL Guild understands.
    case invalidURL(String)
    /// The URL carries a password; it would show in `ps` output and logs.
    case passwordInURL
    /// The password file named by `passfile=`, `PGPASSFILE` or `~/.pgpass` is readable by others.
    case passwordFileTooOpen(path: String)
    /// The server refused the role's credentials (a wrong or missing password in the password file).
    case authenticationFailed(user: String, database: String, reason: String)
    /// The server has no database of this name.
    case databaseMissing(String)
    /// The database's schema is newer than this build knows: a newer guildd migrated it.
    case newerSchema(found: Int, known: Int)
    /// Bringing the schema up to this build's version failed (the role may not create tables, ...).
    case migrationFailed(String)
    /// The database cannot be reached (stopped, restarting, refusing connections): nothing was written.
    case unavailable(String)
    /// The connection dropped while a COMMIT was in flight: the write may or may not have been applied.
    case commitOutcomeUnknown
    /// A write through a read-only transaction.
    case readOnly
    /// The database did not answer as expected (a missing row the schema guarantees).
    case unexpectedReply(String)

    public var description: String {
        switch self {
        case .invalidURL(let reason):
            "invalid PostgreSQL URL: \(reason)"
        case .passwordInURL:
            "the PostgreSQL URL carries a password, which would show in ps output and logs: put it in a password "
                + "file (passfile=PATH in the URL, PGPASSFILE, or ~/.pgpass; mode 0600)"
        case .passwordFileTooOpen(let path):
            "the password file \(path) is readable by group or others: chmod 0600 it"
        case .authenticationFailed(let user, let database, let reason):
            "PostgreSQL refused to let \(user) into \(database): \(reason) (the password comes from the password "
                + "file: passfile= in the URL, PGPASSFILE or ~/.pgpass)"
        case .databaseMissing(let name):
            "PostgreSQL has no database \(name): create it (createdb \(name)) or fix the URL"
        case .newerSchema(let found, let known):
            "the database's schema is at version \(found), newer than this guildd knows (\(known)): "
                + "run the guildd that migrated it, or a newer one"
        case .migrationFailed(let reason):
            "bringing the database's schema up to this guildd's version failed: \(reason) (the first guildd of a new "
                + "version migrates: run it as a role that owns the schema, or run that version once as the owner)"
        case .unavailable(let reason):
            "the database is unavailable, nothing was written: \(reason)"
        case .commitOutcomeUnknown:
            "the connection to the database dropped while committing: the write may or may not have been applied"
        case .readOnly:
            "a write was attempted through a read-only transaction"
        case .unexpectedReply(let what):
            "PostgreSQL replied unexpectedly: \(what)"
        }
    }
}
