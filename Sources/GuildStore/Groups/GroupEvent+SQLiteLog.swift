import GRDB
import GuildCore

extension GroupEvent: SQLiteLoggedEvent {
    /// The users it names (`event_subject`), the members it skips (`event_excluded`), and the membership
    /// intervals it opens and closes (`membership_history`), under the groups' replay rule.
    public func recordAudience(seq: Int64, in db: Database) throws {
        try GroupEventAudience().replay.record(self.replayAudience, seq: seq, topic: self.topic, in: db)
    }
}
