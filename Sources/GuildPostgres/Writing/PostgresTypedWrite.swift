import Synchronization

/// A queued write operation, as the writer's drain sees it.
protocol PostgresPendingWrite: Sendable {
    /// Runs the operation inside its savepoint; whether it succeeded.
    func run(_ context: PostgresWriteContext) -> Bool
    /// The transaction holding it committed.
    func committed()
    /// The transaction holding it failed (or never started) with `error`.
    func failed(_ error: any Error)
}

/// One caller's write: its work, its outcome, and the caller waiting for the commit.
final class PostgresTypedWrite<T: Sendable>: PostgresPendingWrite {
    private enum State {
        case pending(outcome: Result<T, any Error>?, waiting: CheckedContinuation<T, any Error>?)
        case done(Result<T, any Error>)
    }

    private let work: @Sendable (PostgresWriteContext) throws -> T
    private let state = Mutex(State.pending(outcome: nil, waiting: nil))

    init(_ work: @escaping @Sendable (PostgresWriteContext) throws -> T) {
        self.work = work
    }

    func run(_ context: PostgresWriteContext) -> Bool {
        let outcome = Result { try self.work(context) }
        self.state.withLock { state in
            if case .pending(_, let waiting) = state { state = .pending(outcome: outcome, waiting: waiting) }
        }
        if case .success = outcome { return true }
        return false
    }

    func committed() { self.finish(nil) }

    func failed(_ error: any Error) { self.finish(error) }

    private func finish(_ error: (any Error)?) {
        let resume: (CheckedContinuation<T, any Error>, Result<T, any Error>)? = self.state.withLock { state in
            guard case .pending(let outcome, let waiting) = state else { return nil }
            // The operation's own failure says more than the batch's; a batch that failed fails its successes.
            let final: Result<T, any Error> =
                switch (outcome, error) {
                case (.failure(let own)?, _): .failure(own)
                case (_, let error?): .failure(error)
                case (let outcome?, nil): outcome
                case (nil, nil): .failure(CancellationError())
                }
            state = .done(final)
            return waiting.map { ($0, final) }
        }
        if let (continuation, result) = resume { continuation.resume(with: result) }
    }

    func value() async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let ready: Result<T, any Error>? = self.state.withLock { state in
                switch state {
                case .done(let result):
                    return result
                case .pending(let outcome, let waiting):
                    precondition(waiting == nil, "a write's value is awaited once")
                    state = .pending(outcome: outcome, waiting: continuation)
                    return nil
                }
            }
            if let ready { continuation.resume(with: ready) }
        }
    }
}
