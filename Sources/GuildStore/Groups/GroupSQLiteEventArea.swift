import GRDB
import GuildCore

/// The groups area's side of the event log: replay shows a user the events of groups they belonged to at the
/// time (`membership_history`), events naming them (`event_subject`), never those excluding them
/// (`event_excluded`).
struct GroupSQLiteEventArea: SQLiteEventArea {
    var area: String { GroupEventAudience.groupArea }

    var replayCondition: String { GroupEventAudience().replay.sqliteCondition }

    func following(userID: String, in db: Database) throws -> [EventTopic] {
        try String.fetchAll(db, sql: "SELECT groupID FROM membership WHERE userID = ?", arguments: StoredText.arguments([userID]))
            .map(EventTopic.group)
    }

    func pruned(in db: Database) throws {
        try db.execute(
            sql: "DELETE FROM membership_history WHERE toSeq < \(SQLiteEventReaders.oldestKept)"
        )
    }
}
