import GuildJSON

/// `system.*` and `rpc.*`: liveness, status and discovery.
public enum SystemMethods: Sendable {
    /// `system.ping`: returns `"pong"`.
    public enum Ping: RPCMethod {
        public typealias Params = NoParams
        public typealias Result = String
        public static let name = "system.ping"
    }

    /// `system.status`: version, uptime, activation mode, open connections and the database path.
    public enum Status: RPCMethod {
        public typealias Params = NoParams
        public typealias Result = SystemStatus
        public static let name = "system.status"
    }

    /// `system.health`: a liveness check that goes where requests go (dispatch, a database read, a reply),
    /// unlike `system.ping`, which the connection answers by itself. The systemd watchdog is fed from it.
    public enum Health: RPCMethod {
        public typealias Params = NoParams
        public typealias Result = Health.Report
        public static let name = "system.health"

        /// What a health probe read.
        public struct Report: Codable, Hashable, Sendable {
            /// Always `"ok"` (a daemon that is not healthy does not answer).
            public var status: String
            /// The event log's head, read from the database.
            public var seq: Int64

            /// Creates a report.
            public init(status: String = "ok", seq: Int64) {
                self.status = status
                self.seq = seq
            }
        }
    }

    /// `system.check` (admins): SQLite's integrity check and Guild's group invariants (at most one owner,
    /// the owner is a member, member counts and both directions of the user-group links agree).
    public enum Check: RPCMethod {
        public typealias Params = NoParams
        public struct Result: Codable, Hashable, Sendable {
            public var ok: Bool
            public var integrity: [String]
            public var violations: [String]
            public init(ok: Bool, integrity: [String], violations: [String]) {
                self.ok = ok
                self.integrity = integrity
                self.violations = violations
            }
        }
        public static let name = "system.check"
        public static var isExpensive: Bool { true }
    }

    /// `system.storage` (admins): the bytes stored per area and the owners storing the most, against the
    /// per-owner storage quota (guildd's `--storage-quota-bytes`).
    public enum Storage: RPCMethod {
        public typealias Params = NoParams
        public struct Result: Codable, Hashable, Sendable {
            /// The most bytes one owner may store; 0: no quota.
            public var quotaBytes: Int64
            /// Bytes stored per area (`objects`, `states`, `commands`, `messages`), every area present.
            public var areas: [String: Int64]
            /// The ten owners (`user:ID`, `group:ID`, `thing:ID`) storing the most, most first.
            public var largest: [Owner]
            public init(quotaBytes: Int64, areas: [String: Int64], largest: [Owner]) {
                self.quotaBytes = quotaBytes
                self.areas = areas
                self.largest = largest
            }
        }
        /// One owner's usage.
        public struct Owner: Codable, Hashable, Sendable {
            public var owner: String
            public var bytes: Int64
            public init(owner: String, bytes: Int64) {
                self.owner = owner
                self.bytes = bytes
            }
        }
        public static let name = "system.storage"
    }

    /// `system.metrics` (admins): the daemon's metrics in Prometheus text exposition format (version 0.0.4),
    /// for node_exporter's textfile collector (`guildctl metrics`).
    public enum Metrics: RPCMethod {
        public typealias Params = NoParams
        public typealias Result = String
        public static let name = "system.metrics"
    }

    /// `system.backup` (admins): a consistent copy of the live database, made with SQLite's online backup
    /// while writers go on. The copy holds every write acknowledged before the call began.
    public enum Backup: RPCMethod {
        public struct Params: Codable, Hashable, Sendable {
            /// Where the daemon writes the copy: an absolute path that does not exist yet, in a directory the
            /// daemon may write to. The file gets mode 0600.
            public var path: String
            public init(path: String) {
                self.path = path
            }
        }
        public struct Result: Codable, Hashable, Sendable {
            /// The copy's path.
            public var path: String
            /// The copy's size in bytes.
            public var bytes: Int64
            /// How long the copy took.
            public var seconds: Double
            public init(path: String, bytes: Int64, seconds: Double) {
                self.path = path
                self.bytes = bytes
                self.seconds = seconds
            }
        }
        public static let name = "system.backup"
        public static var isExpensive: Bool { true }
    }

