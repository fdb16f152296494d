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

    /// Appends an event to the log; returns its sequence number, final once the transaction commits. The
    /// first append of a transaction takes the sequence's lock (protocol/postgresql.md). On a quiet lane it
    /// throws ``PostgresWriteRedirect`` instead, and the operation runs again on the event lane.
    @discardableResult
    public func append(_ event: PostgresEvent) throws -> Int64 {
        guard self.mayAppend else {
            self.refusedAppend = true
            throw PostgresWriteRedirect(appends: true)
        }
        self.appended = true
        return try self.sequence.append(event, on: self.connection)
    }

    /// Who may replay the events the transaction appends: inserted with them at its tail.
    var audience: PostgresAudienceRows { self.sequence.audience }
}

/// The events of one shared transaction, numbered in order from the head it locked on its first append, and
/// who may replay them.
final class EventNumbering {
    private(set) var head: Int64?
    private(set) var events: [PostgresEvent] = []
    let audience = PostgresAudienceRows()

    func append(_ event: PostgresEvent, on connection: BlockingConnection) throws -> Int64 {
        let head = try self.head ?? PostgresEventLog.lockHead(on: connection)
        var numbered = event
        numbered.seq = head + 1
        self.head = numbered.seq
        self.events.append(numbered)
        return numbered.seq
    }

    /// Where an operation starts, to give its numbers back if its savepoint rolls back.
    var mark: Mark { Mark(head: self.head, count: self.events.count, audience: self.audience.mark) }

    /// The head, the count of events and the audience recorded when an operation started.
    struct Mark {
        var head: Int64?
        var count: Int
        var audience: (rows: Int, changes: Int)
    }

    /// Gives back the numbers taken since `mark`, and drops the audience recorded since. A head first locked
    /// inside the rolled-back savepoint was unlocked with it (PostgreSQL releases locks taken after a savepoint it
    /// rolls back to), so it is read again.
    func rollBack(to mark: Mark) {
        self.head = mark.head
        self.events.removeSubrange(mark.count...)
        self.audience.rollBack(to: mark.audience)
    }
}
