import GuildCore
import PostgresNIO

extension ReplayRule {
    /// A column as PostgreSQL's schema spells it: SQLite's name in snake_case (`userID` is `user_id`).
    static func column(_ name: String) -> String {
        var spelled = ""
        for (index, character) in name.enumerated() {
            if character.isUppercase {
                let previous = index > 0 ? name[name.index(name.startIndex, offsetBy: index - 1)] : " "
                if !previous.isUppercase && index > 0 { spelled += "_" }
                spelled += character.lowercased()
            } else {
                spelled.append(character)
            }
        }
        return spelled
    }

    /// The rule as PostgreSQL's condition on the event `e`, for the user bound as `user` and the installation
    /// (`installation:<id>`, or NULL) as `installation` (placeholders such as `$1`).
    func postgresCondition(user: String, installation: String) -> String {
        var admits: [String] = []
        if let tag = self.everyoneTag { admits.append("e.audience = '\(tag)'") }
        let match = self.readersMatchInstallation ? "IN (\(user), \(installation))" : "= \(user)"
        admits.append(
            "EXISTS (SELECT 1 FROM \(self.readers.table) r WHERE r.\(Self.column(self.readers.column)) \(match) AND r.seq = e.seq)"
        )
        if let groups = self.groups {
            admits.append(
                """
                EXISTS (
                    SELECT 1 FROM \(groups) g JOIN membership_history h ON h.group_id = g.group_id
                    WHERE g.seq = e.seq AND h.user_id = \(user) AND h.from_seq <= e.seq
                        AND (h.to_seq IS NULL OR h.to_seq >= e.seq))
                """
            )
        }
        if let tag = self.topicMembersTag {
            admits.append(
                """
                (e.audience = '\(tag)' AND EXISTS (
                    SELECT 1 FROM membership_history h
                    WHERE h.user_id = \(user) AND h.group_id = substr(e.topic, \(GroupEventAudience.groupArea.utf8.count + 2))
                      AND h.from_seq <= e.seq AND (h.to_seq IS NULL OR h.to_seq >= e.seq)))
                """
            )
        }
        let admitted = "(" + admits.joined(separator: "\nOR ") + ")"
        guard let excluded = self.excluded else { return admitted }
        return admitted + "\nAND NOT EXISTS (SELECT 1 FROM \(excluded) x WHERE x.seq = e.seq AND x.user_id = \(user))"
    }

    /// Records an event's audience under the rule, as SQLite's store does: its readers, groups and excluded
    /// users, and the membership of its topic's group that it opens and closes. The rows go into the batch's
    /// ``PostgresAudienceRows``, inserted at its tail with its events. PostgreSQL text cannot hold U+0000, and no
    /// principal's or group's id holds one, so such a name is left out (nobody could replay as it).
    func record(_ audience: ReplayAudience, seq: Int64, topic: EventTopic, into rows: PostgresAudienceRows) {
        rows.add(audience.readers, seq: seq, table: self.readers.table, column: Self.column(self.readers.column))
        if let table = self.groups { rows.add(audience.groups, seq: seq, table: table, column: "group_id") }
        if let table = self.excluded { rows.add(audience.excluded, seq: seq, table: table, column: "user_id") }
        guard self.topicMembersTag != nil else { return }
        let groupID = String(topic.id)
        rows.open(audience.joined, groupID: groupID, seq: seq)
        rows.close(audience.left, groupID: groupID, seq: seq)
    }

    /// The oldest seq the log still holds, or one past every seq when it is empty (no later event can have a
    /// smaller one): a constant for the statement, so `seq < \(oldestKept)` is an index range. A fallback that
    /// depended on the row (`coalesce(..., seq + 1)`) made every delete a scan of the whole table, once per
    /// pruning batch.
    static let oldestKept = "coalesce((SELECT min(seq) FROM event), 9223372036854775807)"

    /// Forgets the rule's rows of events no longer in the log.
    func prune(on connection: BlockingConnection) throws {
        for table in self.tables {
            try connection.execute("DELETE FROM \(unescaped: table) WHERE seq < \(unescaped: Self.oldestKept)")
        }
    }
}
