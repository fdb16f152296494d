import Foundation
import GuildCore
import GuildProtocol
import Logging
import NIOCore
import NIOPosix

extension GuildServer {
    /// Builds the server with every feature area's methods registered (see ``areas(_:)``).
    ///
    /// - Parameters:
    ///   - failpoints: sets a named fault (`debug.setFailpoint`, for liveness tests); the method is served only
    ///     when this is given.
    ///   - listener: the socket to serve, if it was bound before (guildd binds it beside the store's opening);
    ///     otherwise `run()` binds `configuration.listen`.
    public static func make(
        configuration: ServerConfiguration,
        store: any Store,
        hasher: any PasswordHashing,
        writeStatistics: @escaping @Sendable () -> SystemStatus.Writes? = { nil },
        databaseStatus: @escaping @Sendable () -> SystemStatus.Database? = { nil },
        failpoints: (@Sendable (_ name: String, _ milliseconds: Int) throws -> Void)? = nil,
        operations: SystemOperations = .init(),
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        listener: ServerListener? = nil,
        logger: Logger,
        ready: @escaping @Sendable () -> Void = {}
    ) async throws -> GuildServer {
        let users = try await UserService(
            store: store,
            hasher: hasher,
            accessTokenLifetime: configuration.accessTokenLifetimeSeconds,
            deletionSteps: DeletionSteps.user
        )
        var thingService = ThingService(
            store: store,
            hasher: hasher,
            generations: users.generations,
            requirePasswordForOwnership: configuration.requireThingPasswordForOwnership,
            stateHistory: configuration.stateHistory,
            storageQuota: configuration.storageQuota,
            now: { [offset = configuration.thingClockOffsetMilliseconds] in Int64(Date().timeIntervalSince1970 * 1000) + offset }
        )
        thingService.presenceHost = PresenceHost(name: configuration.listen.hostName, lease: configuration.presenceLeaseMilliseconds)
        let wake = ScheduleWake()
        thingService.scheduleWake = wake
        thingService.scheduleCatchUp = configuration.scheduleCatchUp
        // Schedules without a zone are in the daemon's, stated by the name the environment gives it (`TZ=UTC`),
        // which Foundation on Linux would state as GMT.
        if let name = ProcessInfo.processInfo.environment["TZ"], let zone = TimeZone(identifier: name) {
            thingService.timeZone = zone
            thingService.timeZoneName = name
        }
        let things = thingService
        // This host takes its lease, and things left online by hosts that are gone (the last run) go offline,
        // before the first connection is served: one write transaction on the writer's connection, beside the
        // rest of the build.
        async let presenceReset: Void = things.startPresence()
        // The minute rollups kept or not as the state history limit says, before the first upload.
        async let rollupsReconciled: Void = things.reconcileStateRollups()
        let hub = EventHub(
            repository: store,
            queueLimit: configuration.subscriptionQueueLimit,
            maximumPerConnection: configuration.maximumSubscriptionsPerConnection,
            receipts: CommandDeliveries(things: things).receipts
        )
        let presence = ThingPresence(things: things)
        let services = ServerServices(
            configuration: configuration,
            store: store,
            users: users,
            groups: GroupService(store: store, messageOptions: configuration.messageOptions, deletionSteps: DeletionSteps.group),
            objects: ObjectService(store: store, storageQuota: configuration.storageQuota),
            things: things,
            thingPresence: presence,
            hub: hub,
            connections: ConnectionRegistry(probePID: configuration.probePID),
            writeStatistics: writeStatistics,
            databaseStatus: databaseStatus,
            failpoints: failpoints,
            operations: operations
        )
        let areas = Self.areas(services)
        var registry = MethodRegistry()
        for area in areas { area.register(in: &registry) }
        registry.registerCheckMethod(integrity: store.integrityCheck, invariants: areas.flatMap { $0.invariantChecks })
        let admission = Admission(
            limits: .init(
                perConnection: configuration.maximumExpensivePerConnection,
                perPrincipal: configuration.maximumExpensivePerPrincipal,
                daemon: configuration.maximumExpensive
            )
        )
        let dispatcher = Dispatcher(
            registry: registry,
            users: users,
            hub: hub,
            logger: logger,
            admission: admission,
            maximumBatchReplyBytes: configuration.maximumBatchReplyBytes,
            metrics: operations.measuresRequests ? RequestMetrics(methods: registry.methodNames) : nil,
            immediateReads: configuration.immediateReads ? ImmediateReads(store: store, logger: logger) : nil,
            bindingObserver: presence
        )
        try await presenceReset
        try await rollupsReconciled
        return GuildServer(
            configuration: configuration,
            dispatcher: dispatcher,
            connections: services.connections,
            schedules: ScheduleRunner(things: things, wake: wake, logger: logger),
            presenceLease: PresenceLeaseRunner(things: things, presence: presence, logger: logger),
            prebound: listener,
            group: group,
            logger: logger,
            ready: ready
        )
    }
}

/// Runs password hashing on NIO's blocking thread pool, so scrypt never holds up event loops or the
/// cooperative task pool.
public struct OffloadedPasswordHasher: PasswordHashing {
    let hasher: PasswordHasher
    let pool: NIOThreadPool

    /// Creates a hasher that runs `hasher` on `pool`.
    public init(_ hasher: PasswordHasher, pool: NIOThreadPool = .singleton) {
        self.hasher = hasher
        self.pool = pool
    }

    public func hash(_ password: String) async throws -> String {
        let hasher = self.hasher
        return try await self.pool.runIfActive { try hasher.makeHash(password) }
    }

    public func verify(_ password: String, against stored: String) async -> Bool {
        let hasher = self.hasher
        return (try? await self.pool.runIfActive { hasher.check(password, against: stored) }) ?? false
    }
}
