import GRDB
import GuildCore

extension ReplayRule {
    /// The rule as SQLite's condition on the event `e`, for the user bound as `:user` (and the installation as
    /// `:installation`, `installation:<id>`).
    var sqliteCondition: String {
        var admits: [String] = []
        if let tag = self.everyoneTag { admits.append("e.audience = '\(tag)'") }
        let match = self.readersMatchInstallation ? "IN (:user, :installation)" : "= :user"
        admits.append("EXISTS (SELECT 1 FROM \(self.readers.table) r WHERE r.\(self.readers.column) \(match) AND r.seq = e.seq)")
        if let groups = self.groups {
            admits.append(
                """
                EXISTS (
                    SELECT 1 FROM \(groups) g JOIN membership_history h ON h.groupID = g.groupID
                    WHERE g.seq = e.seq AND h.userID = :user AND h.fromSeq <= e.seq AND (h.toSeq IS NULL OR h.toSeq >= e.seq))
                """
            )
        }
        if let tag = self.topicMembersTag {
            admits.append(
                """
                (e.audience = '\(tag)' AND EXISTS (
                    SELECT 1 FROM membership_history h
                    WHERE h.userID = :user AND h.groupID = substr(e.topic, \(Self.topicIDStart)) AND h.fromSeq <= e.seq
                      AND (h.toSeq IS NULL OR h.toSeq >= e.seq)))
                """
            )
        }
        let admitted = "(" + admits.joined(separator: "\nOR ") + ")"
        guard let excluded = self.excluded else { return admitted }
        return admitted + "\nAND NOT EXISTS (SELECT 1 FROM \(excluded) x WHERE x.seq = e.seq AND x.userID = :user)"
    }

    /// Where a group topic's id starts in `group:<groupID>` (1-based, as `substr` counts).
    static let topicIDStart = GroupEventAudience.groupArea.utf8.count + 2

    /// Records an event's audience under the rule: its readers, groups and excluded users, and the membership
    /// of its topic's group that it opens and closes.
    func record(_ audience: ReplayAudience, seq: Int64, topic: EventTopic, in db: Database) throws {
        for reader in audience.readers {
            try db.cachedStatement(sql: "INSERT OR IGNORE INTO \(self.readers.table) (\(self.readers.column), seq) VALUES (?, ?)").execute(
                arguments: StoredText.arguments([reader, seq])
            )
        }
        if let groups = self.groups {
            for group in audience.groups {
                try db.cachedStatement(sql: "INSERT OR IGNORE INTO \(groups) (seq, groupID) VALUES (?, ?)").execute(
                    arguments: StoredText.arguments([seq, group])
                )
            }
        }
        if let excluded = self.excluded {
            for user in audience.excluded {
                try db.cachedStatement(sql: "INSERT OR IGNORE INTO \(excluded) (seq, userID) VALUES (?, ?)").execute(
                    arguments: StoredText.arguments([seq, user])
                )
            }
        }
        guard self.topicMembersTag != nil else { return }
        let groupID = String(topic.id)
        for user in audience.joined {
            try db.cachedStatement(sql: "INSERT INTO membership_history (groupID, userID, fromSeq, toSeq) VALUES (?, ?, ?, NULL)").execute(
                arguments: StoredText.arguments([groupID, user, seq])
            )
        }
        for user in audience.left {
            try db.cachedStatement(sql: "UPDATE membership_history SET toSeq = ? WHERE groupID = ? AND userID = ? AND toSeq IS NULL").execute(
                arguments: StoredText.arguments([seq, groupID, user])
            )
        }
    }
}
