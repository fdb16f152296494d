import GuildCore

/// One transaction of the PostgreSQL store, as a feature area's records see it: each area's protocol of
/// records and queries (`UserRecords`, ...) is implemented in a file of its own, `PostgresTransaction+Area.swift`,
/// over ``connection``, the way `GuildStore.SQLiteTransaction` does for SQLite. Once every area's protocol is
/// implemented it becomes the store's ``GuildCore/Transaction`` (protocol/postgresql.md, "Still to build").
///
/// Used only on the thread running the transaction, for its length.
public final class PostgresTransaction {
    /// The connection, inside the open transaction.
    public let connection: BlockingConnection
    private let context: PostgresWriteContext?
    /// The records the transaction changed, for the store's after-commit hooks.
    public private(set) var changedRecords: Set<RecordKey> = []

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

    /// Names a record the operation changed (see ``GuildCore/Transaction/changed(_:)``).
    public func changed(_ record: RecordKey) {
        self.changedRecords.insert(record)
    }

    /// Appends an area's event to the log; returns its sequence number (see ``GuildCore/EventRecords``).
    @discardableResult
    public func append(_ event: some LoggableEvent) throws -> Int64 {
        guard let context = self.context else { throw PostgresStoreError.readOnly }
        return try context.append(try PostgresEvent(event))
    }
}
