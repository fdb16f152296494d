import GRDB
import GuildCore

/// The objects area's side of the event log: replay shows a user an object event when they could read what
/// it is about at the time: everyone could, they were named (`object_event_reader`), or they were then a
/// member of a group that could (`object_event_group` and the groups' `membership_history`).
struct ObjectSQLiteEventArea: SQLiteEventArea {
    var area: String { ObjectEventAudience.bucketArea }

    var replayCondition: String {
        """
        e.audience = 'everyone'
        OR EXISTS (SELECT 1 FROM object_event_reader r WHERE r.userID = :user AND r.seq = e.seq)
        OR EXISTS (
            SELECT 1 FROM object_event_group g JOIN membership_history h ON h.groupID = g.groupID
            WHERE g.seq = e.seq AND h.userID = :user AND h.fromSeq <= e.seq AND (h.toSeq IS NULL OR h.toSeq >= e.seq))
        """
    }

    /// Nobody follows a bucket: subscriptions name the buckets they watch.
    func following(userID: String, in db: Database) throws -> [EventTopic] { [] }

    func pruned(in db: Database) throws {
        try db.execute(sql: "DELETE FROM object_event_reader WHERE seq < coalesce((SELECT min(seq) FROM event), seq + 1)")
        try db.execute(sql: "DELETE FROM object_event_group WHERE seq < coalesce((SELECT min(seq) FROM event), seq + 1)")
    }
}

extension ObjectEvent: SQLiteLoggedEvent {
    /// The users and groups who could read what the event is about (none to record when everyone could).
    public func recordAudience(seq: Int64, in db: Database) throws {
        guard !self.readers.everyone else { return }
        for user in self.readers.users {
            try db.cachedStatement(sql: "INSERT OR IGNORE INTO object_event_reader (userID, seq) VALUES (?, ?)").execute(
                arguments: StoredText.arguments([user, seq])
            )
        }
        for group in self.readers.groups {
            try db.cachedStatement(sql: "INSERT OR IGNORE INTO object_event_group (seq, groupID) VALUES (?, ?)").execute(
                arguments: StoredText.arguments([seq, group])
            )
        }
    }
}
