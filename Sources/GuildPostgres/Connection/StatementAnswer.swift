import NIOConcurrencyHelpers
import PostgresNIO

/// One statement's answer on a ``BlockingConnection``: given once on the connection's event loop, read on the
/// store's thread, which blocks only while it has not come.
///
/// An `EventLoopFuture`'s `wait()` from another thread always goes through the event loop (it adds its callback
/// there), so the waiting thread is woken by the loop even for an answer that came long before; here the answer is
/// handed over as it arrives, and a thread that asks for an answer already there takes it without a wake-up.
final class StatementAnswer: @unchecked Sendable {
    /// 0 until the answer is in ``result``, then 1; guards ``result``.
    private let condition = ConditionLock(value: 0)
    private var result: Result<PostgresQueryResult, any Error>?

    /// Gives the answer; an answer given after the first is ignored (a statement cut off by the connection's close
    /// may still be answered later).
    func give(_ result: Result<PostgresQueryResult, any Error>) {
        self.condition.lock()
        guard self.result == nil else { return self.condition.unlock() }
        self.result = result
        self.condition.unlock(withValue: 1)
    }

    /// The answer, once given.
    func wait() throws -> PostgresQueryResult {
        self.condition.lock(whenValue: 1)
        defer { self.condition.unlock() }
        // Set before the value became 1, never again after.
        return try self.result!.get()
    }
}
