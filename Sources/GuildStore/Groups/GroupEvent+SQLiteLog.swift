import GRDB
import GuildCore

extension GroupEvent: SQLiteLoggedEvent {
    /// The users it names (`event_subject`), the members it skips (`event_excluded`), and the membership
    /// intervals it opens and closes (`membership_history`).
    public func recordAudience(seq: Int64, in db: Database) throws {
        for user in Set(self.namedRecipients) {
            try db.cachedStatement(sql: "INSERT OR IGNORE INTO event_subject (userID, seq) VALUES (?, ?)").execute(
                arguments: StoredText.arguments([user, seq])
            )
        }
        for user in Set(self.excluded) {
            try db.cachedStatement(sql: "INSERT INTO event_excluded (seq, userID) VALUES (?, ?)").execute(
                arguments: StoredText.arguments([seq, user])
            )
        }
        for user in self.joined {
            try db.cachedStatement(sql: "INSERT INTO membership_history (groupID, userID, fromSeq, toSeq) VALUES (?, ?, ?, NULL)").execute(
                arguments: StoredText.arguments([self.groupID, user, seq])
            )
        }
        for user in self.left {
            try db.cachedStatement(sql: "UPDATE membership_history SET toSeq = ? WHERE groupID = ? AND userID = ? AND toSeq IS NULL").execute(
                arguments: StoredText.arguments([seq, self.groupID, user])
            )
        }
    }
}