    /// `rpc.discover`: the OpenRPC document describing every method (`protocol/openrpc.json`).
    public enum Discover: RPCMethod {
        public typealias Params = NoParams
        public typealias Result = JSONValue
        public static let name = "rpc.discover"
    }

    /// `debug.setFailpoint` (admins; served only by a daemon started with `--test-failpoints`): injects a
    /// fault, for tests of liveness. Not part of the published contract.
    public enum SetFailpoint: RPCMethod {
        public struct Params: Codable, Hashable, Sendable {
            /// The failpoint: `store.readDelay` (every database read takes `milliseconds` longer, blocking its
            /// reader thread like a slow query).
            public var name: String
            /// The delay; 0 turns the failpoint off.
            public var milliseconds: Int
            public init(name: String, milliseconds: Int) {
                self.name = name
                self.milliseconds = milliseconds
            }
        }
        public typealias Result = Bool
        public static let name = "debug.setFailpoint"
    }
}

/// The result of `system.status`.
public struct SystemStatus: Codable, Hashable, Sendable {
    /// How the daemon got its listening socket.
    public enum Activation: String, Codable, Hashable, Sendable {
        /// Inherited from systemd (or `systemd-socket-activate`).
        case socketActivated = "socket-activated"
        /// Bound by the daemon itself (`--socket`).
        case bound
    }

    /// The daemon's version.
    public var version: String
    /// Seconds since the daemon started.
    public var uptimeSeconds: Double
    /// How the listening socket was obtained.
    public var activation: Activation
    /// Connections open right now, this one included.
    public var connections: Int
    /// The SQLite database file.
    public var databasePath: String
    /// The daemon's process id.
    public var pid: Int32
    /// Writes since the daemon started (absent from daemons that do not count them).
    public var writes: Writes?
    /// The database engine and its health (absent from daemons that do not report it).
    public var database: Database?

    /// The database engine and its health.
    public struct Database: Codable, Hashable, Sendable {
        /// `sqlite` (the embedded file) or `postgresql` (a database shared by several hosts).
        public var engine: String
        /// Whether the daemon's write connection is open (always for SQLite; for PostgreSQL, false while the
        /// server cannot be reached, until a write reconnects).
        public var connected: Bool
        /// PostgreSQL: the last event of any host this host has read from the shared log.
        public var eventCursor: Int64?
        /// PostgreSQL: how many times the log's follower has connected (more than once after drops).
        public var followerConnects: Int?
        /// SQLite: the write connection's `PRAGMA synchronous` as read back from it at start-up (`FULL`: every
        /// commit is fsynced before its callers are answered; `NORMAL` with `--synchronous NORMAL`).
        public var synchronous: String?

        /// Creates a database status.
        public init(
            engine: String,
            connected: Bool,
            eventCursor: Int64? = nil,
            followerConnects: Int? = nil,
            synchronous: String? = nil
        ) {
            self.engine = engine
            self.connected = connected
            self.eventCursor = eventCursor
            self.followerConnects = followerConnects
            self.synchronous = synchronous
        }
    }

    /// How the store's group commit has gone since the daemon started.
    public struct Writes: Codable, Hashable, Sendable {
        /// Transactions committed, each made durable with one fsync.
        public var commits: Int
        /// Write operations those transactions held (each mutating call is one or more).
        public var operations: Int

        /// Creates write counts.
        public init(commits: Int, operations: Int) {
            self.commits = commits
            self.operations = operations
        }
    }

    /// Creates a status.
    public init(
        version: String,
        uptimeSeconds: Double,
        activation: Activation,
        connections: Int,
        databasePath: String,
        pid: Int32,
        writes: Writes? = nil,
        database: Database? = nil
    ) {
        self.version = version
        self.uptimeSeconds = uptimeSeconds
        self.activation = activation
        self.connections = connections
        self.databasePath = databasePath
        self.pid = pid
        self.writes = writes
        self.database = database
    }
}
