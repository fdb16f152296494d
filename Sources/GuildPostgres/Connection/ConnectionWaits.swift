import NIOCore
import Synchronization

/// The waits for one PostgreSQL connection's answers, all ended when the connection closes.
///
/// postgres-nio may leave a statement unanswered when the server ends the session (`pg_ctl restart -m fast`
/// sends FATAL, then closes), so a wait must also end with the connection (protocol/postgresql.md, "Outages").
/// The connection's close gets one callback, however many statements it runs: a wait is held here only while it
/// is in progress and dropped when its answer comes, so a connection that lives for months keeps nothing of the
/// answers it has given (a callback on `closeFuture` per statement would keep each one, rows and all, until the
/// connection closed).
final class ConnectionWaits: Sendable {
    private struct State {
        var closed = false
        /// Why the connection is closing, when this side closes it (see ``close(because:)``).
        var reason: (any Error & Sendable)?
        var next = 0
        var failures: [Int: @Sendable (any Error) -> Void] = [:]
    }

    private let state = Mutex(State())
    /// What a wait fails with when the connection closed without answering and no reason was given.
    private let closedUnanswered: any Error & Sendable

    /// Follows the connection whose close is `closeFuture`; a wait it ends fails with `closedUnanswered` unless
    /// ``close(because:)`` gave a reason first.
    init(closeFuture: EventLoopFuture<Void>, closedUnanswered: any Error & Sendable) {
        self.closedUnanswered = closedUnanswered
        closeFuture.whenComplete { [weak self] _ in self?.failAll() }
    }

    /// `future`'s result, or a failure as soon as the connection closes without it.
    func untilClosed<Value: Sendable>(_ future: EventLoopFuture<Value>) -> EventLoopFuture<Value> {
        let promise = future.eventLoop.makePromise(of: Value.self)
        // A promise keeps its first result: an answer that comes after the close's failure is dropped.
        self.whenAnswered(future) { promise.completeWith($0) }
        return promise.futureResult
    }

    /// Calls `answer` with `future`'s result, or with a failure as soon as the connection closes without it; then
    /// maybe once more, with the result, if it comes after all (`answer` keeps the first). Called on `future`'s
    /// event loop, it adds its callback there without a hop to it.
    func whenAnswered<Value: Sendable>(
        _ future: EventLoopFuture<Value>,
        _ answer: @escaping @Sendable (Result<Value, any Error>) -> Void
    ) {
        let id: Int? = self.state.withLock { state in
            guard !state.closed else { return nil }
            state.next += 1
            state.failures[state.next] = { answer(.failure($0)) }
            return state.next
        }
        future.whenComplete { [weak self] result in
            if let id { _ = self?.state.withLock { $0.failures.removeValue(forKey: id) } }
            answer(result)
        }
        // Closed already: the wait fails now, unless the answer has come already (an answer that came while the
        // caller was off the event loop reaches `answer` later, and `answer` keeps its first result).
        if id == nil { answer(.failure(self.reason ?? self.closedUnanswered)) }
    }

    /// Records why this side is closing the connection, for the waits it ends and for ``reason``; false when it
    /// has closed already or a reason was given before.
    func close(because reason: any Error & Sendable) -> Bool {
        self.state.withLock { state in
            guard !state.closed, state.reason == nil else { return false }
            state.reason = reason
            return true
        }
    }

    /// Why this side closed the connection, if it did (postgres-nio fails a statement it cuts off as closed by the
    /// client: the caller says why instead).
    var reason: (any Error & Sendable)? { self.state.withLock { $0.reason } }

    /// How many waits are in progress.
    var count: Int { self.state.withLock { $0.failures.count } }

    /// Fails every wait in progress, and the ones to come: the connection closed.
    private func failAll() {
        let (failures, reason) = self.state.withLock { state in
            state.closed = true
            defer { state.failures = [:] }
            return (Array(state.failures.values), state.reason ?? self.closedUnanswered)
        }
        for fail in failures { fail(reason) }
    }
}
