/// An event as committed: its sequence number, topic and kind, its wire JSON (encoded once for every
/// subscriber), who receives it live, and the area's domain value.
///
/// A class: one committed event is offered to many subscriptions, and passing a reference costs one retain
/// where copying a struct of arrays and strings would cost a dozen.
public final class CommittedEvent: Sendable {
    /// The global, gap-free sequence number.
    public let seq: Int64
    /// What the event is about.
    public let topic: EventTopic
    /// The kind, owned by the topic's area.
    public let kind: String
    /// `{"seq":...,"kind":...,...}`, exactly as subscribers receive it.
    public let json: [UInt8]
    /// Who receives it live (its ``LoggableEvent/routing``), read by every subscription it is offered to.
    public let routing: EventRouting
    /// The area's domain value, boxed so it is read through a reference (see ``payload(as:)``), for an event
    /// committed through this process; an event another host wrote, read from a shared log, carries the stored
    /// row instead (live delivery needs only ``routing`` and ``json``).
    public let payload: any AnyObject & Sendable

    /// Creates a committed event of an area's `event`.
    public init<Event: LoggableEvent>(seq: Int64, event: Event, json: [UInt8]) {
        self.seq = seq
        self.topic = event.topic
        self.kind = event.kindName
        self.json = json
        self.routing = event.routing
        self.payload = EventPayload(event)
    }

    /// The area's domain value when it is an `Event`, else nil.
    public func payload<Event: LoggableEvent>(as type: Event.Type) -> EventPayload<Event>? {
        self.payload as? EventPayload<Event>
    }

    /// The event's wire JSON with its sequence number first: `{"seq":N,<body members>}`.
    public static func json(seq: Int64, body: [UInt8]) -> [UInt8] {
        var bytes = Array("{\"seq\":\(seq)".utf8)
        if body.count > 2 {
            bytes.append(UInt8(ascii: ","))
            bytes.append(contentsOf: body.dropFirst())
        } else {
            bytes.append(UInt8(ascii: "}"))
        }
        return bytes
    }
}

/// An area's domain event, held by reference in a ``CommittedEvent``.
public final class EventPayload<Event: LoggableEvent>: Sendable {
    /// The event.
    public let event: Event

    /// Boxes an event.
    public init(_ event: Event) { self.event = event }
}
