import Foundation
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

/// Talks to systemd while the daemon runs: `WATCHDOG=1` at half the interval systemd asked for (if any),
/// and `STOPPING=1` as soon as shutdown begins. Registered last, so it is the first service told to stop.
struct SystemdNotifierService: Service {
    let watchdogInterval: Duration?

    func run() async throws {
        await withGracefulShutdownHandler {
            _ = try? await cancelWhenGracefulShutdown {
                while !Task.isCancelled {
                    if let interval = self.watchdogInterval {
                        Systemd.notify("WATCHDOG=1")
                        try await Task.sleep(for: interval / 2)
                    } else {
                        try await gracefulShutdown()
                    }
                }
            }
        } onGracefulShutdown: {
            Systemd.notify("STOPPING=1\nSTATUS=Stopping: finishing in-flight requests")
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

/// Prunes the event log to its retention (count and age) at start and every minute.
struct RetentionService: Service {
    let store: SQLiteStore
    let keepCount: Int64
    let maxAge: Duration
    let logger: Logger

    func run() async throws {
        try? await cancelWhenGracefulShutdown { try await self.loop() }
    }

    private func loop() async throws {
        while !Task.isCancelled {
            do {
                let removed = try await self.store.pruneEvents(
                    keepCount: self.keepCount,
                    maxAgeMilliseconds: self.maxAge.components.seconds * 1000,
                    now: Int64(Date().timeIntervalSince1970 * 1000)
                )
                if removed > 0 { self.logger.info("pruned events", metadata: ["count": "\(removed)"]) }
            } catch {
                self.logger.warning("pruning events failed", metadata: ["error": "\(error)"])
            }
            try await Task.sleep(for: .seconds(60))
        }
    }
}
