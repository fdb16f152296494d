import Logging
import NIOCore
import PostgresNIO

extension PostgresConnection {
    /// Closes the connection and keeps it alive until it has closed (postgres-nio requires a connection to be
    /// closed before it is released), without waiting here.
    func closeKeepingAlive() {
        let closing: EventLoopFuture<Void> = self.close()
        closing.whenComplete { _ in withExtendedLifetime(self) {} }
    }

    /// Runs `query` and returns its rows, or fails as soon as the connection closes or `timeout` passes: a
    /// query in flight when the server ends the connection (its backend killed, a restart) must not leave the
    /// follower waiting on it.
    func queryUntilClosed(_ query: PostgresQuery, timeout: TimeAmount, logger: Logger) async throws -> [PostgresRow] {
        let eventLoop = self.eventLoop
        let outcome = eventLoop.makePromise(of: [PostgresRow].self)
        eventLoop.execute {
            // Everything below runs on the connection's event loop, so the flag needs no lock.
            let settled = NIOLoopBoundBox(false, eventLoop: eventLoop)
            @Sendable func settle(_ result: Result<[PostgresRow], any Error>) {
                guard !settled.value else { return }
                settled.value = true
                outcome.completeWith(result)
            }
            self.query(query, logger: logger).whenComplete { settle($0.map(\.rows)) }
            self.closeFuture.whenComplete { _ in settle(.failure(PostgresStoreError.unavailable("the connection closed"))) }
            eventLoop.scheduleTask(in: timeout) { settle(.failure(PostgresStoreError.unavailable("no reply within \(timeout)"))) }
        }
        return try await outcome.futureResult.get()
    }
}
