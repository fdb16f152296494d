import GuildCore

/// A queued write operation, as the writer's drain sees it.
protocol PostgresPendingWrite: Sendable {
    /// Runs the operation inside its savepoint; whether it succeeded.
    func run(_ context: PostgresWriteContext) -> Bool
    /// The operation returned, but its savepoint could not be released because one of its statements had failed
    /// (`error`, which it did not throw on): it failed, and is rolled back.
    func refuse(_ error: any Error)
    /// The transaction holding it committed.
    func committed()
    /// The transaction holding it failed (or never started) with `error`.
    func failed(_ error: any Error)
}

/// One caller's write: its work, and (as a ``WriteOutcome``) the outcome the caller waits for.
final class PostgresTypedWrite<T: Sendable>: WriteOutcome<T>, PostgresPendingWrite, @unchecked Sendable {
    // @unchecked: `work` is immutable; the outcome's state is behind its Mutex.
    private let work: @Sendable (PostgresWriteContext) throws -> T

    init(_ work: @escaping @Sendable (PostgresWriteContext) throws -> T) {
        self.work = work
    }

    func run(_ context: PostgresWriteContext) -> Bool {
        do {
            let value = try self.work(context)
            if context.waitsForItsStatements { try context.connection.flush() }
            // A quiet lane refused an append that the work caught: without its event, the operation is not done.
            guard !context.refusedAppend else {
                self.ran(throwing: PostgresWriteRedirect(appends: true))
                return false
            }
            self.ran(returning: value)
            return true
        } catch {
            if context.refusedAppend {
                self.ran(throwing: PostgresWriteRedirect(appends: true))
            } else if !context.mayAppend && PostgresWriteRedirect.isLockTimeout(error) {
                self.ran(throwing: PostgresWriteRedirect(appends: false))
            } else if PostgresStoreError.endsSession(error) {
                // The session ended under the operation (the server restarting): its transaction cannot commit,
                // so nothing was written, whatever the operation would have said.
                self.ran(
                    throwing: PostgresStoreError.unavailable(
                        "the connection to PostgreSQL dropped: \(PostgresStoreError.summary(of: error))"
                    )
                )
            } else {
                self.ran(throwing: error)
            }
            return false
        }
    }

    func refuse(_ error: any Error) { self.ran(throwing: error) }

    func committed() { self.settle(transactionError: nil) }

    func failed(_ error: any Error) { self.settle(transactionError: error) }
}
