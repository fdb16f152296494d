import GuildCore
import GuildJSON
import NIOCore
import PostgresNIO

/// The event log on PostgreSQL: one global, gap-free sequence for every host that shares the database.
///
/// The outbox problem: with a plain sequence, a transaction that took seq 8 may commit before one that took
/// seq 7, and a reader that saw 8 and moved its cursor past it would never see 7. Here a transaction numbers its
/// events by taking the row lock of the single `event_head` row and holds it until it ends, so the transaction
/// with seq 8 cannot even number its events until the one with seq 7 has committed (and is visible: PostgreSQL
/// makes a commit visible before it releases its locks) or rolled back (and given its numbers back). Readers
/// therefore only ever see a prefix of the sequence: `seq > cursor` never skips a number.
///
/// The lock is taken as late as it can be: by the transaction's tail (``tail(_:audience:messages:)``), the one
/// statement that moves the head, inserts the events and their audience rows and notifies, just before COMMIT.
/// Until then a transaction's events stand by their place in it (``provisional(_:)``), so the operations of a
/// batch run while another transaction, on another connection or host, holds the lock. The lock is also the last
/// one a transaction takes: a transaction that holds it waits for nothing but its own commit, so no wait for it
/// runs in a circle.
public enum PostgresEventLog {
    /// The channel hosts `LISTEN` on; each commit that appended events notifies it with its new head.
    public static let channel = "guild_events"

    /// The number that stands for a transaction's `position`-th event (from 0) until its tail numbers it: `-1`,
    /// `-2`, ..., never a committed event's number. The tail's head `base` makes it `base - provisional`.
    static func provisional(_ position: Int) -> Int64 { -Int64(position) - 1 }

    /// The position in its transaction of the event that `provisional` stands for: ``provisional(_:)`` undone.
    static func position(ofProvisional provisional: Int64) -> Int { Int(-provisional - 1) }

    /// Whether `seq` stands for an event of the open transaction (``provisional(_:)``) rather than a logged one.
    static func isProvisional(_ seq: Int64) -> Bool { seq < 0 }

    /// Appends `events` in the caller's open transaction, numbering them in order; returns them with their
    /// sequence numbers. Holds the sequence's lock until the transaction ends: call it last.
    public static func append(_ events: [PostgresEvent], on connection: BlockingConnection) throws -> [PostgresEvent] {
        guard let tail = self.tail(events, audience: nil, messages: []) else { return [] }
        let base = try self.base(answering: connection.query(tail))
        return self.numbered(events, base: base)
    }

    /// Sends a transaction's tail (``tail(_:audience:messages:)``) without waiting (``BlockingConnection/send(_:)``):
    /// the COMMIT after it waits, and throws its error. Its answer, once the COMMIT is answered, gives the head the
    /// events were numbered from (``base(answering:)``); nil when there was nothing to send.
    static func send(
        _ events: [PostgresEvent],
        audience: PostgresAudienceRows?,
        messages: [EventNumbering.MessageRow],
        on connection: BlockingConnection
    ) -> BlockingConnection.Sent? {
        guard let tail = self.tail(events, audience: audience, messages: messages) else { return nil }
        return connection.send(tail)
    }

    /// The head a tail numbered its events from, read from its answer.
    static func base(answering rows: [PostgresRow]) throws -> Int64 {
        guard let base = try rows.first?.makeRandomAccess()[0].decode(Int64.self) else {
            throw PostgresStoreError.unexpectedReply("the event log's tail returned no head")
        }
        return base
    }

    /// `events`, provisionally numbered in order, with the numbers the tail that answered `base` gave them.
    static func numbered(_ events: [PostgresEvent], base: Int64) -> [PostgresEvent] {
        var numbered = events
        for index in numbered.indices { numbered[index].seq = base - self.provisional(index) }
        return numbered
    }

