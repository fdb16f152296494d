import GuildJSON

/// `system.*` and `rpc.*`: liveness, status and discovery.
public enum SystemMethods: Sendable {
    /// `system.ping`: returns `"pong"`.
    public enum Ping: RPCMethod {
        public typealias Params = NoParams
        public typealias Result = String
        public static let name = "system.ping"

        public static let access: AccessRequirement = .anyone
        public static let contract = MethodContract(
            summary: "Liveness check: returns \"pong\".",
            tags: ["system"],
            result: "pong",
            ["const": "pong", "type": "string"],
            example: .init(result: "pong")
        )
    }

    /// `system.status`: version, uptime, activation mode, open connections and the database path.
    public enum Status: RPCMethod {
        public typealias Params = NoParams
        public typealias Result = SystemStatus
        public static let name = "system.status"

        public static let access: AccessRequirement = .anyone
        public static let contract = MethodContract(
            summary:
                "Version, uptime, activation mode, open connections, database path, how many transactions and writes the store has committed, and the database engine's health.",
            tags: ["system"],
            result: "status",
            JSONSchema.ref("SystemStatus"),
            example: .init(result: [
                "version": "0.1.0",
                "uptimeSeconds": 12.5,
                "activation": "socket-activated",
                "connections": 1,
                "databasePath": "/var/lib/guild/guild.sqlite",
                "pid": 4242,
                "writes": ["commits": 1830, "operations": 9544],
                "database": ["engine": "sqlite", "connected": true],
            ])
        )
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

        public static let access: AccessRequirement = .anyone
        public static let contract = MethodContract(
            summary:
                "Liveness through the request path: dispatch, a database read (the event log's head) and a reply. Unlike system.ping, it fails when requests cannot be served; the systemd watchdog is fed from it.",
            tags: ["system"],
            result: "health",
            JSONSchema.object(required: ["status", "seq"], ["status": ["const": "ok", "type": "string"], "seq": JSONSchema.integer]),
            example: .init(result: ["status": "ok", "seq": 1234])
        )
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

        public static let access: AccessRequirement = .admin
        public static let contract = MethodContract(
            summary:
                "SQLite's integrity check and Guild's group invariants (at most one owner, the owner is a member, member counts and user-group links agree). guildctl admin check.",
            tags: ["system"],
            result: "check",
            JSONSchema.object(
                required: ["ok", "integrity", "violations"],
                [
                    "ok": JSONSchema.boolean,
                    "integrity": JSONSchema.array(of: JSONSchema.string),
                    "violations": JSONSchema.array(of: JSONSchema.string),
                ]
            ),
            errors: [ErrorReason.permissionDenied],
            example: .init(result: ["ok": true, "integrity": ["ok"], "violations": []])
        )
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

        public static let access: AccessRequirement = .admin
        public static let contract = MethodContract(
            summary:
                "Bytes stored per area (object bodies, thing states, commands, group messages) and the ten owners storing the most, beside the per-owner storage quota (guildd --storage-quota-bytes; 0: none). A write past an owner's quota is QUOTA_EXCEEDED. guildctl admin storage.",
            tags: ["system"],
            result: "storage",
            JSONSchema.object(
                required: ["quotaBytes", "areas", "largest"],
                [
                    "quotaBytes": JSONSchema.integer,
                    "areas": JSONSchema.object(
                        required: ["objects", "states", "commands", "messages"],
                        [
                            "objects": JSONSchema.integer, "states": JSONSchema.integer,
                            "commands": JSONSchema.integer, "messages": JSONSchema.integer,
                        ]
                    ),
                    "largest": JSONSchema.array(
                        of: JSONSchema.object(required: ["owner", "bytes"], ["owner": JSONSchema.string, "bytes": JSONSchema.integer])
                    ),
                ]
            ),
            errors: [ErrorReason.permissionDenied],
            example: .init(
                result: [
                    "quotaBytes": 268_435_456,
                    "areas": ["objects": 52_144, "states": 10_240, "commands": 212, "messages": 96],
                    "largest": [["owner": "user:7f1c2e40-9a1b-4c3d-8e5f-60718293a4b5", "bytes": 52_144]],
                ]
            )
        )
    }

    /// `system.metrics` (admins): the daemon's metrics in Prometheus text exposition format (version 0.0.4),
    /// for node_exporter's textfile collector (`guildctl metrics`).
    public enum Metrics: RPCMethod {
        public typealias Params = NoParams
        public typealias Result = String
        public static let name = "system.metrics"

