import Foundation
import GuildCore
import GuildProtocol

extension MethodRegistry {
    /// `system.ping`, `system.status` and `rpc.discover`.
    mutating func registerSystemMethods(
        configuration: ServerConfiguration,
        connections: ConnectionRegistry,
        started: ContinuousClock.Instant,
        writes: @escaping @Sendable () -> SystemStatus.Writes?,
        database: @escaping @Sendable () -> SystemStatus.Database?
    ) {
        self.registerConstant(SystemMethods.Ping.self, json: Array(#""pong""#.utf8))
        // Built on first use: parsing the 69 KB document at start-up would cost every idle daemon its memory.
        self.registerConstant(SystemMethods.Discover.self) { OpenRPCDocument.compactJSON }
        let pid = ProcessInfo.processInfo.processIdentifier
        self.registerInline(SystemMethods.Status.self) { _, _ in
            let elapsed = ContinuousClock.now - started
            return SystemStatus(
                version: configuration.version,
                uptimeSeconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18,
                activation: configuration.listen.activation,
                connections: connections.count,
                databasePath: configuration.databasePath,
                pid: pid,
                writes: writes(),
                database: database()
            )
        }
    }

    /// `system.health`: reads the event log's head through the store, so it answers only when requests can
    /// be served.
    mutating func registerHealthMethod(events: any EventRepository) {
        self.register(SystemMethods.Health.self) { _, _ in
            .init(seq: try await events.eventSnapshot(userID: nil).head)
        }
    }

    /// `debug.setFailpoint` (admins), for liveness tests; registered only with `--test-failpoints`.
    mutating func registerFailpointMethod(_ set: @escaping @Sendable (String, Int) throws -> Void) {
        self.register(SystemMethods.SetFailpoint.self) { params, _ in
            try set(params.name, params.milliseconds)
            return true
        }
    }

    /// `system.check` (admins): the store's integrity and every area's invariants.
    mutating func registerCheckMethod(
        integrity: @escaping @Sendable () async throws -> [String],
        invariants: [@Sendable () async throws -> [String]]
    ) {
        self.register(SystemMethods.Check.self) { _, _ in
            let integrity = try await integrity()
            var violations: [String] = []
            for check in invariants { violations += try await check() }
            return .init(ok: integrity == ["ok"] && violations.isEmpty, integrity: integrity, violations: violations)
        }
    }
}

extension MethodRegistry {
    /// `system.metrics` and `system.backup` (admins).
    mutating func registerOperationsMethods(
        _ operations: SystemOperations,
        store: any Store,
        configuration: ServerConfiguration,
        connections: ConnectionRegistry,
        hub: EventHub
    ) {
        self.register(SystemMethods.Metrics.self) { _, _ in
            ServerGauges.update(
                connections: connections.count,
                subscriptions: hub.count,
                databaseBytes: ServerGauges.databaseBytes(configuration.databasePath),
                databaseHeapBytes: store.engineHeapBytes
            )
            try await StorageGauges.update(store)
            return operations.exposition?() ?? ""
        }
        self.register(SystemMethods.Backup.self) { params, _ in
            let path = params.path
            guard path.hasPrefix("/") else {
                throw GuildError(.invalidInput, "path must be absolute (the daemon's working directory is not yours)", field: "path")
            }
            guard !FileManager.default.fileExists(atPath: path) else {
                throw GuildError(.invalidInput, "\(path) already exists; a backup never overwrites a file", field: "path")
            }
            guard let backup = operations.backup else {
                throw GuildError(.invalidInput, "this daemon's store cannot be backed up", field: "path")
            }
            let started = ContinuousClock.now
            let bytes = try await backup(path)
            let elapsed = ContinuousClock.now - started
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            return .init(path: path, bytes: bytes, seconds: seconds)
        }
    }
}
