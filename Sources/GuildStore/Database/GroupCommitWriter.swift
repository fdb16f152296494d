import GRDB
import GuildCore
import Synchronization

/// Runs concurrent write operations in shared transactions ("group commit").
///
/// Every operation runs inside its own SAVEPOINT, so one that throws rolls back alone; the transaction
/// that holds them commits once, with one fsync for all of them. No caller returns before the commit that
/// contains its operation is durable. Whichever caller finds the writer idle starts a drain on the database's
/// writer thread, which commits batch after batch until the queue is empty: there is no background task to
/// own or to stop.
final class GroupCommitWriter: Sendable {
    private let writer: any DatabaseWriter
    private let publisher: EventPublisher
    private let hooks: CommitHooks
    private let storageFull: StorageFullLog
    private let queue: GroupCommitQueue<any PendingWrite>
    private let commitCount = Atomic<Int>(0)
    private let operationCount = Atomic<Int>(0)

    init(
        writer: any DatabaseWriter,
        publisher: EventPublisher,
        hooks: CommitHooks,
        storageFull: StorageFullLog = StorageFullLog(),
        maximumBatch: Int = 256
    ) {
        self.writer = writer
        self.publisher = publisher
        self.hooks = hooks
        self.storageFull = storageFull
        self.queue = GroupCommitQueue(maximumBatch: maximumBatch)
    }

    /// Runs `work` in a savepoint of a shared transaction and returns its result once that transaction
    /// is committed. Events `work` appends to its log are published after the commit, in commit order.
    func write<T: Sendable>(_ work: @escaping @Sendable (Database, EventLog) throws -> T) async throws -> T {
        let operation = TypedWrite(work)
        if try self.queue.append(operation, closedError: CancellationError()) {
            // Drain on the writer's own thread, batch after batch, until the queue is empty: no batch waits
            // for a hop back to a caller's thread before the next one starts.
            self.writer.asyncWriteWithoutTransaction { db in self.drain(db) }
        }
        do {
            return try await operation.value()
        } catch {
            throw self.storageFull.translate(error)
        }
    }

    /// Transactions committed so far, and the operations they held.
    var statistics: (commits: Int, operations: Int) {
        (self.commitCount.load(ordering: .relaxed), self.operationCount.load(ordering: .relaxed))
    }

    private func drain(_ db: Database) {
        while let batch = self.queue.nextBatch() {
            let started = StoreMetrics.now()
            do {
                try db.inTransaction(.immediate) {
                    for operation in batch {
                        if let error = operation.run(db), !db.isInsideTransaction {
                            // SQLite rolled the whole transaction back (it may on SQLITE_FULL or an I/O error):
                            // the operations before this one went with it, and GRDB would refuse those after it
                            // ("Transaction was aborted", an internal error to their callers). The batch fails as
                            // a whole with the cause, so a full disk is STORAGE_FULL for every operation in it.
                            throw error
                        }
                    }
                    return .commit
                }
                self.storageFull.recovered()
                self.commitCount.add(1, ordering: .relaxed)
                self.operationCount.add(batch.count, ordering: .relaxed)
                // Caches drop what the commit changed before any caller hears of it.
                self.hooks.committed(changing: batch.reduce(into: Set<RecordKey>()) { $0.formUnion($1.changed) })
                // Hand the events on before the next batch can commit, so subscribers see them in sequence order.
                let events = batch.flatMap { $0.events }
                StoreMetrics.committed(operations: batch.count, events: events.count, started: started)
                self.publisher.publish(events)
                for operation in batch { operation.committed() }
            } catch {
                for operation in batch { operation.failed(error) }
            }
        }
    }
}

private protocol PendingWrite: Sendable {
    var events: [CommittedEvent] { get }
    var changed: Set<RecordKey> { get }
    /// Runs the operation in its savepoint; returns its error, if it failed.
    func run(_ db: Database) -> (any Error)?
    func committed()
    func failed(_ error: any Error)
}

private final class TypedWrite<T: Sendable>: WriteOutcome<T>, PendingWrite, @unchecked Sendable {
    // @unchecked: `work` is immutable and `log` is only touched on the writer's thread, then read after the batch.
    private let work: @Sendable (Database, EventLog) throws -> T
    private let log = EventLog()

    init(_ work: @escaping @Sendable (Database, EventLog) throws -> T) {
        self.work = work
    }

    /// The events appended by the operation, if it succeeded (read after the batch ran).
    var events: [CommittedEvent] { self.log.events }

    /// The records the operation changed (kept even when it failed: dropping a cache entry is always safe).
    var changed: Set<RecordKey> { self.log.changed }

    func run(_ db: Database) -> (any Error)? {
        var returned: T?
        var failure: (any Error)?
        do {
            // A savepoint per operation, with statements prepared once per connection.
            try db.cachedStatement(sql: "SAVEPOINT operation").execute()
            do {
                returned = try self.work(db, self.log)
                try db.cachedStatement(sql: "RELEASE SAVEPOINT operation").execute()
            } catch {
                failure = error
                self.log.events = []
                // Unless SQLite already rolled the whole transaction back (then the drain fails the batch).
                if db.isInsideTransaction {
                    try db.cachedStatement(sql: "ROLLBACK TO SAVEPOINT operation").execute()
                    try db.cachedStatement(sql: "RELEASE SAVEPOINT operation").execute()
                }
            }
        } catch {
            // The operation's own error, if it failed, says more than the failed rollback.
            if failure == nil { failure = error }
            self.log.events = []
        }
        if let failure {
            self.ran(throwing: failure)
            return failure
        }
        guard let returned else {
            let error = CancellationError()
            self.ran(throwing: error)
            return error
        }
        self.ran(returning: returned)
        return nil
    }

    func committed() { self.settle(transactionError: nil) }

    func failed(_ error: any Error) { self.settle(transactionError: error) }
}
