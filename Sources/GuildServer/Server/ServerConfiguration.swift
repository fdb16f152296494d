import GuildProtocol

/// Everything the server needs to know about where it listens and what it tolerates.
public struct ServerConfiguration: Sendable {
    /// The listening socket: inherited from systemd, or bound at a path.
    public var listen: ListenSource
    /// The largest frame (one line) accepted, in bytes. A larger one gets -32600 FRAME_TOO_LARGE and the
    /// connection is closed.
    public var maximumFrameBytes: Int
    /// The most entries one batch may have.
    public var maximumBatchSize: Int
    /// The deepest JSON nesting accepted.
    public var maximumNestingDepth: Int
    /// The most requests one connection may have running at once; more get -32001 TOO_MANY_REQUESTS.
    public var maximumInFlightPerConnection: Int
    /// The most connections served at once; more get -32002 TOO_MANY_CONNECTIONS and are closed.
    public var maximumConnections: Int
    /// How long a connection may leave its replies unread (the socket not writable) before it is closed.
    public var writeStallTimeoutSeconds: Double
    /// Peer uids with admin rights besides root.
    public var adminUIDs: Set<UInt32>
    /// The daemon's version, reported by `system.status`.
    public var version: String
    /// The database path, reported by `system.status`.
    public var databasePath: String
    /// How long an access token lives, in seconds; nil for ever.
    public var accessTokenLifetimeSeconds: Int64? = 2_147_483_647
    /// The most events one subscription may have queued (not yet written to its socket) before it ends
    /// with `events.ended` LAGGED.
    public var subscriptionQueueLimit: Int = 10_000
    /// The most subscriptions one connection may hold.
    public var maximumSubscriptionsPerConnection: Int = 1024

    /// Creates a configuration with the documented defaults.
    public init(
        listen: ListenSource,
        maximumFrameBytes: Int = 16 * 1024 * 1024,
        maximumBatchSize: Int = 1000,
        maximumNestingDepth: Int = 128,
        maximumInFlightPerConnection: Int = 256,
        maximumConnections: Int = 4096,
        writeStallTimeoutSeconds: Double = 30,
        adminUIDs: Set<UInt32> = [],
        version: String = GuildVersion.current,
        databasePath: String = ""
    ) {
        self.listen = listen
        self.maximumFrameBytes = maximumFrameBytes
        self.maximumBatchSize = maximumBatchSize
        self.maximumNestingDepth = maximumNestingDepth
        self.maximumInFlightPerConnection = maximumInFlightPerConnection
        self.maximumConnections = maximumConnections
        self.writeStallTimeoutSeconds = writeStallTimeoutSeconds
        self.adminUIDs = adminUIDs
        self.version = version
        self.databasePath = databasePath
    }
}

/// Where the server's listening socket comes from.
public enum ListenSource: Sendable, Hashable {
    /// Bind a Unix socket at `path` (replacing a stale socket file) and set its mode.
    case path(String, mode: UInt32)
    /// Adopt a listening socket passed by systemd (`sd_listen_fds`).
    case inherited(descriptor: Int32)

    /// How `system.status` reports it.
    public var activation: SystemStatus.Activation {
        switch self {
        case .path: .bound
        case .inherited: .socketActivated
        }
    }
}

/// The version of Guild.
public enum GuildVersion {
    /// The current version string.
    public static let current = "0.1.0"
}