        public static let access: AccessRequirement = .admin
        public static let contract = MethodContract(
            summary:
                "Prometheus text exposition (0.0.4): requests and latency per method, errors per code, connections, subscriptions, events, group commits and database size. guildctl metrics.",
            tags: ["system"],
            result: "exposition",
            JSONSchema.string,
            errors: [ErrorReason.permissionDenied],
            example: .init(result: "# TYPE guild_connections gauge\nguild_connections 1\n")
        )
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

        public static let access: AccessRequirement = .admin
        public static let contract = MethodContract(
            summary:
                "Copies the live database to a new file with SQLite's online backup, without stopping writers; the copy holds every write acknowledged before the call. guildctl admin backup; restore with guildd --restore.",
            tags: ["system"],
            params: [
                .init("path", JSONSchema.string, required: true, "An absolute path that does not exist yet, writable by guildd")
            ],
            result: "backup",
            JSONSchema.object(
                required: ["path", "bytes", "seconds"],
                ["path": JSONSchema.string, "bytes": JSONSchema.integer, "seconds": JSONSchema.number]
            ),
            errors: [ErrorReason.permissionDenied, ErrorReason.invalidInputData],
            example: .init(
                params: ["path": "/var/lib/guild/backup/guild-2026-11-23.sqlite"],
                result: ["path": "/var/lib/guild/backup/guild-2026-11-23.sqlite", "bytes": 4_096_000, "seconds": 0.12]
            )
        )
    }

    /// `rpc.discover`: the OpenRPC document describing every method (`protocol/openrpc.json`).
    public enum Discover: RPCMethod {
        public typealias Params = NoParams
        public typealias Result = JSONValue
        public static let name = "rpc.discover"

        public static let access: AccessRequirement = .anyone
        public static let contract = MethodContract(
            summary: "The OpenRPC document describing every method (this document).",
            tags: ["system"],
            result: "document",
            JSONSchema.object,
            example: .init(result: ["openrpc": "1.3.2"])
        )
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

        public static let access: AccessRequirement = .admin
        /// Described like the others, but not published: it is not in ``OpenRPCContract/methods``.
        public static let contract = MethodContract(
            summary: "Injects a fault for tests of liveness; served only by a daemon started with --test-failpoints.",
            tags: ["debug"],
            params: [
                .init("name", JSONSchema.string, required: true, "store.readDelay"),
                .init("milliseconds", JSONSchema.integer, required: true, "The delay; 0 turns the failpoint off"),
            ],
            result: "set",
            JSONSchema.boolean,
            errors: [ErrorReason.permissionDenied],
            example: .init(params: ["name": "store.readDelay", "milliseconds": 100], result: true)
        )
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
        /// SQLite: the bytes it holds on guildd's heap (page caches, statements, schema), also the
        /// `guild_database_heap_bytes` gauge; absent for an engine whose memory is another process's.
        public var heapBytes: Int64?
        /// PostgreSQL: the read pool's connections now.
        public var readPool: ReadPool?

        /// A pool of read connections: how many it may open, how many are open and how many reads hold one.
        public struct ReadPool: Codable, Hashable, Sendable {
            /// The most connections the pool opens (`--readers`), also the most reads that run at once.
            public var size: Int
            /// Connections open now, idle or held by a read (the pool opens them as reads need them).
            public var open: Int
            /// Reads holding a connection now; a read waiting for a free one is not counted. Equal to `size`
            /// while reads queue for the pool.
            public var reading: Int

            /// Creates a read pool's figures.
            public init(size: Int, open: Int, reading: Int) {
                self.size = size
                self.open = open
                self.reading = reading
            }
        }

        /// Creates a database status.
        public init(
            engine: String,
            connected: Bool,
            eventCursor: Int64? = nil,
            followerConnects: Int? = nil,
            synchronous: String? = nil,
            heapBytes: Int64? = nil,
            readPool: ReadPool? = nil
        ) {
            self.engine = engine
            self.connected = connected
            self.eventCursor = eventCursor
            self.followerConnects = followerConnects
            self.synchronous = synchronous
            self.heapBytes = heapBytes
            self.readPool = readPool
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

extension SystemMethods {
    /// The system area's published methods, in the published contract (`protocol/openrpc.json`). A new method of the area is added here.
    public static let all: [any RPCMethod.Type] = [
        SystemMethods.Discover.self,
        SystemMethods.Backup.self,
        SystemMethods.Check.self,
        SystemMethods.Health.self,
        SystemMethods.Metrics.self,
        SystemMethods.Ping.self,
        SystemMethods.Status.self,
        SystemMethods.Storage.self,
    ]
}
