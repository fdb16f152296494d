/// The event log's part of a ``Transaction``: every change appends its events in its own transaction, with
/// one global, gap-free sequence for all areas.
public protocol EventRecords {
    /// Appends an area's event to the log; returns the number that names it inside this transaction: its sequence
    /// number on SQLite; on PostgreSQL a provisional one that the transaction's last statement replaces, when it
    /// takes the log's lock (protocol/postgresql.md). Use it only inside the transaction: in ``rewrite(_:as:)``
    /// and in a group message's `eventSeq`, which the store keeps right. Subscribers get the event after the commit.
    @discardableResult
    func append(_ event: some LoggableEvent) throws -> Int64
    /// Replaces the body of the logged event `seq` with `event`'s, keeping its place, topic, kind and audience:
    /// a recalled message's `newMessage` keeps its seq for replay and loses its text.
    func rewrite(_ seq: Int64, as event: some LoggableEvent) throws
}
