import GuildCore
import NIOCore
import PostgresNIO
import Synchronization

extension PostgresStore: EventRepository {
    public func eventSnapshot(userID: String?) async throws -> EventSnapshot {
        let areas = Self.eventAreas
        return try await self.readers.read { connection in
            let head = try PostgresEventLog.head(on: connection)
            let oldest = try connection.query("SELECT min(seq) FROM event").first?.decode(Int64?.self) ?? nil
            var following = Set<EventTopic>()
            if let userID {
                for area in areas { following.formUnion(try area.following(userID: userID, on: connection)) }
            }
            return EventSnapshot(head: head, oldest: oldest ?? (head + 1), following: following)
        }
    }

    /// One indexed query per page: the log's range by `seq`, each row checked by its area's replay condition.
    /// As on SQLite, a negative `limit` is no limit, and an id PostgreSQL text cannot hold (U+0000) names no one.
    public func replay(userID: String?, installationID: String?, after: Int64, through: Int64, limit: Int) async throws -> [StoredEvent] {
        if let userID, !PostgresTransaction.isStorableKey(userID) { return [] }
        let installation = installationID.flatMap { PostgresTransaction.isStorableKey($0) ? "installation:" + $0 : nil }
        return try await self.readers.read { connection in
            var bindings = PostgresBindings()
            bindings.append(after)
            bindings.append(through)
            bindings.append(limit < 0 ? nil : Int64(limit))
            if let userID {
                bindings.append(userID)
                bindings.append(installation)
            }
            let sql = userID == nil ? Self.replayAllSQL : Self.replayForUserSQL
            return try connection.query(PostgresQuery(unsafeSQL: sql, binds: bindings)).map { row in
                let (seq, topic, kind, body, state) = try row.decode((Int64, String, String, ByteBuffer, ByteBuffer?).self)
                return StoredEvent(
                    seq: seq,
                    topic: EventTopic(topic) ?? EventTopic(area: "unknown", id: topic),
                    kind: kind,
                    json: CommittedEvent.json(seq: seq, body: try PostgresEventLog.expandedBody(body, kind: kind, state: state))
                )
            }
        }
    }

    /// The replay query for everyone.
    private static let replayAllSQL = PostgresStore.replaySQL(condition: "true")

    /// The replay query for one user (`$4`) on one installation (`$5`): each area's condition on its own topics.
    private static let replayForUserSQL = PostgresStore.replaySQL(
        condition: PostgresStore.eventAreas.map { area in
            let prefix = area.area + ":"
            return "(substr(e.topic, 1, \(prefix.utf8.count)) = '\(prefix)' AND (\(area.replayCondition(user: "$4", installation: "$5"))))"
        }.joined(separator: "\n OR ")
    )

    private static func replaySQL(condition: String) -> String {
        """
        SELECT e.seq, e.topic, e.kind, e.body, \(PostgresEventLog.namedState(body: "e.body", kind: "e.kind", topic: "e.topic")) FROM event e
        WHERE e.seq > $1 AND e.seq <= $2 AND (\(condition))
        ORDER BY e.seq LIMIT $3
        """
    }

    public func pruneEvents(keepCount: Int64, maxAgeMilliseconds: Int64, now: Int64, limit: Int) async throws -> Int {
        let (keepCount, olderThan) = EventPruning.bounds(keepCount: keepCount, maxAgeMilliseconds: maxAgeMilliseconds, now: now)
        let limit = EventPruning.clamped(limit: limit)
        let areas = Self.eventAreas
        return try await self.writer.write { context in
            let connection = context.connection
            // Beyond the count: the oldest `limit` seqs at most, a range of the primary key.
            var removed = try connection.execute(
                """
                DELETE FROM event
                WHERE seq <= LEAST((SELECT max(seq) FROM event) - \(keepCount), (SELECT min(seq) FROM event) + \(limit) - 1)
                """
            )
            // Past the age: what is left of the limit, the oldest first along the time index.
            if removed < limit, olderThan > Int64.min {
                removed += try connection.execute(
                    """
                    DELETE FROM event WHERE seq IN (SELECT seq FROM event WHERE time < \(olderThan) ORDER BY time, seq LIMIT \(limit - removed))
                    """
                )
            }
            if removed > 0 { for area in areas { try area.pruned(on: connection) } }
            return removed
        }
    }

    public func onCommittedEvents(_ sink: @escaping @Sendable ([CommittedEvent]) -> Void) {
        self.listeners.sinks.withLock { $0 = [sink] }
    }
}
