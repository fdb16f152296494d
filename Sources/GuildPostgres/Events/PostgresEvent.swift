import GuildCore
import NIOCore

/// An event as the PostgreSQL log holds it: its sequence number, topic, kind, audience tag, time and JSON
/// body (without `seq`).
public struct PostgresEvent: Sendable, Equatable {
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

    /// Creates an event to append (its `seq` is assigned by the log).
    public init(seq: Int64 = 0, topic: EventTopic, kind: String, audience: String, time: Int64, body: [UInt8]) {
        self.seq = seq
        self.topic = topic
        self.kind = kind
        self.audience = audience
        self.time = time
        self.body = body
    }

    /// An area's event, encoded.
    public init(_ event: some LoggableEvent) throws {
        self.init(topic: event.topic, kind: event.kindName, audience: event.audienceTag, time: event.time, body: try event.encodeBody())
    }

    /// `{"seq":N,...}`, exactly as subscribers receive it.
    public var json: [UInt8] { CommittedEvent.json(seq: self.seq, body: self.body) }
}
