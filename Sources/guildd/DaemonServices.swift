import GuildServer
import GuildStore
import Logging
import ServiceLifecycle

/// Keeps the store open while the daemon runs; closes it (checkpointing the WAL) last on shutdown.
struct StoreService: Service {
    let store: SQLiteStore
    let logger: Logger

    func run() async throws {
        try? await gracefulShutdown()
        do {
            try self.store.close()
            self.logger.info("database closed", metadata: ["path": "\(self.store.configuration.path)"])
        } catch {
            self.logger.error("closing the database failed", metadata: ["error": "\(error)"])
        }
    }
}

/// Sends `WATCHDOG=1` at half the interval systemd asked for, until shutdown.
struct WatchdogService: Service {
    let interval: Duration

    func run() async throws {
        while !Task.isCancelled, !Task.isShuttingDownGracefully {
            Systemd.notify("WATCHDOG=1")
            try? await Task.sleep(for: self.interval / 2)
        }
    }
}

/// Exits the daemon after `timeout` with no connection open. It first stops accepting (under socket
/// activation the service manager keeps the listening socket, so new clients wait in its backlog and start
/// the next instance), then waits for any client that slipped in meanwhile to finish, so no one is refused.
struct IdleExitService: Service {
    let server: GuildServer
    let timeout: Duration
    let logger: Logger

    func run() async throws {
        let step = min(self.timeout / 4, .milliseconds(250))
        while !Task.isShuttingDownGracefully {
            try await Task.sleep(for: step)
            if let since = self.server.idleSince, ContinuousClock.now - since >= self.timeout {
                self.logger.info("idle: exiting", metadata: ["idle-exit": "\(self.timeout)"])
                self.server.stopAccepting()
                while self.server.connectionCount > 0, !Task.isShuttingDownGracefully {
                    try await Task.sleep(for: .milliseconds(20))
                }
                return
            }
        }
    }
}
