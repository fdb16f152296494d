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
    /// users, and the membership of its topic's group that it opens and closes. PostgreSQL text cannot hold
    /// U+0000, and no principal's or group's id holds one, so such a name is left out (nobody could replay as it).
    /// The statements are sent without waiting (nothing reads their answer): the operation's end, or the next
    /// statement that waits, throws their error (``PostgresWriterLane``).
    func record(_ audience: ReplayAudience, seq: Int64, topic: EventTopic, on connection: BlockingConnection) {
        let readers = audience.readers.filter(PostgresTransaction.isStorableKey)
        if !readers.isEmpty {
            connection.send(
                """
                INSERT INTO \(unescaped: self.readers.table) (seq, \(unescaped: Self.column(self.readers.column)))
                SELECT \(seq), p FROM unnest(\(readers)::text[]) p
                ON CONFLICT DO NOTHING
                """
            )
        }
        let groups = audience.groups.filter(PostgresTransaction.isStorableKey)
        if let table = self.groups, !groups.isEmpty {
            connection.send(
                """
                INSERT INTO \(unescaped: table) (seq, group_id) SELECT \(seq), g FROM unnest(\(groups)::text[]) g
                ON CONFLICT DO NOTHING
                """
            )
        }
        let excluded = audience.excluded.filter(PostgresTransaction.isStorableKey)
        if let table = self.excluded, !excluded.isEmpty {
            connection.send(
                """
                INSERT INTO \(unescaped: table) (seq, user_id) SELECT \(seq), u FROM unnest(\(excluded)::text[]) u
                ON CONFLICT DO NOTHING
                """
            )
        }
        guard self.topicMembersTag != nil else { return }
        let groupID = String(topic.id)
        if !audience.joined.isEmpty {
            connection.send(
                """
                INSERT INTO membership_history (group_id, user_id, from_seq, to_seq)
                SELECT \(groupID), u, \(seq), NULL FROM unnest(\(audience.joined)::text[]) WITH ORDINALITY AS j (u, n)
                ORDER BY n
                """
            )
        }
        if !audience.left.isEmpty {
            connection.send(
                """
                UPDATE membership_history SET to_seq = \(seq)
                WHERE group_id = \(groupID) AND user_id = ANY(\(audience.left)::text[]) AND to_seq IS NULL
                """
            )
        }
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
