import GuildCore

extension PostgresStoreError {
    /// The error as callers of the store see it: an unreachable database is `storageUnavailable` (nothing was
    /// written), a connection lost during COMMIT is `writeOutcomeUnknown`; anything else is the store's own fault
    /// and stays an internal error.
    var guildError: any Error {
        switch self {
        case .unavailable(let reason):
            GuildError(.storageUnavailable, "the database is unavailable, nothing was written: \(reason)")
        case .commitOutcomeUnknown:
            GuildError(.writeOutcomeUnknown, self.description)
        case .authenticationFailed, .databaseMissing:
            GuildError(.storageUnavailable, "the database is unavailable, nothing was written: \(self.description)")
        default:
            self
        }
    }
}
