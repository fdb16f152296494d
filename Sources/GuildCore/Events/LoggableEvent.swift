/// An area's domain event as the log stores it: a topic, a kind the area owns, a time, and a JSON body the
/// area encodes. The area's ``EventAudience`` decides who receives it live; its store side decides replay.
public protocol LoggableEvent: Sendable {
    /// What the event is about.
    var topic: EventTopic { get }
    /// The kind, one of the area's ``EventAudience/kinds``.
    var kindName: String { get }
    /// When, ms since the Unix epoch (old events are pruned by it).
    var time: Int64 { get }
    /// A short word the area's replay rule reads back from the log (for groups: `members` or `named`).
    var audienceTag: String { get }
    /// Who receives it live, computed once per event (see ``EventAudience``).
    var routing: EventRouting { get }
    /// Who may replay it, as the log records it (see ``ReplayRule``).
    var replayAudience: ReplayAudience { get }
    /// The event's JSON object without its `seq`, as subscribers receive it.
    func encodeBody() throws -> [UInt8]
    /// The body as the log keeps it, when that differs from ``encodeBody()``: a body that names a row its area
    /// keeps anyway instead of holding a second copy of it (a thing's state), expanded again when read back
    /// (``ThingEvent/expandStoredBody(_:kind:state:)``). Nil, the default, stores ``encodeBody()``.
    func encodeStoredBody() throws -> [UInt8]?
}

extension LoggableEvent {
    public func encodeStoredBody() throws -> [UInt8]? { nil }
}
