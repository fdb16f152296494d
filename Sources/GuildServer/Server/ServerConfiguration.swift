import GuildCore
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
    /// The most bytes one connection may have queued for writing (replies and notifications together). A
    /// subscription whose connection is over it ends with `events.ended` LAGGED; the connection is not read
    /// from while its replies wait.
    public var maximumOutputBytes: Int = 4 * 1024 * 1024
    /// The most bytes one batch's replies may take together; later entries get -32005 RESPONSE_TOO_LARGE.
    public var maximumBatchReplyBytes: Int = 4 * 1024 * 1024
    /// How long a line may take to arrive once its first byte has: past it the connection gets -32600
    /// FRAME_TIMEOUT and is closed.
    public var frameTimeoutSeconds: Double = 10
    /// The most connections one peer uid may hold at once (admins are not counted against it).
    public var maximumConnectionsPerUID: Int = 256
    /// Connections kept for admin peers (root and `--admin-uid`) beyond `maximumConnections`, so an admin
    /// always gets a slot.
    public var adminConnectionReserve: Int = ServerConfiguration.defaultAdminConnectionReserve
    /// The default ``adminConnectionReserve``.
    public static let defaultAdminConnectionReserve = 64
    /// How long a connection from a non-admin peer may stay without a session, a subscription or a request
    /// before it gets -32006 IDLE_TIMEOUT and is closed; 0 never.
    public var idleTimeoutSeconds: Double = 60
    /// Expensive calls (``GuildProtocol/RPCMethod/isExpensive``) running at once: per connection, per
    /// principal, and in the daemon (keep it below the store's reader count).
    public var maximumExpensivePerConnection: Int = 2
    /// See ``maximumExpensivePerConnection``.
    public var maximumExpensivePerPrincipal: Int = 2
    /// See ``maximumExpensivePerConnection``.
    public var maximumExpensive: Int = 4
    /// Connections from this process id are the daemon's own health probes: not counted as open connections
    /// (idle exit, `system.status`). guildd sets its own pid; nil (an in-process server) counts every one.
    public var probePID: Int32?
    /// Group messages: retention, per-user rate, AVChatRoom rate (guildd's `--message-*` options).
    public var messageOptions = MessageOptions()
    /// Cheap reads (`object.get`) run at once on the connection's event loop, on its own read-only connection,
    /// when they can (see ``MethodRegistry/registerRead(_:store:_:)``); false: always as tasks (guildd's hidden
    /// `--no-immediate-reads`, to measure the difference).
    public var immediateReads = true
    /// `thing.addOwner` needs the thing's password from callers other than the thing and admins (guildd's
    /// `--require-thing-password-for-ownership`, Kii's `requirePasswordForThingOwnership`).
    public var requireThingPasswordForOwnership = false
    /// How much state history each thing keeps (guildd's `--state-history-count` and `--state-history-days`).
    public var stateHistory = StateHistoryLimits.standard
    /// The bytes each owner may store (guildd's `--storage-quota-bytes`).
    public var storageQuota = StorageQuota.standard
    /// How late a schedule found due (after the daemon was down at its time) may still fire.
    public var scheduleCatchUp = ScheduleCatchUp.standard
    /// Added to the wall clock for things (schedules, trigger results, states' upload times): guildd's hidden
    /// `--test-clock-start`, so that tests can put a daemon just before a schedule's due time. 0 in production.
    public var thingClockOffsetMilliseconds: Int64 = 0
    /// How long a host's presence lease lasts, in ms (``PresenceHost``): where hosts share a store, a host that
    /// dies takes its things offline within this and two fifths of it.
    public var presenceLeaseMilliseconds: Int64 = PresenceHost.defaultLease

    /// Creates a configuration with the documented defaults.
    public init(
        listen: ListenSource,
        maximumFrameBytes: Int = 1024 * 1024,
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
public enum ListenSource: Sendable, Hashable, CustomStringConvertible {
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

    /// The socket path and mode, or the inherited descriptor, as the start-up log shows them. Written out
    /// rather than reflected: the reflection behind a plain `"\(value)"` costs start-up a scan of every
    /// protocol conformance in the binary per type it meets.
    public var description: String {
        switch self {
        case .path(let path, let mode): "\(path) (mode \(String(mode, radix: 8)))"
        case .inherited(let descriptor): "inherited descriptor \(descriptor)"
        }
    }
}

/// The version of Guild.
public enum GuildVersion {
    /// The current version string.
    public static let current = "0.1.0"
}
