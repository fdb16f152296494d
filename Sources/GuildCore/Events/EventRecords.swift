/// The event log's part of a ``Transaction``: every change appends its events in its own transaction.
public protocol EventRecords {
    /// Appends an event to the log; returns its sequence number.
    @discardableResult
    func append(_ event: GroupEvent) throws -> Int64
}
