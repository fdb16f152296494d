import GRDB
import GuildCore

/// The objects area's side of the event log: replay shows a user an object event when they could read what
/// it is about at the time: everyone could, they were named (`object_event_reader`), or they were then a
/// member of a group that could (`object_event_group` and the groups' `membership_history`).
struct ObjectSQLiteEventArea: SQLiteEventArea {
    var area: String { ObjectEventAudience.bucketArea }

    var replayCondition: String { ObjectEventAudience().replay.sqliteCondition }

    /// Nobody follows a bucket: subscriptions name the buckets they watch.
    func following(userID: String, in db: Database) throws -> [EventTopic] { [] }

    func pruned(in db: Database) throws { try SQLiteEventReaders.prune(ObjectEventAudience().replay.tables, in: db) }
}

extension ObjectEvent: SQLiteLoggedEvent {
    /// The users and groups who could read what the event is about (none to record when everyone could).
    public func recordAudience(seq: Int64, in db: Database) throws {
        try ObjectEventAudience().replay.record(self.replayAudience, seq: seq, topic: self.topic, in: db)
    }
}
