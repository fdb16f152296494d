import GuildCore
import NIOCore
import PostgresNIO

/// One transaction of the PostgreSQL store: each area's protocol of records and queries (`UserRecords`, ...)
/// is implemented by a small type of its own over ``connection`` (`PostgresUserRecords`, ...), handed out by
/// `users`, `groups`, ..., the way `GuildStore.SQLiteTransaction` does for SQLite.
///
/// Used only on the thread running the transaction, for its length.
public final class PostgresTransaction {
    /// The connection, inside the open transaction.
    public let connection: BlockingConnection
    private let context: PostgresWriteContext?
    private var readChanges: Set<RecordKey> = []

    /// A write transaction: an operation of the writer's shared transaction.
    public init(_ context: PostgresWriteContext) {
        self.connection = context.connection
        self.context = context
    }

    /// A read-only transaction on `connection` (appending through it fails).
    public init(reading connection: BlockingConnection) {
        self.connection = connection
        self.context = nil
    }

    /// Whether this is a writer's transaction (``init(_:)``), whose reads of rows it may change take row locks.
    public var isWriteTransaction: Bool { self.context != nil }

    /// `FOR NO KEY UPDATE` in a write transaction, nothing in a read-only one (which cannot lock rows): appended
    /// to a read of a row the transaction may change, so that a check made on it holds until the commit while
    /// other hosts write too.
    var rowLock: String { self.isWriteTransaction ? "FOR NO KEY UPDATE" : "" }

    /// Names a record the operation changed (see ``GuildCore/Transaction/changed(_:)``).
    public func changed(_ record: RecordKey) {
        if let context = self.context {
            context.changed.insert(record)
        } else {
            self.readChanges.insert(record)
        }
    }

    /// Records that the group message `seq` of `groupID`, which the transaction inserts holding `eventSeq`, is
    /// renumbered by the tail when `eventSeq` is provisional (``PostgresWriteContext/renumberAtTail(groupMessage:seq:)``).
    func holdsEventNumber(_ eventSeq: Int64, groupMessage groupID: String, seq: Int64) {
        guard PostgresEventLog.isProvisional(eventSeq) else { return }
        self.context?.renumberAtTail(groupMessage: groupID, seq: seq)
    }

    /// The records the transaction changed, for the store's after-commit hooks (the writer collects those of a
    /// write transaction).
    public var changedRecords: Set<RecordKey> { self.context?.changed ?? self.readChanges }

    /// Appends an area's event to the log; returns the number that stands for it until the transaction's tail
    /// numbers it (``PostgresWriteContext/append(_:)``; see ``GuildCore/EventRecords``).
    @discardableResult
    public func append(_ event: some LoggableEvent) throws -> Int64 {
        guard let context = self.context else { throw PostgresStoreError.readOnly }
        // Every area whose events the PostgreSQL log holds records their audience (``PostgresLoggedEvent``).
        guard let logged = event as? any PostgresLoggedEvent else {
            preconditionFailure("\(type(of: event)) has no PostgreSQL side: conform it to PostgresLoggedEvent in its area")
        }
        let seq = try context.append(try PostgresEvent(event))
        logged.recordAudience(seq: seq, into: context.audience)
        return seq
    }

    /// Replaces a logged event's body (see ``GuildCore/EventRecords``).
    public func rewrite(_ seq: Int64, as event: some LoggableEvent) throws {
        guard let context = self.context else { throw PostgresStoreError.readOnly }
        let body = try event.encodeStoredBody() ?? event.encodeBody()
        // An event this transaction appended is not in the log yet: its tail inserts the new body.
        if PostgresEventLog.isProvisional(seq) { return context.rewrite(seq, storedBody: body) }
        try self.connection.execute("UPDATE event SET body = \(ByteBuffer(bytes: body)) WHERE seq = \(seq)")
    }
}

/// Each area's records (`tx.things`, ...) are handed out by an extension beside the area's records type
/// (`PostgresThingRecords.swift`), so an area adds its accessor in its own file.
extension PostgresTransaction: Transaction {}

extension PostgresTransaction {
    /// Whether `key` can name a stored row: PostgreSQL's text cannot hold U+0000.
    static func isStorableKey(_ key: String) -> Bool {
        !key.utf8.contains(0)
    }
}
