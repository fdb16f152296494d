import Synchronization

/// One queued write's outcome and the caller waiting for it, the same for every engine: the drain records
/// what the operation returned or threw (``ran(returning:)``, ``ran(throwing:)``), then settles it when its
/// transaction committed or failed (``settle(transactionError:)``); the caller awaits ``value()``, before or
/// after either.
///
/// A class each engine's queued write subclasses, so that a write is one allocation.
///
/// The result is kept type-erased (`any Sendable`) and cast back once in ``value()``: the write path is generic
/// in `T` and reached through the `Store` protocol, so it runs unspecialised, and state typed by `T` made the
/// Swift runtime look up the metadata of `Result<T, _>`, `Optional<T>` and `CheckedContinuation<T, _>` on every
/// copy (about 15% of a durable write's instructions, protocol/performance.md).
open class WriteOutcome<T: Sendable>: @unchecked Sendable {
    // @unchecked: the state is behind a Mutex; subclasses add only immutable or themselves protected state.
    private let state = Mutex(WriteOutcomeState.pending(ran: nil, waiting: nil))

    /// Creates a pending outcome.
    public init() {}

    /// Records what the operation returned; its transaction is still open.
    public final func ran(returning value: T) {
        self.record(.success(value))
    }

    /// Records what the operation threw; its transaction is still open.
    public final func ran(throwing error: any Error) {
        self.record(.failure(error))
    }

    private func record(_ outcome: Result<any Sendable, any Error>) {
        self.state.withLock { state in
            if case .pending(_, let waiting) = state { state = .pending(ran: outcome, waiting: waiting) }
        }
    }

    /// Settles the outcome once its transaction is over: nil when it committed. The operation's own failure
    /// says more than the transaction's; a transaction that failed fails the operations that succeeded in it.
    public final func settle(transactionError: (any Error)?) {
        typealias Resumption = (CheckedContinuation<any Sendable, any Error>, Result<any Sendable, any Error>)
        let resume: Resumption? = self.state.withLock { state in
            guard case .pending(let ran, let waiting) = state else { return nil }
            let final: Result<any Sendable, any Error> =
                switch (ran, transactionError) {
                case (.failure(let own)?, _): .failure(own)
                case (_, let error?): .failure(error)
                case (let ran?, nil): ran
                case (nil, nil): .failure(CancellationError())
                }
            state = .done(final)
            return waiting.map { ($0, final) }
        }
        if let (continuation, result) = resume { continuation.resume(with: result) }
    }

    /// The operation's result once its transaction committed; its error, or the transaction's, otherwise.
    public final func value() async throws -> T {
        // A success can only have been recorded by `ran(returning:)`, as a `T`.
        try await self.erasedValue() as! T
    }

    private func erasedValue() async throws -> any Sendable {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<any Sendable, any Error>) in
            let ready: Result<any Sendable, any Error>? = self.state.withLock { state in
                switch state {
                case .done(let result):
                    return result
                case .pending(let ran, let waiting):
                    precondition(waiting == nil, "a write's value is awaited once")
                    state = .pending(ran: ran, waiting: continuation)
                    return nil
                }
            }
            if let ready { continuation.resume(with: ready) }
        }
    }
}

/// A ``WriteOutcome``'s state, outside the generic class so that it is one concrete type.
private enum WriteOutcomeState {
    case pending(ran: Result<any Sendable, any Error>?, waiting: CheckedContinuation<any Sendable, any Error>?)
    case done(Result<any Sendable, any Error>)
}
