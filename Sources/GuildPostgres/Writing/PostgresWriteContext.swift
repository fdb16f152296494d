import GuildCore

/// What one write operation sees inside the writer's shared transaction: the connection, and the event log
/// to append to. Used only on the writer's thread, for the length of the operation.
public final class PostgresWriteContext {
    /// The writer's connection, inside the open transaction and the operation's savepoint.
    public let connection: BlockingConnection
    private let sequence: EventNumbering
    /// The records the operation changed, for the after-commit hooks (kept even when it fails: dropping a cache
    /// entry is always safe).
    public var changed: Set<RecordKey> = []
    /// Whether the operation may append events: false on a quiet lane (see ``PostgresWriterLane``).
    let mayAppend: Bool
    /// Whether the operation waits for the statements it sent without waiting (``BlockingConnection/send(_:)``)
    /// before it ends, so that their error is its own: in a batch run with a savepoint per operation. In a batch
    /// without savepoints the next statement that waits (the next operation's, or the lane's before the tail)
    /// throws it, and the batch runs again with savepoints.
    let waitsForItsStatements: Bool
    /// Whether the operation appended an event.
    private(set) var appended = false
    /// Whether the operation tried to append on a quiet lane: it must run again on the event lane, even if it
    /// caught the refusal.
    private(set) var refusedAppend = false

    init(connection: BlockingConnection, sequence: EventNumbering, mayAppend: Bool = true, waitsForItsStatements: Bool = true) {
        self.connection = connection
        self.sequence = sequence
        self.mayAppend = mayAppend
        self.waitsForItsStatements = waitsForItsStatements
    }

    /// Appends an event to the log; returns the number that stands for it in this transaction
    /// (``PostgresEventLog/provisional(_:)``): the transaction's tail numbers its events when it takes the log's
    /// lock, just before COMMIT (protocol/postgresql.md). Only for use inside the transaction: to record the
    /// event's audience, in ``PostgresTransaction/rewrite(_:as:)``, or in a group message's row, which the tail
    /// renumbers (``renumberAtTail(groupMessage:seq:)``). On a quiet lane it throws ``PostgresWriteRedirect``
    /// instead, and the operation runs again on the event lane.
    @discardableResult
    public func append(_ event: PostgresEvent) throws -> Int64 {
        guard self.mayAppend else {
            self.refusedAppend = true
            throw PostgresWriteRedirect(appends: true)
        }
        self.appended = true
        return self.sequence.append(event)
    }

    /// Who may replay the events the transaction appends: inserted with them at its tail.
    var audience: PostgresAudienceRows { self.sequence.audience }

    /// Replaces the body the log keeps for the event this transaction appended as `provisional`.
    func rewrite(_ provisional: Int64, storedBody: [UInt8]) {
        self.sequence.rewrite(provisional, storedBody: storedBody)
    }

    /// Records that the group message `seq` of `groupID`, inserted by this transaction, holds a provisional event
    /// number that the tail replaces with the event's.
    func renumberAtTail(groupMessage groupID: String, seq: Int64) {
        self.sequence.messages.append(EventNumbering.MessageRow(groupID: groupID, seq: seq))
    }
}

/// The events of one shared transaction, in order, standing by their place in it until its tail numbers them
/// (``PostgresEventLog/provisional(_:)``), who may replay them, and the rows that hold their provisional numbers.
final class EventNumbering {
    /// A group message whose row holds a provisional event number.
    struct MessageRow {
        var groupID: String
        var seq: Int64
    }

    private(set) var events: [PostgresEvent] = []
    let audience = PostgresAudienceRows()
    fileprivate(set) var messages: [MessageRow] = []
    /// The kept bodies ``rewrite(_:storedBody:)`` replaced, in order: an operation rolled back gives them back.
    private var rewritten: [(index: Int, previous: [UInt8]?)] = []

    /// Adds `event` after the transaction's others; returns its provisional number.
    func append(_ event: PostgresEvent) -> Int64 {
        var numbered = event
        numbered.seq = PostgresEventLog.provisional(self.events.count)
        self.events.append(numbered)
        return numbered.seq
    }

    /// Replaces the body the log keeps for the event `provisional` (live subscribers still get the body it was
    /// appended with, as when a logged event is rewritten after its commit).
    fileprivate func rewrite(_ provisional: Int64, storedBody: [UInt8]) {
        let index = PostgresEventLog.position(ofProvisional: provisional)
        guard self.events.indices.contains(index) else { return }
        self.rewritten.append((index, self.events[index].storedBody))
        self.events[index].storedBody = storedBody
    }

    /// Where an operation starts, to drop what it recorded if its savepoint rolls back.
    var mark: Mark {
        Mark(count: self.events.count, audience: self.audience.mark, messages: self.messages.count, rewritten: self.rewritten.count)
    }

    /// The count of events, the audience, the message rows and the rewrites recorded when an operation started.
    struct Mark {
        var count: Int
        var audience: (rows: Int, changes: Int)
        var messages: Int
        var rewritten: Int
    }

    /// Drops the events, audience and message rows recorded since `mark` (a later operation's events take their
    /// places), and gives earlier events back the bodies rewritten since, as the savepoint's rollback does in the
    /// log.
    func rollBack(to mark: Mark) {
        for rewrite in self.rewritten[mark.rewritten...].reversed() where rewrite.index < mark.count {
            self.events[rewrite.index].storedBody = rewrite.previous
        }
        self.rewritten.removeSubrange(mark.rewritten...)
        self.events.removeSubrange(mark.count...)
        self.audience.rollBack(to: mark.audience)
        self.messages.removeSubrange(mark.messages...)
    }
}
