import GuildJSON

extension SystemMethods.Discover {
    public static let access: AccessRequirement = .anyone
    public static let contract = MethodContract(
        summary: "The OpenRPC document describing every method (this document).",
        tags: ["system"],
        result: "document",
        JSONSchema.object,
        example: .init(result: ["openrpc": "1.3.2"])
    )
}

extension SystemMethods.Check {
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

extension SystemMethods.Storage {
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

extension SystemMethods.Health {
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

extension SystemMethods.Ping {
    public static let access: AccessRequirement = .anyone
    public static let contract = MethodContract(
        summary: "Liveness check: returns \"pong\".",
        tags: ["system"],
        result: "pong",
        ["const": "pong", "type": "string"],
        example: .init(result: "pong")
    )
}

extension SystemMethods.Status {
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

extension SystemMethods.Metrics {
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

extension SystemMethods.Backup {
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

extension SystemMethods.SetFailpoint {
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
