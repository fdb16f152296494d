import GuildCore

/// An area's event that records who may replay it, in the area's own tables, next to its log row: PostgreSQL's
/// counterpart of `GuildStore.SQLiteLoggedEvent`. Every area whose events the PostgreSQL log holds conforms its
/// events in a file of its own (`GroupEvent+PostgresLog.swift`, ...).
///
/// The log row itself is inserted when the writer's shared transaction commits (protocol/postgresql.md), so an
/// area's audience tables must not reference `event(seq)` with a foreign key; pruning removes their rows.
public protocol PostgresLoggedEvent: LoggableEvent {
    /// Records who may see the event numbered `seq`, for the area's own tables: the rows go in with the batch's
    /// events, at its tail.
    func recordAudience(seq: Int64, into rows: PostgresAudienceRows)
}
