import Foundation
import GRDB
import GuildCore

extension SQLiteStore: EventRepository {
    public func eventSnapshot(userID: String?) async throws -> EventSnapshot {
        try await self.readDatabase { db in
            let head = try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'event'") ?? 0
            let oldest = try Int64.fetchOne(db, sql: "SELECT min(seq) FROM event") ?? (head + 1)
            var groups = Set<String>()
            if let userID {
                groups = Set(
                    try String.fetchAll(db, sql: "SELECT groupID FROM membership WHERE userID = ?", arguments: StoredText.arguments([userID]))
                )
            }
            return EventSnapshot(head: head, oldest: oldest, groups: groups)
        }
    }

    public func replay(userID: String?, after: Int64, through: Int64, limit: Int) async throws -> [StoredEvent] {
        try await self.readDatabase { db in
            let rows: [Row]
            if let userID {
                rows = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT e.seq, e.kind, e.groupID, e.body FROM event e
                        WHERE e.seq > :after AND e.seq <= :through AND (
                            EXISTS (SELECT 1 FROM event_subject s WHERE s.userID = :user AND s.seq = e.seq)
                            OR (e.audience = 'members' AND EXISTS (
                                SELECT 1 FROM membership_history h
                                WHERE h.userID = :user AND h.groupID = e.groupID AND h.fromSeq <= e.seq
                                  AND (h.toSeq IS NULL OR h.toSeq >= e.seq)))
                        )
                        AND NOT EXISTS (SELECT 1 FROM event_excluded x WHERE x.seq = e.seq AND x.userID = :user)
                        ORDER BY e.seq LIMIT :limit
                        """,
                    arguments: ["after": after, "through": through, "user": userID, "limit": limit]
                )
            } else {
                rows = try Row.fetchAll(
                    db,
                    sql: "SELECT seq, kind, groupID, body FROM event WHERE seq > ? AND seq <= ? ORDER BY seq LIMIT ?",
                    arguments: StoredText.arguments([after, through, limit])
                )
            }
            return rows.map { row in
                let seq: Int64 = row["seq"]
                let body: Data = row["body"]
                return StoredEvent(
                    seq: seq,
                    kind: GroupEvent.Kind(rawValue: row["kind"]) ?? .groupInfoChanged,
                    groupID: row["groupID"],
                    json: EventBody.json(seq: seq, body: Array(body))
                )
            }
        }
    }

    public func pruneEvents(keepCount: Int64, maxAgeMilliseconds: Int64, now: Int64) async throws -> Int {
        try await self.writeDatabase { db in
            try db.execute(
                sql: "DELETE FROM event WHERE seq <= (SELECT max(seq) FROM event) - ? OR time < ?",
                arguments: StoredText.arguments([keepCount, now - maxAgeMilliseconds])
            )
            let removed = db.changesCount
            if removed > 0 {
                try db.execute(
                    sql: "DELETE FROM membership_history WHERE toSeq IS NOT NULL AND toSeq < coalesce((SELECT min(seq) FROM event), toSeq + 1)"
                )
            }
            return removed
        }
    }
}
