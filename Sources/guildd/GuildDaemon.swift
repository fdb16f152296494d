import ArgumentParser
import Foundation
import GuildCore
import GuildPostgres
import GuildProtocol
import GuildServer
import GuildStore
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import UnixSignals

/// `guildd`: the Guild daemon.
@main
struct GuildDaemon: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "guildd",
        abstract: "Serve Guild's users, groups and events as JSON-RPC 2.0 over a Unix socket.",
        discussion: """
            Under systemd (guildd.socket) or systemd-socket-activate, guildd adopts the listening socket it is \
            given; otherwise it binds --socket itself. It notifies systemd (READY=1, STATUS=, STOPPING=1, \
            WATCHDOG=1) and stops gracefully on SIGTERM or SIGINT: no new connections, in-flight requests \
            finish, the database is closed, exit 0.

            Fixed limits on what one principal may make guildd keep (options below set the others): \
            \(ThingService.maximumInstallationsPerUser) installations per user, \
            \(ThingService.maximumPendingCommands) commands pending per thing, \
            \(ThingService.maximumTriggers) triggers per thing, firing at most \
            \(ThingService.maximumTriggerFiringsPerSecond) times in any second, states of \
            \(ThingRules.maximumStateBytes) bytes, object bodies of \(ObjectService.maximumBodyCharacters) \
            characters. Past them: QUOTA_EXCEEDED (42902) with data.limit and data.usage, or a triggerSkipped \
            event; see the README's Operations section.
            """,
        version: GuildVersion.current
    )

    @Option(
        help:
            "Socket path to bind when not socket-activated (default: $RUNTIME_DIRECTORY/guild.sock, $XDG_RUNTIME_DIR/guild/guild.sock, or /run/guild/guild.sock as root)."
    )
    var socket: String?

    @Option(help: "Mode of the bound socket file, in octal.")
    var socketMode: String = "0660"

    @Option(
        help: """
            SQLite database file (default: $STATE_DIRECTORY/guild.sqlite, else $XDG_STATE_HOME or ~/.local/state, /guild/guild.sqlite), \
            or a PostgreSQL database shared by several hosts: postgresql://USER@HOST[:PORT]/DATABASE, or \
            postgresql://USER@/DATABASE?host=/socket/dir; the password comes from a password file (passfile=PATH, \
            PGPASSFILE or ~/.pgpass), never the URL.
            """
    )
    var database: String?

    @Option(help: "SQLite synchronous mode: FULL (every acknowledged write survives power loss) or NORMAL.")
    var synchronous: String = "FULL"

    @Option(name: .customLong("admin-uid"), help: "A peer uid with admin rights, besides root (repeatable; default: guildd's own uid).")
    var adminUIDs: [UInt32] = []

    @Option(help: "Exit after this many seconds with no connection open (0: never).")
    var idleExit: Double = 0

    @Option(help: "Largest accepted frame (one line), in bytes.")
    var maxFrameBytes: Int = 1024 * 1024

    @Option(help: "Seconds one line may take to arrive once its first byte has; then the connection is closed.")
    var frameTimeout: Double = 10

    @Option(help: "Most bytes one batch's replies may take; later entries get RESPONSE_TOO_LARGE.")
    var maxBatchReplyBytes: Int = 4 * 1024 * 1024

    @Option(help: "Most bytes a connection may leave unread (replies and notifications) before its subscriptions end LAGGED.")
    var maxOutputBytes: Int = 4 * 1024 * 1024

    @Option(help: "Most entries in one batch.")
    var maxBatch: Int = 1000

    @Option(help: "Most requests in flight per connection.")
    var maxInFlight: Int = 256

    @Option(help: "Most connections at once (default 4096, lowered to fit the descriptor limit); admins get 64 more.")
    var maxConnections: Int?

    @Option(help: "Most connections one non-admin peer uid may hold.")
    var maxConnectionsPerUid: Int = 256

    @Option(help: "Seconds a non-admin connection may sit with no session, subscription or request before it is closed (0: never).")
    var idleTimeout: Double = 60

    @Option(help: "Expensive calls (system.check, large lists) running at once in the daemon; below the reader count.")
    var maxExpensive: Int = 4

    @Option(help: "Database reader threads: the bound on concurrent reads (default: CPUs + 2, at least 6).")
    var readers: Int = SQLiteStore.Configuration.defaultReaders

    @Option(
        help:
            "PostgreSQL only: write connections (1 to 16): one for writes that append events, the rest for writes that never do (profile updates, logins)."
    )
    var postgresWriteConnections: Int = PostgresStore.Configuration.defaultWriteConnections

    @Option(help: "Seconds SIGTERM may take: in-flight work finishes or is cancelled within it, then guildd exits.")
    var shutdownTimeout: Double = 5

    @Flag(help: .hidden)
    var testFailpoints = false

    /// Where the things' clock starts (ms since the Unix epoch; it then runs with the wall clock), for tests of
    /// schedules around their due times.
    @Option(help: .hidden)
    var testClockStart: Int64?

    @Option(
        help:
            "Seconds a host's presence lease lasts on a shared database: a host that dies takes its things offline for the others within 1.4 times this."
    )
    var presenceLease: Double = Double(PresenceHost.defaultLease) / 1000

    @Option(help: "Seconds a connection may leave its replies unread before it is closed.")
    var writeStallTimeout: Double = 30

    @Option(help: "Events kept for resuming subscriptions: at most this many ...")
    var eventRetentionCount: Int64 = 1_000_000

    @Option(help: "... and none older than this many days.")
    var eventRetentionDays: Int64 = 30

    @Option(help: "Days group messages are kept for history; older ones are deleted.")
    var messageRetentionDays: Double = 7

    @Option(help: "group.sendMessage calls one user may make per second (over it: 10023).")
    var messageRatePerUser: Int = 50

    @Option(help: "Messages an AVChatRoom delivers per second; over it, lower priorities are discarded first.")
    var avchatroomMessagesPerSecond: Int = 40

    @Option(help: "Events one subscription may have unsent before it ends as LAGGED.")
    var subscriptionQueue: Int = 10_000

    @Option(help: "Most subscriptions per connection.")
    var maxSubscriptions: Int = 1024

    @Option(help: "Access token lifetime in seconds (Kii's default: 2147483647).")
    var tokenLifetime: Int64 = 2_147_483_647

    @Option(help: "scrypt cost as log2(N) for new password hashes (15: N = 32768).")
    var scryptLogN: Int = 15

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: String = "info"

    @Flag(help: "thing.addOwner needs the thing's password (except from the thing itself and admins).")
    var requireThingPasswordForOwnership = false

    @Option(help: "States kept per thing: each upload drops the oldest past this many (the latest always stays).")
    var stateHistoryCount: Int = StateHistoryLimits.standard.count

    @Option(help: "Days a thing's state is kept after its upload (checked at each upload of the thing).")
    var stateHistoryDays: Int = StateHistoryLimits.standard.days

    @Option(
        help:
            "Bytes of stored bodies (objects, states, commands, messages) one user, group or thing may have: past it, object writes and commands are QUOTA_EXCEEDED (0: no quota)."
    )
    var storageQuotaBytes: Int64 = StorageQuota.standard.bytes

    @Flag(help: .hidden)
    var noImmediateReads = false

    @Option(help: "glibc's mmap and trim thresholds in bytes, fixed at start (0: glibc's adaptive ones; GLIBC_TUNABLES wins).")
    var mallocThreshold: Int = 128 << 10

    @Flag(help: "Do not measure each request (system.metrics then has no per-method counts, latencies or errors).")
    var noRequestMetrics = false

    @Option(
        help: ArgumentHelp(
            "Replace the database (--database or the default) with this backup (guildctl admin backup), then exit. Stop guildd first.",
            valueName: "backup"
        ),
        completion: .file()
    )
    var restore: String?

    func validate() throws {
        guard UInt32(self.socketMode, radix: 8) != nil else { throw ValidationError("--socket-mode must be octal, e.g. 0660") }
        guard (1...20).contains(self.scryptLogN) else { throw ValidationError("--scrypt-log-n must be 1...20") }
        guard (0.1...3600).contains(self.presenceLease) else { throw ValidationError("--presence-lease must be 0.1...3600 seconds") }
        guard Logger.Level(rawValue: self.logLevel) != nil else { throw ValidationError("unknown --log-level") }
        guard ["FULL", "NORMAL", "EXTRA"].contains(self.synchronous.uppercased()) else {
            throw ValidationError("--synchronous must be FULL, NORMAL or EXTRA")
        }
        guard self.messageRetentionDays > 0, self.messageRatePerUser > 0, self.avchatroomMessagesPerSecond > 0 else {
            throw ValidationError("--message-retention-days, --message-rate-per-user and --avchatroom-messages-per-second must be positive")
        }
        guard self.readers >= 3 else { throw ValidationError("--readers must be at least 3") }
        guard (1...16).contains(self.postgresWriteConnections) else {
            throw ValidationError("--postgres-write-connections must be 1 to 16")
        }
        guard (1...(self.readers - 2)).contains(self.maxExpensive) else {
            throw ValidationError("--max-expensive must be 1 to --readers minus 2 (\(self.readers - 2)), so cheap reads always find a reader")
        }
        guard self.shutdownTimeout > 0, self.frameTimeout > 0 else {
            throw ValidationError("--shutdown-timeout and --frame-timeout must be positive")
        }
        // Bounded, so that no duration or age overflows when it is turned into nanoseconds or milliseconds.
        let seconds: [(String, Double)] = [
            ("--idle-exit", self.idleExit), ("--frame-timeout", self.frameTimeout), ("--idle-timeout", self.idleTimeout),
            ("--shutdown-timeout", self.shutdownTimeout), ("--write-stall-timeout", self.writeStallTimeout),
        ]
        for (option, value) in seconds where !(value.isFinite && (0...Self.longestSeconds).contains(value)) {
            throw ValidationError("\(option) must be 0 to \(Int(Self.longestSeconds)) seconds (a year)")
        }
        guard (0...Self.longestDays).contains(self.eventRetentionDays), self.messageRetentionDays <= Double(Self.longestDays) else {
            throw ValidationError("--event-retention-days and --message-retention-days must be at most \(Self.longestDays) (a century)")
        }
        guard self.stateHistoryCount >= 1 else { throw ValidationError("--state-history-count must be at least 1") }
        guard (1...Self.longestDays).contains(Int64(self.stateHistoryDays)) else {
            throw ValidationError("--state-history-days must be 1 to \(Self.longestDays) (a century)")
        }
        guard (0...GlibcMalloc.largestThreshold).contains(self.mallocThreshold) else {
            throw ValidationError("--malloc-threshold must be 0 to \(GlibcMalloc.largestThreshold) bytes (32 MiB)")
        }
        guard self.storageQuotaBytes >= 0 else { throw ValidationError("--storage-quota-bytes must not be negative") }
        guard self.eventRetentionCount >= 0 else { throw ValidationError("--event-retention-count must not be negative") }
        guard (Self.smallestFrame...Self.largestFrame).contains(self.maxFrameBytes) else {
            throw ValidationError("--max-frame-bytes must be \(Self.smallestFrame) to \(Self.largestFrame) (1 GiB)")
        }
    }

    /// The frame limit's bounds: room for any request's envelope, and at most 1 GiB held for one line.
    static let smallestFrame = 256
    static let largestFrame = 1 << 30

    /// The longest duration an option in seconds may name.
    static let longestSeconds: Double = 366 * 86_400
    /// The longest retention an option in days may name.
    static let longestDays: Int64 = 36_500

    func run() async throws {
        let level = Logger.Level(rawValue: self.logLevel) ?? .info
        // Under systemd (stderr is the journal stream) structured entries through sd_journal_sendv; else lines.
        let journal = JournalLogHandler.stderrIsJournal()
        LoggingSystem.bootstrap { label in
            if journal {
                var handler = JournalLogHandler(label: label)
                handler.logLevel = level
                return handler
            }
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "guildd")
        let environment = ProcessInfo.processInfo.environment
        // Before the allocations of start-up: from here on, large buffers and freed memory follow these thresholds.
        let thresholds = GlibcMalloc.fixThresholds(bytes: self.mallocThreshold, environment: environment)
        logger.debug("malloc thresholds", metadata: ["thresholds": "\(thresholds)"])
        // Before anything answers on the socket: a stop request from then on is a graceful shutdown, and arms the
        // backstop, which also ends a start-up that is stuck (a database that does not answer) when it comes then.
        let earlySignals = await EarlySignals(signals: [SIGTERM, SIGINT])
        let shutdownTimeout = Duration.milliseconds(Int64(self.shutdownTimeout * 1000))
        let backstop = ShutdownBackstop(deadline: shutdownTimeout + .seconds(2), logger: logger)
        await backstop.watch([SIGTERM, SIGINT])

        let descriptors = Descriptors.raiseSoftLimit()
        let maxConnections = try Descriptors.connectionLimit(requested: self.maxConnections, descriptors: descriptors, logger: logger)

        let usesPostgres = DaemonStore.isPostgres(self.database)
        let databasePath = self.database ?? Self.defaultDatabasePath(environment)
        if let backup = self.restore {
            if usesPostgres {
                throw ValidationError("--restore replaces a SQLite file; restore a PostgreSQL database with PostgreSQL's own tools")
            }
            try Self.restore(backup: backup, to: databasePath, socket: self.socket ?? Self.defaultSocketPath(environment))
            return
        }
        let exposition = DaemonMetrics.bootstrap()
        let listen: ListenSource =
            if let descriptor = Systemd.listenDescriptor() {
                .inherited(descriptor: descriptor)
            } else {
                .path(self.socket ?? Self.defaultSocketPath(environment), mode: UInt32(self.socketMode, radix: 8) ?? 0o660)
            }
        // NIO's threads start and the socket is bound (or adopted) on an event loop while this task opens the
        // store; nothing is accepted before the server runs.
        async let listening = Self.startListening(listen, logger: logger)
        let opened: DaemonStore
        do {
            opened = try await self.openStore(databasePath, postgres: usesPostgres, environment: environment, logger: logger)
        } catch {
            await listening.close()
            throw error
        }
        let listener = await listening
        let store = opened.store
        let databaseName = opened.name

        var configuration = ServerConfiguration(
            listen: listen,
            maximumFrameBytes: self.maxFrameBytes,
            maximumBatchSize: self.maxBatch,
            maximumInFlightPerConnection: self.maxInFlight,
            maximumConnections: maxConnections,
            writeStallTimeoutSeconds: self.writeStallTimeout,
            adminUIDs: self.adminUIDs.isEmpty ? [getuid()] : Set(self.adminUIDs),
            databasePath: databaseName
        )
        configuration.accessTokenLifetimeSeconds = self.tokenLifetime > 0 ? self.tokenLifetime : nil
        configuration.subscriptionQueueLimit = self.subscriptionQueue
        configuration.maximumSubscriptionsPerConnection = self.maxSubscriptions
        configuration.frameTimeoutSeconds = self.frameTimeout
        configuration.maximumBatchReplyBytes = self.maxBatchReplyBytes
        configuration.maximumOutputBytes = self.maxOutputBytes
        configuration.maximumConnectionsPerUID = self.maxConnectionsPerUid
        configuration.idleTimeoutSeconds = self.idleTimeout
        configuration.maximumExpensive = self.maxExpensive
        configuration.probePID = getpid()
        configuration.immediateReads = !self.noImmediateReads
        configuration.requireThingPasswordForOwnership = self.requireThingPasswordForOwnership
        configuration.stateHistory = StateHistoryLimits(count: self.stateHistoryCount, days: self.stateHistoryDays)
        configuration.storageQuota = StorageQuota(bytes: self.storageQuotaBytes)
        configuration.presenceLeaseMilliseconds = Int64(self.presenceLease * 1000)
        if let start = self.testClockStart {
            configuration.thingClockOffsetMilliseconds = start - Int64(Date().timeIntervalSince1970 * 1000)
        }
        configuration.messageOptions = MessageOptions(
            retentionMilliseconds: Int64(self.messageRetentionDays * 86_400_000),
            messagesPerUserPerSecond: self.messageRatePerUser,
            liveRoomMessagesPerSecond: self.avchatroomMessagesPerSecond
        )
        let failpoints = self.testFailpoints ? opened.setFailpoint : nil
        let server: GuildServer
        do {
            server = try await GuildServer.make(
                configuration: configuration,
                store: store,
                hasher: OffloadedPasswordHasher(PasswordHasher(logN: self.scryptLogN)),
                writeStatistics: opened.writeStatistics,
                databaseStatus: opened.status,
                failpoints: failpoints,
                operations: SystemOperations(
                    exposition: exposition,
                    backup: opened.backup,
                    measuresRequests: !self.noRequestMetrics
                ),
                listener: listener,
                logger: logger
            ) {
                Systemd.notify("READY=1\nSTATUS=Serving JSON-RPC (\(listen.activation.rawValue)), database \(databaseName)")
            }
        } catch {
            await listener.close()
            throw error
        }

        // Each service is named: without a name, ServiceLifecycle describes the service with "\(service)", a
        // reflection of its whole object graph that cost start-up 1.5 ms of scanning protocol conformances.
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(service: StoreService(name: databaseName, close: opened.close, logger: logger), serviceName: "StoreService"),
            .init(service: server, serviceName: "GuildServer"),
            .init(
                service: RetentionService(
                    store: store,
                    keepCount: self.eventRetentionCount,
                    maxAge: .seconds(self.eventRetentionDays * 86_400),
                    pruneMessages: { [groups = GroupService(store: store, messageOptions: configuration.messageOptions)] pause in
                        try await groups.pruneMessages(pause: pause)
                    },
                    logger: logger
                ),
                serviceName: "RetentionService"
            ),
            .init(service: MemoryTrimService(interval: .seconds(60)), serviceName: "MemoryTrimService"),
        ]
        services.append(
            .init(
                service: AfterStartupService(server: server, logger: logger),
                successTerminationBehavior: .ignore,
                serviceName: "AfterStartupService"
            )
        )
        if self.idleExit > 0 {
            services.append(
                .init(
                    service: IdleExitService(server: server, timeout: .milliseconds(Int64(self.idleExit * 1000)), logger: logger),
                    successTerminationBehavior: .gracefullyShutdownGroup,
                    serviceName: "IdleExitService"
                )
            )
        }
        services.append(
            .init(
                service: SystemdNotifierService(
                    watchdogInterval: Systemd.watchdogInterval(),
                    probe: { timeout in await server.probe(timeout: timeout) },
                    backstop: backstop,
                    logger: logger
                ),
                serviceName: "SystemdNotifierService"
            )
        )
        var groupConfiguration = ServiceGroupConfiguration(
            services: services,
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger
        )
        // Past the timeout, graceful shutdown turns into cancellation; the notifier's backstop ends the process
        // if even that does not finish (a read blocked in SQLite cannot be cancelled).
        groupConfiguration.maximumGracefulShutdownDuration = shutdownTimeout
        let group = ServiceGroup(configuration: groupConfiguration)
        await earlySignals.forward(to: group)
        try await group.run()
    }

    // MARK: - Start-up

    /// Starts NIO's event loops and blocking pool (thread start-up, about half a millisecond) and binds or adopts
    /// the listening socket on an event loop.
    static func startListening(_ source: ListenSource, logger: Logger) -> ServerListener {
        _ = NIOThreadPool.singleton
        return ServerListener(source, group: MultiThreadedEventLoopGroup.singleton, logger: logger)
    }

    /// Opens (and migrates) the store `--database` names.
    func openStore(_ databasePath: String, postgres: Bool, environment: [String: String], logger: Logger) async throws -> DaemonStore {
        if postgres {
            do {
                return try await DaemonStore.postgres(
                    url: databasePath,
                    readers: self.readers,
                    writeConnections: self.postgresWriteConnections,
                    logger: logger
                )
            } catch let error as PostgresStoreError {
                // A wrong URL, refused credentials or a newer schema: said plainly, and guildd does not start.
                throw ValidationError("--database: \(error)")
            }
        }
        do {
            return try DaemonStore.sqlite(
                .init(
                    path: databasePath,
                    synchronous: self.synchronous,
                    maximumReaders: self.readers,
                    // The default state directory is Guild's own (under systemd, StateDirectoryMode= decides).
                    ownsDirectory: self.database == nil && environment["STATE_DIRECTORY"] == nil
                )
            )
        } catch let error as SQLiteStore.FileError {
            // A directory or file that cannot be created: said plainly, and guildd does not start.
            throw ValidationError("--database: \(error)")
        } catch {
            // SQLite's errors say what went wrong (not a database, cannot open), not with which file.
            throw ValidationError("--database \(databasePath): \(error)")
        }
    }

    // MARK: - Restore

    /// `--restore`: refuses while a daemon answers on `socket`, then replaces the database with the backup.
    static func restore(backup: String, to database: String, socket: String) throws {
        if GuildServer.isServing(socketPath: socket) {
            throw ValidationError("a daemon is listening on \(socket): stop it (systemctl stop guildd.socket guildd.service) before --restore")
        }
        do {
            try SQLiteStore.restore(backup: backup, to: database)
        } catch let error as SQLiteStore.BackupError {
            throw ValidationError("--restore: \(error)")
        }
        print("restored \(database) from \(backup)")
    }

    // MARK: - Defaults

    static func defaultSocketPath(_ environment: [String: String]) -> String {
        if let runtime = environment["RUNTIME_DIRECTORY"], !runtime.isEmpty {
            return runtime.split(separator: ":").first.map { "\($0)/guild.sock" } ?? "/run/guild/guild.sock"
        }
        if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty { return runtime + "/guild/guild.sock" }
        return getuid() == 0 ? "/run/guild/guild.sock" : "/run/user/\(getuid())/guild/guild.sock"
    }

    static func defaultDatabasePath(_ environment: [String: String]) -> String {
        if let state = environment["STATE_DIRECTORY"], !state.isEmpty {
            return state.split(separator: ":").first.map { "\($0)/guild.sqlite" } ?? "/var/lib/guild/guild.sqlite"
        }
        if let state = environment["XDG_STATE_HOME"], !state.isEmpty { return state + "/guild/guild.sqlite" }
        let home = environment["HOME"] ?? NSHomeDirectory()
        return home + "/.local/state/guild/guild.sqlite"
    }
}
