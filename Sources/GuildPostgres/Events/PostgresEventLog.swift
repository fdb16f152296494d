import GuildCore
import GuildJSON
import NIOCore
import PostgresNIO

/// The event log on PostgreSQL: one global, gap-free sequence for every host that shares the database.
///
/// The outbox problem: with a plain sequence, a transaction that took seq 8 may commit before one that took
/// seq 7, and a reader that saw 8 and moved its cursor past it would never see 7. Here every append takes
/// the row lock of the single `event_head` row (`SELECT ... FOR UPDATE`) and holds it until its transaction
/// ends, so the transaction with seq 8 cannot even number its events until the one with seq 7 has committed
/// (and is visible: PostgreSQL makes a commit visible before it releases its locks) or rolled back (and given
/// its numbers back). Readers therefore only ever see a prefix of the sequence: `seq > cursor` never skips a
/// number. The lock is held from a transaction's first append to its commit (the group commit's batch takes it
/// once, at its first operation's first event, and inserts every event of the batch just before COMMIT).
public enum PostgresEventLog {
    /// The channel hosts `LISTEN` on; each commit that appended events notifies it with its new head.
    public static let channel = "guild_events"

    /// Appends `events` in the caller's open transaction, numbering them in order; returns them with their
    /// sequence numbers. Holds the sequence's lock until the transaction ends: call it last.
    public static func append(_ events: [PostgresEvent], on connection: BlockingConnection) throws -> [PostgresEvent] {
        guard !events.isEmpty else { return [] }
        let head = try self.lockHead(on: connection)
        var numbered = events
        for index in numbered.indices { numbered[index].seq = head + 1 + Int64(index) }
        self.send(numbered, on: connection)
        try connection.flush()
        return numbered
    }

    /// Takes the sequence's lock for the caller's open transaction (until it ends) and returns the last number
    /// used. The caller numbers its events from there and ends with ``send(_:on:)``.
    public static func lockHead(on connection: BlockingConnection) throws -> Int64 {
        let rows = try connection.query("SELECT seq FROM event_head FOR UPDATE")
        guard let head = try rows.first?.decode(Int64.self) else { throw PostgresStoreError.unexpectedReply("event_head has no row") }
        return head
    }

    /// Inserts events numbered after the head ``lockHead(on:)`` returned, with who may replay them (`audience`),
    /// moves the head to the last of them, and notifies listeners (delivered when, and only if, the transaction
    /// commits). One statement (``tail(_:audience:)``), sent without waiting (``BlockingConnection/send(_:)``): the
    /// COMMIT after it waits, and throws its error.
    public static func send(_ events: [PostgresEvent], audience: PostgresAudienceRows? = nil, on connection: BlockingConnection) {
        guard let tail = self.tail(events, audience: audience) else { return }
        connection.send(tail)
    }

    /// A transaction's tail as one statement, `WITH p0 AS (INSERT ...), ... SELECT pg_notify(...)`: its events (one
    /// `INSERT` of arrays, however many), their audience rows, the head and the notification, in one round trip
    /// where each would take one of its own (postgres-nio sends a statement only when the one before it is
    /// answered), with the head's lock held that much less long. PostgreSQL runs each part exactly once, to the
    /// end, all on the statement's one snapshot: no part sees the rows another writes, and none writes a row that
    /// another does. Nil when there is nothing to write.
    static func tail(_ events: [PostgresEvent], audience: PostgresAudienceRows?) -> PostgresQuery? {
        var statement = PostgresStatement()
        var parts = audience?.parts(binding: &statement) ?? []
        var result = "SELECT 1"
        if let last = events.last?.seq {
            let seqs = statement.bind(events.map(\.seq))
            let topics = statement.bind(events.map(\.topic.rawValue))
            let kinds = statement.bind(events.map(\.kind))
            let audiences = statement.bind(events.map(\.audience))
            let bodies = statement.bind(events.map { ByteBuffer(bytes: $0.storedBody ?? $0.body) })
            let times = statement.bind(events.map(\.time))
            let routings = statement.bind(events.map { StoredRouting.encode($0.routing) })
            parts.append(
                """
                INSERT INTO event (seq, topic, kind, audience, body, time, routing)
                SELECT * FROM unnest(\(seqs)::bigint[], \(topics)::text[], \(kinds)::text[], \(audiences)::text[],
                    \(bodies)::bytea[], \(times)::bigint[], \(routings)::text[])
                """
            )
            parts.append("UPDATE event_head SET seq = \(statement.bind(last))")
            result = "SELECT pg_notify(\(statement.bind(Self.channel)), \(statement.bind(String(last))))"
        }
        guard !parts.isEmpty else { return nil }
        statement.sql = "WITH " + parts.enumerated().map { "p\($0.offset) AS (\($0.element))" }.joined(separator: ", ") + " " + result
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
