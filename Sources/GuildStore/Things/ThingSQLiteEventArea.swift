import GRDB
import GuildCore

/// The things area's side of the event log: replay shows a thing event to the principals it named (users,
/// the thing itself; `installation:<id>` for a command's result, matched against the subscription's
/// installation) and to the members, at the time, of the owner groups it named.
struct ThingSQLiteEventArea: SQLiteEventArea {
    var area: String { ThingEventAudience.thingArea }

    var replayCondition: String { ThingEventAudience().replay.sqliteCondition }

    /// Thing events are addressed, never followed.
    func following(userID: String, in db: Database) throws -> [EventTopic] { [] }

    func pruned(in db: Database) throws { try SQLiteEventReaders.prune(ThingEventAudience().replay.tables, in: db) }
}

extension ThingEvent: SQLiteLoggedEvent {
    public func recordAudience(seq: Int64, in db: Database) throws {
        try ThingEventAudience().replay.record(self.replayAudience, seq: seq, topic: self.topic, in: db)
    }
}
