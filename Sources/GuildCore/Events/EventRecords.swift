/// The event log's part of a ``Transaction``: every change appends its events in its own transaction, with
/// one global, gap-free sequence for all areas.
public protocol EventRecords {
    /// Appends an area's event to the log; returns its sequence number. Subscribers get it after the commit.
    @discardableResult
    func append(_ event: some LoggableEvent) throws -> Int64
    /// Replaces the body of the logged event `seq` with `event`'s, keeping its place, topic, kind and audience:
    /// a recalled message's `newMessage` keeps its seq for replay and loses its text.
    func rewrite(_ seq: Int64, as event: some LoggableEvent) throws
}
