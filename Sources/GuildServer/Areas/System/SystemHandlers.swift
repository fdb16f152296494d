import Foundation
import GuildCore
import GuildProtocol

extension MethodRegistry {
    /// `system.ping`, `system.status` and `rpc.discover`.
    mutating func registerSystemMethods(
        configuration: ServerConfiguration,
        connections: ConnectionRegistry,
        started: ContinuousClock.Instant,
        writes: @escaping @Sendable () -> SystemStatus.Writes?
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
                writes: writes()
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
