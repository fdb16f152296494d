import CoreMetrics
import Foundation
import GuildCore
import GuildServer
import GuildStore
import Logging
import NIOPosix
import ServiceLifecycle

/// Keeps the store open while the daemon runs; closes it last on shutdown (SQLite checkpoints its WAL;
/// PostgreSQL's connections are closed).
struct StoreService: Service {
    /// What the store is, for the log.
    let name: String
    let close: @Sendable () async throws -> Void
    let logger: Logger

    func run() async throws {
        try? await gracefulShutdown()
        do {
            // Also when the group was cancelled (a service failed at start-up): a task of its own, which does not
            // inherit the cancellation, so the store still checkpoints and closes instead of failing at once.
            let close = self.close
            try await Task { try await close() }.value
            self.logger.info("database closed", metadata: ["path": "\(self.name)"])
        } catch {
            self.logger.error("closing the database failed", metadata: ["error": "\(error)"])
        }
    }
}

/// What start-up leaves for later, once it is over; then returns. Waits a moment first, so that the first requests
/// of a socket-activated start are served before it:
/// - makes the request instruments of the methods no request has called yet
///   (``GuildServer/prepareRequestMetrics()``), so that the metrics list every method before anything scrapes;
/// - drops the process's mappings of the executable's code (``ExecutableText``): start-up leaves about 20 MiB of
///   code resident that serving never runs again.
struct AfterStartupService: Service {
    let server: GuildServer
    let logger: Logger

    func run() async throws {
        guard (try? await Task.sleep(for: .milliseconds(100))) != nil, !Task.isShuttingDownGracefully else { return }
        self.server.prepareRequestMetrics()
        let bytes = ExecutableText.releaseResidentPages()
        self.logger.debug("released the start-up code's mappings", metadata: ["bytes": "\(bytes)"])
    }
}

/// Talks to systemd while the daemon runs, and bounds shutdown.
///
/// - `WATCHDOG=1` is sent only after a health probe (``GuildServer/probe(timeout:)``: `system.health`
///   through the daemon's own socket, a database read and a reply) succeeded, at a third of the interval
///   systemd asked for: a daemon that cannot serve requests stops feeding the watchdog and systemd restarts it,
///   even while `system.ping` still answers.
/// - `STOPPING=1` as soon as shutdown begins, and the ``ShutdownBackstop`` armed: if the process is still
///   running `shutdownTimeout` plus two seconds later (in-flight work that could be neither finished nor
///   cancelled), it exits with status 1 from a thread of its own.
///
/// Registered last, so it is the first service told to stop.
struct SystemdNotifierService: Service {
    let watchdogInterval: Duration?
    let probe: @Sendable (Duration) async -> Bool
    /// Armed when shutdown begins (if the signal that began it has not armed it already).
    let backstop: ShutdownBackstop
    let logger: Logger

    func run() async throws {
        await withGracefulShutdownHandler {
            _ = try? await cancelWhenGracefulShutdown {
                var healthy = true
                while !Task.isCancelled {
                    if let interval = self.watchdogInterval {
                        let period = interval / 3
                        let started = ContinuousClock.now
                        let passed = await self.probe(period)
                        if passed {
                            Systemd.notify(healthy ? "WATCHDOG=1" : "WATCHDOG=1\nSTATUS=Serving JSON-RPC (health probe passes again)")
                        }
                        if passed != healthy {
                            healthy = passed
                            if passed {
                                self.logger.notice("health probe passes again: feeding the watchdog")
                            } else {
                                Systemd.notify("STATUS=Health probe failing: requests are not being served")
                                self.logger.warning(
                                    "health probe failed: not feeding the watchdog until it passes",
                                    metadata: ["timeout": "\(period)"]
                                )
                            }
                        }
                        try await Task.sleep(until: started + period)
                    } else {
                        try await gracefulShutdown()
                    }
                }
            }
        } onGracefulShutdown: {
            Systemd.notify("STOPPING=1\nSTATUS=Stopping: finishing in-flight requests")
            self.backstop.arm()
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

/// Prunes the event log to its retention (count and age), and group messages to theirs, at start and every
/// minute. Events go in batches of ``EventPruning/batchSize``, each its own transaction, so the writes that
/// arrive meanwhile wait for one batch, not for a minute's worth; after each full batch it rests
/// (``EventPruning/pause(after:resting:minimum:spread:)``), so a minute's twenty batches do not come back to back.
struct RetentionService: Service {
    let store: any EventRepository
    let keepCount: Int64
    let maxAge: Duration
    /// Deletes group messages past their retention, resting with the given pause after each full batch; how many.
    let pruneMessages: @Sendable (_ pause: @escaping @Sendable (Duration) async throws -> Void) async throws -> Int
    let logger: Logger

    /// What the retention removed (`guild-bench soak` counts them per minute).
    static let prunedEvents = Counter(label: "guild_events_pruned_total")
    static let prunedMessages = Counter(label: "guild_messages_pruned_total")

    func run() async throws {
        try? await cancelWhenGracefulShutdown { try await self.loop() }
    }

    /// The rests after the full batches of a round that started at `start`.
    private static func rests(from start: ContinuousClock.Instant) -> @Sendable (Duration) async throws -> Void {
        { took in try await Task.sleep(for: EventPruning.pause(after: took, resting: .now - start)) }
    }

    private func loop() async throws {
        while !Task.isCancelled {
            do {
                let rest = Self.rests(from: .now)
                let removed = try await self.store.pruneEvents(
                    keepCount: self.keepCount,
                    maxAgeMilliseconds: self.maxAge.components.seconds * 1000,
                    now: Int64(Date().timeIntervalSince1970 * 1000),
                    pause: rest
                )
                if removed > 0 {
                    self.logger.info("pruned events", metadata: ["count": "\(removed)"])
                    Self.prunedEvents.increment(by: removed)
                }
                let messages = try await self.pruneMessages(rest)
                if messages > 0 {
                    self.logger.info("pruned group messages", metadata: ["count": "\(messages)"])
                    Self.prunedMessages.increment(by: messages)
                }
            } catch is CancellationError {
                // Shutdown, in a batch or (likelier now) in a rest between two: nothing failed.
                return
            } catch {
                self.logger.warning("pruning events failed", metadata: ["error": "\(error)"])
            }
            try await Task.sleep(for: .seconds(60))
        }
    }
}