    /// A transaction's tail as one statement, `WITH head AS (UPDATE event_head ...), p0 AS (INSERT ...), ...
    /// SELECT base, pg_notify(...)`: the head moved past the transaction's events (taking the log's lock), the
    /// events (one `INSERT` of arrays, however many) numbered from it, their audience rows, the group messages
    /// stored with a provisional event number (`messages`) renumbered, and the notification, in one round trip
    /// where each would take one of its own (postgres-nio sends a statement only when the one before it is
    /// answered). PostgreSQL runs each part exactly once, to the end, all on the statement's one snapshot: no part
    /// sees the rows another writes, and none writes a row that another does. Its one row is the head before the
    /// events. Nil when there are no events.
    static func tail(_ events: [PostgresEvent], audience: PostgresAudienceRows?, messages: [EventNumbering.MessageRow]) -> PostgresQuery? {
        guard !events.isEmpty else { return nil }
        var statement = PostgresStatement()
        let count = statement.bind(Int64(events.count))
        let base = "(SELECT base FROM head)"
        var parts = ["head AS (UPDATE event_head SET seq = seq + \(count)::bigint RETURNING seq - \(count)::bigint AS base)"]
        let topics = statement.bind(events.map(\.topic.rawValue))
        let kinds = statement.bind(events.map(\.kind))
        let audiences = statement.bind(events.map(\.audience))
        let bodies = statement.bind(events.map { ByteBuffer(bytes: $0.storedBody ?? $0.body) })
        let times = statement.bind(events.map(\.time))
        let routings = statement.bind(events.map { StoredRouting.encode($0.routing) })
        var writes = [
            """
            INSERT INTO event (seq, topic, kind, audience, body, time, routing)
            SELECT \(base) + e.position, e.topic, e.kind, e.audience, e.body, e.time, e.routing
            FROM unnest(\(topics)::text[], \(kinds)::text[], \(audiences)::text[], \(bodies)::bytea[], \(times)::bigint[],
                \(routings)::text[]) WITH ORDINALITY AS e (topic, kind, audience, body, time, routing, position)
            """
        ]
        writes += audience?.parts(binding: &statement, base: base) ?? []
        if !messages.isEmpty {
            let groups = statement.bind(messages.map(\.groupID))
            let seqs = statement.bind(messages.map(\.seq))
            writes.append(
                """
                UPDATE group_message m SET event_seq = \(base) - m.event_seq
                FROM unnest(\(groups)::text[], \(seqs)::bigint[]) AS r (group_id, seq)
                WHERE m.group_id = r.group_id AND m.seq = r.seq AND m.event_seq < 0
                """
            )
        }
        parts += writes.enumerated().map { "p\($0.offset) AS (\($0.element))" }
        let notify = "pg_notify(\(statement.bind(Self.channel)), (base + \(count)::bigint)::text)"
        statement.sql = "WITH " + parts.joined(separator: ", ") + " SELECT base, \(notify) FROM head"
        return statement.query
    }

    /// Committed events after `after`, in order, at most `limit`.
    public static func read(after: Int64, limit: Int, on connection: BlockingConnection) throws -> [PostgresEvent] {
        try connection.query("SELECT \(unescaped: Self.columns) FROM event WHERE seq > \(after) ORDER BY seq LIMIT \(limit)")
            .map(Self.event(from:))
    }

    /// The last committed sequence number (0 when none yet).
    public static func head(on connection: BlockingConnection) throws -> Int64 {
        let rows = try connection.query("SELECT seq FROM event_head")
        guard let head = try rows.first?.decode(Int64.self) else { throw PostgresStoreError.unexpectedReply("event_head has no row") }
        return head
    }

    /// The columns ``event(from:)`` reads, in its order, from `event` rows.
    static let columns =
        "seq, topic, kind, audience, body, time, routing, " + Self.namedState(body: "body", kind: "kind", topic: "topic")

    /// The state a `thingStateChanged` body names (``ThingEvent/encodeStoredBody()``), while the thing's history
    /// keeps it; NULL for every other event. The id is read from the body's start, never by parsing it as
    /// `jsonb`: the body's keys are sorted, so a named state's body begins `{"kind":"thingStateChanged",
    /// "stateID":N`, while one logged before states were named begins with `"state"` (and may hold a `\u0000`
    /// escape, which `jsonb` refuses). The row must be the thing's (`thing:<id>` is the event's topic).
    static func namedState(body: String, kind: String, topic: String) -> String {
        """
        CASE WHEN \(kind) = '\(ThingEvent.Kind.thingStateChanged.rawValue)' THEN (
            SELECT s.state FROM thing_state s
            WHERE s.id = substring(convert_from(\(body), 'UTF8') from '^\\{"kind":"thingStateChanged","stateID":([0-9]{1,18})[,}]')::bigint
            AND s.thing_id = substr(\(topic), 7)
        ) END
        """
    }

    /// A stored body as subscribers receive it: a state event's named state put back.
    static func expandedBody(_ body: ByteBuffer, kind: String, state: ByteBuffer?) throws -> [UInt8] {
        try ThingEvent.expandStoredBody(Array(buffer: body), kind: kind) { _, _ in
            guard let state, case .object(let members) = try state.withUnsafeReadableBytes({ try JSONValue(parsing: $0) }) else {
                return nil
            }
            return members
        }
    }

    static func event(from row: PostgresRow) throws -> PostgresEvent {
        let (seq, topic, kind, audience, body, time, routing, state) = try row.decode(
            (Int64, String, String, String, ByteBuffer, Int64, String, ByteBuffer?).self
        )
        guard let parsed = EventTopic(topic) else { throw PostgresStoreError.unexpectedReply("event \(seq) has topic \(topic)") }
        return PostgresEvent(
            seq: seq,
            topic: parsed,
            kind: kind,
            audience: audience,
            time: time,
            body: try Self.expandedBody(body, kind: kind, state: state),
            routing: try StoredRouting.decode(routing)
        )
    }
}
