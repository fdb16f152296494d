import Foundation
import GRDB
import GuildCore

extension SQLiteStore: EventRepository {
    public func eventSnapshot(userID: String?) async throws -> EventSnapshot {
        try await self.readDatabase { db in
            let head = try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'event'") ?? 0
            let oldest = try Int64.fetchOne(db, sql: "SELECT min(seq) FROM event") ?? (head + 1)
            var following = Set<EventTopic>()
            if let userID {
                for area in self.eventAreas.all {
                    following.formUnion(try area.following(userID: userID, in: db))
                }
            }
            return EventSnapshot(head: head, oldest: oldest, following: following)
        }
    }

    /// One indexed query per page: the log's range by `seq`, each row checked by its area's replay condition.
    public func replay(userID: String?, installationID: String?, after: Int64, through: Int64, limit: Int) async throws -> [StoredEvent] {
        let areas = userID == nil ? [] : self.eventAreas.all
        return try await self.readDatabase { db in
            let rows: [Row]
            if let userID {
                rows = try Row.fetchAll(
                    db.cachedStatement(
                        sql: """
                            SELECT e.seq, e.topic, e.kind, e.body FROM event e
                            WHERE e.seq > :after AND e.seq <= :through AND (
                            \(SQLiteEventAreas.replayCondition(areas))
                            )
                            ORDER BY e.seq LIMIT :limit
                            """
                    ),
                    arguments: [
                        "after": after, "through": through, "user": userID, "limit": limit,
                        "installation": installationID.map { "installation:" + $0 },
                    ]
                )
            } else {
                rows = try Row.fetchAll(
                    db,
                    sql: "SELECT seq, topic, kind, body FROM event WHERE seq > ? AND seq <= ? ORDER BY seq LIMIT ?",
                    arguments: StoredText.arguments([after, through, limit])
                )
            }
            // A thing's state events name their state in the history: read it back as it was sent live.
            let things = SQLiteThingRecords(tx: SQLiteTransaction(db: db, log: EventLog()))
            return try rows.map { row in
                let seq: Int64 = row["seq"]
                let body: Data = row["body"]
                let topic: String = row["topic"]
                let kind: String = row["kind"]
                let expanded = try ThingEvent.expandStoredBody(Array(body), kind: kind, state: things.state(id:thingID:))
                return StoredEvent(
                    seq: seq,
                    topic: EventTopic(topic) ?? EventTopic(area: "unknown", id: topic),
                    kind: kind,
                    json: CommittedEvent.json(seq: seq, body: expanded)
                )
            }
        }
    }

    public func pruneEvents(keepCount: Int64, maxAgeMilliseconds: Int64, now: Int64, limit: Int) async throws -> Int {
        let (keepCount, olderThan) = EventPruning.bounds(keepCount: keepCount, maxAgeMilliseconds: maxAgeMilliseconds, now: now)
        let limit = EventPruning.clamped(limit: limit)
        return try await self.writeDatabase { db in
            // Beyond the count: the oldest `limit` seqs at most, a range of the primary key.
            try db.execute(
                sql: """
                    DELETE FROM event
                    WHERE seq <= min((SELECT max(seq) FROM event) - ?, (SELECT min(seq) FROM event) + ? - 1)
                    """,
                arguments: [keepCount, limit]
            )
            var removed = db.changesCount
            // Past the age: what is left of the limit, the oldest first along the time index.
            if removed < limit, olderThan > Int64.min {
                try db.execute(
                    sql: "DELETE FROM event WHERE seq IN (SELECT seq FROM event WHERE time < ? ORDER BY time, seq LIMIT ?)",
                    arguments: [olderThan, limit - removed]
                )
                removed += db.changesCount
            }
            if removed > 0 {
                for area in self.eventAreas.all { try area.pruned(in: db) }
            }
            return removed
        }
    }
}
