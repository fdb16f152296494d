import GRDB
import GuildCore

/// An area's side of the event log in SQLite: what replay and a subscription's starting point need to know
/// of its audience rule (the live side is its ``EventAudience``). Registered in ``SQLiteEventAreas``.
public protocol SQLiteEventArea: Sendable {
    /// The topic area, e.g. `group`.
    var area: String { get }
    /// An SQL condition over the `event` row `e` (`seq`, `topic`, `kind`, `audience`, `time`) and the
    /// parameter `:user`: true when the user may see the event in replay. Evaluated only for this area's
    /// events, once per event row in a page: keep it indexed lookups.
    var replayCondition: String { get }
    /// The topics `userID` follows now (for groups: the groups they are a member of).
    func following(userID: String, in db: Database) throws -> [EventTopic]
    /// Drops what the area keeps for replay of events no longer kept, after old events were pruned.
    func pruned(in db: Database) throws
}

/// An area's event that knows how to record its audience (who may replay it) next to the log row.
public protocol SQLiteLoggedEvent: LoggableEvent {
    /// Records who may see the event appended as `seq`, in the area's own tables.
    func recordAudience(seq: Int64, in db: Database) throws
}
