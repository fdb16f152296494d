import GuildCore
import NIOCore

/// An event as the PostgreSQL log holds it: its sequence number, topic, kind, audience tag, time and JSON
/// body (without `seq`).
public struct PostgresEvent: Sendable {
    /// The global sequence number (0 until appended).
    public var seq: Int64
    /// What the event is about.
    public var topic: EventTopic
    /// The kind, owned by the topic's area.
    public var kind: String
    /// The area's audience tag (see ``LoggableEvent/audienceTag``).
    public var audience: String
    /// When, ms since the Unix epoch.
    public var time: Int64
    /// The JSON object without `seq`.
    public var body: [UInt8]
    /// The body the log keeps, when it differs (``LoggableEvent/encodeStoredBody()``).
    public var storedBody: [UInt8]?
    /// Who receives it live.
    public var routing: EventRouting

    /// Creates an event to append (its `seq` is assigned by the log).
    public init(
        seq: Int64 = 0,
        topic: EventTopic,
        kind: String,
        audience: String,
        time: Int64,
        body: [UInt8],
        routing: EventRouting = EventRouting()
    ) {
        self.seq = seq
        self.topic = topic
        self.kind = kind
        self.audience = audience
        self.time = time
        self.body = body
        self.routing = routing
    }

    /// An area's event, encoded.
    public init(_ event: some LoggableEvent) throws {
        self.init(
            topic: event.topic,
            kind: event.kindName,
            audience: event.audienceTag,
            time: event.time,
            body: try event.encodeBody(),
            routing: event.routing
        )
        self.storedBody = try event.encodeStoredBody()
    }

    /// `{"seq":N,...}`, exactly as subscribers receive it.
    public var json: [UInt8] { CommittedEvent.json(seq: self.seq, body: self.body) }
}

extension PostgresEvent: Equatable {
    /// Events are equal when their log rows are (the routing is compared as it is stored).
    public static func == (left: PostgresEvent, right: PostgresEvent) -> Bool {
        left.seq == right.seq && left.topic == right.topic && left.kind == right.kind && left.audience == right.audience
            && left.time == right.time && left.body == right.body
            && StoredRouting.encode(left.routing) == StoredRouting.encode(right.routing)
    }
}

/// A logged event rebuilt from its row, as a ``LoggableEvent``: what a ``CommittedEvent`` of an event written
/// through any host is made from.
struct LoggedRow: LoggableEvent {
    var event: PostgresEvent

    var topic: EventTopic { self.event.topic }
    var kindName: String { self.event.kind }
    var time: Int64 { self.event.time }
    var audienceTag: String { self.event.audience }
    var routing: EventRouting { self.event.routing }
    /// Recorded with the row already; a rebuilt event is never appended again.
    var replayAudience: ReplayAudience { ReplayAudience() }
    func encodeBody() throws -> [UInt8] { self.event.body }
}

extension PostgresEvent {
    /// The committed event subscribers are offered: its JSON, topic, kind and routing.
    public var committed: CommittedEvent {
        CommittedEvent(seq: self.seq, event: LoggedRow(event: self), json: self.json)
    }
}
