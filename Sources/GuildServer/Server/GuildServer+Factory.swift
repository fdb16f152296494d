import GuildCore
import GuildProtocol
import Logging
import NIOCore
import NIOPosix

extension GuildServer {
    /// The storage the server needs: users, groups, the event log, and an integrity check.
    public typealias Storage = UserRepository & GroupRepository & EventRepository

    /// Builds the server with every Guild method registered.
    ///
    /// - Parameter failpoints: sets a named fault (`debug.setFailpoint`, for liveness tests); the method is
    ///   served only when this is given.
    public static func make(
        configuration: ServerConfiguration,
        storage: any Storage,
        hasher: any PasswordHashing,
        integrityCheck: @escaping @Sendable () async throws -> [String],
        writeStatistics: @escaping @Sendable () -> SystemStatus.Writes? = { nil },
        failpoints: (@Sendable (_ name: String, _ milliseconds: Int) throws -> Void)? = nil,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        logger: Logger,
        ready: @escaping @Sendable () -> Void = {}
    ) async throws -> GuildServer {
        let users = try await UserService(
            repository: storage,
            hasher: hasher,
            accessTokenLifetime: configuration.accessTokenLifetimeSeconds
        )
        let groups = GroupService(repository: storage)
        let hub = EventHub(
            repository: storage,
            queueLimit: configuration.subscriptionQueueLimit,
            maximumPerConnection: configuration.maximumSubscriptionsPerConnection
        )
        let connections = ConnectionRegistry(probePID: configuration.probePID)
        var registry = MethodRegistry()
        registry.registerSystemMethods(
            configuration: configuration,
            connections: connections,
            started: .now,
            writes: writeStatistics
        )
        registry.registerHealthMethod(events: storage)
        registry.registerCheckMethod(groups: storage, integrity: integrityCheck)
        if let failpoints { registry.registerFailpointMethod(failpoints) }
        registry.registerSessionMethods(users)
        registry.registerUserMethods(users)
        registry.registerGroupMethods(groups)
        registry.registerEventMethods(hub)
        registry.registerConformanceMethods()
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
            maximumBatchReplyBytes: configuration.maximumBatchReplyBytes
        )
        return GuildServer(
            configuration: configuration,
            dispatcher: dispatcher,
            connections: connections,
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
