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
}
