import GRDB
import GuildCore

/// The groups area's side of the event log: replay shows a user the events of groups they belonged to at the
/// time (`membership_history`), events naming them (`event_subject`), never those excluding them
/// (`event_excluded`).
struct GroupSQLiteEventArea: SQLiteEventArea {
    var area: String { GroupEventAudience.groupArea }

    var replayCondition: String {
        """
        (EXISTS (SELECT 1 FROM event_subject s WHERE s.userID = :user AND s.seq = e.seq)
            OR (e.audience = 'members' AND EXISTS (
                SELECT 1 FROM membership_history h
                WHERE h.userID = :user AND h.groupID = substr(e.topic, 7) AND h.fromSeq <= e.seq
                  AND (h.toSeq IS NULL OR h.toSeq >= e.seq))))
        AND NOT EXISTS (SELECT 1 FROM event_excluded x WHERE x.seq = e.seq AND x.userID = :user)
        """
    }

    func following(userID: String, in db: Database) throws -> [EventTopic] {
        try String.fetchAll(db, sql: "SELECT groupID FROM membership WHERE userID = ?", arguments: StoredText.arguments([userID]))
            .map(EventTopic.group)
    }

    func pruned(in db: Database) throws {
        try db.execute(
            sql: "DELETE FROM membership_history WHERE toSeq IS NOT NULL AND toSeq < coalesce((SELECT min(seq) FROM event), toSeq + 1)"
        )
    }
}
